/**
 * The inbox's runner: record, then acknowledge; run from the record. A service's callback handler
 * verifies a delivery and hands the event here: it is written to the store (with a lease when this
 * instance has a free slot) before the delivery is answered, and every run starts from what the
 * store holds. Runs are bounded per instance (the bound limits running, never accepting), hold a
 * lease they renew while they run, and count their attempt before they start, so an event whose run
 * kills its process is set aside after `maxAttempts` instead of killing every instance in turn.
 * Recovery takes what a dead holder left, and failed runs whose retry time came, on an interval and
 * on `recover()`. Service-neutral: the card gateway's handler is built on it.
 */

import { nodeCrypto } from './builtins.js'
import type { ClaimStore, Lease, NewEvent, RecordAnswer, StoredEvent, TakenEvent } from './claims.js'
import type { Clock } from './clock.js'
import { PaywireError, RequestValidationError } from './errors.js'
import { publishClaim } from './telemetry.js'

/** How a run ended, when it did not throw: done, or to be run again later. */
export type RunOutcome =
  | { readonly kind: 'done' }
  /**
   * Not done yet: run again in `inMs` (default: the backoff of this attempt). `counted: false` gives
   * the attempt back (a temporary failure, such as a lookup that could not be made); `error` is
   * why, for `failedEvents()` and `onError`.
   */
  | { readonly kind: 'later'; readonly inMs?: number; readonly counted: boolean; readonly error: unknown }

/** What the delivery is answered after `accept`: 200 once recorded (or done); 503 when it could not be. */
export type Acceptance = 'recorded' | 'done' | 'held' | 'unavailable'

/** Retry delays of failed runs: `baseDelayMs` times 4 per attempt, at most `maxDelayMs`, each ±20 %. */
export interface InboxBackoff {
  readonly baseDelayMs: number
  readonly maxDelayMs: number
}

/** The runner's settings; the service's handler checks the merchant's options and fills them in. */
export interface InboxConfig {
  /** Who publishes, in telemetry and in messages (`card-gateway`, `callbacks.handler`). */
  readonly service: string
  readonly operation: string
  readonly store: ClaimStore
  /** Runs at once on this instance. */
  readonly concurrency: number
  /** A run's lease, renewed every third of it while the run lasts. */
  readonly holdMs: number
  /** How long a done key is kept, so redeliveries are answered without running. */
  readonly keepMs: number
  /** Runs allowed before an event is set aside as dead. */
  readonly maxAttempts: number
  readonly backoff: InboxBackoff
  /** Recovery's interval (jittered ±50 %); 0: none (call `recover()` from a scheduler). */
  readonly recoverEveryMs: number
  /** Times retries of the store and the pauses between them (tests inject one). */
  readonly clock: Clock
  /** Runs one event from its record; throwing is a failed (counted) attempt. */
  readonly run: (event: StoredEvent, attempt: number) => Promise<RunOutcome>
  /** Hears every failure and every event set aside; never throws into the runner. */
  readonly report: (error: unknown, event: StoredEvent | undefined) => void
}

/** A run set aside after its attempts were used up; `onError` hears it, `failedEvents()` lists it. */
export class DeadLetterError extends PaywireError {
  override readonly name: string = 'DeadLetterError'
  /** The event's dedupe key: what `retry(key)` takes. */
  readonly key: string
  readonly attempts: number

  constructor(operation: string, event: StoredEvent, cause: unknown) {
    super(
      `${operation}: event ${JSON.stringify(event.key)} is set aside after ${event.attempts} attempt${event.attempts === 1 ? '' : 's'} (${event.lastError ?? 'no reason recorded'}); list it with failedEvents() and run it again with retry(key) once the cause is fixed`,
      { cause },
    )
    this.key = event.key
    this.attempts = event.attempts
  }
}

/** A record is sent this many times (one token) before the delivery is answered 503. */
const RECORD_ATTEMPTS = 3
/** The longest a delivery waits for its record: past it, 503 (five callback time-outs block the URL). */
const RECORD_DEADLINE_MS = 5_000
/** Pauses between attempts at the store: doubling from the first, never above the last. */
const FIRST_PAUSE_MS = 20
const MAX_PAUSE_MS = 1_000
/** Events this instance recorded and will take when a slot frees; past it, recovery finds them. */
const MAX_QUEUED = 10_000
/** Events one `recover()` takes at most, so a scheduler's call ends. */
const RECOVER_BATCH = 1_000
/** Done keys and old marks are pruned at most this often, on the recovery interval. */
const PRUNE_EVERY_MS = 60 * 60 * 1000

/** What a store must do for the inbox. */
const STORE_METHODS = [
  'record',
  'take',
  'takeDue',
  'renew',
  'complete',
  'release',
  'failedEvents',
  'retry',
  'forget',
  'prune',
] as const

const ANSWERS: ReadonlySet<unknown> = new Set<RecordAnswer>(['taken', 'recorded', 'known', 'done', 'held'])

/** The inbox runner of one handler. */
export class Inbox {
  readonly #config: InboxConfig
  readonly #queue: string[] = []
  readonly #running = new Set<Promise<void>>()
  #busy = 0
  #timer: ReturnType<typeof setTimeout> | undefined
  #recovering: Promise<number> | undefined
  /** The run of an event that ran before (a suspect of killing its process), while one runs here. */
  #suspect: Promise<void> | undefined
  #lastPrune: number
  #closed = false
  #idle: (() => void)[] = []

  constructor(config: InboxConfig) {
    const missing = STORE_METHODS.filter(
      (name) => typeof (config.store as unknown as Record<string, unknown>)?.[name] !== 'function',
    )
    if (missing.length > 0) {
      throw new RequestValidationError(
        config.operation,
        [
          {
            path: 'store',
            message: `must be a ClaimStore (MemoryClaimStore, RedisClaimStore, PostgresClaimStore); it lacks ${missing.join(', ')} (a store written for the former claim/complete/release interface cannot record events)`,
          },
        ],
        'options',
      )
    }
    this.#config = config
    this.#lastPrune = config.clock.now()
    if (config.recoverEveryMs > 0) this.#schedule()
  }

  /**
   * Records `event` before its delivery is answered: `recorded` (now, or already: answer 200) and
   * it runs here at once when a slot is free, else when one frees or recovery takes it; `done` (it
   * ran: 200); `held` (a former version's claim holds it: 503, the gateway delivers again);
   * `unavailable` when the store could not record it in time (503: never 200 for an unrecorded event).
   */
  async accept(event: NewEvent): Promise<Acceptance> {
    const token = nodeCrypto().randomUUID()
    // A slot is reserved before the write, so a burst never runs more than `concurrency` at once.
    const leased = this.#busy < this.#config.concurrency
    if (leased) this.#busy++
    let answer: RecordAnswer
    try {
      answer = await this.#record(event, token, leased ? this.#config.holdMs : undefined)
    } catch (error) {
      if (leased) this.#free()
      publishClaim(this.#config.service, 'record', undefined, error)
      this.#config.report(
        new PaywireError(
          `${this.#config.operation}: the store could not record the event; answered 503 so the gateway delivers it again`,
          { cause: error },
        ),
        undefined,
      )
      return 'unavailable'
    }
    publishClaim(this.#config.service, 'record', answer)
    if (answer === 'taken') {
      // As the store holds it; the receive time is read here, a moment after the store read its own.
      const stored: StoredEvent = {
        key: event.key,
        fields: event.fields,
        ref: event.ref,
        receivedAt: this.#config.clock.date?.() ?? Date.now(),
        attempts: 1,
        state: 'running',
        lastError: undefined,
      }
      this.#start(stored, token)
      return 'recorded'
    }
    if (leased) this.#free()
    if (answer === 'recorded') this.#enqueue(event.key)
    if (answer === 'done') return 'done'
    if (answer === 'held') return 'held'
    return 'recorded'
  }

  /**
   * Takes every due event (a dead holder's, or a failed run's whose retry time came) and runs it,
   * up to `concurrency` at once; resolves with how many were taken once the runs it started have
   * ended. Instances calling it together never take the same event.
   */
  recover(): Promise<number> {
    this.#recovering ??= this.#recoverAll().finally(() => {
      this.#recovering = undefined
    })
    return this.#recovering
  }

  /** Resolves when nothing this instance recorded or took is queued or running. */
  async drain(): Promise<void> {
    while (this.#running.size > 0 || this.#queue.length > 0) {
      await new Promise<void>((resolve) => this.#idle.push(resolve))
    }
  }

  /** Stops recovery's interval and waits for the runs in progress. Accepting still works. */
  async close(): Promise<void> {
    this.#closed = true
    if (this.#timer !== undefined) clearTimeout(this.#timer)
    this.#timer = undefined
    await this.drain()
  }

  /** The events set aside, oldest received first. */
  failedEvents(limit: number): Promise<StoredEvent[]> {
    return this.#config.store.failedEvents(limit)
  }

  /** Makes a dead event due again (attempts reset, receive time kept) and queues it here; `false` when it is not dead. */
  async retry(key: string): Promise<boolean> {
    const retried = await this.#config.store.retry(key)
    if (retried) this.#enqueue(key)
    return retried
  }

  /** Erases every stored event of the payment `ref`; answers how many. */
  forget(ref: string): Promise<number> {
    return this.#config.store.forget(ref)
  }

  /** Deletes done keys past their keep (and the store's own old marks); answers how many. */
  prune(): Promise<number> {
    return this.#config.store.prune(this.#config.keepMs)
  }

  /** The record, sent again with the same token after a failure, within the delivery's deadline. */
  async #record(event: NewEvent, token: string, leaseMs: number | undefined): Promise<RecordAnswer> {
    const clock = this.#config.clock
    const deadline = clock.now() + RECORD_DEADLINE_MS
    for (let attempt = 1; ; attempt++) {
      try {
        const answer = await withDeadline(this.#config.store.record(event, token, leaseMs), deadline - clock.now())
        if (ANSWERS.has(answer)) return answer
        // Anything else is no answer of this interface: never guess whether the event is recorded.
        throw new RequestValidationError(this.#config.operation, [
          {
            path: 'store.record',
            message: `answered ${JSON.stringify(answer)}, not one of ${[...ANSWERS].join(', ')}`,
          },
        ])
      } catch (error) {
        if (attempt >= RECORD_ATTEMPTS || error instanceof RequestValidationError) throw error
        const pause = Math.min(FIRST_PAUSE_MS * 2 ** (attempt - 1), deadline - clock.now())
        if (pause <= 0) throw error
        await clock.sleep(pause)
      }
    }
  }

  #lease(): Lease {
    return { token: nodeCrypto().randomUUID(), ms: this.#config.holdMs, maxAttempts: this.#config.maxAttempts }
  }

  #enqueue(key: string): void {
    if (this.#queue.length < MAX_QUEUED) this.#queue.push(key)
    this.#pump()
  }

  /** Takes queued keys while slots are free. */
  #pump(): void {
    while (this.#busy < this.#config.concurrency && this.#queue.length > 0) {
      const key = this.#queue.shift() as string
      this.#busy++
      const lease = this.#lease()
      const taking = this.#config.store.take(key, lease).then(
        (taken) => {
          publishClaim(this.#config.service, 'take', taken === undefined ? 'none' : taken.dead ? 'dead' : 'taken')
          if (taken === undefined) this.#free()
          else this.#begin(taken, lease.token)
        },
        (error: unknown) => {
          // The event stays recorded and due: recovery takes it once the store answers again.
          publishClaim(this.#config.service, 'take', undefined, error)
          this.#free()
          this.#config.report(error, undefined)
        },
      )
      this.#track(taking)
    }
    this.#settleIdle()
  }

  /** Starts a taken event and answers its run, or reports one whose attempts were used up (the slot is already counted). */
  #begin(taken: TakenEvent, token: string): Promise<void> | undefined {
    if (taken.dead) {
      this.#free()
      this.#config.report(new DeadLetterError(this.#config.operation, taken.event, undefined), taken.event)
      return undefined
    }
    return this.#start(taken.event, token)
  }

  /** Runs `event` in the slot reserved for it. */
  #start(event: StoredEvent, token: string): Promise<void> {
    const run = this.#runHeld(event, token).finally(() => this.#free())
    this.#track(run)
    return run
  }

  async #runHeld(event: StoredEvent, token: string): Promise<void> {
    const { store, keepMs } = this.#config
    const renewal = this.#renewWhileRunning(event, token)
    let outcome: RunOutcome
    try {
      outcome = await this.#config.run(event, event.attempts)
    } catch (error) {
      outcome = { kind: 'later', counted: true, error }
    } finally {
      renewal.stop()
    }
    if (outcome.kind === 'done') {
      const done = await this.#untilAcknowledged(() => store.complete(event.key, token, keepMs), event, 'complete')
      if (done?.value === false) {
        this.#config.report(
          new PaywireError(
            `${this.#config.operation}: the run of ${JSON.stringify(event.key)} finished after its lease ended and another instance took the event, which may run it again`,
          ),
          event,
        )
      }
      return
    }
    if (outcome.error !== undefined) this.#config.report(outcome.error, event)
    // The attempt counts only if the store answers the first release: a run that failed while the
    // store was down failed for the store's sake, not the code's, and must not use up attempts.
    const reason = describe(outcome.error)
    const deadNow = outcome.counted && event.attempts >= this.#config.maxAttempts
    const released = await this.#untilAcknowledged(
      (attempt) => {
        const counted = outcome.counted && attempt === 1
        return store.release(event.key, token, {
          retryInMs: outcome.inMs ?? this.#delay(event.attempts),
          counted,
          error: reason,
          dead: counted && deadNow,
        })
      },
      event,
      'release',
    )
    if (deadNow && released?.attempt === 1 && released.value) {
      this.#config.report(
        new DeadLetterError(this.#config.operation, { ...event, state: 'dead', lastError: reason }, outcome.error),
        event,
      )
    }
  }

  /** Renews the lease every third of it until stopped; a lease lost to another instance is reported once. */
  #renewWhileRunning(event: StoredEvent, token: string): { stop(): void } {
    const { store, holdMs } = this.#config
    let lost = false
    const timer = setInterval(
      () => {
        store.renew(event.key, token, holdMs).then(
          (held) => {
            publishClaim(this.#config.service, 'renew', held ? 'held' : 'lost')
            if (!held && !lost) {
              lost = true
              this.#config.report(
                new PaywireError(
                  `${this.#config.operation}: the lease of ${JSON.stringify(event.key)} was lost while its run lasted (the store was unreachable for longer than holdMs); another instance may run it too`,
                ),
                event,
              )
            }
          },
          (error: unknown) => publishClaim(this.#config.service, 'renew', undefined, error),
        )
      },
      Math.max(1, Math.floor(holdMs / 3)),
    )
    timer.unref?.()
    return { stop: () => clearInterval(timer) }
  }

  /**
   * Sends a done mark or a release until the store acknowledges it: the same token makes a repeat
   * harmless, and a mark lost with a dropped connection would let the lease end and another instance
   * run the event again. Tried for two leases (past the first, another instance may take the event,
   * and the store then refuses the late mark by its token); then reported, never silent.
   */
  async #untilAcknowledged<T>(
    send: (attempt: number) => Promise<T>,
    event: StoredEvent,
    what: 'complete' | 'release',
  ): Promise<{ value: T; attempt: number } | undefined> {
    const clock = this.#config.clock
    const ends = clock.now() + 2 * this.#config.holdMs
    for (let attempt = 1; ; attempt++) {
      try {
        const value = await send(attempt)
        publishClaim(this.#config.service, what, String(value))
        return { value, attempt }
      } catch (error) {
        publishClaim(this.#config.service, what, undefined, error)
        const left = ends - clock.now()
        if (left <= 0 || error instanceof RequestValidationError) {
          const consequence =
            what === 'complete'
              ? 'the event is not marked done, so another instance may run it again once its lease ends'
              : 'the event stays leased until its lease ends; recovery then runs it again'
          this.#config.report(
            new PaywireError(`${this.#config.operation}: the store failed ${what} ${attempt} times: ${consequence}`, {
              cause: error,
            }),
            event,
          )
          return undefined
        }
        await clock.sleep(Math.min(FIRST_PAUSE_MS * 2 ** (attempt - 1), MAX_PAUSE_MS, left))
      }
    }
  }

  /**
   * One round at the store: takes up to `limit` due events (the slots are reserved first) and starts
   * them; answers the runs it started, and how many events it took and did not hand back (dead ones
   * included).
   */
  async #takeDue(limit: number): Promise<{ taken: number; runs: Promise<void>[] }> {
    const lease = this.#lease()
    this.#busy += limit
    let batch: TakenEvent[]
    try {
      batch = await this.#config.store.takeDue(lease, limit)
    } catch (error) {
      this.#busy -= limit
      publishClaim(this.#config.service, 'recover', undefined, error)
      throw error
    }
    // Slots reserved and not used go back.
    publishClaim(this.#config.service, 'recover', String(batch.length))
    this.#busy -= limit - batch.length
    const runs: Promise<void>[] = []
    let handedBack = 0
    for (const item of batch) {
      // An event that ran before and is due again may be what killed its last process, and it
      // would take every event running beside it down too (each then a step nearer the dead
      // letters). So such events run one at a time here: the others go back, untouched, for a
      // later round.
      const suspect = !item.dead && item.event.attempts > 1
      if (suspect && this.#suspect !== undefined) {
        handedBack++
        void this.#putBack(item.event, lease.token)
        continue
      }
      const run = this.#begin(item, lease.token)
      if (run === undefined) continue
      if (suspect) {
        this.#suspect = run
        void run.finally(() => {
          if (this.#suspect === run) this.#suspect = undefined
        })
      }
      runs.push(run)
    }
    this.#settleIdle()
    return { taken: batch.length - handedBack, runs }
  }

  /** Hands a taken event back without running it: due at once, its attempt given back, its last error kept. */
  async #putBack(event: StoredEvent, token: string): Promise<void> {
    try {
      await this.#config.store.release(event.key, token, {
        retryInMs: 0,
        counted: false,
        error: event.lastError,
        dead: false,
      })
    } catch {
      // Left leased: its lease ends and recovery takes it then.
    } finally {
      this.#free()
    }
  }

  /** `recover()`: rounds until nothing is due, each as large as the free slots; then waits for the runs it started (only those). */
  async #recoverAll(): Promise<number> {
    let taken = 0
    const runs: Promise<void>[] = []
    while (taken < RECOVER_BATCH) {
      // Never above the bound: wait for a slot before each round.
      while (this.#busy >= this.#config.concurrency) await this.#nextFree()
      const round = await this.#takeDue(Math.min(this.#config.concurrency - this.#busy, RECOVER_BATCH - taken))
      taken += round.taken
      runs.push(...round.runs)
      // Nothing due, or only events handed back to wait for the suspect running here.
      if (round.taken === 0) break
    }
    await Promise.allSettled(runs)
    return taken
  }

  #schedule(): void {
    if (this.#closed) return
    // Jitter, so instances started together do not sweep the store together.
    const every = this.#config.recoverEveryMs
    const wait = Math.round(every * (0.5 + Math.random()))
    this.#timer = setTimeout(() => {
      void this.#tick().finally(() => this.#schedule())
    }, wait)
    this.#timer.unref?.()
  }

  /**
   * The interval's round: takes as many due events as there are free slots and leaves them running
   * (it never waits for a run: one that hangs must not stop recovery), and prunes now and then.
   */
  async #tick(): Promise<void> {
    try {
      const free = this.#config.concurrency - this.#busy
      if (free > 0) await this.#takeDue(free)
      if (this.#config.clock.now() - this.#lastPrune >= PRUNE_EVERY_MS) {
        this.#lastPrune = this.#config.clock.now()
        await this.prune()
      }
    } catch (error) {
      this.#config.report(
        new PaywireError(
          `${this.#config.operation}: recovery could not reach the store; it tries again on its next round`,
          {
            cause: error,
          },
        ),
        undefined,
      )
    }
  }

  #delay(attempt: number): number {
    const { baseDelayMs, maxDelayMs } = this.#config.backoff
    const delay = Math.min(maxDelayMs, baseDelayMs * 4 ** Math.max(0, attempt - 1))
    return Math.max(1, Math.round(delay * (0.8 + 0.4 * Math.random())))
  }

  #free(): void {
    this.#busy--
    this.#pump()
    for (const wake of this.#waiting.splice(0)) wake()
  }

  readonly #waiting: (() => void)[] = []

  #nextFree(): Promise<void> {
    return new Promise((resolve) => this.#waiting.push(resolve))
  }

  #track(run: Promise<void>): void {
    this.#running.add(run)
    void run.finally(() => {
      this.#running.delete(run)
      this.#settleIdle()
    })
  }

  #settleIdle(): void {
    if (this.#running.size === 0 && this.#queue.length === 0) for (const wake of this.#idle.splice(0)) wake()
  }
}

/** Rejects when `promise` has not settled within `ms` (the work itself may still land later). */
function withDeadline<T>(promise: Promise<T>, ms: number): Promise<T> {
  if (ms <= 0) return Promise.reject(new Error('no time left for the store'))
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the store did not answer within ${ms} ms`)), ms)
    timer.unref?.()
    promise.then(
      (value) => {
        clearTimeout(timer)
        resolve(value)
      },
      (error: unknown) => {
        clearTimeout(timer)
        reject(error)
      },
    )
  })
}

/** An error's class and message, for a dead letter's reason: never event data. */
function describe(error: unknown): string | undefined {
  if (error === undefined) return undefined
  const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error)
  return text.length > 500 ? `${text.slice(0, 500)}…` : text
}
