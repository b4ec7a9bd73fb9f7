/**
 * The bill payment types the spec names but does not describe, typed honestly as open records, and
 * the few checks that can be made without knowing their fields (a body is a plain JSON object).
 */

import type { Query, RejectAnswer, ValidationIssue } from '@paywire/core'
import { z } from 'zod'

/** An object whose fields the spec does not show: every key is allowed, every value is `unknown`. */
export interface OpenRecord {
  readonly [field: string]: unknown
}

/** Any value `JSON.parse` can produce; the honest type of a response body whose shape is not shown. */
export type JsonValue =
  | null
  | boolean
  | number
  | string
  | readonly JsonValue[]
  | { readonly [field: string]: JsonValue }

/**
 * Spec "Resources": a catalog product, addressed by id. Its fields are not shown, so nothing is
 * promised about them; narrow it with a `schema` option (or a type parameter) once you know your
 * account's shape.
 */
export type Product = OpenRecord

/** Spec "Resources": a transaction, addressed by `transReference`. Fields not shown (see `Product`). */
export type Transaction = OpenRecord

/** Spec "Resources": body of `POST /api/transactions` (execute a payment). Fields not shown. */
export type ExecutePaymentRequest = OpenRecord

/** Spec "Resources": body of `POST /api/transactions/all` (filter transactions). Fields not shown. */
export type TransactionFilter = OpenRecord

/**
 * Spec "Resources": a request schema the service defines; the spec shows neither its fields nor
 * which endpoint carries it (it is likely the body of enable/disable, but that is not shown).
 */
export type ClientProfileRequest = OpenRecord

/** Spec "Resources": a request schema the service defines; fields and use not shown. */
export type ClientState = OpenRecord

/** Body of `POST /api/catalog/enable-product`; the spec shows no fields. */
export type CatalogEnableParams = OpenRecord
/** Body of `POST /api/catalog/disable-product`; the spec shows no fields. */
export type CatalogDisableParams = OpenRecord
/** Body of `POST /api/transactions` (`ExecutePaymentRequest`). */
export type TransactionsExecuteParams = ExecutePaymentRequest
/** Body of `POST /api/transactions/all` (`TransactionFilter`). */
export type TransactionsFilterParams = TransactionFilter
/** Query of `GET /api/transactions`; the spec shows no parameters, so any name is passed through. */
export type TransactionsListParams = Query

/** Default result of `catalog.list()`: the spec does not show whether it is an array or an envelope. */
export type CatalogListResult = JsonValue | undefined
/** Default result of `catalog.get(id)`: the product, or `undefined` when the 200 carries no body (spec: "no documented body"). */
export type CatalogGetResult = Product | undefined
/** Default result of `catalog.enable(body)`: response body not shown (`undefined` when empty). */
export type CatalogEnableResult = JsonValue | undefined
/** Default result of `catalog.disable(body)`: response body not shown (`undefined` when empty). */
export type CatalogDisableResult = JsonValue | undefined
/** Default result of `transactions.list(query?)`: array or envelope, not shown. */
export type TransactionsListResult = JsonValue | undefined
/** Default result of `transactions.get(transReference)`: the transaction, or `undefined` for an empty body. */
export type TransactionsGetResult = Transaction | undefined
/** Default result of `transactions.filter(filter)`: array or envelope, not shown. */
export type TransactionsFilterResult = JsonValue | undefined

/** Why a value would not survive `JSON.stringify` unchanged, or `undefined` when it would. */
function jsonProblem(value: unknown): string | undefined {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return undefined
    case 'number':
      return Number.isFinite(value) ? undefined : `${value} is not a JSON number (it would be sent as null)`
    case 'bigint':
      return 'a BigInt cannot be sent as JSON; pass a string or a number'
    case 'function':
      return 'a function cannot be sent as JSON'
    case 'symbol':
      return 'a symbol cannot be sent as JSON'
    case 'undefined':
      return 'undefined cannot be sent as JSON (in an array it would become null)'
  }
  return undefined
}

function isPlainObject(value: object): boolean {
  const proto = Object.getPrototypeOf(value)
  return proto === Object.prototype || proto === null
}

/**
 * Checks that `value` is a plain JSON object whose every value `JSON.stringify` sends as given:
 * no functions, symbols, BigInt, NaN/Infinity, class instances (`Date`, `Map`…), cycles, or
 * `undefined` inside arrays. `undefined` object members are allowed and left out, as in JSON.
 * Returns every problem with its dotted path (`items.0.amount`).
 */
export function jsonObjectIssues(value: unknown, root: string): ValidationIssue[] {
  if (typeof value !== 'object' || value === null || Array.isArray(value) || !isPlainObject(value)) {
    return [{ path: root, message: 'must be a plain JSON object ({ ... })' }]
  }
  const issues: ValidationIssue[] = []
  const ancestors = new Set<object>()
  const join = (base: string, key: string | number) => (base ? `${base}.${key}` : String(key))

  const walk = (current: unknown, path: string, inArray: boolean): void => {
    if (current === null) return
    if (typeof current !== 'object') {
      if (current === undefined && !inArray) return
      const problem = jsonProblem(current)
      if (problem) issues.push({ path: path || root, message: problem })
      return
    }
    if (ancestors.has(current)) {
      issues.push({ path: path || root, message: 'circular reference; JSON cannot represent it' })
      return
    }
    if (!Array.isArray(current) && !isPlainObject(current)) {
      const kind = current.constructor?.name ?? 'object'
      const hint = current instanceof Date ? ' (send a string, e.g. date.toISOString())' : ''
      issues.push({ path: path || root, message: `a ${kind} is not a plain JSON value${hint}` })
      return
    }
    ancestors.add(current)
    if (Array.isArray(current)) {
      current.forEach((item, i) => {
        walk(item, join(path, i), true)
      })
    } else for (const [key, item] of Object.entries(current)) walk(item, join(path, key), false)
    ancestors.delete(current)
  }
  walk(value, '', false)
  return issues
}

/** Spec "Authentication": both headers go on every Catalog and Transactions call. */
export const CLIENT_ID_HEADER = 'X-Service-Internal-Client-Id'
export const CLIENT_SECRET_HEADER = 'X-Service-Client-Secret'
/** Spec "Endpoints": shown as a header parameter of `GET /api/catalog/{id}`; paywire sends it on any call given a key. */
export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key'

/** Every operation can carry an `Idempotency-Key` (only `transactions.execute` generates one). */
export const IDEMPOTENCY = { header: IDEMPOTENCY_KEY_HEADER } as const

/** A body the spec names but does not describe: any plain JSON object, sent as given (`root` names it in issues). */
export function jsonObject(root: string): z.ZodType<OpenRecord> {
  return z.custom<OpenRecord>().superRefine((value, ctx) => {
    for (const issue of jsonObjectIssues(value, root))
      ctx.addIssue({ code: 'custom', message: issue.message, path: [issue.path] })
  })
}

/** A single resource: a JSON object, or `undefined` for an empty body; any other JSON is unreadable. */
export function entityOrEmpty<T extends OpenRecord>(value: unknown, reject: RejectAnswer): T | undefined {
  if (value === undefined || value === null) return undefined
  if (typeof value !== 'object' || Array.isArray(value)) {
    reject(
      `a JSON object (or no body) was expected, not ${Array.isArray(value) ? 'an array' : typeof value}; pass a schema to accept another shape`,
    )
  }
  return value as T
}
