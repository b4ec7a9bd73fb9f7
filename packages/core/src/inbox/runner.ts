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

import { nodeCrypto } from '../builtins.js'
import { PaywireError } from '../errors/errors.js'
import type { Acceptance, InboxConfig, RunOutcome } from './config.js'
import { DeadLetterError, failureReason, isSuspect, splitSuspects } from './dead-letter.js'
import type { Lease, NewEvent, RecordAnswer, StoredEvent, TakenEvent } from './store.js'
import {
  checkStore,
  publishClaim,
  recordWithin,
  renewWhileRunning,
  STORE_STEP_DEADLINE_MS,
  untilAcknowledged,
  withDeadline,
} from './store-calls.js'

/** Events this instance recorded and will take when a slot frees; past it, recovery finds them. */
const MAX_QUEUED = 10_000
/** Events one `recover()` takes at most, so a scheduler's call ends. */
const RECOVER_BATCH = 1_000
/** A record another kind of runner filed is handed back for this long, so its owner takes it first. */
const FOREIGN_RETRY_MS = 60_000
/** Done keys and old marks are pruned at most this often, on the recovery interval. */
const PRUNE_EVERY_MS = 60 * 60 * 1000

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
    checkStore(config.operation, config.store)
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
      answer = await recordWithin(this.#config, event, token, leased ? this.#config.holdMs : undefined)
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
    if (!this.#config.owns(taken.event.key)) {
      this.#config.report(
        new PaywireError(
          `${this.#config.operation}: the store holds ${JSON.stringify(taken.event.key.slice(0, 40))}, which another kind of runner filed: the store is shared (a callback inbox and a payment follower, or two followers, on one key prefix or schema). Give each its own store; the record was handed back untouched`,
        ),
        undefined,
      )
      void this.#putBack(taken.event, token, FOREIGN_RETRY_MS)
      return undefined
    }
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
    const renewal = renewWhileRunning(this.#config, event, token)
    let outcome: RunOutcome
    try {
      outcome = await this.#config.run(event, event.attempts)
    } catch (error) {
      outcome = { kind: 'later', counted: true, error }
    } finally {
      renewal.stop()
    }
    if (outcome.kind === 'done') {
      const done = await untilAcknowledged(this.#config, event, 'complete', () =>
        store.complete(event.key, token, keepMs),
      )
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
    const reason = failureReason(outcome.error)
    const deadNow = outcome.counted && event.attempts >= this.#config.maxAttempts
    const released = await untilAcknowledged(this.#config, event, 'release', (attempt) => {
      const counted = outcome.counted && attempt === 1
      return store.release(event.key, token, {
        retryInMs: outcome.inMs ?? this.#delay(event.attempts),
        counted,
        error: reason,
        dead: counted && deadNow,
        ...(outcome.fields === undefined ? {} : { fields: outcome.fields }),
      })
    })
    if (deadNow && released?.attempt === 1 && released.value) {
      this.#config.report(
        new DeadLetterError(this.#config.operation, { ...event, state: 'dead', lastError: reason }, outcome.error),
        event,
      )
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
    const { toStart, toHandBack } = splitSuspects(batch, this.#suspect !== undefined)
    const handBacks = toHandBack.map((item) => this.#putBack(item.event, lease.token))
    // Handed back before anything starts: a suspect that kills this process would lose them, their
    // taken attempts then counted as deaths (seen: an innocent event set aside with the poison).
    if (handBacks.length > 0) await withDeadline(Promise.all(handBacks), STORE_STEP_DEADLINE_MS).catch(() => {})
    for (const item of toStart) {
      const run = this.#begin(item, lease.token)
      if (run === undefined) continue
      if (isSuspect(item)) {
        this.#suspect = run
        void run.finally(() => {
          if (this.#suspect === run) this.#suspect = undefined
        })
      }
      runs.push(run)
    }
    this.#settleIdle()
    return { taken: batch.length - handBacks.length, runs }
  }

  /** Hands a taken event back without running it: due at once, its attempt given back, its last error kept. */
  async #putBack(event: StoredEvent, token: string, retryInMs = 0): Promise<void> {
    try {
      await this.#config.store.release(event.key, token, {
        retryInMs,
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
