/** The inbox runner's settings and the words it answers in: what a service's handler fills in and reads. */

import type { Clock } from '../clock.js'
import type { ClaimStore, StoredEvent } from './store.js'

/** How a run ended, when it did not throw: done, or to be run again later. */
export type RunOutcome =
  | { readonly kind: 'done' }
  /**
   * Not done yet: run again in `inMs` (default: the backoff of this attempt). `counted: false` gives
   * the attempt back (a temporary failure, such as a lookup that could not be made); `error` is
   * why, for `failedEvents()` and `onError`.
   */
  | {
      readonly kind: 'later'
      readonly inMs?: number
      readonly counted: boolean
      readonly error: unknown
      /** The record's new fields (a follower's state after a lookup); absent: kept. */
      readonly fields?: string
    }

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
  /**
   * Whether a record taken from the store is one this runner files (its key prefix). A record it
   * does not own (the store is shared with another runner: a callback inbox and a payment follower
   * on one key prefix) is handed back untouched and reported, never run as the wrong kind.
   */
  readonly owns: (key: string) => boolean
  /** Runs one event from its record; throwing is a failed (counted) attempt. */
  readonly run: (event: StoredEvent, attempt: number) => Promise<RunOutcome>
  /** Hears every failure and every event set aside; never throws into the runner. */
  readonly report: (error: unknown, event: StoredEvent | undefined) => void
}
