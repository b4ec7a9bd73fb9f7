/** Per-operation retry policies (the retry table of the retries-and-idempotency guide): never one blanket rule for every call. */

/**
 * - `safe`: the call can be repeated freely (lookups): retry connection errors, timeouts, 408,
 *   429, 502, 503, 504.
 * - `window`: like `safe`, but only while the time since the first attempt is inside `windowMs`
 *   (card gateway: the service returns the original outcome of an identical request within 15 s).
 * - `unsent-only`: a repeat could move money twice; retry only when the request provably never left.
 * - `keyed`: the call acts, but every attempt carries the same idempotency key and the service
 *   answers a repeat with the first outcome: retried like `safe`, yet an ambiguous end is still an
 *   unknown outcome (money may have moved).
 */
export type RetryPolicy =
  | { readonly kind: 'safe' }
  | { readonly kind: 'window'; readonly windowMs: number }
  | { readonly kind: 'unsent-only' }
  | { readonly kind: 'keyed' }

export const safe: RetryPolicy = Object.freeze({ kind: 'safe' })
export const keyed: RetryPolicy = Object.freeze({ kind: 'keyed' })
export const unsentOnly: RetryPolicy = Object.freeze({ kind: 'unsent-only' })
export function withinWindow(windowMs: number): RetryPolicy {
  return Object.freeze({ kind: 'window', windowMs })
}

const RETRYABLE_STATUS = new Set([408, 429, 502, 503, 504])

/** Whether `status` is one a `safe` call is retried on (408, 429, 502, 503, 504): "try again", whoever it was for. */
export function isRetryableStatus(status: number): boolean {
  return RETRYABLE_STATUS.has(status)
}

/** What went wrong with one attempt, as the retry decision needs it. */
export type AttemptFailure =
  | { readonly kind: 'status'; readonly status: number; readonly retryAfterMs: number | undefined }
  | { readonly kind: 'connection'; readonly requestSent: boolean }
  /** The service began to answer (an interim 1xx status) and no final answer followed. */
  | { readonly kind: 'interim'; readonly status: number }

/** Whether the policy allows another attempt for this failure, ignoring budgets and deadlines. */
export function policyAllowsRetry(policy: RetryPolicy, failure: AttemptFailure): boolean {
  if (failure.kind === 'connection' && !failure.requestSent) return true // provably never left
  if (policy.kind === 'unsent-only') return false
  // The service received the request and started on it: only a repeat it recognises is harmless.
  if (failure.kind === 'interim') return policy.kind === 'safe' || policy.kind === 'keyed'
  if (failure.kind === 'connection') return true
  return isRetryableStatus(failure.status)
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
  // The exponent is capped so the product stays finite: 0 * 2 ** 1024 would be NaN, a delay no
  // deadline comparison can refuse.
  const ceiling = Math.min(options.maxDelayMs, options.baseDelayMs * 2 ** Math.min(retry - 1, 52))
  return Math.floor(random() * ceiling)
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec']
const DAY = '(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)'
const LONG_DAY = '(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)'
const MONTH = `(${MONTHS.join('|')})`
const TIME = '(\\d{2}):(\\d{2}):(\\d{2})'
/** IMF-fixdate: `Sun, 06 Nov 1994 08:49:37 GMT`. */
const IMF_FIXDATE = new RegExp(`^${DAY}, (\\d{2}) ${MONTH} (\\d{4}) ${TIME} GMT$`)
/** Obsolete RFC 850 form: `Sunday, 06-Nov-94 08:49:37 GMT`. */
const RFC850_DATE = new RegExp(`^${LONG_DAY}, (\\d{2})-${MONTH}-(\\d{2}) ${TIME} GMT$`)
/** Obsolete asctime form: `Sun Nov  6 08:49:37 1994`. */
const ASCTIME_DATE = new RegExp(`^${DAY} ${MONTH} ([ \\d]\\d) ${TIME} (\\d{4})$`)

/** An HTTP-date (RFC 9110 5.6.7) in ms since the epoch, or `undefined` for anything else. */
function parseHttpDate(text: string, now: number): number | undefined {
  let m = IMF_FIXDATE.exec(text)
  if (m) return utc(Number(m[3]), m[2], Number(m[1]), m[4], m[5], m[6])
  m = RFC850_DATE.exec(text)
  if (m) {
    // RFC 9110: a two-digit year more than 50 years in the future is in the past century.
    const yy = Number(m[3])
    const thisYear = new Date(now).getUTCFullYear()
    let year = Math.floor(thisYear / 100) * 100 + yy
    if (year > thisYear + 50) year -= 100
    return utc(year, m[2], Number(m[1]), m[4], m[5], m[6])
  }
  m = ASCTIME_DATE.exec(text)
  if (m) return utc(Number(m[6]), m[1], Number((m[2] ?? '').trim()), m[3], m[4], m[5])
  return undefined
}

/** The instant, or `undefined` for a date that does not exist (`31 Feb`, hour 99): no rolling over. */
function utc(
  year: number,
  month: string | undefined,
  day: number,
  h?: string,
  mi?: string,
  s?: string,
): number | undefined {
  const monthIndex = MONTHS.indexOf(month ?? '')
  const [hour, minute, second] = [Number(h), Number(mi), Number(s)]
  if (hour > 23 || minute > 59 || second > 60) return undefined
  const at = Date.UTC(year, monthIndex, day, hour, minute, Math.min(second, 59))
  return new Date(at).getUTCDate() === day ? at : undefined
}

/**
 * Parses `Retry-After` (RFC 9110 10.2.3): delta-seconds (digits only) or an HTTP-date in one of
 * its three forms. Anything else (`-5`, `4.5`, `+5`, a bare year) is no Retry-After at all, so the
 * normal backoff applies; `Date.parse` would read such text as a date in the past and retry at once.
 * `now` is wall-clock time, the clock HTTP dates are on.
 */
export function parseRetryAfter(value: string | undefined, now: number): number | undefined {
  if (value === undefined) return undefined
  // Only HTTP's optional whitespace (SP, HTAB) surrounds a field value; `trim()` would also take
  // NBSP, VT, FF or a BOM, characters no conforming server sends there.
  const text = value.replace(/^[ \t]+|[ \t]+$/g, '')
  if (/^\d+$/.test(text)) return Number(text) * 1000
  const date = parseHttpDate(text, now)
  if (date === undefined) return undefined
  return Math.max(0, date - now)
}
