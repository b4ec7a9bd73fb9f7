/** Shared field rules and the lenient shapes of success answers (known fields typed, the rest kept). */

import { RequestValidationError, type ValidationIssue } from '@paywire/core'
import { z } from 'zod'

/** Any decimal amount as a string, e.g. `10`, `10.5`, `10.00`: a string so body and hash stay byte-identical. */
export const amountString = z
  .string({
    error: (issue) =>
      typeof issue.input === 'number'
        ? 'must be a string (e.g. "10.00"), not a number: the exact string is sent and signed'
        : 'must be a string',
  })
  .regex(/^\d+(\.\d+)?$/, 'must be a decimal amount such as "10.00"')

/** Amounts the spec requires with exactly two decimals (credit `order_amount`). */
export const twoDecimals = z
  .string({
    error: (issue) =>
      typeof issue.input === 'number'
        ? 'must be a string with two decimals (e.g. "10.00"), not a number'
        : 'must be a string',
  })
  .regex(/^\d+\.\d{2}$/, 'must be a decimal string with two decimals, e.g. "10.00"')

export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/** schedule_id: a UUID, checked before sending (S2S rule 2). */
export const uuid = z.string().regex(UUID_PATTERN, 'must be a UUID, e.g. "9b0c6e1a-3f7d-4c2e-8a51-7d2f0e4b9c13"')

export const nonEmpty = z.string().min(1, 'must not be empty')

/** Redirect targets must be public HTTPS URLs (spec Events 4). */
export const httpsUrl = z.string().refine((value) => {
  try {
    return new URL(value).protocol === 'https:'
  } catch {
    return false
  }
}, 'must be an absolute https: URL (redirect targets must be public HTTPS URLs)')

/** A count sent as a form string: a positive integer, given as a number or a digit string. */
export const positiveInt = z.union([
  z.number().int().positive(),
  z.string().regex(/^[1-9]\d*$/, 'must be a positive integer'),
])

/** S2S `result` values (PLATFORM_NOTES); unknown values still parse. */
export type S2sResultValue = 'SUCCESS' | 'DECLINED' | 'REDIRECT' | 'ACCEPTED' | 'ERROR' | 'UNDEFINED' | (string & {})

/** S2S `status` values (PLATFORM_NOTES); unknown values still parse. */
export type S2sStatus =
  | '3DS'
  | 'REDIRECT'
  | 'PENDING'
  | 'PREPARE'
  | 'SETTLED'
  | 'REVERSAL'
  | 'REFUND'
  | 'VOID'
  | 'CHARGEBACK'
  | 'DECLINED'
  | (string & {})

/** Checkout payment `status` values, lowercase (PLATFORM_NOTES); unknown values still parse. */
export type CheckoutPaymentStatus =
  | 'prepare'
  | 'settled'
  | 'pending'
  | '3ds'
  | 'redirect'
  | 'decline'
  | 'refund'
  | 'reversal'
  | 'void'
  | 'chargeback'
  | (string & {})

/** `String.prototype.isWellFormed` (ES2024, in Node 20); the shared tsconfig's lib stops at ES2023. */
function isWellFormed(text: string): boolean {
  return (text as unknown as { isWellFormed(): boolean }).isWellFormed()
}

const ILL_FORMED =
  'contains an unpaired UTF-16 surrogate (often a string cut in the middle of an emoji): it would be sent as ' +
  'U+FFFD or as an escape while the hash covers the original text, so fix the text before sending'

/** Every string leaf and object key of `value` that is not well-formed UTF-16, with its wire path. */
function illFormedText(value: unknown, path: string, out: ValidationIssue[]): void {
  if (typeof value === 'string') {
    if (!isWellFormed(value)) out.push({ path, message: ILL_FORMED })
    return
  }
  if (typeof value !== 'object' || value === null) return
  for (const [key, member] of Object.entries(value)) {
    // An ill-formed key is reported on its parent: the key itself cannot be printed faithfully.
    if (!isWellFormed(key)) out.push({ path, message: `has a field name that ${ILL_FORMED}` })
    else illFormedText(member, path === '' ? key : `${path}.${key}`, out)
  }
}

/**
 * Refuses wire params (Checkout JSON and S2S form alike) holding text that is not well-formed UTF-16,
 * nested objects, arrays and open records included; the one check both interfaces run before signing.
 */
export function assertWellFormedText(operation: string, wire: Readonly<Record<string, unknown>>): void {
  const issues: ValidationIssue[] = []
  illFormedText(wire, '', issues)
  if (issues.length > 0) throw new RequestValidationError(operation, issues)
}

/** Reads a JSON object answer; `undefined` when the body is not one. */
export function asObject(json: unknown): Record<string, unknown> | undefined {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) return undefined
  return json as Record<string, unknown>
}

/**
 * Keeps every field; known string fields that arrived as numbers become their decimal text (so the
 * declared `string` type holds), and known string fields of any other type are left out of the
 * typed view but remain in `rawBody`.
 */
export function lenient<T>(body: Record<string, unknown>, stringFields: readonly string[]): T {
  const out: Record<string, unknown> = { ...body }
  for (const name of stringFields) {
    const value = out[name]
    if (value === undefined || typeof value === 'string') continue
    if (typeof value === 'number') out[name] = String(value)
    else delete out[name]
  }
  return out as T
}
