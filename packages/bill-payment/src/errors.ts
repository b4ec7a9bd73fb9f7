/** `BillPaymentError`: the ProblemDetails answer, a reason by status, and the call's `idempotencyKey` (from core). */

import {
  ApiError,
  brandErrorClass,
  describeProblem,
  type ProblemDetails,
  parseProblemDetails,
  type RawResponse,
  type RequestInfo,
  type ValidationIssue,
} from '@paywire/core'

/**
 * A name for the failure, from the HTTP status (the spec documents no error codes):
 * - `unauthorized` / `forbidden`: 401 / 403, the client id or secret was rejected;
 * - `bad_request`, `not_found`, `conflict`, `unprocessable`, `rate_limited`, `server_error`: by status;
 * - `unexpected_response`: a 2xx whose body is not the JSON expected;
 * - `unexpected_redirect`: a 3xx (never followed: the credentials would go to another host);
 * - `unexpected_status`: a 1xx as the final answer;
 * - `response_schema_mismatch`: a 2xx whose body failed the `schema` you passed;
 * - `other`: any other status.
 */
export type BillPaymentErrorReason =
  | 'unauthorized'
  | 'forbidden'
  | 'bad_request'
  | 'not_found'
  | 'conflict'
  | 'unprocessable'
  | 'rate_limited'
  | 'server_error'
  | 'unexpected_response'
  | 'unexpected_redirect'
  | 'unexpected_status'
  | 'response_schema_mismatch'
  | 'other'

export interface BillPaymentErrorInit {
  readonly request: RequestInfo
  readonly response: RawResponse
  /** Set for a 2xx that could not be read; otherwise taken from the status. */
  readonly reason?: 'unexpected_response' | 'response_schema_mismatch'
  /** Set with `response_schema_mismatch`: where the body failed your schema. */
  readonly issues?: readonly ValidationIssue[]
  readonly message?: string
}

/** Early returns, one per status family; the spec shows no error codes, so the status decides. */
function reasonOf(status: number): BillPaymentErrorReason {
  if (status === 401) return 'unauthorized'
  if (status === 403) return 'forbidden'
  if (status === 400) return 'bad_request'
  if (status === 404) return 'not_found'
  if (status === 409) return 'conflict'
  if (status === 422) return 'unprocessable'
  if (status === 429) return 'rate_limited'
  if (status >= 500) return 'server_error'
  if (status >= 300 && status < 400) return 'unexpected_redirect' // never followed
  if (status < 200) return 'unexpected_status'
  return 'other'
}

const AUTH_ADVICE =
  'The service rejected the client credentials: check the X-Service-Internal-Client-Id and X-Service-Client-Secret headers (the clientId and clientSecret options).'

function messageOf(init: BillPaymentErrorInit, reason: BillPaymentErrorReason, problem: ProblemDetails | undefined) {
  const head = `${init.request.operation}: HTTP ${init.response.status}`
  const detail = problem ? describeProblem(problem) : ''
  const tail = detail ? ` (${detail})` : ''
  if (init.message) return `${head}. ${init.message}`
  if (reason === 'unauthorized' || reason === 'forbidden') return `${head}. ${AUTH_ADVICE}${tail}`
  if (reason === 'unexpected_redirect')
    return `${head}: a redirect, never followed (the credentials would go to another host); check baseUrl.`
  if (problem) return `${head}: ${detail || 'the service answered with a ProblemDetails body'}`
  return `${head}: the body is not ProblemDetails; see rawBody.`
}

/**
 * The bill payment service answered with an error (status >= 400), or with a 2xx that cannot be read
 * as expected. A ProblemDetails body (RFC 9457) is parsed into `problem`; any other body stays in
 * `body`/`rawBody`. `code` is the problem's `type` when there is one.
 *
 * Spec "Authentication": a 401 or 403 means the client id or secret was rejected, and the message
 * names both headers. `idempotencyKey` is the `Idempotency-Key` the call sent, so an ambiguous
 * payment can be repeated with the same key.
 */
export class BillPaymentError extends ApiError {
  override name = 'BillPaymentError'
  readonly reason: BillPaymentErrorReason
  /** The ProblemDetails body, extension members kept; `undefined` when the body is not one. */
  readonly problem: ProblemDetails | undefined
  /** With `response_schema_mismatch`: every place the body failed your schema. */
  readonly issues: readonly ValidationIssue[]

  constructor(init: BillPaymentErrorInit) {
    const problem = init.response.status >= 400 ? parseProblemDetails(init.response.json) : undefined
    const reason = init.reason ?? reasonOf(init.response.status)
    super({
      ...init.request,
      response: init.response,
      body: init.response.json,
      code: problem?.type,
      message: messageOf(init, reason, problem),
    })
    this.reason = reason
    this.problem = problem
    this.issues = init.issues ?? []
  }

  /** True for 401 and 403: the client id or secret was rejected. */
  get isAuthError(): boolean {
    return this.reason === 'unauthorized' || this.reason === 'forbidden'
  }

  /** True for 404. */
  get isNotFound(): boolean {
    return this.reason === 'not_found'
  }
}
brandErrorClass(BillPaymentError, 'BillPaymentError')
