/** A credential that prints as `[redacted]` everywhere, so a secret never leaks into logs, errors or JSON. */

import { inspect } from 'node:util'

const REDACTED = '[redacted]'

/**
 * Wraps a credential (card password, API key, client secret). `String()`, template literals,
 * `JSON.stringify` and `util.inspect` all print `[redacted]`; only `reveal()` gives the value.
 */
export class Secret {
  readonly #value: string

  constructor(value: string) {
    this.#value = value
  }

  /** The credential itself; call only where it is used (a header, a hash input). */
  reveal(): string {
    return this.#value
  }

  toString(): string {
    return REDACTED
  }

  toJSON(): string {
    return REDACTED
  }

  [inspect.custom](): string {
    return `Secret(${REDACTED})`
  }
}

/**
 * Header names whose values are credentials in any HTTP exchange, compared in lowercase. A service's
 * own credential headers are not listed here: they are the names its client's credentials are sent
 * in (`HttpRequest.credentialHeaders`, set by the engine from the client's `authHeaders`).
 */
const SECRET_HEADERS = new Set([
  'authorization',
  'proxy-authorization',
  'cookie',
  'set-cookie',
  // RFC 2965's cookie-setting header: obsolete, still sent by some stacks, a session credential all the same.
  'set-cookie2',
])

/**
 * Whether a header carries a credential: a standard one (auth headers, cookies in either
 * direction) or one of `credentialHeaders`, the service's own (any case).
 */
export function isSecretHeader(name: string, credentialHeaders?: readonly string[]): boolean {
  const lower = name.toLowerCase()
  if (SECRET_HEADERS.has(lower)) return true
  if (credentialHeaders === undefined) return false
  for (const credential of credentialHeaders) if (credential.toLowerCase() === lower) return true
  return false
}

/** What a secret header's value is replaced with wherever headers are exposed. */
export const REDACTED_VALUE = REDACTED

/**
 * A copy of `headers` safe to log: credential headers (the standard ones, and the service's own
 * `credentialHeaders`, whatever their case) become `[redacted]`. The one redaction rule: request
 * headers pass through it before hooks and logs see them; response headers pass through it as they
 * are read, so `ApiError.headers`, `.withResponse()`, hooks and logs all hold the same copy.
 */
export function redactHeaders(
  headers: Readonly<Record<string, string>>,
  credentialHeaders?: readonly string[],
): Record<string, string> {
  const safe: Record<string, string> = {}
  for (const [name, value] of Object.entries(headers)) {
    safe[name] = isSecretHeader(name, credentialHeaders) ? REDACTED : value
  }
  return safe
}

/**
 * Headers whose values hooks and logs show: standard framing, content and tracing headers that
 * never carry a credential or personal data. Any other header, a caller's own included (an
 * `x-api-key` passed as a call option), shows as `[redacted]` there.
 */
export const SHOWN_HEADERS: ReadonlySet<string> = new Set([
  'accept',
  'accept-encoding',
  'accept-language',
  'age',
  'cache-control',
  'connection',
  'content-encoding',
  'content-language',
  'content-length',
  'content-type',
  'date',
  'etag',
  'expires',
  'idempotency-key',
  'keep-alive',
  'last-modified',
  'retry-after',
  'server',
  'traceparent',
  'tracestate',
  'transfer-encoding',
  'user-agent',
  'vary',
  'x-request-id',
])

/** A copy of `headers` for hooks and logs: the values of `SHOWN_HEADERS` in clear, every other `[redacted]`. */
export function shownHeaders(headers: Readonly<Record<string, string>>): Record<string, string> {
  const shown: Record<string, string> = {}
  for (const [name, value] of Object.entries(headers))
    shown[name] = SHOWN_HEADERS.has(name.toLowerCase()) ? value : REDACTED
  return shown
}
