/** Delivery of signed callbacks to a merchant URL the way the platform delivers them, with its faults: drops, repeats, reordering, retries, time-outs and the URL block (rules Platform 23 and 25). */

import { type Clock, systemClock } from '@paywire/core'

/**
 * The courier's default waits between delivery attempts, in ms (platform-like: the platform does not
 * publish its schedule; rule Platform 25 says some accounts get no retries at all: `retries: false`).
 */
export const COURIER_RETRIES_MS: readonly number[] = Object.freeze([60_000, 300_000, 900_000, 3_600_000])

/**
 * Rule Platform 23: `timeouts` time-outs within `withinMs` (inclusive) block the callback URL for
 * `blockMs`, on the courier's clock.
 */
export const CALLBACK_URL_BLOCK = Object.freeze({ timeouts: 5, withinMs: 300_000, blockMs: 900_000 })

export interface CallbackCourierOptions {
  /** The merchant's callback URL; each callback is a form-encoded POST to it. */
  readonly url: string
  /** Due times, holds and the URL block are measured on `clock.now()`. Default core's `systemClock`. */
  readonly clock?: Clock
  /** Numbers in [0, 1) that decide the faults; default `Math.random` (tests pass a seeded one). */
  readonly random?: () => number
  /** Probability (0..1) that a callback is never sent at all. Default 0. */
  readonly drop?: number
  /** Probability (0..1) that a callback that is sent is sent twice (two deliveries). Default 0. */
  readonly twice?: number
  /**
   * Probability (0..1) that a callback that is sent is held back and sent right after the next
   * callback of the same order that is not itself held or dropped, or after `holdMs` if none comes.
   * Default 0.
   */
  readonly outOfOrder?: number
  /** How long a held-back callback waits for the next one of its order, in ms. Default 60 000. */
  readonly holdMs?: number
  /**
   * Waits in ms after each failed attempt (non-2xx, network error, time-out, or due while the URL is
   * blocked); when they run out the callback is lost. `false`: sent once, never retried (rule
   * Platform 25). Default `COURIER_RETRIES_MS`.
   */
  readonly retries?: readonly number[] | false
  /**
   * An attempt unanswered this long (real time: a network wait) is a time-out (rule Platform 23).
   * Default 10 000.
   */
  readonly timeoutMs?: number
}

/** What the courier did, counted since it was made. */
export interface CallbackCourierStats {
  /** Callbacks given to `send`. */
  readonly queued: number
  /** Callbacks never sent (`drop`). */
  readonly dropped: number
  /** Callbacks sent twice (`twice`): each adds one delivery. */
  readonly duplicated: number
  /** Callbacks held back (`outOfOrder`). */
  readonly reordered: number
  /** Delivery attempts, those failed at once while the URL was blocked included. */
  readonly attempts: number
  /** HTTP requests made: `attempts` less `failedWhileBlocked`, plus any attempt `stop()` aborted. */
  readonly sent: number
  /** Deliveries answered 2xx. */
  readonly delivered: number
  /** Attempts unanswered within `timeoutMs`. */
  readonly timeouts: number
  /** Attempts that came due while the URL was blocked: failed without a request (rule Platform 23). */
  readonly failedWhileBlocked: number
  /** Deliveries whose last attempt failed with no retry left. */
  readonly lost: number
}

interface Delivery {
  readonly body: string
  readonly orderId: string
  dueAt: number
  seq: number
  attempts: number
}

interface Held {
  readonly body: string
  readonly orderId: string
  readonly copies: number
  readonly until: number
}

type Outcome = 'delivered' | 'failed' | 'timeout' | 'stopped'

/**
 * Delivers signed callback bodies to a merchant URL as the platform does (rules Platform 23 and 25):
 * one form-encoded POST per attempt, a 2xx answer delivers it, anything else is retried per
 * `retries`; five time-outs within five minutes block the URL for 15 minutes, during which every
 * attempt fails without a request. Faults are drawn per callback from `random`: three numbers per
 * `send`, in order drop, twice, out-of-order.
 *
 * Feed it from the simulator: `new CardGatewaySimulator({ onCallback: (body, p) => courier.send(body, p.order_id) })`.
 * With a test clock, call `tick()` after each `clock.advance()`; with the system clock `start()`
 * runs it on timers.
 */
export class CallbackCourier {
  readonly #url: string
  readonly #clock: Clock
  readonly #random: () => number
  readonly #drop: number
  readonly #twice: number
  readonly #outOfOrder: number
  readonly #holdMs: number
  readonly #retries: readonly number[]
  readonly #timeoutMs: number
  readonly #stats = {
    queued: 0,
    dropped: 0,
    duplicated: 0,
    reordered: 0,
    attempts: 0,
    sent: 0,
    delivered: 0,
    timeouts: 0,
    failedWhileBlocked: 0,
    lost: 0,
  }
  #queue: Delivery[] = []
  #held: Held[] = []
  /** Clock times of the latest time-outs (at most `CALLBACK_URL_BLOCK.timeouts`). */
  #timeoutTimes: number[] = []
  #blockedUntil: number | undefined
  #seq = 0
  #run: Promise<void> = Promise.resolve()
  #started = false
  #timer: ReturnType<typeof setTimeout> | undefined
  #stop = new AbortController()

  constructor(options: CallbackCourierOptions) {
    if (typeof options.url !== 'string' || options.url === '') throw new TypeError('CallbackCourier: url is required')
    this.#url = options.url
    this.#clock = options.clock ?? systemClock
    this.#random = options.random ?? Math.random
    this.#drop = probability('drop', options.drop)
    this.#twice = probability('twice', options.twice)
    this.#outOfOrder = probability('outOfOrder', options.outOfOrder)
    this.#holdMs = duration('holdMs', options.holdMs ?? 60_000)
    this.#retries = options.retries === false ? [] : (options.retries ?? COURIER_RETRIES_MS)
    for (const [i, ms] of this.#retries.entries()) duration(`retries[${i}]`, ms)
    this.#timeoutMs = duration('timeoutMs', options.timeoutMs ?? 10_000)
    if (this.#timeoutMs === 0) throw new RangeError('CallbackCourier: timeoutMs must be above 0')
  }

  /** A copy of the counters. */
  get stats(): CallbackCourierStats {
    return { ...this.#stats }
  }

  /** The clock time the URL's block ends (rule Platform 23), or `undefined` when it is not blocked. */
  get blockedUntil(): number | undefined {
    const until = this.#blockedUntil
    return until !== undefined && this.#clock.now() < until ? until : undefined
  }

  /** Deliveries still waiting: scheduled (first attempts and retries) or held back. */
  get pending(): number {
    return this.#queue.length + this.#held.reduce((sum, h) => sum + h.copies, 0)
  }

  /**
   * Queues one signed callback body for delivery (due now; sent by the next `tick()`). `orderId`
   * groups callbacks of one payment: a held-back callback is sent after the next one of its order.
   */
  send(body: string, orderId: string): void {
    this.#stats.queued += 1
    const [drop, twice, hold] = [this.#random(), this.#random(), this.#random()]
    if (drop < this.#drop) {
      this.#stats.dropped += 1
      return
    }
    const copies = twice < this.#twice ? 2 : 1
    if (copies === 2) this.#stats.duplicated += 1
    const now = this.#clock.now()
    if (hold < this.#outOfOrder) {
      this.#stats.reordered += 1
      this.#held.push({ body, orderId, copies, until: now + this.#holdMs })
    } else {
      this.#enqueue(body, orderId, copies, now)
      // Callbacks of this order held back go right after it.
      const released = this.#held.filter((h) => h.orderId === orderId)
      this.#held = this.#held.filter((h) => h.orderId !== orderId)
      for (const h of released) this.#enqueue(h.body, h.orderId, h.copies, now)
    }
    this.#wake()
  }

  /**
   * Performs every attempt whose time on the clock has come, one after another in due order, and
   * resolves when they are done (after any run already in progress).
   */
  tick(): Promise<void> {
    const run = this.#run.then(() => this.#runDue())
    this.#run = run.catch(() => undefined)
    return run
  }

  /** Runs the courier on timers (for a real clock): each attempt is made when it comes due. */
  start(): void {
    this.#started = true
    this.#wake()
  }

  /** Stops the timers and aborts an attempt in flight (it is made again by the next `tick` or `start`). */
  stop(): void {
    this.#started = false
    clearTimeout(this.#timer)
    this.#timer = undefined
    this.#stop.abort()
    this.#stop = new AbortController()
  }

  #enqueue(body: string, orderId: string, copies: number, dueAt: number): void {
    for (let i = 0; i < copies; i += 1) {
      this.#seq += 1
      this.#queue.push({ body, orderId, dueAt, seq: this.#seq, attempts: 0 })
    }
  }

  async #runDue(): Promise<void> {
    for (;;) {
      const now = this.#clock.now()
      const overdue = this.#held.filter((h) => h.until <= now).sort((a, b) => a.until - b.until)
      this.#held = this.#held.filter((h) => h.until > now)
      for (const h of overdue) this.#enqueue(h.body, h.orderId, h.copies, h.until)
      let next: Delivery | undefined
      for (const d of this.#queue) {
        if (d.dueAt <= now && (!next || d.dueAt < next.dueAt || (d.dueAt === next.dueAt && d.seq < next.seq))) next = d
      }
      if (!next) return
      this.#queue.splice(this.#queue.indexOf(next), 1)
      if ((await this.#attempt(next)) === 'stopped') return
    }
  }

  async #attempt(d: Delivery): Promise<Outcome> {
    let outcome: Outcome
    if (this.blockedUntil !== undefined) {
      this.#stats.failedWhileBlocked += 1
      outcome = 'failed'
    } else {
      outcome = await this.#post(d.body)
    }
    if (outcome === 'stopped') {
      this.#queue.push(d)
      return outcome
    }
    this.#stats.attempts += 1
    d.attempts += 1
    if (outcome === 'delivered') {
      this.#stats.delivered += 1
      return outcome
    }
    const now = this.#clock.now()
    if (outcome === 'timeout') this.#timedOut(now)
    const wait = this.#retries[d.attempts - 1]
    if (wait === undefined) {
      this.#stats.lost += 1
    } else {
      d.dueAt = now + wait
      this.#queue.push(d)
    }
    return outcome
  }

  async #post(body: string): Promise<Outcome> {
    const timeout = AbortSignal.timeout(this.#timeoutMs)
    const stop = this.#stop.signal
    this.#stats.sent += 1
    try {
      const response = await fetch(this.#url, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body,
        redirect: 'manual',
        signal: AbortSignal.any([timeout, stop]),
      })
      await response.arrayBuffer()
      return response.status >= 200 && response.status < 300 ? 'delivered' : 'failed'
    } catch {
      if (stop.aborted) return 'stopped'
      return timeout.aborted ? 'timeout' : 'failed'
    }
  }

  /** Rule Platform 23: the fifth time-out within five minutes blocks the URL for 15 minutes. */
  #timedOut(now: number): void {
    this.#stats.timeouts += 1
    const { timeouts, withinMs, blockMs } = CALLBACK_URL_BLOCK
    this.#timeoutTimes.push(now)
    if (this.#timeoutTimes.length > timeouts) this.#timeoutTimes.shift()
    const first = this.#timeoutTimes[0] as number
    if (this.#timeoutTimes.length === timeouts && now - first <= withinMs) {
      this.#blockedUntil = now + blockMs
      this.#timeoutTimes = []
    }
  }

  /** While started: a timer for the next due time (held callbacks' holds included). */
  #wake(): void {
    if (!this.#started) return
    clearTimeout(this.#timer)
    const times = [...this.#queue.map((d) => d.dueAt), ...this.#held.map((h) => h.until)]
    if (times.length === 0) return
    const wait = Math.min(Math.max(0, Math.min(...times) - this.#clock.now()), 2 ** 31 - 1)
    this.#timer = setTimeout(() => {
      this.#timer = undefined
      const again = () => this.#wake()
      this.tick().then(again, again)
    }, wait)
    this.#timer.unref?.()
  }
}

function probability(name: string, value: number | undefined): number {
  if (value === undefined) return 0
  if (!(value >= 0 && value <= 1)) throw new RangeError(`CallbackCourier: ${name} must be a probability from 0 to 1`)
  return value
}

function duration(name: string, value: number): number {
  if (!(value >= 0 && Number.isFinite(value))) throw new RangeError(`CallbackCourier: ${name} must be ms, 0 or more`)
  return value
}
