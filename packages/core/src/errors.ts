/** The error tree every paywire package throws (ARCHITECTURE section 4): real `Error` subclasses. */

const BRAND_PREFIX = '@paywire/error:'

/**
 * Marks a class so `instanceof` holds even when a program loads both the ESM and the CJS build
 * (two copies of the class): the brand is a registered symbol, shared across module copies.
 */
export function brandErrorClass(cls: abstract new (...args: never[]) => Error, brand: string): void {
  const symbol = Symbol.for(BRAND_PREFIX + brand)
  Object.defineProperty(cls.prototype, symbol, { value: true, enumerable: false })
  Object.defineProperty(cls, Symbol.hasInstance, {
    value(this: unknown, value: unknown): boolean {
      return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[symbol] === true
    },
  })
}

/** Base of everything the SDK throws. */
export class PaywireError extends Error {
  override name = 'PaywireError'
}
brandErrorClass(PaywireError, 'PaywireError')

/** One problem found in a request before it was sent. */
export interface ValidationIssue {
  /** Dotted path of the field, using the wire's field names (`order.amount`, `card_token`). */
  readonly path: string
  /** The rule that failed, in words. */
  readonly message: string
}

/** Bad input: the request was refused before anything left the process; lists every issue. */
export class RequestValidationError extends PaywireError {
  override name = 'RequestValidationError'
  readonly operation: string
  readonly issues: readonly ValidationIssue[]
  /** Always false: validation happens before sending. */
  readonly requestSent = false

  constructor(operation: string, issues: readonly ValidationIssue[]) {
    const list = issues.map((issue) => `${issue.path || '(params)'}: ${issue.message}`).join('; ')
    super(`${operation}: invalid request, nothing was sent. ${list}`)
    this.operation = operation
    this.issues = issues
  }
}
brandErrorClass(RequestValidationError, 'RequestValidationError')

/** Where a request went and how it answered; shared by `ApiError` and `.withResponse()`. */
export interface ResponseInfo {
  readonly status: number
  readonly headers: Readonly<Record<string, string>>
  /** `x-request-id` (or a similar correlation header) when the service sent one. */
  readonly requestId: string | undefined
  /** The body as received, decoded as UTF-8. */
  readonly rawBody: string
  /** How many attempts the call took (1 when it was not retried). */
  readonly attempts: number
}

export interface RequestInfo {
  /** Operation name, e.g. `s2s.capture`. */
  readonly operation: string
  readonly method: string
  /** The URL without query secrets or credentials (paywire never puts secrets in URLs). */
  readonly url: string
}

export interface ApiErrorInit extends RequestInfo {
  readonly response: ResponseInfo
  /** The parsed body, when it was JSON. */
  readonly body: unknown
  /** A service-specific code (card gateway `error_code`, ProblemDetails `type`…). */
  readonly code?: string | number | undefined
  readonly message: string
}

/** The service answered, and the answer is an error (or a success body that cannot be read). */
export class ApiError extends PaywireError {
  override name = 'ApiError'
  readonly status: number
  readonly code: string | number | undefined
  readonly body: unknown
  readonly rawBody: string
  readonly headers: Readonly<Record<string, string>>
  readonly requestId: string | undefined
  readonly operation: string
  readonly method: string
  readonly url: string
  readonly attempts: number
  /** The service answered, so the request certainly arrived. */
  readonly requestSent = true

  constructor(init: ApiErrorInit) {
    super(init.message)
    this.status = init.response.status
    this.code = init.code
    this.body = init.body
    this.rawBody = init.response.rawBody
    this.headers = init.response.headers
    this.requestId = init.response.requestId
    this.operation = init.operation
    this.method = init.method
    this.url = init.url
    this.attempts = init.response.attempts
  }
}
brandErrorClass(ApiError, 'ApiError')

export interface ConnectionErrorInit extends RequestInfo {
  readonly message: string
  readonly requestSent: boolean
  readonly attempts: number
  readonly cause?: unknown
}

/**
 * No usable answer arrived. `requestSent` is false only when the request provably never left
 * (connection refused, DNS failure, connect timeout); otherwise the service may have acted on it
 * and the caller must reconcile (status lookup) before repeating a money movement.
 */
export class ConnectionError extends PaywireError {
  override name = 'ConnectionError'
  readonly requestSent: boolean
  readonly operation: string
  readonly method: string
  readonly url: string
  readonly attempts: number

  constructor(init: ConnectionErrorInit) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause })
    this.requestSent = init.requestSent
    this.operation = init.operation
    this.method = init.method
    this.url = init.url
    this.attempts = init.attempts
  }
}
brandErrorClass(ConnectionError, 'ConnectionError')

/** Which deadline fired: connecting, waiting for response headers, reading the body, or the total budget. */
export type TimeoutPhase = 'connect' | 'headers' | 'body' | 'total'

export interface TimeoutErrorInit extends Omit<ConnectionErrorInit, 'message'> {
  readonly phase: TimeoutPhase
  readonly timeoutMs: number
}

/** A per-attempt timeout or the total deadline fired. */
export class TimeoutError extends ConnectionError {
  override name = 'TimeoutError'
  readonly phase: TimeoutPhase
  readonly timeoutMs: number

  constructor(init: TimeoutErrorInit) {
    const what = {
      connect: 'connecting',
      headers: 'waiting for the response headers',
      body: 'reading the response body',
      total: 'the whole call (total deadline across retries)',
    }[init.phase]
    const sent = init.requestSent
      ? 'The request may have been processed: reconcile before repeating it.'
      : 'The request was not sent.'
    super({
      ...init,
      message: `${init.operation}: timed out after ${init.timeoutMs} ms ${what}. ${sent}`,
    })
    this.phase = init.phase
    this.timeoutMs = init.timeoutMs
  }
}
brandErrorClass(TimeoutError, 'TimeoutError')

/** The answer was larger than `maxResponseBytes`; the request arrived, so this counts as sent. */
export class ResponseTooLargeError extends ConnectionError {
  override name = 'ResponseTooLargeError'
  readonly limitBytes: number
  readonly status: number

  constructor(init: Omit<ConnectionErrorInit, 'message' | 'requestSent'> & { limitBytes: number; status: number }) {
    super({
      ...init,
      requestSent: true,
      message: `${init.operation}: the response body exceeded ${init.limitBytes} bytes (maxResponseBytes); the connection was closed. The request may have been processed: reconcile before repeating it.`,
    })
    this.limitBytes = init.limitBytes
    this.status = init.status
  }
}
brandErrorClass(ResponseTooLargeError, 'ResponseTooLargeError')

/** The caller's `AbortSignal` fired. */
export class UserAbortError extends PaywireError {
  override name = 'UserAbortError'
  readonly operation: string
  /** Whether the request may already have reached the service before the abort. */
  readonly requestSent: boolean

  constructor(operation: string, requestSent: boolean, cause?: unknown) {
    super(
      `${operation}: aborted by the caller's signal${requestSent ? '; the request may have been processed' : ' before the request was sent'}.`,
      cause === undefined ? undefined : { cause },
    )
    this.operation = operation
    this.requestSent = requestSent
  }
}
brandErrorClass(UserAbortError, 'UserAbortError')

/** A callback (webhook) whose signature does not verify; `diagnostic` never contains a secret. */
export class SignatureVerificationError extends PaywireError {
  override name = 'SignatureVerificationError'
  readonly reason: string
  readonly diagnostic: Readonly<Record<string, unknown>>

  constructor(reason: string, message: string, diagnostic: Record<string, unknown> = {}) {
    super(message)
    this.reason = reason
    this.diagnostic = diagnostic
  }
}
brandErrorClass(SignatureVerificationError, 'SignatureVerificationError')
