/**
 * A simulator's strict check of a request body by the SDK's own rows: the same schema (and
 * precheck) the client runs before sending, so a body a simulator accepts is one the SDK would send.
 */

import type { ValidationIssue } from '../errors/errors.js'
import { checkParams } from '../operations/validate.js'
import type { AnyOperation } from './faults.js'

/**
 * The issues of `body` against `row`'s precheck and params schema (built with `ctx`, the rules a
 * default client has), each with its wire path and the rule in the SDK's words; empty when it passes
 * or the row takes no body.
 */
export function rowBodyIssues(row: AnyOperation, ctx: unknown, body: unknown): readonly ValidationIssue[] {
  const early = row.precheck?.(body) ?? []
  if (early.length > 0) return early
  if (row.params === undefined) return []
  const schema = typeof row.params === 'function' ? row.params(ctx) : row.params
  const checked = checkParams(schema, body)
  return checked.ok ? [] : checked.issues
}
