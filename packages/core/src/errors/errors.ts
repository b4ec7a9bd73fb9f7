/**
 * The error tree every paywire package throws: real `Error` subclasses, one family per kind of failure.
 * The failures of a call live here; the root and the callback error have their own modules, re-exported.
 */

import type { RetryPolicy } from '../operations/retry.js'
import { brandErrorClass, PaywireError, type Reconciliation } from './paywire-error.js'

export type { PaywireErrorOptions, Reconciliation } from './paywire-error.js'
export {
  brandErrorClass,
  callEndedMark,
  firstSentMark,
  markCallEnded,
  markFirstSent,
  PaywireError,
} from './paywire-error.js'
export type { SignatureErrorReason } from './signature-error.js'
export { SignatureVerificationError } from './signature-error.js'

/** One problem found in a request before it was sent. */
export interface ValidationIssue {
  /** Dotted path of the field, using the wire's field names (`order.amount`, `card_token`). */
  readonly path: string
  /** The rule that failed, in words. */
  readonly message: string
}

/**
 * What was refused: the arguments of a call (`request`: nothing was sent) or the options of a client
 * being constructed (`options`: there was nothing to send yet).
 */
export type ValidationStage = 'request' | 'options'

/** Bad input: refused before anything left the process; lists every issue, each naming its field. */
export class RequestValidationError extends PaywireError {
  override name = 'RequestValidationError'
  /** The operation (`checkout.purchase`), or the client (`CardGateway`) whose options were refused. */
  readonly operation: string
  readonly issues: readonly ValidationIssue[]
  readonly stage: ValidationStage
  /** Always false: validation happens before sending. */
  override readonly requestSent = false

  constructor(operation: string, issues: readonly ValidationIssue[], stage: ValidationStage = 'request') {
    const list = issues.map((issue) => `${issue.path || '(params)'}: ${issue.message}`).join('; ')
    // A client's options (`CardGateway`), or a method's (`callbacks.handler`, `payments.follow`).
    const options = operation.includes('.') ? 'invalid options' : 'invalid client options'
    const what = stage === 'options' ? options : 'invalid request, nothing was sent'
    super(`${operation}: ${what}. ${list}`)
    this.operation = operation
    this.issues = issues
    this.stage = stage
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
  /** The idempotency key the call was sent with, when the operation has one (every attempt carried it). */
  readonly idempotencyKey?: string | undefined
}

export interface RequestInfo {
  /** Operation name, e.g. `s2s.capture`. */
  readonly operation: string
  readonly method: string
  /** The URL without query secrets or credentials (paywire never puts secrets in URLs). */
  readonly url: string
  /** The operation's retry policy: anything but `safe` may act on a repeat, so an ambiguous end is an unknown outcome. */
  readonly retry: RetryPolicy
  /** How to reconcile the call, when the operation has a business key. */
  readonly reconciliation?: Reconciliation | undefined
  /**
   * Set by the transport once an earlier attempt of the same call may have acted (it may have
   * arrived and got no answer that says it did not act): the outcome stays unknown whatever a
   * later attempt answers, so a final 429 after a 503 is still a call to reconcile.
   */
  readonly earlierAttemptMayHaveActed?: boolean | undefined
  /** The idempotency key every attempt carries, when the operation has one. */
  readonly idempotencyKey?: string | undefined
}

/**
 * The rule of docs/errors.md, "Outcome unknown": a call's outcome is unknown when its operation is
 * not safe to repeat and the service may have acted on it. What "may have acted" means per kind of
 * failure is decided by the caller of this function.
 */
function unknownOutcome(request: RequestInfo, mayHaveActed: boolean): boolean {
  // An error built without a policy (by hand, in a test) claims nothing it cannot know.
  if (request.retry === undefined || request.retry.kind === 'safe') return false
  return mayHaveActed || request.earlierAttemptMayHaveActed === true
}

/**
 * Whether an answer with this status may come after the service acted: 5xx (it failed somewhere,
 * possibly after acting), 1xx and 3xx (no final answer; a 303 is even the usual reply after a POST
 * that acted), and a 2xx that became an error (its body could not be read). 4xx, including 408
 * and 429, says the request was refused or never read whole (RFC 9110 15.5.9, RFC 6585 4).
 */
export function statusMayHaveActed(status: number): boolean {
  return status < 400 || status >= 500
}

/** The sentence every error of an unknown outcome ends with: what to run before repeating. */
export function reconcileAdvice(request: RequestInfo): string {
  const how = request.reconciliation
    ? `reconcile with ${request.reconciliation.lookup} before repeating it`
    : 'no key identifies it, so no lookup can reconcile it: check with the service (its records or admin portal) before repeating it'
  const which = request.earlierAttemptMayHaveActed ? 'an earlier attempt of' : ''
  return `Outcome unknown: the service may have acted on ${which || 'this'} ${request.operation}; ${how}.`
}

/** What a `ConnectionError`-like message says after the cause. */
function sentAdvice(request: RequestInfo, requestSent: boolean, mayHaveActed: boolean): string {
  if (unknownOutcome(request, mayHaveActed)) return reconcileAdvice(request)
  if (!requestSent) return 'The request was not sent.'
  if (request.retry !== undefined && request.retry.kind !== 'safe') {
    return 'The service answered an earlier attempt without acting on it; it is safe to repeat.'
  }
  return 'The request may have reached the service; it is safe to repeat.'
}

export interface ApiErrorInit extends RequestInfo {
  readonly response: ResponseInfo
  /** The parsed body, when it was JSON. */
  readonly body: unknown
  /** A service-specific code (card gateway `error_code`, ProblemDetails `type`…). */
  readonly code?: string | number | undefined
  readonly message: string
  /**
   * Whether the service may have acted before answering this. Default: by status (see
   * `statusMayHaveActed`). A service passes `false` for a documented error answer, which says
   * the operation did not act.
   */
  readonly mayHaveActed?: boolean
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
  override readonly requestSent = true

  constructor(init: ApiErrorInit) {
    const outcomeUnknown = unknownOutcome(init, init.mayHaveActed ?? statusMayHaveActed(init.response.status))
    super(outcomeUnknown ? `${init.message} ${reconcileAdvice(init)}` : init.message, {
      outcomeUnknown,
      reconciliation: init.reconciliation,
      idempotencyKey: init.idempotencyKey,
    })
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
  /** What happened; the advice (not sent / safe to repeat / how to reconcile) is appended. */
  readonly message: string
  /** Whether this attempt, or an earlier one, may have reached the service. */
  readonly requestSent: boolean
  /** Whether this attempt may have reached the service and acted. Default: `requestSent`. */
  readonly mayHaveActed?: boolean
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
  override readonly requestSent: boolean
  readonly operation: string
  readonly method: string
  readonly url: string
  readonly attempts: number

  constructor(init: ConnectionErrorInit) {
    const mayHaveActed = init.mayHaveActed ?? init.requestSent
    super(`${init.message} ${sentAdvice(init, init.requestSent, mayHaveActed)}`, {
      cause: init.cause,
      outcomeUnknown: unknownOutcome(init, mayHaveActed),
      reconciliation: init.reconciliation,
      idempotencyKey: init.idempotencyKey,
    })
    this.requestSent = init.requestSent
    this.operation = init.operation
    this.method = init.method
    this.url = init.url
    this.attempts = init.attempts
  }
}
brandErrorClass(ConnectionError, 'ConnectionError')

/**
 * Which deadline fired: connecting, waiting for response headers, reading the body, the total
 * budget, or the end of a dedup window a retry had to arrive inside.
 */
export type TimeoutPhase = 'connect' | 'headers' | 'body' | 'total' | 'window'

export interface TimeoutErrorInit extends Omit<ConnectionErrorInit, 'message'> {
  readonly phase: TimeoutPhase
  readonly timeoutMs: number
  /**
   * Monotonic ms from the start of the call to the timeout, across every attempt; default `timeoutMs`.
   * Never below `timeoutMs`: a figure under the limit that fired (a clock that stepped back) reads as it.
   */
  readonly elapsedMs?: number
  /** The attempt the timeout ended, when it is not `attempts` (one that was never sent). */
  readonly attempt?: number
}

/**
 * A per-attempt timeout or the total deadline fired. The message gives the limit that fired, its
 * phase, the attempt and the whole call's time so far, rounded: `s2s.capture: timed out after
 * 5000 ms waiting for the response headers (attempt 2, 10 250 ms since the call began).`
 */
export class TimeoutError extends ConnectionError {
  override name = 'TimeoutError'
  readonly phase: TimeoutPhase
  readonly timeoutMs: number
  /**
   * How long the whole call had run when it timed out (monotonic ms, every attempt and backoff); at
   * least `timeoutMs`, whatever the clock did.
   */
  readonly elapsedMs: number

  constructor(init: TimeoutErrorInit) {
    const what = {
      connect: 'connecting',
      headers: 'waiting for the response headers',
      body: 'reading the response body',
      total: 'the whole call (total deadline across retries)',
      window: 'because a retry must arrive inside the dedup window of the first attempt',
    }[init.phase]
    // The limit that fired ran on a real timer, so the call has run at least that long: a clock that
    // stepped back, stood still or read NaN never gives a figure below it (nor below 0).
    const given = init.elapsedMs ?? init.timeoutMs
    const elapsedMs = Number.isFinite(given) && given > init.timeoutMs ? given : init.timeoutMs
    const attempt = init.attempt ?? init.attempts
    const which = attempt > 0 ? `attempt ${attempt}` : 'before attempt 1'
    super({
      ...init,
      message: `${init.operation}: timed out after ${formatMs(init.timeoutMs)} ms ${what} (${which}, ${formatMs(elapsedMs)} ms since the call began).`,
    })
    this.phase = init.phase
    this.timeoutMs = init.timeoutMs
    this.elapsedMs = elapsedMs
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
      message: `${init.operation}: the response body exceeded ${init.limitBytes} bytes (maxResponseBytes); the connection was closed.`,
    })
    this.limitBytes = init.limitBytes
    this.status = init.status
  }
}
brandErrorClass(ResponseTooLargeError, 'ResponseTooLargeError')

export interface UserAbortErrorInit extends RequestInfo {
  /** Whether this attempt, or an earlier one, may have reached the service. */
  readonly requestSent: boolean
  /** Whether the attempt the abort cut may have reached the service and acted. Default: `requestSent`. */
  readonly mayHaveActed?: boolean
  /** The signal's reason. */
  readonly cause?: unknown
}

/** The caller's `AbortSignal` fired. */
export class UserAbortError extends PaywireError {
  override name = 'UserAbortError'
  readonly operation: string
  /** Whether the request (this attempt or an earlier one) may already have reached the service. */
  override readonly requestSent: boolean

  constructor(init: UserAbortErrorInit) {
    const mayHaveActed = init.mayHaveActed ?? init.requestSent
    super(`${init.operation}: aborted by the caller's signal. ${sentAdvice(init, init.requestSent, mayHaveActed)}`, {
      cause: init.cause,
      outcomeUnknown: unknownOutcome(init, mayHaveActed),
      reconciliation: init.reconciliation,
      idempotencyKey: init.idempotencyKey,
    })
    this.operation = init.operation
    this.requestSent = init.requestSent
  }
}
brandErrorClass(UserAbortError, 'UserAbortError')

/** A duration for a message: whole ms from 10 ms up, one decimal below (no `95.56188800000018 ms`). */
export function formatMs(ms: number): string {
  return String(ms >= 10 || !Number.isFinite(ms) ? Math.round(ms) : Math.round(ms * 10) / 10)
}
