/** Per-operation retry policies (ARCHITECTURE section 5): never one blanket rule for every call. */

/**
 * - `safe`: the call can be repeated freely (lookups): retry connection errors, timeouts, 408,
 *   429, 502, 503, 504.
 * - `window`: like `safe`, but only while the time since the first attempt is inside `windowMs`
 *   (card gateway: the service returns the original outcome of an identical request within 15 s).
 * - `unsent-only`: a repeat could move money twice; retry only when the request provably never left.
 */
export type RetryPolicy =
  | { readonly kind: 'safe' }
  | { readonly kind: 'window'; readonly windowMs: number }
  | { readonly kind: 'unsent-only' }

export const safe: RetryPolicy = Object.freeze({ kind: 'safe' })
export const unsentOnly: RetryPolicy = Object.freeze({ kind: 'unsent-only' })
export function withinWindow(windowMs: number): RetryPolicy {
  return Object.freeze({ kind: 'window', windowMs })
}

const RETRYABLE_STATUS = new Set([408, 429, 502, 503, 504])

/** What went wrong with one attempt, as the retry decision needs it. */
export type AttemptFailure =
  | { readonly kind: 'status'; readonly status: number; readonly retryAfterMs: number | undefined }
  | { readonly kind: 'connection'; readonly requestSent: boolean }

/** Whether the policy allows another attempt for this failure, ignoring budgets and deadlines. */
export function policyAllowsRetry(policy: RetryPolicy, failure: AttemptFailure): boolean {
  if (failure.kind === 'connection' && !failure.requestSent) return true // provably never left
  if (policy.kind === 'unsent-only') return false
  if (failure.kind === 'connection') return true
  return RETRYABLE_STATUS.has(failure.status)
}

export interface BackoffOptions {
  /** First delay ceiling in ms; doubles per retry (full jitter). */
  readonly baseDelayMs: number
  /** Largest delay ceiling in ms. */
  readonly maxDelayMs: number
  /** Largest `Retry-After` the SDK will wait for, in ms; longer asks end the retries. */
  readonly maxRetryAfterMs: number
}

export const DEFAULT_BACKOFF: BackoffOptions = Object.freeze({
  baseDelayMs: 250,
  maxDelayMs: 5_000,
  maxRetryAfterMs: 60_000,
})

/**
 * Delay before retry number `retry` (1-based): the server's `Retry-After` when it gave one,
 * otherwise exponential backoff with full jitter. `undefined` means "do not retry" (the server
 * asked for a longer wait than `maxRetryAfterMs`).
 */
export function retryDelay(
  retry: number,
  failure: AttemptFailure,
  options: BackoffOptions,
  random: () => number,
): number | undefined {
  if (failure.kind === 'status' && failure.retryAfterMs !== undefined) {
    return failure.retryAfterMs <= options.maxRetryAfterMs ? failure.retryAfterMs : undefined
  }
  const ceiling = Math.min(options.maxDelayMs, options.baseDelayMs * 2 ** (retry - 1))
  return Math.floor(random() * ceiling)
}

/** Parses `Retry-After` as delta-seconds or an HTTP date (RFC 9110 section 10.2.3). */
export function parseRetryAfter(value: string | undefined, now: number): number | undefined {
  if (value === undefined) return undefined
  const text = value.trim()
  if (/^\d+$/.test(text)) return Number(text) * 1000
  const date = Date.parse(text)
  if (Number.isNaN(date)) return undefined
  return Math.max(0, date - now)
}
