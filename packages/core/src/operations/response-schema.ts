/** The caller's `schema` option: any Standard Schema checks and types a success answer. */

import { isThenable } from '../api-promise.js'
import type { ValidationIssue } from '../errors/errors.js'

/**
 * What a `schema` call option needs: the Standard Schema interface (standardschema.dev, version 1),
 * which zod (3.24 and later), valibot (1.0 and later) and arktype (2.0 and later) schemas implement.
 * The SDK never depends on the library you use: it only calls `~standard.validate`.
 */
export interface ResponseSchema<T = unknown> {
  readonly '~standard': {
    readonly version: 1
    readonly vendor: string
    readonly validate: (value: unknown) => SchemaResult<T> | PromiseLike<SchemaResult<T>>
  }
}

/** A Standard Schema result: the typed value, or the issues. */
type SchemaResult<T> = { readonly value: T; readonly issues?: undefined } | { readonly issues: readonly SchemaIssue[] }

interface SchemaIssue {
  readonly message: string
  readonly path?: ReadonlyArray<PropertyKey | { readonly key: PropertyKey }> | undefined
}

/** The outcome of checking an answer: its typed value, or every place it failed. */
export type CheckedResponse<T> =
  | { readonly ok: true; readonly data: T }
  | { readonly ok: false; readonly issues: ValidationIssue[] }

/**
 * Checks a 2xx body against the caller's `schema`: the parsed value, or every path where it failed
 * (for a `response_schema_mismatch` error). One rule for every package's `schema` option. A schema
 * with asynchronous checks gives a promise of the same.
 */
export function checkResponse<T>(
  schema: ResponseSchema<T>,
  value: unknown,
): CheckedResponse<T> | Promise<CheckedResponse<T>> {
  const result = schema['~standard'].validate(value)
  return isThenable(result) ? Promise.resolve(result).then(checked) : checked(result)
}

function checked<T>(result: SchemaResult<T>): CheckedResponse<T> {
  if (result.issues === undefined) return { ok: true, data: result.value }
  return {
    ok: false,
    issues: result.issues.map((issue) => ({
      path: (issue.path ?? []).map((step) => String(typeof step === 'object' ? step.key : step)).join('.'),
      message: issue.message,
    })),
  }
}
