/** `CardGatewayError`: one named reason per row of the error table (rule Errors), read from both envelope levels. */

import { ApiError, type RawResponse, type RequestInfo, type ValidationIssue } from '@paywire/core'
import { type AnswerReader, brandErrorClass, statusMayHaveActed } from '@paywire/core/engine'
import { hintFor, wrongBaseUrlHint } from './error-hints.js'
import { asObject } from './fields.js'

/**
 * One snake_case reason per row of the gateway's error table (docs/errors.md), plus `not_found`
 * (code 101000 with a message the table does not list), `unreadable_response` (a 2xx body the SDK
 * cannot read), `response_schema_mismatch` (a 2xx that fails the `schema` you passed),
 * `unbound_response` (a 2xx about another transaction, order or payment, or a lookup's answer that
 * names none: rule Platform 27), `unexpected_redirect` (a 3xx, never followed), `unexpected_status`
 * (a 1xx as the final answer) and `unknown` (a code the table does not list).
 */
export type CardGatewayErrorReason =
  | 'hash_invalid'
  | 'duplicate_order'
  | 'refund_not_allowed'
  | 'invalid_request'
  | 'invalid_uuid'
  | 'schedule_not_found'
  | 'payment_not_found'
  | 'incorrect_recurring_transaction'
  | 'ip_not_allowed'
  | 'payment_does_not_exist'
  | 'order_does_not_exist'
  | 'transaction_does_not_exist'
  | 'route_not_supported'
  | 'action_not_supported'
  | 'card_token_invalid'
  | 'capture_not_pending'
  | 'refund_requires_settled'
  | 'refund_only_in_portal'
  | 'key_environment_mismatch'
  | 'not_found'
  | 'unreadable_response'
  | 'response_schema_mismatch'
  | 'unbound_response'
  | 'unexpected_redirect'
  | 'unexpected_status'
  | 'unknown'

/** Which entity a not-found answer is about (rule Errors: the code depends on the entity). */
export type NotFoundEntity = 'transaction' | 'order' | 'payment' | 'schedule' | 'recurring'

/** One element of `errors[]`; its shape is not published, so both known field spellings are read. */
export interface CardGatewayErrorDetail {
  readonly code: number | undefined
  readonly message: string
  /** The element as received. */
  readonly raw: unknown
}

interface Row {
  readonly reason: CardGatewayErrorReason
  /** Codes this row is recognised by alone (unique codes): they win over any message. */
  readonly codes?: readonly number[]
  /** Message pattern; messages identify the 100000/101000 rows and pre-6.7.0 answers. */
  readonly message?: RegExp
  readonly entity?: NotFoundEntity
}

/** The not-found code of transaction and order entities since release 6.7.0 (Versioning 2). */
const NOT_FOUND_CODE = 101000

/** The gateway's error table, one row each; unique codes first, then messages top to bottom. */
const ROWS: readonly Row[] = [
  { reason: 'hash_invalid', message: /hash is not valid/i },
  { reason: 'duplicate_order', message: /duplicate payment/i },
  { reason: 'refund_only_in_portal', codes: [210002], message: /refund via api is not supported/i },
  { reason: 'refund_not_allowed', message: /refund is not allowed/i },
  { reason: 'invalid_uuid', message: /not a valid uuid/i },
  { reason: 'schedule_not_found', message: /schedule not found/i, entity: 'schedule' },
  { reason: 'payment_not_found', message: /payment not found/i, entity: 'payment' },
  { reason: 'incorrect_recurring_transaction', message: /incorrect transaction/i, entity: 'recurring' },
  { reason: 'ip_not_allowed', message: /ip is not allowed/i },
  { reason: 'payment_does_not_exist', message: /payment does not exist/i, entity: 'payment' },
  { reason: 'order_does_not_exist', message: /order does not exist/i, entity: 'order' },
  { reason: 'transaction_does_not_exist', message: /transaction does not exist/i, entity: 'transaction' },
  { reason: 'route_not_supported', message: /route or parameters is not supported/i },
  { reason: 'action_not_supported', codes: [204005], message: /payment action not supported/i },
  { reason: 'card_token_invalid', codes: [205005], message: /card token is invalid/i },
  { reason: 'capture_not_pending', codes: [208003], message: /not in pending status/i },
  { reason: 'refund_requires_settled', codes: [208005], message: /associated with the settled state/i },
  { reason: 'key_environment_mismatch', codes: [220002], message: /use merchant test key/i },
  // Last: a validation envelope whose errors[] named nothing more specific.
  { reason: 'invalid_request', message: /request data is invalid/i },
]

const NOT_FOUND = new Set<CardGatewayErrorReason>([
  'not_found',
  'schedule_not_found',
  'payment_not_found',
  'incorrect_recurring_transaction',
  'payment_does_not_exist',
  'order_does_not_exist',
  'transaction_does_not_exist',
])

export interface CardGatewayErrorInit extends RequestInfo {
  readonly response: RawResponse
  readonly environment?: string | undefined
  /** Overrides the reason (used for 2xx bodies the SDK cannot use). */
  readonly reason?: CardGatewayErrorReason
  readonly message?: string
  /** With `response_schema_mismatch`: every place the body failed your schema. */
  readonly issues?: readonly ValidationIssue[]
}

/**
 * The gateway answered with an error (rule Errors). `code` is the effective error code (the inner
 * one when the envelope says `error_code: 0` and `errors[]` holds the real code), `reason` names the
 * row of the error table, `isNotFound` follows the entity rule (and pre-6.7.0 messages).
 */
export class CardGatewayError extends ApiError {
  override name = 'CardGatewayError'
  /** The effective `error_code`, or `undefined` when the answer had none (e.g. an HTML 502). */
  override readonly code: number | undefined
  /** The outer envelope's `error_code` as received. */
  readonly envelopeCode: number | undefined
  readonly reason: CardGatewayErrorReason
  /** `errors[]` as received (validation failures). */
  readonly errors: readonly CardGatewayErrorDetail[]
  /** The service's own message (the row's `error_message`). */
  readonly errorMessage: string | undefined
  /** Which entity was not found, when this is a not-found answer. */
  readonly notFoundEntity: NotFoundEntity | undefined
  /**
   * True for every not-found answer, whatever its code: 101000 (transaction, order) or 100000
   * (payment, schedule, recurring; and pre-6.7.0 transaction/order, recognised by message).
   */
  readonly isNotFound: boolean
  /** With `response_schema_mismatch`: every place the body failed your schema. */
  readonly issues: readonly ValidationIssue[]

  constructor(init: CardGatewayErrorInit) {
    const status = init.response.status
    const envelope = readEnvelope(init.response.json)
    const found = init.reason ? undefined : classify(envelope, status)
    const reason = init.reason ?? found?.reason ?? 'unknown'
    const code = found?.code ?? effectiveCode(envelope)
    const errorMessage = found?.message ?? envelope.message
    const hint = hintFor(reason, init.environment, init) ?? wrongBaseUrlHint(reason, status, envelope.present, init)
    const message = init.message ?? describe(init.operation, status, code, errorMessage, envelope, hint)
    super({ ...init, body: init.response.json, code, message, mayHaveActed: mayHaveActed(reason, envelope, status) })
    this.code = code
    this.envelopeCode = envelope.code
    this.reason = reason
    this.errors = envelope.errors
    this.errorMessage = errorMessage
    this.isNotFound = NOT_FOUND.has(reason)
    this.notFoundEntity = this.isNotFound ? found?.entity : undefined
    this.issues = init.issues ?? []
  }
}
brandErrorClass(CardGatewayError, 'CardGatewayError')

/**
 * How the gateway's answers are read: a 2xx must be a JSON object, and one whose envelope says
 * `result: "ERROR"` (most error statuses are not fixed, rule Errors) is an error too.
 */
export function gatewayAnswers(environment: string | undefined): AnswerReader {
  const toError = (response: RawResponse, request: RequestInfo) =>
    new CardGatewayError({ ...request, response, environment })
  const unusable: AnswerReader['unusable'] = (response, request, problem) => {
    const http = `HTTP ${response.status}`
    if (problem.reason === 'unreadable_response') {
      const message = `${request.operation}: the ${http} answer ${problem.message}.`
      return new CardGatewayError({ ...request, response, environment, reason: problem.reason, message })
    }
    if (problem.reason === 'unbound_response') {
      const message = `${request.operation}: the ${http} answer is not about this request: ${problem.message}.`
      return new CardGatewayError({ ...request, response, environment, reason: problem.reason, message })
    }
    const listed = problem.issues
      .slice(0, 3)
      .map((issue) => `${issue.path || '(body)'}: ${issue.message}`)
      .join('; ')
    const message = `${request.operation}: the success answer (${http}) does not match the schema you passed: ${listed}.`
    return new CardGatewayError({
      ...request,
      response,
      environment,
      reason: problem.reason,
      message,
      issues: problem.issues,
    })
  }
  return {
    read(response, request) {
      const body = asObject(response.json)
      if (!body) throw unusable(response, request, { reason: 'unreadable_response', message: 'is not a JSON object' })
      if (isErrorEnvelope(body)) throw toError(response, request)
      return body
    },
    toError,
    unusable,
  }
}

function isErrorEnvelope(body: Record<string, unknown>): boolean {
  if (body['result'] === 'ERROR') return true
  const code = body['error_code']
  return body['result'] === undefined && typeof body['error_message'] === 'string' && code !== undefined
}

interface Envelope {
  /** Whether the body was a JSON object with any of the envelope's fields. */
  readonly present: boolean
  readonly code: number | undefined
  readonly message: string | undefined
  readonly errors: readonly CardGatewayErrorDetail[]
}

function toCode(value: unknown): number | undefined {
  if (typeof value === 'number' && Number.isFinite(value)) return value
  if (typeof value === 'string' && /^\d+$/.test(value)) return Number(value)
  return undefined
}

function readDetail(item: unknown): CardGatewayErrorDetail {
  if (typeof item === 'string') return { code: undefined, message: item, raw: item }
  if (typeof item !== 'object' || item === null) return { code: undefined, message: String(item), raw: item }
  const o = item as Record<string, unknown>
  const message = o['error_message'] ?? o['message'] ?? o['error']
  return {
    code: toCode(o['error_code'] ?? o['code']),
    message: typeof message === 'string' ? message : JSON.stringify(item),
    raw: item,
  }
}

/** Reads `{ result, error_code, error_message, errors[] }`; tolerant of missing parts. */
export function readEnvelope(json: unknown): Envelope {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    return { present: false, code: undefined, message: undefined, errors: [] }
  }
  const o = json as Record<string, unknown>
  const message = o['error_message']
  const errors = Array.isArray(o['errors']) ? o['errors'].map(readDetail) : []
  const present = o['result'] === 'ERROR' || 'error_code' in o || 'error_message' in o
  return {
    present,
    code: toCode(o['error_code']),
    message: typeof message === 'string' ? message : undefined,
    errors,
  }
}

/**
 * Whether the gateway may have acted before this answer (docs/errors.md, "Outcome unknown"): a row
 * of the error table, or an explicit `ERROR` envelope in a 2xx, says it did not; a 1xx/3xx, an
 * unreadable 2xx, a 2xx about another transaction (it says nothing of this one) and a 5xx without a
 * known row leave it open.
 */
function mayHaveActed(reason: CardGatewayErrorReason, envelope: Envelope, status: number): boolean {
  if (
    reason === 'unreadable_response' ||
    reason === 'response_schema_mismatch' ||
    reason === 'unbound_response' ||
    reason === 'unexpected_redirect' ||
    reason === 'unexpected_status'
  )
    return true
  if (reason !== 'unknown') return false
  if (envelope.present && status >= 200 && status < 300) return false
  return statusMayHaveActed(status)
}

/** The outer code, or the inner one when the envelope says `error_code: 0` and `errors[]` holds the real code. */
function effectiveCode(envelope: Envelope): number | undefined {
  if (envelope.code !== 0) return envelope.code
  return envelope.errors.find((d) => d.code !== undefined && d.code !== 0)?.code ?? envelope.code
}

interface Classified {
  readonly reason: CardGatewayErrorReason
  readonly code: number | undefined
  readonly message: string | undefined
  readonly entity: NotFoundEntity | undefined
}

function byCode(code: number | undefined): Row | undefined {
  return code === undefined ? undefined : ROWS.find((row) => row.codes?.includes(code))
}

function byMessage(message: string | undefined): Row | undefined {
  return message === undefined ? undefined : ROWS.find((row) => row.message?.test(message))
}

/** A 101000 answer is a not-found of a transaction, order or payment whatever its wording (Versioning 2). */
function notFoundOf(code: number | undefined, message: string | undefined): Classified | undefined {
  if (code !== NOT_FOUND_CODE) return undefined
  const row = byMessage(message)
  if (row?.entity !== undefined) return { reason: row.reason, code, message, entity: row.entity }
  const entity = (['transaction', 'order', 'payment'] as const).find((name) => message?.toLowerCase().includes(name))
  return { reason: 'not_found', code, message, entity }
}

/** One level of the envelope (the outer one, or an element of `errors[]`): code first, then message. */
function classifyLevel(code: number | undefined, message: string | undefined): Classified | undefined {
  const unique = byCode(code)
  if (unique) return { reason: unique.reason, code, message, entity: unique.entity }
  const notFound = notFoundOf(code, message)
  if (notFound) return notFound
  const row = byMessage(message)
  return row ? { reason: row.reason, code, message, entity: row.entity } : undefined
}

/**
 * Early returns, one rule each: a 1xx or 3xx is no gateway answer; inner `errors[]` first (they
 * carry the real code when the envelope says `error_code: 0`), unless they only say "Request data
 * is invalid."; then the envelope, with the inner code when the outer one is 0.
 */
function classify(envelope: Envelope, status: number): Classified | undefined {
  const code = effectiveCode(envelope)
  if (status < 200) return { reason: 'unexpected_status', code, message: envelope.message, entity: undefined }
  if (status >= 300 && status < 400) {
    return { reason: 'unexpected_redirect', code, message: envelope.message, entity: undefined }
  }
  for (const detail of envelope.errors) {
    const found = classifyLevel(detail.code, detail.message)
    if (found && found.reason !== 'invalid_request') return { ...found, code: found.code ?? code }
  }
  const found = classifyLevel(envelope.code === 0 ? code : envelope.code, envelope.message)
  return found ? { ...found, code } : undefined
}

function describe(
  operation: string,
  status: number,
  code: number | undefined,
  errorMessage: string | undefined,
  envelope: Envelope,
  hint: string | undefined,
): string {
  const what =
    errorMessage ??
    (status >= 300 && status < 400 ? `unexpected HTTP ${status} redirect` : `HTTP ${status} without an error envelope`)
  const codeText = code === undefined ? `HTTP ${status}` : `error_code ${code}, HTTP ${status}`
  const details = envelope.errors.length > 0 ? ` Errors: ${envelope.errors.map((d) => d.message).join('; ')}.` : ''
  return `${operation}: ${what} (${codeText}).${details}${hint ? ` ${hint}` : ''}`
}
