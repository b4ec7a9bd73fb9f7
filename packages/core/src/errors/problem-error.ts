/** `ProblemDetailsError`: the one error class of the services that answer errors as RFC 9457 ProblemDetails. */

import type { AnswerReader } from '../operations/operation-client.js'
import { describeProblem, type ProblemDetails, parseProblemDetails } from '../operations/problem-details.js'
import type { RawResponse } from '../transport/request.js'
import { ApiError, brandErrorClass, type RequestInfo, type ValidationIssue } from './errors.js'

/**
 * One name per kind of answer, the same in every package (the services document no error codes,
 * so the status decides): `bad_request` 400, `unauthorized` 401, `forbidden` 403, `not_found` 404,
 * `conflict` 409, `unprocessable` 422, `rate_limited` 429, `upstream_failure` 502, `server_error`
 * other 5xx, `unexpected_redirect` 3xx and 304 (never followed), `unexpected_status` a 1xx as the
 * final answer, `http_error` any other status; for a 2xx, `unreadable_response` (not the JSON
 * expected), `response_schema_mismatch` (it failed the `schema` you passed) and `unbound_response`
 * (it is not about this request: it names another subject, or a lookup's answer names none).
 */
export type ProblemReason =
  | 'bad_request'
  | 'unauthorized'
  | 'forbidden'
  | 'not_found'
  | 'conflict'
  | 'unprocessable'
  | 'rate_limited'
  | 'upstream_failure'
  | 'server_error'
  | 'unexpected_redirect'
  | 'unexpected_status'
  | 'http_error'
  | 'unreadable_response'
  | 'response_schema_mismatch'
  | 'unbound_response'

/** The reason of an answer by its status: early returns, one row each. */
export function problemReason(status: number): ProblemReason {
  if (status === 400) return 'bad_request'
  if (status === 401) return 'unauthorized'
  if (status === 403) return 'forbidden'
  if (status === 404) return 'not_found'
  if (status === 409) return 'conflict'
  if (status === 422) return 'unprocessable'
  if (status === 429) return 'rate_limited'
  if (status === 502) return 'upstream_failure'
  if (status >= 500) return 'server_error'
  if (status >= 300 && status < 400) return 'unexpected_redirect'
  if (status < 200) return 'unexpected_status'
  return 'http_error'
}

export interface ProblemDetailsErrorInit {
  readonly request: RequestInfo
  readonly response: RawResponse
  /** Set for a 2xx the SDK could not use; otherwise the status decides. */
  readonly reason?: 'unreadable_response' | 'response_schema_mismatch' | 'unbound_response'
  /** What is wrong with a 2xx answer, in words (with the reasons above). */
  readonly problemWithAnswer?: string
  /** With `response_schema_mismatch`: every place the body failed your schema. */
  readonly issues?: readonly ValidationIssue[]
}

/** What a package adds to the message, per reason: where its credentials go, what to check. */
export type ProblemHints = Partial<Readonly<Record<ProblemReason, string>>>

const EMPTY_FIELD_ERRORS: Readonly<Record<string, readonly string[]>> = Object.freeze({})

function head(reason: ProblemReason, status: number): string {
  const http = `HTTP ${status}`
  switch (reason) {
    case 'bad_request':
      return `the service refused the request (${http}).`
    case 'unauthorized':
    case 'forbidden':
      return `the service rejected the credentials (${http}).`
    case 'not_found':
      return `not found (${http}).`
    case 'conflict':
      return `the service reports a conflict (${http}).`
    case 'unprocessable':
      return `the service could not process the request (${http}).`
    case 'rate_limited':
      return `too many requests (${http}).`
    case 'upstream_failure':
      return `the service reports an upstream failure (${http}).`
    case 'server_error':
      return `the service failed (${http}).`
    case 'unexpected_redirect':
      return `the service answered ${http}, a redirect the SDK never follows (the credentials would go to another host); check the base URL.`
    case 'unexpected_status':
      return `the service answered ${http}, which is no final answer.`
    case 'unreadable_response':
      return `the success answer (${http}) could not be read:`
    case 'response_schema_mismatch':
      return `the success answer (${http}) does not match the schema you passed:`
    case 'unbound_response':
      return `the success answer (${http}) is not about this request:`
    case 'http_error':
      return `the service answered ${http}.`
  }
}

function listIssues(issues: readonly ValidationIssue[] | undefined): string {
  if (!issues || issues.length === 0) return 'see rawBody'
  return issues
    .slice(0, 3)
    .map((issue) => `${issue.path || '(body)'}: ${issue.message}`)
    .join('; ')
}

function sentence(text: string): string {
  return /[.!?]$/.test(text) ? text : `${text}.`
}

function describeAnswer(response: RawResponse, problem: ProblemDetails | undefined): string {
  const described = problem ? describeProblem(problem) : ''
  if (described) return sentence(described)
  if (response.rawBody.trim() === '') return 'The answer had an empty body.'
  const type = response.headers['content-type'] ?? 'no content type'
  return `The answer is not a ProblemDetails record (${type}, ${Buffer.byteLength(response.rawBody)} bytes; see rawBody).`
}

/**
 * The service answered with an error, or with a 2xx the SDK could not use. A ProblemDetails body
 * (RFC 9457) is parsed into `problem`, every member kept (`type, title, status, detail, instance`,
 * extensions such as `traceId`, the ASP.NET `errors` map); it is `undefined` when the body is not one
 * (an HTML page from a proxy, an empty body), and `rawBody` still holds what came. `code` is the
 * problem's `type`. The remittance and bill payment errors are this class, branded.
 */
export class ProblemDetailsError extends ApiError {
  override name = 'ProblemDetailsError'
  readonly reason: ProblemReason
  /** The ProblemDetails record, every member kept; `undefined` when the body was not one. */
  readonly problem: ProblemDetails | undefined
  /** With `response_schema_mismatch`: every place the body failed your schema. */
  readonly issues: readonly ValidationIssue[]

  constructor(init: ProblemDetailsErrorInit, hints: ProblemHints = {}) {
    const { request, response } = init
    const problem = response.status >= 400 ? parseProblemDetails(response.json) : undefined
    const reason = init.reason ?? problemReason(response.status)
    const hint = hints[reason]
    const what = init.reason
      ? sentence(init.problemWithAnswer ?? listIssues(init.issues))
      : describeAnswer(response, problem)
    super({
      ...request,
      response,
      body: response.json,
      code: problem?.type,
      message: `${request.operation}: ${head(reason, response.status)}${hint ? ` ${hint}` : ''} ${what}`,
    })
    this.reason = reason
    this.problem = problem
    this.issues = init.issues ?? []
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

  /** True for 401 and 403: the credentials were rejected. */
  get isAuthError(): boolean {
    return this.reason === 'unauthorized' || this.reason === 'forbidden'
  }

  /** True for 404. */
  get isNotFound(): boolean {
    return this.reason === 'not_found'
  }
}
brandErrorClass(ProblemDetailsError, 'ProblemDetailsError')

/** A ProblemDetails service's error class (`RemittanceError`, `BillPaymentError`). */
export type ProblemErrorClass = new (init: ProblemDetailsErrorInit) => ProblemDetailsError

/**
 * How the ProblemDetails services read answers (their success bodies are undocumented): an empty
 * body is `undefined`, JSON is returned as parsed (a bare `42` or `true` too), and anything else is
 * `unreadable_response`, except for `request()`, which returns the text. Refusals are `ErrorClass`.
 */
export function problemAnswers(ErrorClass: ProblemErrorClass): AnswerReader {
  return {
    read(response, request, raw) {
      if (response.json !== undefined) return response.json
      const text = response.rawBody.trim()
      if (text === '') return undefined
      try {
        // Core parses objects, arrays and strings only; a bare `42` or `true` is JSON too.
        return JSON.parse(text) as unknown
      } catch {
        if (raw) return response.rawBody
        const type = response.headers['content-type'] ?? 'no content type'
        throw new ErrorClass({
          request,
          response,
          reason: 'unreadable_response',
          problemWithAnswer: `it is not JSON (${type}); see rawBody`,
        })
      }
    },
    toError: (response, request) => new ErrorClass({ request, response }),
    unusable: (response, request, problem) =>
      new ErrorClass({
        request,
        response,
        reason: problem.reason,
        ...(problem.reason === 'response_schema_mismatch'
          ? { issues: problem.issues }
          : { problemWithAnswer: problem.message }),
      }),
  }
}
