/**
 * How an S2S CARD action row is made: what every one shares (form-encoded `POST {s2sUrl}/post`, the
 * `action` and `client_key` fields, the signature, the answer's decoder) and the answer's type. A row
 * of `S2S` says only what is its own.
 */

import {
  type AnswerBinding,
  type AnswerDecoder,
  defineOperation,
  type FieldKinds,
  type ReconcileRule,
  type RejectAnswer,
  type RetryPolicy,
  type ReusedConnectionRule,
  recordAnswer,
} from '@paywire/core/engine'
import type * as z from '@paywire/core/zod'
import type { GatewayContext, S2sResultValue, S2sStatus } from '../fields.js'
import { signWith, withSignature } from '../signing/signature.js'

/** The wire fields of an S2S action: its `action` name, `client_key`, the params. */
function actionWire(action: string) {
  return (params: Readonly<Record<string, string | number | undefined>>, ctx: GatewayContext) => {
    const fields: Record<string, string> = { action, client_key: ctx.clientKey() }
    for (const [name, value] of Object.entries(params)) if (value !== undefined) fields[name] = String(value)
    return fields
  }
}

/**
 * The JSON kind of each known S2S answer field: all are text (a number the gateway writes for one
 * reads as its decimal text). Another kind makes the answer unreadable, never dropped (core's one
 * decoding policy).
 */
const S2S_KINDS: FieldKinds<S2sActionFields> = {
  action: 'text',
  result: 'text',
  status: 'text',
  order_id: 'text',
  trans_id: 'text',
  trans_date: 'text',
  descriptor: 'text',
  amount: 'text',
  currency: 'text',
  decline_reason: 'text',
  recurring_token: 'text',
  card_token: 'text',
  schedule_id: 'text',
  redirect_url: 'text',
  redirect_method: 'text',
}

/** Every S2S answer: its known fields checked (`redirect_params` may be any JSON), every other field kept. */
function decodeAction(value: unknown, reject: RejectAnswer): S2sActionResult {
  decodeFields ??= recordAnswer<S2sActionFields>(S2S_KINDS)
  // The card's reader hands over a JSON object only; an empty answer is refused before this.
  return decodeFields(value, reject) ?? reject('is empty')
}
let decodeFields: AnswerDecoder<S2sActionFields> | undefined

/** What one S2S action row says of its own; method, address, encoding, wire, signing and answer are shared. */
interface ActionRow<
  A extends string,
  H extends readonly string[] | null,
  S extends z.ZodMiniType<Readonly<Record<string, string | number | undefined>>>,
> {
  /** The wire `action` name, e.g. `CAPTURE` (rule S2S 1). */
  readonly action: A
  /** The wire fields hashed before the password, in order; `null` when not published (the caller must name them). */
  readonly hashInputs: H
  /** The action's params schema, built from the client's rules on its first call. */
  readonly params: (ctx: GatewayContext) => S
  readonly retry: RetryPolicy | ((ctx: GatewayContext) => RetryPolicy)
  /** How an unknown outcome is settled; lookups have none (nothing to settle). */
  readonly reconcile?: ReconcileRule
  /** Which answer field must repeat which request field (rule Platform 27). */
  readonly answerBinding?: AnswerBinding
  /** The action may go on a kept-alive connection: its answer is bound and its repeat refused by state (core's `Operation.reusesConnection`). */
  readonly reusesConnection?: ReusedConnectionRule
}

/**
 * One S2S action row: form-encoded to `POST {s2sUrl}/post`, its wire `action` and `client_key`
 * first, signed with its own hash inputs in order and the password last (rule Authentication 5),
 * every answer decoded by one policy (`S2S_KINDS`). The row keeps `action` and `hashInputs`: `SIGNED_OPERATIONS` and
 * `S2sActionName` are read from the rows.
 */
export function s2sAction<
  const A extends string,
  const H extends readonly string[] | null,
  S extends z.ZodMiniType<Readonly<Record<string, string | number | undefined>>>,
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
    ...(row.answerBinding ? { answerBinding: row.answerBinding } : {}),
    ...(row.reusesConnection ? { reusesConnection: row.reusesConnection } : {}),
    toWire: actionWire(row.action),
    finalize: signWith(row.hashInputs),
    decode: decodeAction,
  })
  return withSignature(defined, { action: row.action, hashInputs: row.hashInputs })
}

/** The S2S answer fields whose JSON kind is checked; `null` is how the gateway writes an empty value. */
interface S2sActionFields {
  /** The action answered, e.g. `CAPTURE`. */
  readonly action?: string | null
  /** `SUCCESS`, `DECLINED`, `REDIRECT`, `ACCEPTED`, `ERROR`, `UNDEFINED`, or a newer value (rule Platform 9). */
  readonly result?: S2sResultValue | null
  /** The transaction's state in capitals: `PENDING` is authorised, `SETTLED` captured (rules States, Platform 9). */
  readonly status?: S2sStatus | null
  readonly order_id?: string | null
  /** The gateway's transaction identifier; with cascading it can change within one payment (rule Platform 24). */
  readonly trans_id?: string | null
  readonly trans_date?: string | null
  /** The text on the payer's statement. */
  readonly descriptor?: string | null
  /** The amount string as the gateway holds it. */
  readonly amount?: string | null
  readonly currency?: string | null
  /** Why the acquirer declined, on `result: DECLINED`. */
  readonly decline_reason?: string | null
  /** The token of an initial recurring payment, for `recurringSale` (rule S2S 4). */
  readonly recurring_token?: string | null
  /** The card's token, when the payment was bought with `req_token: true`: what `checkout.credit` refunds to (rule Platform 26). */
  readonly card_token?: string | null
  /** The schedule an action created or changed (rule Platform 12). */
  readonly schedule_id?: string | null
  /** Where to send the payer on `result: REDIRECT` (3DS). */
  readonly redirect_url?: string | null
  readonly redirect_method?: string | null
  readonly [field: string]: unknown
}

/**
 * An S2S answer (rule Platform 10): the commonly present fields typed and checked (a field of
 * another JSON kind makes the answer unreadable), every other field kept.
 */
export interface S2sActionResult extends S2sActionFields {
  /** Fields to post to `redirect_url`: an object, or an array on some endpoints (rule Platform 10). */
  readonly redirect_params?: unknown
}

/** @deprecated Use `S2sActionResult`, which the method's signature names; this per-method alias goes in 1.0. */
export type S2sGetTransStatusResult = S2sActionResult
/** @deprecated Use `S2sActionResult`, which the method's signature names; this per-method alias goes in 1.0. */
export type S2sGetTransStatusByOrderResult = S2sActionResult
/** @deprecated Use `S2sActionResult`, which the method's signature names; this per-method alias goes in 1.0. */
export type S2sCaptureResult = S2sActionResult
/** @deprecated Use `S2sActionResult`, which the method's signature names; this per-method alias goes in 1.0. */
export type S2sVoidResult = S2sActionResult
/** @deprecated Use `S2sActionResult`, which the method's signature names; this per-method alias goes in 1.0. */
export type S2sCreditVoidResult = S2sActionResult
/** @deprecated Use `S2sActionResult`, which the method's signature names; this per-method alias goes in 1.0. */
export type S2sRecurringSaleResult = S2sActionResult
/** @deprecated Use `S2sActionResult`, which the method's signature names; this per-method alias goes in 1.0. */
export type S2sCreateScheduleResult = S2sActionResult
/** @deprecated Use `S2sActionResult`, which the method's signature names; this per-method alias goes in 1.0. */
export type S2sDeleteScheduleResult = S2sActionResult
/** @deprecated Use `S2sActionResult`, which the method's signature names; this per-method alias goes in 1.0. */
export type S2sUpdateScheduleResult = S2sActionResult
