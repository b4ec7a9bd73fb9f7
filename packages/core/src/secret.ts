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

/** Header names whose values are credentials, compared in lowercase. */
const SECRET_HEADERS = new Set([
  'authorization',
  'proxy-authorization',
  'cookie',
  'set-cookie',
  // RFC 2965's cookie-setting header: obsolete, still sent by some stacks, a session credential all the same.
  'set-cookie2',
  'x-code',
  'x-service-client-secret',
  // Not a secret by the service, but an account identifier: logs do not need it.
  'x-service-internal-client-id',
  'x-api-key',
])

/** Whether a header carries a credential (request auth headers, cookies in either direction). */
export function isSecretHeader(name: string): boolean {
  return SECRET_HEADERS.has(name.toLowerCase())
}

/** What a secret header's value is replaced with wherever headers are exposed. */
export const REDACTED_VALUE = REDACTED

/**
 * A copy of `headers` safe to log: credential headers become `[redacted]`. The one redaction rule:
 * request headers pass through it before hooks and logs see them; response headers pass through it
 * as they are read, so `ApiError.headers`, `.withResponse()`, hooks and logs all hold the same copy.
 */
export function redactHeaders(headers: Readonly<Record<string, string>>): Record<string, string> {
  const safe: Record<string, string> = {}
  for (const [name, value] of Object.entries(headers)) {
    safe[name] = isSecretHeader(name) ? REDACTED : value
  }
  return safe
}
