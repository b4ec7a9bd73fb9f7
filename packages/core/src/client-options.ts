/** Options of a client and of one call: what each means, its default, and the checks that refuse a bad one. */

import type { Dispatcher } from 'undici'
import type { Clock } from './clock.js'
import { RequestValidationError } from './errors/errors.js'
import type { IntentStore } from './journal/stores.js'
import type { BackoffOptions } from './operations/retry.js'
import type { Hooks, Logger } from './telemetry/hooks.js'

/** Options every paywire client accepts. */
export interface ClientOptions {
  /** Time limit of one attempt in ms, at most 2 147 483 647 (Node's timer limit). Default 30 000. */
  timeout?: number
  /** Time limit of the whole call, retries and backoff included, in ms (same limit). Default 120 000. */
  totalTimeout?: number
  /** Retries after the first attempt, where the operation's policy allows them. Default 2. */
  maxRetries?: number
  /** Largest response body read, in bytes. Default 10 MiB. */
  maxResponseBytes?: number
  /**
   * An undici Dispatcher (proxy agent, custom pool, MockAgent). Default: the client's own two pools,
   * keep-alive for calls that are safe to repeat, one connection per call for money-moving calls and
   * the lookups `reconcile` decides on. With your own dispatcher, those ask for their connection to
   * be closed after them (`reset`), but whether they get a fresh one is up to that dispatcher.
   */
  dispatcher?: Dispatcher
  /**
   * A `fetch` function to send with instead of undici (a runtime's own, an instrumented one). Default:
   * undici on Node, the runtime's `fetch` elsewhere. Same deadlines, retries, size cap, and
   * redirects never followed; but `fetch` cannot say whether a failed request was written, so a
   * failure after sending began counts as possibly sent, and money-moving calls cannot be given a
   * connection of their own. Not with `dispatcher`.
   */
  fetch?: typeof fetch
  /**
   * Most sockets the client's own pools open to one origin, for lookups and, separately, for
   * money-moving calls (each on a connection of its own, closed after its answer); a call beyond
   * them waits for a free one within its deadline (unsent if the deadline fires first). Default 16.
   * undici keeps a socket one event-loop turn after its answer (in
   * case the server closes it anyway), so a call sent at once opens another: without a cap, up to
   * twice the calls in flight (bench/sockets.ts). 16 sockets carry about 50 calls/s to a service
   * answering in 300 ms: raise it for more. Not taken with `dispatcher`: set your
   * dispatcher's own `connections`.
   */
  maxSockets?: number
  /** Observers of each request, response, retry and error; every header value they see is redacted. */
  hooks?: Hooks
  /** Receives one line per event (debug) and per retry or error (warn), redacted. Silent by default. */
  logger?: Logger
  /** Appended to the `User-Agent` header, e.g. `my-shop/1.4`. */
  userAgent?: string
  /** Backoff tuning: `baseDelayMs` 250, `maxDelayMs` 5 000, `maxRetryAfterMs` 60 000. */
  backoff?: Partial<BackoffOptions>
  /** Injectable time source (tests); its `now()` must be monotonic. */
  clock?: Clock
  /** Injectable randomness in [0, 1) for backoff jitter (tests). */
  random?: () => number
  /**
   * The intent journal: every money-moving call is written here before it is sent and closed once
   * its outcome is definite, so `reconcileAll()` can settle what a crash or a lost answer left open.
   * Off by default; `MemoryIntentStore` for one process, `@paywire/redis` across restarts.
   */
  journal?: IntentStore
}

/** Options of a single call. */
export interface CallOptions {
  /** Aborts the call; it then rejects with `UserAbortError`. */
  signal?: AbortSignal
  /** Overrides the client's per-attempt timeout for this call. */
  timeout?: number
  /** Overrides the client's `maxRetries` for this call. */
  maxRetries?: number
  /** Extra headers for this call; the ones the SDK sets (credentials, idempotency key) cannot be overridden. */
  headers?: Record<string, string>
}

export interface HttpClientConfig {
  /** Package name without scope, for the User-Agent (`card-gateway`). */
  readonly packageName: string
  readonly packageVersion: string
  /** Every client option but `journal`, which is the engine's (`OperationClientConfig.journal`). */
  readonly options: Omit<ClientOptions, 'journal'>
  /** The merchant account's fingerprint (`accountFingerprint`), recorded on every error of a call. */
  readonly account?: string | undefined
}

export const DEFAULT_TIMEOUT = 30_000
export const DEFAULT_TOTAL_TIMEOUT = 120_000
export const DEFAULT_MAX_RETRIES = 2
export const DEFAULT_MAX_RESPONSE_BYTES = 10 * 1024 * 1024

/** Default per-origin socket cap of the client's own pools: sockets stay at or below the calls in flight from 16 up. */
export const DEFAULT_MAX_SOCKETS = 16

/** `fetch`: a function, and not together with `dispatcher` (each picks how requests are sent). */
export function fetchOption(value: unknown, withDispatcher: boolean): typeof fetch | undefined {
  if (value === undefined) return undefined
  if (typeof value !== 'function')
    throw optionError('fetch', 'must be a function with the signature of the global fetch')
  if (withDispatcher) {
    throw optionError(
      'fetch',
      'cannot be combined with `dispatcher`: give one of them (fetch sends without undici, dispatcher sends on undici)',
    )
  }
  return value as typeof fetch
}

function optionError(path: string, message: string): RequestValidationError {
  return new RequestValidationError('client', [{ path, message }], 'options')
}

/** `maxSockets`: a whole number >= 1, and only for the client's own pools (not with `dispatcher` or `fetch`). */
export function socketCap(value: number | undefined, ownDispatcher: boolean, withFetch = false): number {
  if (value === undefined) return DEFAULT_MAX_SOCKETS
  if (!Number.isSafeInteger(value) || value < 1) throw optionError('maxSockets', 'must be a whole number >= 1')
  if (ownDispatcher) {
    throw optionError(
      'maxSockets',
      "applies to the client's own pools only: with `dispatcher`, set that dispatcher's `connections` instead",
    )
  }
  if (withFetch) {
    throw optionError(
      'maxSockets',
      "applies to the client's own pools only: with `fetch`, connections are that fetch's to manage",
    )
  }
  return value
}
