/**
 * The options of the callback inbox (`gw.callbacks.handler()`), what `onEvent` is told, what a dead
 * letter looks like, and the checks that turn the options into the runner's settings.
 */

import {
  type ClaimStore,
  type Clock,
  RequestValidationError,
  type SignatureErrorReason,
  type SignatureVerificationError,
  systemClock,
} from '@paywire/core'
import type { InboxBackoff } from '@paywire/core/engine'
import type { CallbackEvent, CallbackOptions } from './event.js'
import type { FieldEncryption } from './record.js'

/** What `onEvent` is told besides the event: its key in the store, this run's attempt, when it came. */
export interface CallbackContext {
  /**
   * The event's key in the inbox's store: pass it to `PostgresInbox.runOnce`, so your effects and
   * the inbox agree on what one event is.
   */
  readonly key: string
  /** This run's attempt, from 1 (counted before the run starts). */
  readonly attempt: number
  /** When the event was first recorded, in ms since the epoch (kept across retries). */
  readonly receivedAt: number
}

/** An event set aside after `maxAttempts` runs without success, as `handler.failedEvents()` lists it. */
export interface FailedCallback {
  /** What `handler.retry(key)` takes. */
  readonly key: string
  /** The payment's order (`order_number` or `order_id`). */
  readonly ref: string
  readonly receivedAt: number
  readonly attempts: number
  /** The last run's error, class and message. */
  readonly lastError: string | undefined
  /** The stored fields, or `undefined` when they cannot be read (an `encryption` that fails). */
  readonly event: CallbackEvent | undefined
}

/**
 * A delivery the inbox refused, as `onRefused` hears it: the reason and status it was answered, and
 * the ids its body claims. Nothing of it is verified (anyone can post a body), and it never holds
 * the body, the hash, an amount or a password.
 */
export interface CallbackRefusal {
  /** Why: a `SignatureErrorReason`, or `body_already_parsed` (the route is mounted after a body parser). */
  readonly reason: SignatureErrorReason | 'body_already_parsed'
  /** What was answered: 400 (does not verify), 413 (over the size cap), 500 (mounted wrong). */
  readonly status: 400 | 413 | 500
  /**
   * The ids the body claims, when it could be read within the limits: printable ASCII, at most 64
   * characters each. Claims, not facts: use them to find the delivery in the gateway's portal.
   */
  readonly claimed: {
    readonly id?: string
    readonly order?: string
    readonly trans_id?: string
    readonly type?: string
    readonly status?: string
  }
  /** The verification's error (its `reason`, `message` and `diagnostic`), absent for `body_already_parsed`. */
  readonly error?: SignatureVerificationError
}

/** Options of `gw.callbacks.handler()`. */
export interface CallbackHandlerOptions extends CallbackOptions {
  /**
   * Your processing of a verified event: runs after the answer, from the stored record, until it
   * returns (at most `maxAttempts` times when it keeps throwing). Make it idempotent (with
   * `PostgresInbox.runOnce(context.key, …)`, or a unique index): a run whose process dies before
   * its done mark is stored runs again. `event.hash` is empty: the hash was verified on receipt.
   */
  onEvent(event: CallbackEvent, context: CallbackContext): Promise<void> | void
  /**
   * Where events are recorded: `PostgresClaimStore` or `RedisClaimStore`, shared by every instance of
   * your service. Default: a `MemoryClaimStore`, which a crash empties (it warns outside tests).
   */
  store?: ClaimStore
  /** `onEvent`s running at once on this instance (the bound limits running, never accepting). Default 8. */
  concurrency?: number
  /**
   * A run's lease in ms, renewed every third of it while `onEvent` runs: when its process dies,
   * another instance takes the event once the lease ends. Default 60 000.
   */
  holdMs?: number
  /** How long a done key is remembered, so redeliveries are answered without running, in ms. Default 7 days. */
  keepMs?: number
  /**
   * Runs of one event before it is set aside as dead (`onError` hears it, `failedEvents()` lists it,
   * `retry(key)` runs it again). A run that throws counts, and so does one whose process died (an
   * event that kills its process stops there instead of killing every instance in turn); one that
   * failed while the store was unreachable does not. Default 8.
   */
  maxAttempts?: number
  /** Delays between runs of a failing event: `baseDelayMs` (default 1 000) times 4 per attempt, at most `maxDelayMs` (default 15 minutes), ±20 %. */
  retryBackoff?: { baseDelayMs?: number; maxDelayMs?: number }
  /**
   * How often this handler looks for events to recover (a dead instance's, and failed runs whose
   * retry time came), in ms, jittered ±50 %; it also prunes done keys hourly. `0` turns the interval
   * off: call `handler.recover()` from a scheduler (serverless). Default 30 000.
   */
  recoverEveryMs?: number
  /** Fields to store besides `CALLBACK_STORED_FIELDS` (a field your account adds that `onEvent` reads). */
  storeFields?: readonly string[]
  /** Encrypts the stored fields with your own keys. */
  encryption?: FieldEncryption
  /**
   * Hears every failure: an `onEvent` that threw (it runs again later), an event set aside
   * (`DeadLetterError`), a store that failed, and on card-md5-strrev a confirming lookup that failed
   * or a callback whose claimed state differs from the lookup (field names only). Without it, the
   * client's logger hears them at warn (or `console.error`), with the event's ids only.
   */
  onError?(error: unknown, event: CallbackEvent | undefined): void
  /**
   * Hears every delivery the inbox refused (a body that does not verify, one over the size cap, one
   * a parser read first), after its answer was chosen; the client's logger (or `PAYWIRE_LOG`) also
   * gets a warn line. Apart from `onError` because anyone on the internet can cause a refusal:
   * alert on their rate, and on `hash_mismatch` during a password rotation, not on each one.
   */
  onRefused?(refusal: CallbackRefusal): void
  /** The monotonic clock of the store's retries (tests inject one). Default: the real clock. */
  clock?: Clock
}

const DEFAULT_CONCURRENCY = 8
const DEFAULT_HOLD_MS = 60_000
// A week covers every redelivery schedule published for such gateways; a done key costs ~100 bytes.
const DEFAULT_KEEP_MS = 7 * 24 * 60 * 60 * 1000
const DEFAULT_MAX_ATTEMPTS = 8
const DEFAULT_BACKOFF = { baseDelayMs: 1_000, maxDelayMs: 15 * 60 * 1000 }
const DEFAULT_RECOVER_EVERY_MS = 30_000

function refuse(path: string, message: string): never {
  throw new RequestValidationError('callbacks.handler', [{ path, message }], 'options')
}

export function whole(name: string, value: number | undefined, fallback: number, min: number): number {
  if (value === undefined) return fallback
  if (!Number.isSafeInteger(value) || value < min) refuse(name, `must be a whole number >= ${min}`)
  return value
}

/** The options, checked, as the runner takes them. */
export interface CheckedHandlerOptions {
  readonly concurrency: number
  readonly holdMs: number
  readonly keepMs: number
  readonly maxAttempts: number
  readonly backoff: InboxBackoff
  readonly recoverEveryMs: number
  readonly clock: Clock
}

/** Checks the handler's options, refusing the first bad one by name; answers the runner's settings. */
export function checkHandlerOptions(options: CallbackHandlerOptions): CheckedHandlerOptions {
  if (typeof options?.onEvent !== 'function') refuse('onEvent', 'must be a function')
  if (options.onRefused !== undefined && typeof options.onRefused !== 'function') {
    refuse('onRefused', 'must be a function')
  }
  const encryption = options.encryption
  if (
    encryption !== undefined &&
    (typeof encryption?.encrypt !== 'function' || typeof encryption?.decrypt !== 'function')
  ) {
    refuse('encryption', 'must have encrypt(text) and decrypt(text) functions')
  }
  const backoff = options.retryBackoff ?? {}
  const baseDelayMs = whole('retryBackoff.baseDelayMs', backoff.baseDelayMs, DEFAULT_BACKOFF.baseDelayMs, 1)
  return {
    concurrency: whole('concurrency', options.concurrency, DEFAULT_CONCURRENCY, 1),
    holdMs: whole('holdMs', options.holdMs, DEFAULT_HOLD_MS, 1),
    keepMs: whole('keepMs', options.keepMs, DEFAULT_KEEP_MS, 1),
    maxAttempts: whole('maxAttempts', options.maxAttempts, DEFAULT_MAX_ATTEMPTS, 1),
    backoff: {
      baseDelayMs,
      maxDelayMs: whole('retryBackoff.maxDelayMs', backoff.maxDelayMs, DEFAULT_BACKOFF.maxDelayMs, baseDelayMs),
    },
    recoverEveryMs: whole('recoverEveryMs', options.recoverEveryMs, DEFAULT_RECOVER_EVERY_MS, 0),
    clock: options.clock ?? systemClock,
  }
}
