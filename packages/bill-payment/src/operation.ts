/**
 * The shared pipeline of the eight operations: one row describes an operation, `Runner.run` turns a
 * row and the caller's input into a wire request (auth headers, `Idempotency-Key`, validated JSON) and
 * the answer into a result or a `BillPaymentError`.
 */

import { randomUUID } from 'node:crypto'
import {
  ApiPromise,
  buildRawRequest,
  type CallOptions,
  checkAnswer,
  expandPath,
  type HttpClient,
  type HttpMethod,
  type HttpRequest,
  jsonBody,
  keyed,
  type Query,
  type RawRequestInput,
  type RawResponse,
  type Reconciliation,
  RequestValidationError,
  type ResponseHandler,
  type RetryPolicy,
  type ValidationIssue,
  withQuery,
} from '@paywire/core'
import type { z } from 'zod'
import { BillPaymentError } from './errors.js'
import { jsonObjectIssues } from './schemas.js'

/** Spec "Authentication": both headers go on every Catalog and Transactions call. */
export const CLIENT_ID_HEADER = 'X-Service-Internal-Client-Id'
export const CLIENT_SECRET_HEADER = 'X-Service-Client-Secret'
/** Spec "Endpoints": shown as a header parameter of `GET /api/catalog/{id}`; paywire sends it on any call that has a key. */
export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key'

/** Options of one bill payment call: the core call options plus an `Idempotency-Key`. */
export interface BillPaymentCallOptions extends CallOptions {
  /**
   * Sent as the `Idempotency-Key` header: 1 to 255 visible ASCII characters. The spec shows the
   * header but not how the service treats it; `transactions.execute` generates a UUID when omitted.
   */
  idempotencyKey?: string
}

/** Adds a zod schema the 2xx body must satisfy; the call then resolves with the schema's output. */
export interface WithSchema<S extends z.ZodType> {
  /** Parses the response body (`null` when empty); a mismatch rejects with `BillPaymentError` (`response_schema_mismatch`). */
  schema: S
}

/** `schema` left out: the method resolves with its default open type, or the type parameter you give. */
export interface WithoutSchema {
  schema?: undefined
}

/**
 * How the default result (no `schema`) is checked: `entity` = a JSON object or `null`; `json` = any
 * JSON (`null` when empty); `raw` = JSON, `null` when empty, or the text when not JSON (`request()`).
 */
export type ResultKind = 'entity' | 'json' | 'raw'

/** One operation of the service (ARCHITECTURE section 1: operations are data). */
export interface OperationRow {
  /** `catalog.get`: for errors, hooks and logs. */
  readonly name: string
  readonly method: HttpMethod
  /** Path below the base URL; `{name}` is replaced by the encoded path variable. */
  readonly path: string
  /** The path variable's name, as the spec spells it (`id`, `transReference`). */
  readonly pathParam?: string
  /** The JSON body's parameter name (`body`, `filter`), when the operation has one. */
  readonly bodyParam?: string
  /** Whether the operation takes an open query object. */
  readonly query?: boolean
  readonly retry: RetryPolicy
  readonly result: ResultKind
  /** Generate an `Idempotency-Key` when the caller gives none (execute). */
  readonly generatesKey?: boolean
}

/** What a method hands to the runner: the caller's values, not yet checked. */
export interface OperationInput {
  readonly pathValue?: unknown
  readonly body?: unknown
  readonly query?: unknown
}

/** Options as the runner receives them: the public call options with an optional schema. */
export type RunOptions = BillPaymentCallOptions & { schema?: z.ZodType | undefined; retryWithSameKey?: boolean }

/** The Idempotency-Key header is the SDK's on every call: it comes from the `idempotencyKey` option only. */
const MANAGED_HEADERS = [IDEMPOTENCY_KEY_HEADER]

const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/

function pathValueIssues(row: OperationRow, value: unknown): ValidationIssue[] {
  const name = row.pathParam ?? 'id'
  if (typeof value === 'number' && Number.isSafeInteger(value)) return []
  // "." and ".." (which would change the route) are refused by core's pathSegment, like in every package.
  if (typeof value === 'string' && value.trim() !== '') return []
  return [{ path: name, message: 'must be a non-empty string (or an integer)' }]
}

function queryIssues(value: unknown): ValidationIssue[] {
  if (value === undefined) return []
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return [{ path: 'query', message: 'must be an object of query parameters' }]
  }
  const issues: ValidationIssue[] = []
  const scalar = (v: unknown) =>
    v === undefined || v === null || typeof v === 'string' || typeof v === 'boolean' || Number.isFinite(v)
  for (const [name, v] of Object.entries(value)) {
    const values: unknown[] = Array.isArray(v) ? v : [v]
    if (!values.every(scalar)) {
      issues.push({
        path: name,
        message: 'must be a string, finite number, boolean, null/undefined, or an array of those',
      })
    }
  }
  return issues
}

function optionIssues(options: RunOptions): ValidationIssue[] {
  const issues: ValidationIssue[] = []
  const key = options.idempotencyKey
  if (key !== undefined && (typeof key !== 'string' || !KEY_PATTERN.test(key))) {
    issues.push({ path: 'idempotencyKey', message: 'must be 1 to 255 visible ASCII characters (no spaces)' })
  }
  const schema = options.schema as unknown
  if (schema !== undefined && typeof (schema as { safeParse?: unknown })?.safeParse !== 'function') {
    issues.push({ path: 'schema', message: 'must be a zod schema' })
  }
  return issues
}

/** The 2xx body as a value: parsed JSON, `null` when empty, or a `BillPaymentError` when not JSON. */
function bodyValue(kind: ResultKind, response: RawResponse, request: HttpRequest): unknown {
  if (response.json !== undefined) return response.json
  if (response.rawBody.trim() === '') return null
  if (kind === 'raw') return response.rawBody
  throw new BillPaymentError({
    request,
    response,
    reason: 'unreadable_response',
    problemWithAnswer: `it is not JSON (${response.headers['content-type'] ?? 'no content type'}); see rawBody`,
  })
}

function handlerFor(kind: ResultKind, schema: z.ZodType | undefined): ResponseHandler<unknown> {
  return {
    decode(response, request) {
      const value = bodyValue(kind, response, request)
      if (schema) {
        const checked = checkAnswer(schema, value)
        if (checked.ok) return checked.data
        throw new BillPaymentError({ request, response, reason: 'response_schema_mismatch', issues: checked.issues })
      }
      if (kind === 'entity' && (typeof value !== 'object' || Array.isArray(value))) {
        throw new BillPaymentError({
          request,
          response,
          reason: 'unreadable_response',
          problemWithAnswer: `a JSON object (or no body) was expected, not ${Array.isArray(value) ? 'an array' : typeof value}; pass a schema to accept another shape`,
        })
      }
      return value
    },
    toError: (response, request) => new BillPaymentError({ request, response }),
  }
}

/**
 * A keyed call whose outcome is unknown is found again by its `Idempotency-Key`: the transaction
 * lookups for a payment, or the same call repeated with the same key.
 */
function keyReconciliation(row: OperationRow, key: string): Reconciliation {
  const lookup =
    row.name === 'transactions.execute'
      ? `bills.transactions.list() or bills.transactions.filter(...) for the payment sent with Idempotency-Key "${key}"`
      : `the same call repeated with { idempotencyKey: "${key}" }`
  return { key: 'Idempotency-Key', value: key, lookup }
}

/** Sends operations for one client; holds the credentials only as a header factory. */
export class Runner {
  readonly #http: HttpClient
  readonly #baseUrl: string
  readonly #authHeaders: () => Record<string, string>

  constructor(http: HttpClient, baseUrl: string, authHeaders: () => Record<string, string>) {
    this.#http = http
    this.#baseUrl = baseUrl
    this.#authHeaders = authHeaders
  }

  /** Headers of a call: both credentials, and the key when there is one. */
  headers(key: string | undefined): Record<string, string> {
    return { ...this.#authHeaders(), ...(key ? { [IDEMPOTENCY_KEY_HEADER]: key } : {}) }
  }

  /** Validates, sends and decodes one operation; core puts its key on the response info and every error. */
  run(row: OperationRow, input: OperationInput, options: RunOptions = {}): ApiPromise<unknown> {
    const key = options.idempotencyKey ?? (row.generatesKey ? randomUUID() : undefined)
    return this.#send(() => this.#build(row, input, options, key), handlerFor(row.result, options.schema), options)
  }

  /** The raw escape hatch: `input` sent on the same pipeline, same headers, same error class. */
  raw(input: RawRequestInput, options: RunOptions = {}): ApiPromise<unknown> {
    const key = options.idempotencyKey
    const build = (): HttpRequest => {
      const issues = optionIssues(options)
      if (issues.length > 0) throw new RequestValidationError('request', issues)
      const request = buildRawRequest('request', this.#baseUrl, input, this.headers(key), MANAGED_HEADERS)
      return { ...request, idempotencyKey: key }
    }
    return this.#send(build, handlerFor('raw', options.schema), options)
  }

  #send(build: () => HttpRequest, handler: ResponseHandler<unknown>, options: RunOptions): ApiPromise<unknown> {
    let request: HttpRequest
    try {
      request = build()
    } catch (error) {
      return ApiPromise.rejected(error)
    }
    const { signal, timeout, maxRetries, headers } = options
    const call: CallOptions = { signal, timeout, maxRetries, headers }
    return this.#http.send(request, handler, call)
  }

  /** Throws `RequestValidationError` with every issue; nothing is sent. */
  #build(row: OperationRow, input: OperationInput, options: RunOptions, key: string | undefined): HttpRequest {
    const issues = [...optionIssues(options)]
    if (row.pathParam) issues.push(...pathValueIssues(row, input.pathValue))
    if (row.bodyParam) issues.push(...jsonObjectIssues(input.body, row.bodyParam))
    if (row.query) issues.push(...queryIssues(input.query))
    if (issues.length > 0) throw new RequestValidationError(row.name, issues)

    const pathValues = row.pathParam ? { [row.pathParam]: input.pathValue as string | number } : {}
    const path = expandPath(row.path, pathValues, row.name)
    const url = withQuery(this.#baseUrl + path, row.query ? (input.query as Query | undefined) : undefined)
    return {
      operation: row.name,
      method: row.method,
      url,
      headers: this.headers(key),
      ...(row.bodyParam ? { body: jsonBody(input.body) } : {}),
      retry: options.retryWithSameKey === true ? keyed : row.retry,
      reconciliation: key === undefined ? undefined : keyReconciliation(row, key),
      idempotencyKey: key,
      managedHeaders: MANAGED_HEADERS,
    }
  }
}
