/**
 * How an S2S CARD action row is made: what all nine share (form-encoded `POST {s2sUrl}/post`, the
 * `action` and `client_key` fields, the signature, the lenient answer) and the answer's type. A row
 * of `S2S` says only what is its own.
 */

import { defineOperation, type ReconcileRule, type RetryPolicy } from '@paywire/core'
import type * as z from 'zod'
import { type GatewayContext, lenient, type S2sResultValue, type S2sStatus } from './schemas.js'
import { signWith, withSignature } from './signature.js'

/** The answer fields typed as strings: a number is read as its decimal text (`lenient`). */
const STRING_FIELDS = [
  'action',
  'result',
  'status',
  'order_id',
  'trans_id',
  'trans_date',
  'descriptor',
  'amount',
  'currency',
  'decline_reason',
  'recurring_token',
  'card_token',
  'schedule_id',
  'redirect_url',
  'redirect_method',
]

/** The wire fields of an S2S action: its `action` name, `client_key`, the params. */
function actionWire(action: string) {
  return (params: Readonly<Record<string, string | number | undefined>>, ctx: GatewayContext) => {
    const fields: Record<string, string> = { action, client_key: ctx.clientKey() }
    for (const [name, value] of Object.entries(params)) if (value !== undefined) fields[name] = String(value)
    return fields
  }
}

/** Every S2S answer: the commonly present fields typed, every other field kept. */
const decodeAction = (value: unknown) => lenient<S2sActionResult>(value as Record<string, unknown>, STRING_FIELDS)

/** What one S2S action row says of its own; method, address, encoding, wire, signing and answer are shared. */
interface ActionRow<
  A extends string,
  H extends readonly string[] | null,
  S extends z.ZodType<Readonly<Record<string, string | number | undefined>>>,
> {
  /** The wire `action` name, e.g. `CAPTURE` (rule S2S 1). */
  readonly action: A
  /** The wire fields hashed before the password, in order; `null` when not published (the caller must name them). */
  readonly hashInputs: H
  /** The action's params schema, built from the client's rules on its first call. */
  readonly params: (ctx: GatewayContext) => S
  readonly retry: RetryPolicy
  /** How an unknown outcome is settled; lookups have none (nothing to settle). */
  readonly reconcile?: ReconcileRule
}

/**
 * One S2S action row: form-encoded to `POST {s2sUrl}/post`, its wire `action` and `client_key`
 * first, signed with its own hash inputs in order and the password last (rule Authentication 5),
 * every answer read leniently. The row keeps `action` and `hashInputs`: `SIGNED_OPERATIONS` and
 * `S2sActionName` are read from the rows.
 */
export function s2sAction<
  const A extends string,
  const H extends readonly string[] | null,
  S extends z.ZodType<Readonly<Record<string, string | number | undefined>>>,
>(operation: `s2s.${string}`, row: ActionRow<A, H, S>) {
  const defined = defineOperation<GatewayContext, S, S2sActionResult, '/post', false>({
    name: operation,
    method: 'POST',
    base: 's2s',
    path: '/post',
    encoding: 'form',
    params: row.params,
    retry: row.retry,
    ...(row.reconcile ? { reconcile: row.reconcile } : {}),
    toWire: actionWire(row.action),
    finalize: signWith(row.hashInputs),
    decode: decodeAction,
  })
  return withSignature(defined, { action: row.action, hashInputs: row.hashInputs })
}

/** An S2S answer (rule Platform 10): the commonly present fields typed, every other field kept. */
export interface S2sActionResult {
  /** The action answered, e.g. `CAPTURE`. */
  readonly action?: string
  /** `SUCCESS`, `DECLINED`, `REDIRECT`, `ACCEPTED`, `ERROR`, `UNDEFINED`, or a newer value (rule Platform 9). */
  readonly result?: S2sResultValue
  /** The transaction's state in capitals: `PENDING` is authorised, `SETTLED` captured (rules States, Platform 9). */
  readonly status?: S2sStatus
  readonly order_id?: string
  /** The gateway's transaction identifier; with cascading it can change within one payment (rule Platform 24). */
  readonly trans_id?: string
  readonly trans_date?: string
  /** The text on the payer's statement. */
  readonly descriptor?: string
  /** The amount string as the gateway holds it. */
  readonly amount?: string
  readonly currency?: string
  /** Why the acquirer declined, on `result: DECLINED`. */
  readonly decline_reason?: string
  /** The token of an initial recurring payment, for `recurringSale` (rule S2S 4). */
  readonly recurring_token?: string
  /** The card's token, when the payment was bought with `req_token: true`: what `checkout.credit` refunds to (rule Platform 26). */
  readonly card_token?: string
  /** The schedule an action created or changed (rule Platform 12). */
  readonly schedule_id?: string
  /** Where to send the payer on `result: REDIRECT` (3DS). */
  readonly redirect_url?: string
  /** Fields to post to `redirect_url`: an object, or an array on some endpoints (rule Platform 10). */
  readonly redirect_params?: unknown
  readonly redirect_method?: string
  readonly [field: string]: unknown
}

export type S2sGetTransStatusResult = S2sActionResult
export type S2sGetTransStatusByOrderResult = S2sActionResult
export type S2sCaptureResult = S2sActionResult
export type S2sVoidResult = S2sActionResult
/** CREDITVOID answers `ACCEPTED` at once; the outcome arrives later by callback (rule Platform 11). */
export type S2sCreditVoidResult = S2sActionResult
export type S2sRecurringSaleResult = S2sActionResult
export type S2sCreateScheduleResult = S2sActionResult
export type S2sDeleteScheduleResult = S2sActionResult
export type S2sUpdateScheduleResult = S2sActionResult
