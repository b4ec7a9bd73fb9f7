/** Shared field rules and the lenient shapes of success answers (known fields typed, the rest kept). */

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
