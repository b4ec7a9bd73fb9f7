/**
 * The field rules every remittance request body shares (rules Resources 1–8, Platform 4): optional
 * text, non-negative amounts, SLE amounts within the client's `sleDecimals`, open members, and the
 * check of an open body. Each resource's params schemas (in `resources/`) are built from them, by a
 * function a row calls on its first call, never at import.
 */
import type { JsonValue, Query, ValidationIssue } from '@paywire/core'
import { jsonObjectIssues } from '@paywire/core/engine'
import * as z from '@paywire/core/zod'

// One JSON value type across the packages: core's.
export type { JsonValue } from '@paywire/core'

/**
 * Any parsed success body, or `undefined` for an answer without one: the type every result had
 * before the results were typed.
 *
 * @deprecated Each method now resolves with its own result type (`Transfer`, `Confirmation`,
 * `readonly Bank[]`…). To read any JSON as before, pass `{ schema: z.optional(z.json()) }`.
 */
export type RemittanceResult = JsonValue | undefined

/** Query parameters of a GET lookup: the service does not publish them, so any name is sent as given (rule Endpoints 21). */
export type LookupQuery = Query

/** What a client hands its rows: the platform defaults its request checks rest on (`platformDefaults`). */
export interface RemittanceRules {
  /** Most decimal places of an SLE amount (rule Platform 4). */
  readonly sleDecimals: number
}

/** Platform default: SLE is the redenominated leone with 2 decimals, 1 SLE = 1000 old SLL (rule Platform 4). */
export const DEFAULT_SLE_DECIMALS = 2

// ---- field rules ------------------------------------------------------------------------------

export function text() {
  return z.optional(z.string())
}

/**
 * The service publishes no amount bounds (rule Limits); an amount must still be a finite number >= 0
 * to mean money. NaN and Infinity are numbers to JavaScript but not to JSON (they would be sent as
 * `null`): their refusal says so, and every other refusal keeps core's wording.
 */
export function amount() {
  return z
    .number({
      error: (issue) =>
        issue.code === 'invalid_type' && typeof issue.input === 'number'
          ? `must be a finite number, not ${issue.input} (JSON cannot carry it)`
          : undefined,
    })
    .check(z.nonnegative())
}

/** An SLE amount with at most `sleDecimals` decimal places (`platformDefaults.sleDecimals`, rule Platform 4). */
export function amountSle({ sleDecimals: decimals }: RemittanceRules) {
  const message =
    decimals === 0
      ? 'SLE amounts are whole numbers'
      : `SLE amounts have at most ${decimals} decimal place${decimals === 1 ? '' : 's'}`
  return z.optional(amount().check(z.refine((value) => Number(value.toFixed(decimals)) === value, { message })))
}

/**
 * The `precheck` of a body whose fields are not published (rule Resources 8): a plain JSON object
 * whose every member is sent as given. What JSON cannot carry (a cycle, NaN, a `Date`, a function…)
 * is refused with its path (`extra.items.0`), by core's one JSON check, before the schema runs.
 */
export function openBodyIssues(body: unknown): readonly ValidationIssue[] {
  return jsonObjectIssues(body, '')
}

/** A member of an open body: any value (`openBodyIssues` has refused what JSON cannot carry). */
export function jsonMember() {
  return z.unknown()
}
