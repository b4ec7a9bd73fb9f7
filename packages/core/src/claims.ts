/**
 * The callback inbox's store. A verified event is recorded before its delivery is acknowledged, and
 * every run starts from the record: so an acknowledged event survives the process that acknowledged
 * it, an `onEvent` that throws, and a store restart. Shared by every instance of the merchant's
 * service, the store also decides who runs an event (a lease, renewed while it runs) and that a done
 * event never runs again while it is kept. In memory here, for one process; `@paywire/redis` and
 * `@paywire/postgres` keep the same promises for many.
 */

import { type Clock, systemClock } from './clock.js'
import { RequestValidationError } from './errors.js'

/**
 * Where a recorded event stands: `pending` (waiting to run: new, or after a failed run, until its
 * retry time), `running` (leased to one runner until its lease ends), `done` (ran; only its key is
 * kept, for `keepMs`), `dead` (set aside after `maxAttempts` runs ended without success, until
 * `retry`).
 */
export type StoredEventState = 'pending' | 'running' | 'done' | 'dead'

/** An event as the store holds it. */
export interface StoredEvent {
  /** The dedupe key: one record per key. */
  readonly key: string
  /** The verified fields as the inbox encoded them (opaque to the store); `undefined` once done. */
  readonly fields: string | undefined
  /** The payment the event belongs to (its order): what `forget(ref)` erases. */
  readonly ref: string
  /** When the event was first recorded, in ms since the epoch, on the store's clock. */
  readonly receivedAt: number
  /** Runs started so far: counted when a run takes the event, before it starts. */
  readonly attempts: number
  readonly state: StoredEventState
  /** Why the last run did not succeed (an error's class and message: never event data), if it did not. */
  readonly lastError: string | undefined
}

/** A verified event to record. */
export interface NewEvent {
  readonly key: string
  /**
   * The keys an earlier version of the inbox filed the same event under: a key done under any of
   * them counts as done, so changing how keys are built never runs again what ran before.
   */
  readonly previousKeys: readonly string[]
  readonly fields: string
  readonly ref: string
}

/** A runner's hold on an event: its token (fresh and random per runner), how long, and the attempt limit. */
export interface Lease {
  readonly token: string
  /** How long the hold lasts unless renewed, in ms. */
  readonly ms: number
  /**
   * Runs allowed: taking an event that already used them all (every run ended with no outcome
   * recorded: its process died, or lost the store) sets it aside as dead instead of running it.
   */
  readonly maxAttempts: number
}

/**
 * What `record` found: `taken` (recorded now and leased to the caller: attempt 1 counted), `recorded`
 * (recorded now, pending: anyone may take it), `known` (already recorded, pending, running or dead:
 * nothing written), `done` (it ran, under this key or a previous one), `held` (a claim written by a
 * former version of the inbox holds a previous key: try again later). A record sent again with the
 * same token after its reply was lost answers as the first did, while the event still stands as it
 * left it.
 */
export type RecordAnswer = 'taken' | 'recorded' | 'known' | 'done' | 'held'

/** An event a runner took: to run, or, when `dead`, set aside because its attempts were used up. */
export interface TakenEvent {
  readonly event: StoredEvent
  readonly dead: boolean
}

/** What happens to an event whose run did not succeed. */
export interface ReleaseOptions {
  /** In how many ms it may run again (ignored when `dead`). */
  readonly retryInMs: number
  /** `false` gives the attempt back: the failure was temporary (the store was down, the state not there yet). */
  readonly counted: boolean
  /** Why, for `failedEvents()`: an error's class and message, never event data. */
  readonly error: string | undefined
  /** Set it aside: no run until `retry(key)`. */
  readonly dead: boolean
}

/**
 * The inbox's store, shared by every instance that uses the same data. Every operation is one atomic
 * step, and each is safe to send again after a lost reply: a token recognises its own writes.
 * Times (leases, retries, keeps) are measured on the store's clock, so instances whose clocks
 * disagree still agree on who holds what.
 */
export interface ClaimStore {
  /**
   * Records `event` unless its key (or a previous key) is already there, written by `token` (fresh
   * per delivery). With `leaseMs`, a new record is leased to `token` at once (attempt 1 counted);
   * without, it is pending and due now.
   */
  record(event: NewEvent, token: string, leaseMs: number | undefined): Promise<RecordAnswer>
  /** Takes `key` when it is due (pending past its retry time, or running past its lease): counted as an attempt. */
  take(key: string, lease: Lease): Promise<TakenEvent | undefined>
  /** Takes up to `limit` due events, oldest due first, skipping any another instance is taking at the same moment. */
  takeDue(lease: Lease, limit: number): Promise<TakenEvent[]>
  /** Extends `token`'s lease of `key` by `ms` from now; `false` when `token` no longer holds it. */
  renew(key: string, token: string, ms: number): Promise<boolean>
  /**
   * Marks `key` done for `keepMs` and drops its fields, when `token` holds it: `true`, also when it
   * already did. `false` when another runner took it (after the lease ended), which may run it again.
   */
  complete(key: string, token: string, keepMs: number): Promise<boolean>
  /** Ends `token`'s run of `key` without success: pending again after `retryInMs`, or dead. `true` when it did, or already had. */
  release(key: string, token: string, next: ReleaseOptions): Promise<boolean>
  /** The dead events, oldest received first, at most `limit`. */
  failedEvents(limit: number): Promise<StoredEvent[]>
  /** Makes a dead event pending and due now, with its attempts reset and its receive time kept; `false` when `key` is not dead. */
  retry(key: string): Promise<boolean>
  /** Erases every record of the payment `ref`, done or not; answers how many. A delivery after it is a new event. */
  forget(ref: string): Promise<number>
  /** Deletes done keys whose `keepMs` ended (and, where the store keeps them, other marks older than `keepMs`); answers how many. */
  prune(keepMs: number): Promise<number>
}

/** A token must be a non-empty string: it is the only proof of who holds an event. */
export function checkToken(operation: string, token: unknown): string {
  if (typeof token !== 'string' || token === '') {
    throw new RequestValidationError(operation, [
      { path: 'token', message: 'must be a non-empty string (a fresh random one per runner)' },
    ])
  }
  return token
}

interface Entry {
  readonly key: string
  fields: string | undefined
  readonly ref: string
  readonly receivedAt: number
  attempts: number
  state: StoredEventState
  lastError: string | undefined
  token: string
  /** pending: due at; running: lease end; done: kept until; dead: never (Infinity). On the monotonic clock. */
  until: number
}

/** Events of one process: more than this and the oldest done keys are dropped first. */
const DEFAULT_MAX_EVENTS = 100_000

let warned = false

/** True under a test runner (vitest, jest, node --test sets NODE_ENV rarely): no warning there. */
function underTest(): boolean {
  const env = globalThis.process?.env ?? {}
  return env.NODE_ENV === 'test' || env.VITEST !== undefined || env.JEST_WORKER_ID !== undefined
}

/**
 * The inbox's store in one process's memory, timed on the monotonic clock. It cannot keep the
 * inbox's promise across a crash: every recorded event not yet run (and every done key) is lost
 * with the process, though the gateway was told `200`. For tests and a single process that may
 * lose callbacks; a service that must not uses `RedisClaimStore` or `PostgresClaimStore`. Done
 * keys are swept once their `keepMs` ends, and past `maxEvents` the oldest done keys go first; a
 * store full of events not yet done refuses new ones (the inbox answers 503).
 */
export class MemoryClaimStore implements ClaimStore {
  readonly #entries = new Map<string, Entry>()
  readonly #clock: Clock
  readonly #maxEvents: number
  #writesSinceSweep = 0

  constructor(options: { clock?: Clock; maxEvents?: number } = {}) {
    this.#clock = options.clock ?? systemClock
    const max = options.maxEvents ?? DEFAULT_MAX_EVENTS
    if (!Number.isSafeInteger(max) || max < 1) {
      throw new RequestValidationError(
        'MemoryClaimStore',
        [{ path: 'maxEvents', message: 'must be a whole number >= 1' }],
        'options',
      )
    }
    this.#maxEvents = max
    if (!warned && !underTest()) {
      warned = true
      console.warn(
        'paywire: MemoryClaimStore keeps callback events in this process only: a crash or restart loses every event acknowledged and not yet run. Use RedisClaimStore or PostgresClaimStore in production.',
      )
    }
  }

  /** How many records the store holds now (done keys included), after sweeping the expired ones. */
  get size(): number {
    this.#sweep()
    return this.#entries.size
  }

  async record(event: NewEvent, token: string, leaseMs: number | undefined): Promise<RecordAnswer> {
    checkToken('MemoryClaimStore.record', token)
    const now = this.#clock.now()
    for (const previous of event.previousKeys) {
      const entry = this.#live(previous, now)
      if (entry?.state === 'done') return 'done'
    }
    const existing = this.#live(event.key, now)
    if (existing !== undefined) {
      if (existing.state === 'done') return 'done'
      // Our own record, its reply lost: answer as the first time, while it stands as it left it.
      if (existing.token === token) {
        if (leaseMs !== undefined && existing.state === 'running' && existing.attempts === 1) return 'taken'
        if (leaseMs === undefined && existing.state === 'pending' && existing.attempts === 0) return 'recorded'
      }
      return 'known'
    }
    if (++this.#writesSinceSweep >= Math.max(1_000, this.#entries.size >> 1)) this.#sweep()
    if (this.#entries.size >= this.#maxEvents) this.#evictDone()
    if (this.#entries.size >= this.#maxEvents) {
      throw new Error(`MemoryClaimStore: ${this.#maxEvents} events not yet done are held (maxEvents): refusing more`)
    }
    this.#entries.set(event.key, {
      key: event.key,
      fields: event.fields,
      ref: event.ref,
      receivedAt: this.#clock.date?.() ?? Date.now(),
      attempts: leaseMs === undefined ? 0 : 1,
      state: leaseMs === undefined ? 'pending' : 'running',
      lastError: undefined,
      token,
      until: leaseMs === undefined ? now : now + leaseMs,
    })
    return leaseMs === undefined ? 'recorded' : 'taken'
  }

  async take(key: string, lease: Lease): Promise<TakenEvent | undefined> {
    checkToken('MemoryClaimStore.take', lease.token)
    const entry = this.#entries.get(key)
    if (entry === undefined || !isDue(entry, this.#clock.now())) return undefined
    return this.#take(entry, lease)
  }

  async takeDue(lease: Lease, limit: number): Promise<TakenEvent[]> {
    checkToken('MemoryClaimStore.takeDue', lease.token)
    const now = this.#clock.now()
    const due = [...this.#entries.values()].filter((entry) => isDue(entry, now)).sort((a, b) => a.until - b.until)
    return due.slice(0, limit).map((entry) => this.#take(entry, lease))
  }

  async renew(key: string, token: string, ms: number): Promise<boolean> {
    checkToken('MemoryClaimStore.renew', token)
    const entry = this.#entries.get(key)
    if (entry?.state !== 'running' || entry.token !== token) return false
    entry.until = this.#clock.now() + ms
    return true
  }

  async complete(key: string, token: string, keepMs: number): Promise<boolean> {
    checkToken('MemoryClaimStore.complete', token)
    const entry = this.#entries.get(key)
    if (entry === undefined || entry.token !== token) return false
    if (entry.state === 'done') return true
    if (entry.state !== 'running') return false
    entry.state = 'done'
    entry.fields = undefined
    entry.lastError = undefined
    entry.until = this.#clock.now() + keepMs
    return true
  }

  async release(key: string, token: string, next: ReleaseOptions): Promise<boolean> {
    checkToken('MemoryClaimStore.release', token)
    const entry = this.#entries.get(key)
    if (entry === undefined || entry.token !== token) return false
    if (entry.state === 'pending' || entry.state === 'dead') return true // sent again after a lost reply
    if (entry.state !== 'running') return false
    entry.state = next.dead ? 'dead' : 'pending'
    entry.until = next.dead ? Number.POSITIVE_INFINITY : this.#clock.now() + next.retryInMs
    if (!next.counted) entry.attempts = Math.max(0, entry.attempts - 1)
    entry.lastError = next.error
    return true
  }

  async failedEvents(limit: number): Promise<StoredEvent[]> {
    return [...this.#entries.values()]
      .filter((entry) => entry.state === 'dead')
      .sort((a, b) => a.receivedAt - b.receivedAt)
      .slice(0, limit)
      .map(snapshot)
  }

  async retry(key: string): Promise<boolean> {
    const entry = this.#entries.get(key)
    if (entry?.state !== 'dead') return false
    entry.state = 'pending'
    entry.attempts = 0
    entry.until = this.#clock.now()
    return true
  }

  async forget(ref: string): Promise<number> {
    let erased = 0
    for (const [key, entry] of this.#entries) {
      if (entry.ref === ref) {
        this.#entries.delete(key)
        erased++
      }
    }
    return erased
  }

  async prune(_keepMs: number): Promise<number> {
    return this.#sweep()
  }

  /** The entry of `key` unless it is a done key past its keep (which counts as absent). */
  #live(key: string, now: number): Entry | undefined {
    const entry = this.#entries.get(key)
    if (entry?.state === 'done' && entry.until <= now) {
      this.#entries.delete(key)
      return undefined
    }
    return entry
  }

  #take(entry: Entry, lease: Lease): TakenEvent {
    if (entry.attempts >= lease.maxAttempts) {
      entry.state = 'dead'
      entry.until = Number.POSITIVE_INFINITY
      entry.lastError = outcomeless(entry.attempts)
      return { event: snapshot(entry), dead: true }
    }
    entry.state = 'running'
    entry.token = lease.token
    entry.attempts++
    entry.until = this.#clock.now() + lease.ms
    return { event: snapshot(entry), dead: false }
  }

  /** Deletes done keys past their keep; answers how many. */
  #sweep(): number {
    this.#writesSinceSweep = 0
    const now = this.#clock.now()
    let swept = 0
    for (const [key, entry] of this.#entries) {
      if (entry.state === 'done' && entry.until <= now) {
        this.#entries.delete(key)
        swept++
      }
    }
    return swept
  }

  /** Drops the oldest done keys (a Map iterates in insertion order) until a tenth of the room is free. */
  #evictDone(): void {
    const target = this.#maxEvents - Math.max(1, Math.floor(this.#maxEvents / 10))
    for (const [key, entry] of this.#entries) {
      if (this.#entries.size <= target) return
      if (entry.state === 'done') this.#entries.delete(key)
    }
  }
}

function isDue(entry: Entry, now: number): boolean {
  return (entry.state === 'pending' || entry.state === 'running') && entry.until <= now
}

function snapshot(entry: Entry): StoredEvent {
  return {
    key: entry.key,
    fields: entry.fields,
    ref: entry.ref,
    receivedAt: entry.receivedAt,
    attempts: entry.attempts,
    state: entry.state,
    lastError: entry.lastError,
  }
}

/** The dead letter's reason when every run ended with no outcome recorded. */
export function outcomeless(attempts: number): string {
  return `each of its ${attempts} runs ended with no outcome recorded (the process running it died, or lost the store)`
}
