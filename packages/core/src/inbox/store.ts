/**
 * The callback inbox's store. A verified event is recorded before its delivery is acknowledged, and
 * every run starts from the record: so an acknowledged event survives the process that acknowledged
 * it, an `onEvent` that throws, and a store restart. Shared by every instance of the merchant's
 * service, the store also decides who runs an event (a lease, renewed while it runs) and that a done
 * event never runs again while it is kept. `MemoryClaimStore` (memory-store.ts) keeps it for one
 * process; `@paywire/redis` and `@paywire/postgres` keep the same promises for many.
 */

import { RequestValidationError } from '../errors/errors.js'

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
  /**
   * The record's new fields, when the run changed what it keeps (a follower's state after a
   * lookup); absent: kept as they were.
   */
  readonly fields?: string
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
  /**
   * Makes the pending record `key` due now, whatever its retry time (a payment follower's record,
   * when a callback says the payment moved); its attempts and fields are kept. `false` when `key` is
   * not pending: running, done, dead or absent.
   */
  wake(key: string): Promise<boolean>
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

/** The dead letter's reason when every run ended with no outcome recorded. */
export function outcomeless(attempts: number): string {
  return `each of its ${attempts} runs ended with no outcome recorded (the process running it died, or lost the store)`
}
