/**
 * What a caller gives one operation call, and the checks on it before anything is built: the
 * options (idempotency key, same-key resend, schema), path variables, the open query, and the key
 * in a body field. Each problem is an issue naming its field; nothing is sent while there is one.
 */

import { nodeCrypto } from '../builtins.js'
import type { CallOptions } from '../client-options.js'
import { RequestValidationError, type ValidationIssue } from '../errors/errors.js'
import { isDotSegment } from '../transport/url.js'
import type { RawRequestInput } from './raw.js'
import type { ResponseSchema } from './response-schema.js'

/** The caller's values for one operation, not yet checked. */
export interface OperationInput {
  /** Path variables by the name the template gives them. */
  readonly path?: Readonly<Record<string, unknown>>
  readonly query?: unknown
  readonly body?: unknown
}

/** Options of every operation call, in every package. */
export interface OperationOptions<S extends ResponseSchema | undefined = undefined> extends CallOptions {
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
  /**
   * Leaves this call's journal intent open whatever its outcome, for you to close in the same
   * transaction that records the result (`PostgresIntentStore.closeIn(tx, intentId, outcome)`;
   * `store.close(id, outcome)` on other stores), so a crash between the answer and your write
   * cannot lose the outcome: until you close it, `reconcileAll()` settles it by lookup. The intent's
   * id is `intentId` of `.withResponse()`, and of the error. Only on a money-moving call of a client
   * with a `journal`; default `false` (the SDK closes the intent as soon as it has a definite answer).
   */
  readonly keepIntentOpen?: boolean
}

/** The result type: the schema's output when one is given, otherwise the operation's own type. */
export type ResultOf<S, Default> = S extends ResponseSchema<infer T> ? T : Default

/** The raw escape hatch's input: any method and path below one of the client's base URLs. */
export interface RequestInput<Base extends string = string> extends RawRequestInput {
  /** Which base URL the path is under; default: the client's first. */
  readonly base?: Base
}

const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/
const PATH_VARIABLE = /\{(\w+)\}/g
/** The path values of a template without variables: the builder then uses the template as it is. */
export const NO_PATH: Readonly<Record<string, string | number>> = Object.freeze({})

/**
 * `retryWithSameKey` resends after the request may have arrived: only a call that carries a key can
 * be found (and deduplicated) by it, so a keyless call with it is refused.
 */
export function refuseKeylessResend(
  operation: string,
  options: OperationOptions<ResponseSchema | undefined>,
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
export function callOptions(
  options: OperationOptions<ResponseSchema | undefined> | undefined,
): CallOptions | undefined {
  if (!options) return undefined
  const { schema: _schema, idempotencyKey: _key, retryWithSameKey: _retry, keepIntentOpen: _keep, ...call } = options
  return call
}

function isStandardSchema(schema: unknown): boolean {
  const standard = (schema as { '~standard'?: { version?: unknown; validate?: unknown } } | null)?.['~standard']
  return standard?.version === 1 && typeof standard.validate === 'function'
}

export function optionIssues(options: OperationOptions<ResponseSchema | undefined>, keyed: boolean): ValidationIssue[] {
  const issues: ValidationIssue[] = []
  const { idempotencyKey: key, retryWithSameKey: sameKey, schema, keepIntentOpen } = options
  if (keepIntentOpen !== undefined && typeof keepIntentOpen !== 'boolean') {
    issues.push({ path: 'keepIntentOpen', message: 'must be true or false' })
  }
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
export function pathValues(
  template: string,
  given: Readonly<Record<string, unknown>> | undefined,
  issues: ValidationIssue[],
): Readonly<Record<string, string | number>> {
  const names = variablesOf(template)
  if (names.length === 0) return NO_PATH
  const values: Record<string, string | number> = {}
  for (const name of names) {
    const value = given?.[name]
    if (typeof value === 'string' && isDotSegment(value)) {
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
export function queryIssues(value: unknown): ValidationIssue[] {
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
export function withBodyKey(
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
