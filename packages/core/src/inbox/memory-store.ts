/**
 * The inbox's store in one process's memory: for tests and a single process that may lose
 * callbacks on a crash. The contract it keeps is the `ClaimStore` of store.ts.
 */

import { type Clock, systemClock } from '../clock.js'
import { RequestValidationError } from '../errors/errors.js'
import {
  type ClaimStore,
  checkToken,
  type Lease,
  type NewEvent,
  outcomeless,
  type RecordAnswer,
  type ReleaseOptions,
  type StoredEvent,
  type StoredEventState,
  type TakenEvent,
} from './store.js'

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
        'paywire: MemoryClaimStore keeps its records (callback events, followed payments) in this process only: a crash or restart loses every callback acknowledged and not yet run, and every payment followed. Use RedisClaimStore or PostgresClaimStore in production.',
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
    if (next.fields !== undefined) entry.fields = next.fields
    return true
  }

  async wake(key: string): Promise<boolean> {
    const entry = this.#entries.get(key)
    if (entry?.state !== 'pending') return false
    entry.until = Math.min(entry.until, this.#clock.now())
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
