/** The shared pipeline of every remittance operation: a table row in, one `HttpClient.send` out. */

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
  type RawRequestInput,
  type RawResponse,
  type Reconciliation,
  type ResponseHandler,
  type RetryPolicy,
  type Secret,
  validateParams,
  withQuery,
} from '@paywire/core'
import { z } from 'zod'
import { RemittanceError } from './errors.js'
import { type LookupQuery, pathValue, querySchema, type RemittanceResult } from './schemas.js'

/** One endpoint of the spec's table. */
export interface OperationRow {
  /** `group.method`, as errors and hooks name it. */
  readonly name: string
  readonly method: HttpMethod
  /** Path below the base URL; `{name}` marks the one path variable, if any. */
  readonly path: string
  /** Body schema (POST/PUT); absent for GETs and for confirm. */
  readonly body?: z.ZodType
  /** Whether the operation takes an optional query object (GET lookups). */
  readonly query?: boolean
  readonly retry: RetryPolicy
}

/** A zod schema the caller gives to check and type an undocumented success body. */
export type ResultSchema = z.ZodType

/** The result type: the schema's output when one is given, otherwise the parsed JSON. */
export type ResultOf<S extends ResultSchema | undefined> = S extends ResultSchema ? z.output<S> : RemittanceResult

/** Per-call options: the core ones plus an optional `schema` for the success body. */
export interface RemittanceCallOptions<S extends ResultSchema | undefined = undefined> extends CallOptions {
  /**
   * Checks the success body (the spec documents none) and types the result with it; a body that
   * does not match rejects with `RemittanceError` (`reason: 'invalid_response'`).
   */
  readonly schema?: S
}

interface OperationInput {
  readonly body?: unknown
  readonly pathValue?: unknown
  readonly query?: LookupQuery | undefined
}

const PATH_VARIABLE = /\{(\w+)\}/

/** Runs operation rows for one client; holds the API key, which only ever goes into `x-code`. */
export class OperationRunner {
  readonly #http: HttpClient
  readonly #baseUrl: string
  readonly #apiKey: Secret
  /** Body schemas this client replaces (a non-default `platformDefaults.sleDecimals`). */
  readonly #bodySchemas: ReadonlyMap<z.ZodType, z.ZodType>

  constructor(
    http: HttpClient,
    baseUrl: string,
    apiKey: Secret,
    bodySchemas: ReadonlyMap<z.ZodType, z.ZodType> = new Map(),
  ) {
    this.#http = http
    this.#baseUrl = baseUrl
    this.#apiKey = apiKey
    this.#bodySchemas = bodySchemas
  }

  /** Validates, encodes and sends one operation; a validation failure rejects and sends nothing. */
  call<S extends ResultSchema | undefined>(
    row: OperationRow,
    input: OperationInput,
    options: RemittanceCallOptions<S> | undefined,
  ): ApiPromise<ResultOf<S>> {
    const { schema, ...call } = options ?? {}
    let request: HttpRequest
    try {
      request = this.#build(row, input)
    } catch (error) {
      return ApiPromise.rejected(error)
    }
    return this.#http.send(request, resultHandler<ResultOf<S>>(schema), call)
  }

  /**
   * A transfer: fills `agentTransactionRef` (the service's idempotency key) with a UUID when the
   * caller gave none; core puts it on `.withResponse()` and on every error as `idempotencyKey`.
   */
  transfer<S extends ResultSchema | undefined>(
    row: OperationRow,
    body: unknown,
    options: RemittanceCallOptions<S> | undefined,
  ): ApiPromise<ResultOf<S>> {
    const { schema, ...call } = options ?? {}
    let request: HttpRequest
    let agentTransactionRef: string
    try {
      const given = isRecord(body) ? body.agentTransactionRef : undefined
      agentTransactionRef = typeof given === 'string' ? given : randomUUID()
      const filled = isRecord(body) && given === undefined ? { ...body, agentTransactionRef } : body
      request = {
        ...this.#build(row, { body: filled }),
        reconciliation: transferReconciliation(agentTransactionRef),
        idempotencyKey: agentTransactionRef,
      }
    } catch (error) {
      return ApiPromise.rejected(error)
    }
    return this.#http.send(request, resultHandler<ResultOf<S>>(schema), call)
  }

  /** The raw escape hatch: any method and path, same key, same pipeline, same error class. */
  raw<T>(input: RawRequestInput, call: CallOptions | undefined): ApiPromise<T> {
    let request: HttpRequest
    try {
      request = buildRawRequest('request', this.#baseUrl, input, this.#authHeaders())
    } catch (error) {
      return ApiPromise.rejected(error)
    }
    return this.#http.send(request, resultHandler<T>(undefined), call)
  }

  #authHeaders(): Record<string, string> {
    // Spec Authentication 1: every call carries the key in `x-code`.
    return { 'x-code': this.#apiKey.reveal() }
  }

  #build(row: OperationRow, input: OperationInput): HttpRequest {
    const variable = PATH_VARIABLE.exec(row.path)?.[1]
    const pathValues =
      variable === undefined ? {} : validateParams(row.name, pathSchemaFor(variable), { [variable]: input.pathValue })
    let url = this.#baseUrl + expandPath(row.path, pathValues, row.name)
    if (row.query) {
      const query = validateParams(row.name, querySchema, input.query)
      url = withQuery(url, query)
    }
    const schema = row.body ? (this.#bodySchemas.get(row.body) ?? row.body) : undefined
    const body = schema ? jsonBody(validateParams(row.name, schema, input.body)) : undefined
    return {
      operation: row.name,
      method: row.method,
      url,
      headers: this.#authHeaders(),
      ...(body ? { body } : {}),
      retry: row.retry,
      reconciliation: rowReconciliation(row, input),
    }
  }
}

/**
 * How to settle a transfer whose outcome is unknown: the service refuses a reused
 * `agentTransactionRef`, so resending with the same one cannot move money twice, and a refusal
 * proves the first attempt arrived; with the reference of a confirmed transaction, the status lookup.
 */
function transferReconciliation(agentTransactionRef: string): Reconciliation {
  return {
    key: 'agentTransactionRef',
    value: agentTransactionRef,
    lookup: `a resend with the same agentTransactionRef "${agentTransactionRef}" (a reused one is refused), or remit.lookup.transactionStatus(referenceNumber)`,
  }
}

/** Confirm and beneficiary writes: the path or body key the lookup reads back. */
function rowReconciliation(row: OperationRow, input: OperationInput): Reconciliation | undefined {
  if (row.name === 'transactions.confirm' && typeof input.pathValue === 'string') {
    return {
      key: 'transactionId',
      value: input.pathValue,
      lookup: 'remit.lookup.transactionStatus(referenceNumber) with the reference of this transaction',
    }
  }
  const posid = isRecord(input.body) ? input.body.posid : undefined
  if (row.name.startsWith('beneficiaries.') && typeof posid === 'string') {
    return { key: 'posid', value: posid, lookup: `remit.beneficiaries.getByPosId(${JSON.stringify(posid)})` }
  }
  return undefined
}

type PathSchema = z.ZodType<Record<string, string>>

const pathSchemas = new Map<string, PathSchema>()

/** `{ [variable]: non-empty string }`, so a validation issue names the spec's variable (`posid`). */
function pathSchemaFor(variable: string): PathSchema {
  let schema = pathSchemas.get(variable)
  if (!schema) {
    schema = z.object({ [variable]: pathValue })
    pathSchemas.set(variable, schema)
  }
  return schema
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/**
 * Success bodies are undocumented: empty is a success (`undefined`), JSON is returned as parsed
 * (checked with the caller's schema when given), anything else is an unreadable answer.
 */
function resultHandler<T>(schema: ResultSchema | undefined): ResponseHandler<T> {
  return {
    decode(response: RawResponse, request: HttpRequest): T {
      const value = readJson(response, request)
      if (!schema) return value as T
      const checked = checkAnswer(schema, value)
      if (checked.ok) return checked.data as T
      throw new RemittanceError({ request, response, reason: 'response_schema_mismatch', issues: checked.issues })
    },
    toError(response: RawResponse, request: HttpRequest) {
      return new RemittanceError({ request, response })
    },
  }
}

function readJson(response: RawResponse, request: HttpRequest): RemittanceResult {
  if (response.json !== undefined) return response.json as RemittanceResult
  const text = response.rawBody.trim()
  if (text === '') return undefined
  try {
    // Core parses only objects, arrays and strings; a bare `42` or `true` is JSON too.
    return JSON.parse(text) as RemittanceResult
  } catch {
    throw new RemittanceError({
      request,
      response,
      reason: 'unreadable_response',
      problemWithAnswer: `it is not JSON (${response.headers['content-type'] ?? 'no content type'}); see rawBody`,
    })
  }
}
