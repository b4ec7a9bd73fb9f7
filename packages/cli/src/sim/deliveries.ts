/**
 * Delivery of the card simulator's signed callbacks to a merchant's URL, with the platform's retry
 * rule: an answer that is not 2xx, or none within the timeout, is retried. The retry times are on
 * the simulator's clock, so `POST /__paywire/clock/advance` brings a retry forward at once.
 */

import { MAX_ANSWER_BYTES, readCappedAnswer } from '../answer.js'
import { networkFailure } from '../io.js'
import type { SimClock } from './clock.js'

/** Waits before each retry (the platform does not publish its schedule; these are ours). */
export const RETRY_DELAYS_MS: readonly number[] = Object.freeze([10_000, 30_000, 60_000, 300_000, 900_000])

/** One attempt to deliver a callback and what came back. */
export interface DeliveryAttempt {
  /** ISO time on the simulator's clock. */
  readonly at: string
  /** The answer's status; absent when no answer came. */
  readonly status?: number
  /** The first 200 characters of the answer body. */
  readonly body?: string
  /**
   * Whether the answer body was longer than 4096 bytes (`MAX_ANSWER_BYTES`): the rest was not read
   * and the connection was closed. Absent when no answer came.
   */
  readonly cut?: boolean
  /** Why no answer came (time-out, connection refused). */
  readonly error?: string
  readonly ms: number
}

/** A callback on its way to the merchant. */
export interface Delivery {
  readonly id: number
  readonly url: string
  readonly type: string
  readonly status: string
  readonly orderNumber: string
  readonly paymentId: string
  readonly body: string
  state: 'sending' | 'retrying' | 'delivered' | 'failed'
  readonly attempts: DeliveryAttempt[]
  /** ISO time of the next attempt while `retrying`. */
  nextAttemptAt?: string
}

interface Pending {
  readonly delivery: Delivery
  dueAt: number
  timer: NodeJS.Timeout | undefined
}

/** Sends callbacks to one URL and retries them; `report` hears every attempt. */
export class CallbackDeliverer {
  readonly #url: string
  readonly #timeoutMs: number
  readonly #clock: SimClock
  readonly #report: (delivery: Delivery, attempt: DeliveryAttempt) => void
  readonly #deliveries: Delivery[] = []
  readonly #pending = new Set<Pending>()
  readonly #inFlight = new Set<AbortController>()
  #sequence = 0

  constructor(
    url: string,
    timeoutMs: number,
    clock: SimClock,
    report: (delivery: Delivery, attempt: DeliveryAttempt) => void,
  ) {
    this.#url = url
    this.#timeoutMs = timeoutMs
    this.#clock = clock
    this.#report = report
  }

  /** Every delivery so far, oldest first. */
  get deliveries(): readonly Delivery[] {
    return this.#deliveries
  }

  /** Sends a signed callback body now (and again later while it fails). */
  enqueue(body: string): void {
    const fields = new URLSearchParams(body)
    this.#sequence += 1
    const delivery: Delivery = {
      id: this.#sequence,
      url: this.#url,
      // A Checkout callback names type, order_number and id; an S2S one action, order_id and trans_id.
      type: fields.get('type') ?? fields.get('action')?.toLowerCase() ?? '',
      status: fields.get('status') ?? '',
      orderNumber: fields.get('order_number') ?? fields.get('order_id') ?? '',
      paymentId: fields.get('id') ?? fields.get('trans_id') ?? '',
      body,
      state: 'sending',
      attempts: [],
    }
    this.#deliveries.push(delivery)
    void this.#attempt(delivery)
  }

  /** Attempts every retry that is due on the simulator's clock (after the clock moved). */
  runDue(): void {
    const now = this.#clock.now()
    for (const pending of [...this.#pending]) {
      if (pending.dueAt > now) continue
      this.#pending.delete(pending)
      clearTimeout(pending.timer)
      void this.#attempt(pending.delivery)
    }
  }

  /** Stops every retry and aborts attempts in flight; the record is kept unless `forget`. */
  stop(forget = false): void {
    for (const pending of this.#pending) clearTimeout(pending.timer)
    this.#pending.clear()
    for (const controller of this.#inFlight) controller.abort()
    this.#inFlight.clear()
    if (forget) this.#deliveries.length = 0
  }

  async #attempt(delivery: Delivery): Promise<void> {
    delivery.state = 'sending'
    delivery.nextAttemptAt = undefined
    const at = new Date(this.#clock.date()).toISOString()
    const started = performance.now()
    const controller = new AbortController()
    this.#inFlight.add(controller)
    const timer = setTimeout(
      () => controller.abort(new Error(`no answer within ${this.#timeoutMs} ms`)),
      this.#timeoutMs,
    )
    let attempt: DeliveryAttempt
    try {
      const response = await fetch(this.#url, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: delivery.body,
        redirect: 'manual',
        signal: controller.signal,
      })
      // Read up to MAX_ANSWER_BYTES: an answer streaming without end must not grow the sim's memory.
      const answer = await readCappedAnswer(response, controller, MAX_ANSWER_BYTES)
      attempt = { at, status: answer.status, body: answer.body.slice(0, 200), cut: answer.cut, ms: elapsed(started) }
    } catch (error) {
      if (!this.#inFlight.has(controller)) return // stopped
      const reason = controller.signal.aborted
        ? String((controller.signal.reason as Error).message)
        : networkFailure(error)
      attempt = { at, error: reason, ms: elapsed(started) }
    } finally {
      clearTimeout(timer)
      this.#inFlight.delete(controller)
    }
    delivery.attempts.push(attempt)
    const ok = attempt.status !== undefined && attempt.status >= 200 && attempt.status < 300
    const delay = RETRY_DELAYS_MS[delivery.attempts.length - 1]
    if (ok) delivery.state = 'delivered'
    else if (delay === undefined) delivery.state = 'failed'
    else this.#schedule(delivery, delay)
    this.#report(delivery, attempt)
  }

  #schedule(delivery: Delivery, delay: number): void {
    const pending: Pending = { delivery, dueAt: this.#clock.now() + delay, timer: undefined }
    delivery.state = 'retrying'
    delivery.nextAttemptAt = new Date(this.#clock.date() + delay).toISOString()
    pending.timer = setTimeout(() => this.runDue(), delay)
    pending.timer.unref()
    this.#pending.add(pending)
  }
}

function elapsed(started: number): number {
  return Math.round((performance.now() - started) * 10) / 10
}
