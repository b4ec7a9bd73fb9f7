/**
 * The one operation engine (an operation is one row). A service package
 * describes each endpoint as an `Operation` row; one `OperationClient` per client turns a row and
 * the caller's input into one `HttpClient.send`: path variables, query, body checks, idempotency
 * key, the service's last step (the card signer), reconciliation key, and reading the answer.
 */

import type { z } from 'zod'
import { type AnswerSchema, checkAnswer } from './answer-schema.js'
import { ApiPromise, isThenable, type WithResponse } from './api-promise.js'
import { nodeCrypto } from './builtins.js'
import { anchoredDate, type Clock } from './clock.js'
import { formBody, jsonBody, type Query, withQuery } from './encode.js'
import {
  type ApiError,
  PaywireError,
  type Reconciliation,
  RequestValidationError,
  type ValidationIssue,
} from './errors.js'
import type { CallOptions, HttpClient } from './http-client.js'
import { buildRawRequest, type RawRequestInput } from './raw.js'
import { forgetIntentMark, markIntentWritten } from './reconcile.js'
import type { HttpMethod, HttpRequest, RawResponse, ResponseHandler } from './request.js'
import { keyed, type RetryPolicy } from './retry.js'
import type { Intent, IntentOutcome, IntentStore } from './stores.js'
import { expandPath } from './url.js'
import { checkParams } from './validate.js'

/**
 * Where an operation's idempotency key travels: a header (bill payment's `Idempotency-Key`) or a
 * body field that names the call (remittance's `agentTransactionRef`). Whether the service
 * deduplicates on it is not assumed (`serviceDedupsIdempotencyKey`). `generate`: a UUID
 * is made when the caller gives none, so every money-moving call has a key to be found by.
 */
export type Idempotency =
  | { readonly header: string; readonly generate?: boolean }
  | { readonly bodyField: string; readonly generate?: boolean }

/** What a call sent, for its reconciliation key. */
export interface SentRequest {
  /** The wire object after `toWire` and `finalize` (`undefined` for operations without a body). */
  readonly wire: Readonly<Record<string, unknown>> | undefined
  /** The path variables as given. */
  readonly path: Readonly<Record<string, string | number>>
  readonly idempotencyKey: string | undefined
}

/**
 * A row's reconciliation: the key kinds it can name (what `reconcile` accepts for the operation)
 * and the key and safe lookup of one sent call.
 */
export interface ReconcileRule {
  readonly keys: readonly string[]
  readonly of: (sent: SentRequest) => Reconciliation | undefined
}

/** Declares a reconcile rule (frozen, like the rows that hold it). */
export function reconcileRule(
  keys: readonly string[],
  of: (sent: SentRequest) => Reconciliation | undefined,
): ReconcileRule {
  return Object.freeze({ keys: Object.freeze([...keys]), of })
}

/** The 2xx answer value could not be used: the message says what is wrong with it. */
export type RejectAnswer = (problem: string) => never

/**
 * One operation of a service. `Ctx` is what the client hands its rows (the card signer and rules);
 * `S` the body's schema (`never`: no body); `Path` the path template and `Q` whether it takes a
 * query, kept as written so the resource method made from the row is typed by them.
 */
export interface Operation<
  Ctx = unknown,
  S extends z.ZodType = z.ZodType,
  Result = unknown,
  Path extends string = string,
  Q extends boolean = boolean,
> {
  /** `group.method`, as errors, hooks and logs name it. */
  readonly name: string
  readonly method: HttpMethod
  /** Which of the client's base URLs; default: the first one. */
  readonly base?: string
  /** Path below the base URL; `{name}` is filled from `input.path`, encoded, and checked. Or the client's configured path. */
  readonly path: Path | ((ctx: Ctx) => string)
  /** The body's schema, or one built from the client (its rules) on its first call, once per client. */
  readonly params?: S | ((ctx: Ctx) => S)
  /** Whether the operation takes an open query object. */
  readonly query?: Q
  /** Body encoding; default `json`. A `form` wire object must hold strings only. */
  readonly encoding?: 'json' | 'form'
  readonly retry: RetryPolicy
  readonly idempotency?: Idempotency
  /**
   * The business key and the safe lookup that settle an unknown outcome, and the key kinds
   * `reconcile` accepts for the operation; default: the idempotency key (any kind accepted).
   */
  readonly reconcile?: ReconcileRule
  // Steps are methods: a row's own steps take its own params, and any row fits a table of rows.
  /** Refusals the schema would word badly (a shape meant for another endpoint). */
  precheck?(input: unknown): readonly ValidationIssue[]
  /** The wire object from the checked params (fixed fields, field order); default: the params. */
  toWire?(params: z.output<S>, ctx: Ctx): Record<string, unknown>
  /** The last step before encoding (the card signer adds `hash` from the very strings sent). */
  finalize?(wire: Record<string, unknown>, ctx: Ctx, operation: string): void
  /** Checks and types the answer value the service's reader produced; `reject` explains a bad one. */
  decode?(value: unknown, reject: RejectAnswer): Result
}

/**
 * Declares an operation row; its path template and `query` are kept as written, so the resource
 * method made from the row (`resource`) takes the right argument.
 */
export function defineOperation<
  Ctx = unknown,
  S extends z.ZodType = never,
  Result = unknown,
  const Path extends string = string,
  const Q extends boolean = false,
>(row: Operation<Ctx, S, Result, Path, Q>): Operation<Ctx, S, Result, Path, Q> {
  return Object.freeze(row)
}

/**
 * The decoder of an answer whose shape the service does not document: the parsed JSON, typed as the
 * open type `T` the package declares for it (a JSON value), so the type promises nothing unchecked.
 */
export function jsonAnswer<T>(value: unknown): T {
  return value as T
}

/** The caller's values for one operation, not yet checked. */
export interface OperationInput {
  /** Path variables by the name the template gives them. */
  readonly path?: Readonly<Record<string, unknown>>
  readonly query?: unknown
  readonly body?: unknown
}

/** Options of every operation call, in every package. */
export interface OperationOptions<S extends AnswerSchema | undefined = undefined> extends CallOptions {
  /**
   * Checks the success answer and types the result with it: any Standard Schema (zod, valibot,
   * arktype…); a mismatch rejects with the service's error, reason `response_schema_mismatch`.
   */
  readonly schema?: S
  /**
   * The idempotency key, for operations that carry one: 1 to 255 visible ASCII characters. Where
   * the operation generates one, yours replaces it. Refused on operations without a key.
   */
  readonly idempotencyKey?: string
  /**
   * Retry after the request may have arrived (connection lost, timeout, 408, 429, 502–504),
   * resending the same key. Only safe where the service deduplicates on the key for your account;
   * refused on operations without a key. Default `false`.
   */
  readonly retryWithSameKey?: boolean
}

/** The result type: the schema's output when one is given, otherwise the operation's own type. */
export type ResultOf<S, Default> = S extends AnswerSchema<infer T> ? T : Default

/** The raw escape hatch's input: any method and path below one of the client's base URLs. */
export interface RequestInput<Base extends string = string> extends RawRequestInput {
  /** Which base URL the path is under; default: the client's first. */
  readonly base?: Base
}

/** How a service reads answers: its error class for a refusal and for a 2xx it cannot use. */
export interface AnswerReader {
  /**
   * Reads a 2xx answer into the value rows decode. `raw` is for `request()`: any JSON, or the text.
   * Throws the service's error for an answer it cannot read (or an error envelope in a 2xx).
   */
  read(response: RawResponse, request: HttpRequest, raw: boolean): unknown
  /** The service's error for a non-2xx answer. */
  toError(response: RawResponse, request: HttpRequest): ApiError
  /** The service's error for a 2xx the SDK cannot use. */
  unusable(response: RawResponse, request: HttpRequest, problem: UnusableAnswer): ApiError
}

/** Why a 2xx answer cannot be used: unreadable (with what is wrong), or not matching the caller's schema. */
export type UnusableAnswer =
  | { readonly reason: 'unreadable_response'; readonly message: string }
  | { readonly reason: 'response_schema_mismatch'; readonly issues: readonly ValidationIssue[] }

/** What one client gives the engine. */
export interface OperationClientConfig<Ctx> {
  readonly http: HttpClient
  /** Base URLs by name, the first is the default (`{ default: baseUrl }`, or the card's two). */
  readonly baseUrls: Readonly<Record<string, string>>
  /** What rows' steps receive. */
  readonly context: Ctx
  /** Credential headers of every call, read per call from the client's secrets. */
  readonly authHeaders?: () => Record<string, string>
  /** The header `request()` sends an `idempotencyKey` option in (the service's idempotency header), if any. */
  readonly requestIdempotencyHeader?: string
  readonly answers: AnswerReader
}

const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/
const PATH_VARIABLE = /\{(\w+)\}/g
/** `.` and `..`, literal or percent-encoded: URL parsing reads them as dot segments (WHATWG URL). */
const DOT_SEGMENT = /^(\.|%2e){1,2}$/i
const NO_PATH: Readonly<Record<string, string | number>> = Object.freeze({})

/** Runs the operation rows of one client: validate, build, send, read. Nothing is sent on a refusal. */
export class OperationClient<Ctx> {
  readonly #config: OperationClientConfig<Ctx>
  readonly #defaultBase: string
  /** Each row's schema under this client's rules, built once (shared with `#onOwnConnections`). */
  #schemas = new WeakMap<object, z.ZodType>()
  /** Whether every request of this engine goes on a connection of its own (`HttpRequest.ownConnection`). */
  #ownConnection = false
  /** The engine `onOwnConnections()` returns, made once. */
  #onOwnConnections: OperationClient<Ctx> | undefined

  constructor(config: OperationClientConfig<Ctx>) {
    this.#config = config
    this.#defaultBase = Object.keys(config.baseUrls)[0] ?? 'default'
  }

  /** The origins of the client's base URLs: reconciliation settles only calls sent to them. */
  get origins(): readonly string[] {
    return [...new Set(Object.values(this.#config.baseUrls).map((url) => new URL(url).origin))]
  }

  /**
   * The same engine (client, credentials, rows), except that every request goes on a connection of
   * its own, like a money-moving call: for the lookups reconciliation decides on. A stale answer
   * left on a kept-alive connection (a service or proxy that answered one request twice) would read
   * as the lookup's answer, and settle an unknown outcome from an old state.
   */
  onOwnConnections(): OperationClient<Ctx> {
    if (this.#ownConnection) return this
    if (this.#onOwnConnections === undefined) {
      const fresh = new OperationClient(this.#config)
      fresh.#schemas = this.#schemas
      fresh.#ownConnection = true
      this.#onOwnConnections = fresh
    }
    return this.#onOwnConnections
  }

  /** Checks `input`, builds the request and sends it; a refusal rejects with `RequestValidationError`. */
  call<S extends AnswerSchema | undefined = undefined, Result = unknown>(
    row: Operation<Ctx, z.ZodType, Result>,
    input: OperationInput,
    options?: OperationOptions<S>,
  ): ApiPromise<ResultOf<S, Result>> {
    let built: { request: HttpRequest; params: unknown }
    try {
      built = this.#build(row, input, options ?? {})
    } catch (error) {
      return ApiPromise.rejected(error)
    }
    const { request, params } = built
    // The handler returns the schema's output when a schema is given, else the row's decoded result.
    const handler = this.#handler(row.decode, options?.schema, false) as ResponseHandler<ResultOf<S, Result>>
    const { http } = this.#config
    const journal = http.journal
    if (journal === undefined || request.retry.kind === 'safe') return http.send(request, handler, callOptions(options))
    return new ApiPromise(
      journaled(journal, http, request, params, (open) => http.send(request, handler, callOptions(options), open)),
    )
  }

  /**
   * The raw escape hatch: `input` on the same pipeline with the client's credentials, retries
   * (`safe` for GET, `unsent-only` otherwise, unless `retry` says) and error class. Resolves with
   * the parsed JSON, or the text when the answer is not JSON.
   */
  request<S extends AnswerSchema | undefined = undefined>(
    input: RequestInput,
    options?: OperationOptions<S>,
  ): ApiPromise<ResultOf<S, unknown>> {
    let request: HttpRequest
    try {
      request = this.#buildRaw(input, options ?? {})
    } catch (error) {
      return ApiPromise.rejected(error)
    }
    const handler = this.#handler(undefined, options?.schema, true)
    return this.#config.http.send(request, handler as ResponseHandler<ResultOf<S, unknown>>, callOptions(options))
  }

  #build<Result>(
    row: Operation<Ctx, z.ZodType, Result>,
    input: OperationInput,
    options: OperationOptions<AnswerSchema | undefined>,
  ): { request: HttpRequest; params: unknown } {
    const { context: ctx } = this.#config
    const issues = optionIssues(options, row.idempotency !== undefined)
    const template = typeof row.path === 'string' ? row.path : row.path(ctx)
    const path = pathValues(template, input.path, issues)
    if (row.query) issues.push(...queryIssues(input.query))

    const idempotency = row.idempotency
    let key = options.idempotencyKey
    let params: unknown
    if (row.params) {
      let body = input.body
      if (idempotency && 'bodyField' in idempotency) {
        ;({ body, key } = withBodyKey(body, idempotency, key, issues))
      }
      issues.push(...(row.precheck?.(body) ?? []))
      if (issues.length === 0) {
        const checked = checkParams(this.#schemaOf(row), body)
        if (checked.ok) params = checked.data
        else issues.push(...checked.issues)
      }
    }
    if (issues.length > 0) throw new RequestValidationError(row.name, issues)
    if (key === undefined && idempotency?.generate) key = nodeCrypto().randomUUID()

    let wire: Record<string, unknown> | undefined
    if (row.params) {
      wire = row.toWire ? row.toWire(params, ctx) : (params as Record<string, unknown>)
      row.finalize?.(wire, ctx, row.name)
    }
    if (idempotency && 'bodyField' in idempotency) {
      // The key is what the service will read: the field as sent, after the schema and the wire steps.
      const sentKey = wire?.[idempotency.bodyField]
      key = typeof sentKey === 'string' ? sentKey : undefined
    }
    refuseKeylessResend(row.name, options, key)
    // A copy: the credentials object may be shared or frozen, and the idempotency key is per call.
    const headers: Record<string, string> = { ...this.#config.authHeaders?.() }
    const keyHeader = idempotency && 'header' in idempotency ? idempotency.header : undefined
    if (keyHeader && key !== undefined) headers[keyHeader] = key
    const url = this.#baseUrl(row.base, row.name) + (path === NO_PATH ? template : expandPath(template, path, row.name))
    const sent: SentRequest = { wire, path, idempotencyKey: key }
    const request: HttpRequest = {
      operation: row.name,
      method: row.method,
      url: row.query ? withQuery(url, input.query as Query | undefined) : url,
      headers,
      body: wire && (row.encoding === 'form' ? formBody(wire as Record<string, string>) : jsonBody(wire)),
      retry: options.retryWithSameKey === true ? keyed : row.retry,
      reconciliation: row.reconcile ? row.reconcile.of(sent) : keyReconciliation(idempotency, key),
      idempotencyKey: key,
      managedHeaders: keyHeader ? [keyHeader] : undefined,
      ownConnection: this.#ownConnection || undefined,
    }
    return { request, params }
  }

  #buildRaw(input: RequestInput, options: OperationOptions<AnswerSchema | undefined>): HttpRequest {
    const keyHeader = this.#config.requestIdempotencyHeader
    const issues = optionIssues(options, keyHeader !== undefined)
    if (issues.length > 0) throw new RequestValidationError('request', issues)
    const { base, ...rest } = input ?? ({} as RequestInput)
    const key = options.idempotencyKey
    refuseKeylessResend('request', options, key)
    const headers: Record<string, string> = { ...this.#config.authHeaders?.() }
    if (keyHeader && key !== undefined) headers[keyHeader] = key
    const managed = keyHeader ? [keyHeader] : []
    const request = buildRawRequest('request', this.#baseUrl(base, 'request'), rest, headers, managed)
    return {
      ...request,
      retry: options.retryWithSameKey === true ? keyed : request.retry,
      reconciliation: keyReconciliation(keyHeader ? { header: keyHeader } : undefined, key),
      idempotencyKey: key,
      ownConnection: this.#ownConnection || undefined,
    }
  }

  #baseUrl(base: string | undefined, operation: string): string {
    const name = base ?? this.#defaultBase
    // Own members only: `constructor` or `__proto__` is no base URL.
    const url = Object.hasOwn(this.#config.baseUrls, name) ? this.#config.baseUrls[name] : undefined
    if (typeof url === 'string') return url
    const names = Object.keys(this.#config.baseUrls).map((name) => JSON.stringify(name))
    throw new RequestValidationError(operation, [{ path: 'base', message: `must be ${names.join(' or ')}` }])
  }

  #schemaOf(row: Operation<Ctx, z.ZodType, unknown>): z.ZodType {
    const given = row.params as z.ZodType | ((ctx: Ctx) => z.ZodType)
    if (typeof given !== 'function') return given
    let schema = this.#schemas.get(row)
    if (!schema) {
      schema = given(this.#config.context)
      this.#schemas.set(row, schema)
    }
    return schema
  }

  #handler<Result>(
    decode: ((value: unknown, reject: RejectAnswer) => Result) | undefined,
    schema: AnswerSchema | undefined,
    raw: boolean,
  ): ResponseHandler<unknown> {
    const { answers } = this.#config
    return {
      decode(response, request) {
        const value = answers.read(response, request, raw)
        if (schema) {
          const mismatch = (issues: readonly ValidationIssue[]) =>
            answers.unusable(response, request, { reason: 'response_schema_mismatch', issues })
          const checked = checkAnswer(schema, value)
          if (isThenable(checked)) {
            return checked.then((result) => {
              if (result.ok) return result.data
              throw mismatch(result.issues)
            })
          }
          if (checked.ok) return checked.data
          throw mismatch(checked.issues)
        }
        if (!decode) return value
        return decode(value, (message) => {
          throw answers.unusable(response, request, { reason: 'unreadable_response', message })
        })
      },
      toError: (response, request) => answers.toError(response, request),
    }
  }
}

/**
 * `retryWithSameKey` resends after the request may have arrived: only a call that carries a key can
 * be found (and deduplicated) by it, so a keyless call with it is refused.
 */
function refuseKeylessResend(
  operation: string,
  options: OperationOptions<AnswerSchema | undefined>,
  key: string | undefined,
): void {
  if (options.retryWithSameKey !== true || key !== undefined) return
  throw new RequestValidationError(operation, [
    {
      path: 'retryWithSameKey',
      message: 'this call carries no idempotency key (give idempotencyKey), so a resend could act twice',
    },
  ])
}

/** The core call options, without the engine's own. */
function callOptions(options: OperationOptions<AnswerSchema | undefined> | undefined): CallOptions | undefined {
  if (!options) return undefined
  const { schema: _schema, idempotencyKey: _key, retryWithSameKey: _retry, ...call } = options
  return call
}

function isStandardSchema(schema: unknown): boolean {
  const standard = (schema as { '~standard'?: { version?: unknown; validate?: unknown } } | null)?.['~standard']
  return standard?.version === 1 && typeof standard.validate === 'function'
}

function optionIssues(options: OperationOptions<AnswerSchema | undefined>, keyed: boolean): ValidationIssue[] {
  const issues: ValidationIssue[] = []
  const { idempotencyKey: key, retryWithSameKey: sameKey, schema } = options
  if (key !== undefined) {
    if (!keyed) issues.push({ path: 'idempotencyKey', message: 'this operation carries no idempotency key' })
    else if (typeof key !== 'string' || !KEY_PATTERN.test(key)) {
      issues.push({ path: 'idempotencyKey', message: 'must be 1 to 255 visible ASCII characters (no spaces)' })
    }
  }
  if (sameKey !== undefined) {
    if (typeof sameKey !== 'boolean') issues.push({ path: 'retryWithSameKey', message: 'must be true or false' })
    else if (sameKey && !keyed) {
      issues.push({
        path: 'retryWithSameKey',
        message: 'this operation carries no idempotency key, so a resend could act twice',
      })
    }
  }
  if (schema !== undefined && !isStandardSchema(schema)) {
    issues.push({
      path: 'schema',
      message: 'must be a Standard Schema (a zod, valibot or arktype schema: one with ~standard.validate)',
    })
  }
  return issues
}

/** The variable names of each path template, read once (templates are the rows' constants). */
const TEMPLATE_VARIABLES = new Map<string, readonly string[]>()

function variablesOf(template: string): readonly string[] {
  let names = TEMPLATE_VARIABLES.get(template)
  if (names === undefined) {
    names = Array.from(template.matchAll(PATH_VARIABLE), (match) => match[1] as string)
    TEMPLATE_VARIABLES.set(template, names)
  }
  return names
}

/**
 * The path variables of `template` from the caller's values: each a non-empty string or a whole
 * number (`.`, `..` and encoding are `expandPath`'s), each missing or wrong one an issue by its name.
 */
function pathValues(
  template: string,
  given: Readonly<Record<string, unknown>> | undefined,
  issues: ValidationIssue[],
): Readonly<Record<string, string | number>> {
  const names = variablesOf(template)
  if (names.length === 0) return NO_PATH
  const values: Record<string, string | number> = {}
  for (const name of names) {
    const value = given?.[name]
    if (typeof value === 'string' && DOT_SEGMENT.test(value)) {
      issues.push({ path: name, message: 'must not be empty, "." or ".." (it would change the route)' })
    } else if (
      (typeof value === 'string' && value.trim() !== '') ||
      (typeof value === 'number' && Number.isSafeInteger(value))
    ) {
      values[name] = value
    } else issues.push({ path: name, message: 'must be a non-empty string (or a whole number)' })
  }
  return values
}

const isQueryScalar = (v: unknown) =>
  v === undefined || v === null || typeof v === 'string' || typeof v === 'boolean' || Number.isFinite(v)

/** An open query object: each value a string, finite number, boolean, null/undefined, or an array of those. */
function queryIssues(value: unknown): ValidationIssue[] {
  if (value === undefined) return []
  const proto = typeof value === 'object' && value !== null ? Object.getPrototypeOf(value) : undefined
  if (proto !== Object.prototype && proto !== null) {
    // A Map or URLSearchParams has no own entries: its parameters would silently vanish.
    return [{ path: 'query', message: 'must be a plain object of query parameters' }]
  }
  const issues: ValidationIssue[] = []
  for (const [name, v] of Object.entries(value as object)) {
    const values: unknown[] = Array.isArray(v) ? v : [v]
    if (!values.every(isQueryScalar)) {
      issues.push({
        path: name,
        message: 'must be a string, finite number, boolean, null/undefined, or an array of those',
      })
    }
  }
  return issues
}

/**
 * The key of a body-field operation: the body's field, or the `idempotencyKey` option (filled into
 * the body), or a generated one; a body field and an option that differ are refused.
 */
function withBodyKey(
  body: unknown,
  idempotency: { readonly bodyField: string; readonly generate?: boolean },
  optionKey: string | undefined,
  issues: ValidationIssue[],
): { body: unknown; key: string | undefined } {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return { body, key: optionKey }
  const field = idempotency.bodyField
  const given = (body as Record<string, unknown>)[field]
  if (given !== undefined) {
    if (optionKey !== undefined && given !== optionKey) {
      issues.push({ path: 'idempotencyKey', message: `differs from the body's ${field}; give the key once` })
    }
    return { body, key: typeof given === 'string' ? given : undefined }
  }
  const key = optionKey ?? (idempotency.generate ? nodeCrypto().randomUUID() : undefined)
  return { body: key === undefined ? body : { ...body, [field]: key }, key }
}

/**
 * A keyed call without a lookup of its own is looked up by its key with the service. Sending it
 * again with the same key is not a lookup: it pays twice wherever the service does not deduplicate.
 */
function keyReconciliation(idempotency: Idempotency | undefined, key: string | undefined): Reconciliation | undefined {
  if (!idempotency || key === undefined) return undefined
  const name = 'header' in idempotency ? idempotency.header : idempotency.bodyField
  return {
    key: name,
    value: key,
    lookup: `a lookup with the service of the call sent with ${name} ${JSON.stringify(key)}`,
  }
}

/**
 * A money-moving call through the intent journal: the intent is durable before anything is sent (a
 * journal that refuses the write refuses the call), closed as `applied` on a result and as
 * `not_applied` on an error that proves the service did not act; an unknown outcome leaves it open
 * for `reconcileAll()`. A failed close leaves it open too: reconciling it later is safe (lookups only).
 * The write runs inside the call's deadline and signal (`send`'s first step): when it does not
 * finish in time the call ends with nothing sent, and the intent, which may still land, is left for
 * `reconcileAll()` to settle as not applied. It records `callLimitMs`, so no lookup settles the call
 * as not applied while it may still be on its way.
 */
async function journaled<T>(
  journal: IntentStore,
  http: HttpClient,
  request: HttpRequest,
  params: unknown,
  send: (open: () => Promise<void>) => ApiPromise<T>,
): Promise<WithResponse<T>> {
  const clock = http.clock
  const deadline = clock.now() + http.totalTimeout
  const intent: Intent = {
    id: nodeCrypto().randomUUID(),
    service: http.service,
    operation: request.operation,
    params: params === undefined ? null : params,
    reconciliation: request.reconciliation,
    idempotencyKey: request.idempotencyKey,
    // Wall time anchored on the monotonic clock (see anchoredDate): another process can measure the
    // settle delay from it without a wall-clock step of this one moving it.
    createdAt: anchoredDate(clock),
    callLimitMs: http.totalTimeout,
    target: new URL(request.url).origin,
  }
  let opened = false
  const open = async () => {
    markIntentWritten(intent.id, clock)
    try {
      await journal.open(intent)
    } catch (cause) {
      forgetIntentMark(intent.id)
      throw new PaywireError(
        `${request.operation}: the intent journal did not record the call, so nothing was sent (${String(cause)}).`,
        { cause },
      )
    }
    opened = true
  }
  let outcome: WithResponse<T>
  try {
    outcome = await send(open).withResponse()
  } catch (error) {
    const definite = error instanceof PaywireError && !error.outcomeUnknown
    if (opened && definite) await closeBy(deadline, clock, journal, intent.id, 'not_applied')
    throw error
  }
  await closeBy(deadline, clock, journal, intent.id, 'applied')
  return outcome
}

/**
 * Closes the intent, waiting no later than the call's deadline: a store that stalls must not keep
 * the caller from an answer the service gave. A close still pending then leaves the intent open,
 * which is safe: `reconcileAll()` settles it by lookup.
 */
async function closeBy(
  deadline: number,
  clock: Clock,
  journal: IntentStore,
  id: string,
  outcome: IntentOutcome,
): Promise<void> {
  let timer: NodeJS.Timeout | undefined
  // A real timer, like the call's own deadline: an injected test clock's sleep returns at once.
  const late = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, Math.max(0, deadline - clock.now()))
    timer.unref()
  })
  try {
    await Promise.race([closeQuietly(journal, id, outcome), late])
  } finally {
    clearTimeout(timer)
  }
}

async function closeQuietly(journal: IntentStore, id: string, outcome: IntentOutcome): Promise<void> {
  try {
    await journal.close(id, outcome)
    forgetIntentMark(id)
  } catch {
    // The intent stays open; reconcileAll() settles it with a lookup, which never moves money.
  }
}
