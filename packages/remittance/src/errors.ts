/** `RemittanceError`: the service's error answers (ProblemDetails, RFC 9457) and unreadable successes. */

import {
  ApiError,
  brandErrorClass,
  describeProblem,
  type ProblemDetails,
  parseProblemDetails,
  type RawResponse,
  type RequestInfo,
} from '@paywire/core'

/**
 * What kind of failure the answer was, one name per row:
 * - `unauthorized`: 401/403, the `x-code` key was missing or not accepted (spec Authentication 2);
 * - `validation_failed`: 400, the service refused the body (spec Errors);
 * - `not_found`: 404, no such beneficiary, transaction or reference;
 * - `upstream_failure`: 502, the platform behind the service failed (spec Errors);
 * - `invalid_response`: a 2xx whose body is not JSON, or not what the caller's `schema` expects;
 * - `unexpected_redirect`: a 3xx (never followed: the key would go to another host);
 * - `unexpected_status`: a 1xx as the final answer;
 * - `http_error`: any other status.
 */
export type RemittanceErrorReason =
  | 'unauthorized'
  | 'validation_failed'
  | 'not_found'
  | 'upstream_failure'
  | 'invalid_response'
  | 'unexpected_redirect'
  | 'unexpected_status'
  | 'http_error'

export interface RemittanceErrorInit {
  readonly request: RequestInfo
  readonly response: RawResponse
  /** Overrides the reason read from the status (used for unreadable 2xx answers). */
  readonly reason?: RemittanceErrorReason
  /** Overrides the message built from the answer. */
  readonly message?: string
}

const EMPTY_FIELD_ERRORS: Readonly<Record<string, readonly string[]>> = Object.freeze({})

/**
 * The remittance service answered with an error (spec Errors: 400 and 502 carry a ProblemDetails
 * record). `problem` keeps every member (`type, title, status, detail, instance`, extensions such
 * as `traceId`, the ASP.NET `errors` map); it is `undefined` when the body is not ProblemDetails
 * (an HTML page from a proxy, an empty body), and `rawBody` still holds what came.
 */
export class RemittanceError extends ApiError {
  override name = 'RemittanceError'
  /** The ProblemDetails record, every member kept; `undefined` when the body was not one. */
  readonly problem: ProblemDetails | undefined
  readonly reason: RemittanceErrorReason

  constructor(init: RemittanceErrorInit) {
    const { request, response } = init
    const problem = response.status >= 400 ? parseProblemDetails(response.json) : undefined
    const reason = init.reason ?? reasonFor(response.status)
    super({
      ...request,
      response,
      body: response.json,
      code: problem?.type,
      message: init.message ?? messageFor(request.operation, reason, response, problem),
    })
    this.problem = problem
    this.reason = reason
  }

  /** ProblemDetails `title`. */
  get title(): string | undefined {
    return this.problem?.title
  }

  /** ProblemDetails `detail`. */
  get detail(): string | undefined {
    return this.problem?.detail
  }

  /** ProblemDetails `instance`. */
  get instance(): string | undefined {
    return this.problem?.instance
  }

  /** The ASP.NET validation map `{ field: [messages] }`; empty when the answer had none. */
  get fieldErrors(): Readonly<Record<string, readonly string[]>> {
    return this.problem?.errors ?? EMPTY_FIELD_ERRORS
  }

  /** The ASP.NET `traceId` extension, for the service's support desk. */
  get traceId(): string | undefined {
    const traceId = this.problem?.traceId
    return typeof traceId === 'string' ? traceId : undefined
  }
}
brandErrorClass(RemittanceError, 'RemittanceError')

/** Status to reason: early returns, one documented row each. */
function reasonFor(status: number): RemittanceErrorReason {
  if (status === 401 || status === 403) return 'unauthorized' // spec Authentication 2: status unspecified
  if (status === 400) return 'validation_failed' // spec Errors: 400 with an error record
  if (status === 404) return 'not_found'
  if (status === 502) return 'upstream_failure' // spec Errors: 502 "on upstream failure"
  if (status >= 300 && status < 400) return 'unexpected_redirect' // never followed
  if (status < 200) return 'unexpected_status'
  if (status < 400) return 'invalid_response'
  return 'http_error'
}

function describeBody(response: RawResponse): string {
  if (response.rawBody.trim() === '') return 'The answer had an empty body.'
  const type = response.headers['content-type'] ?? 'no content type'
  return `The answer is not a ProblemDetails record (${type}, ${Buffer.byteLength(response.rawBody)} bytes; see rawBody).`
}

function messageFor(
  operation: string,
  reason: RemittanceErrorReason,
  response: RawResponse,
  problem: ProblemDetails | undefined,
): string {
  const described = problem ? describeProblem(problem) : ''
  const what = described ? sentence(described) : describeBody(response)
  const status = `HTTP ${response.status}`
  const head = {
    unauthorized: `the service rejected the API key sent in the x-code header (${status}); check the apiKey option.`,
    validation_failed: `the service refused the request (${status}).`,
    not_found: `not found (${status}).`,
    upstream_failure: `the service reports an upstream failure (${status}).`,
    invalid_response: `the success answer (${status}) could not be read.`,
    unexpected_redirect: `the service answered ${status}, a redirect the SDK never follows (the x-code key would go to another host); check baseUrl.`,
    unexpected_status: `the service answered ${status}, which is no final answer.`,
    http_error: `the service answered ${status}.`,
  }[reason]
  return `${operation}: ${head} ${what}`
}

function sentence(text: string): string {
  return /[.!?]$/.test(text) ? text : `${text}.`
}
