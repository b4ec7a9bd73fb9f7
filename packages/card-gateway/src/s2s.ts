/** S2S CARD actions: one row per action — its fields, hash inputs and retry policy (form-encoded, POST {s2sUrl}/post). */

import {
  type AnswerSchema,
  type ApiPromise,
  type CallOptions,
  defineOperation,
  type OperationClient,
  type OperationOptions,
  type ResultOf,
  safe,
  unsentOnly,
  withinWindow,
} from '@paywire/core'
import { z } from 'zod'
import { DEDUP_WINDOW_MS } from './checkout.js'
import {
  amountString,
  type GatewayContext,
  lenient,
  nonEmpty,
  positiveInt,
  reconcileBy,
  redirectUrl,
  type S2sResultValue,
  type S2sStatus,
  uuid,
} from './schemas.js'
import { signedWith } from './signature.js'

/** The nine action names (spec S2S CARD); no other name can be sent through the typed surface (rule 1). */
export type S2sActionName =
  | 'GET_TRANS_STATUS'
  | 'GET_TRANS_STATUS_BY_ORDER'
  | 'CAPTURE'
  | 'VOID'
  | 'CREDITVOID'
  | 'RECURRING_SALE'
  | 'CREATE_SCHEDULE'
  | 'DELETE_SCHEDULE'
  | 'UPDATE_SCHEDULE'

/** `interval_unit` platform-default values; `platformDefaults.intervalUnits` can allow others. */
export type S2sIntervalUnit = 'day' | 'month'

/** `"a"`, `"a" or "b"`, or `one of "a", "b", "c"`. */
function choices(values: readonly string[]): string {
  const quoted = values.map((value) => JSON.stringify(value))
  if (quoted.length <= 2) return quoted.join(' or ')
  return `one of ${quoted.join(', ')}`
}

/** `interval_unit` from the client's list (platform default: day or month). */
function intervalUnit(units: readonly string[]) {
  const message = `must be ${choices(units)}`
  return z.string({ error: message }).refine((value) => units.includes(value), message) as unknown as z.ZodType<
    S2sIntervalUnit | (string & {})
  >
}

const byTransId = z.strictObject({ trans_id: nonEmpty })
const byOrderId = z.strictObject({ order_id: nonEmpty })
const byScheduleId = z.strictObject({ schedule_id: uuid })
const amountOptional = z.strictObject({ trans_id: nonEmpty, amount: amountString.optional() })

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
  'schedule_id',
  'redirect_url',
  'redirect_method',
]

/** The form body of one action: `action`, `client_key`, then the checked params as strings. */
function actionWire(action: S2sActionName) {
  return (params: Readonly<Record<string, string | number | undefined>>, ctx: GatewayContext) => {
    const fields: Record<string, string> = { action, client_key: ctx.clientKey() }
    for (const [name, value] of Object.entries(params)) if (value !== undefined) fields[name] = String(value)
    return fields
  }
}

const byTransIdLookup = reconcileBy(
  'trans_id',
  'trans_id',
  (v) => `gw.s2s.getTransStatus({ trans_id: ${JSON.stringify(v)} })`,
)
const byScheduleLookup = reconcileBy(
  'schedule_id',
  'schedule_id',
  () =>
    'a repeat of the same call with this schedule_id (no action reads a schedule; a second DELETE_SCHEDULE answers "Schedule not found")',
)

/** Every S2S answer: the commonly present fields typed, every other field kept. */
const decodeAction = (value: unknown) => lenient<S2sActionResult>(value as Record<string, unknown>, STRING_FIELDS)

/**
 * The action table, form-encoded to `POST {s2sUrl}/post`. Params are strict: an unknown key is
 * refused with the closest wire name suggested (typo guard). Hash inputs are signed in order with
 * the password last (spec Authentication 5). Adding an action is a row here and a one-line method.
 */
export const S2S_ACTIONS = {
  getTransStatus: defineOperation({
    name: 's2s.getTransStatus',
    method: 'POST',
    base: 's2s',
    path: '/post',
    encoding: 'form',
    params: byTransId,
    retry: safe, // a lookup (spec rule 3, Limits 2)
    toWire: actionWire('GET_TRANS_STATUS'),
    finalize: signedWith(['trans_id']),
    decode: decodeAction,
  }),
  getTransStatusByOrder: defineOperation({
    name: 's2s.getTransStatusByOrder',
    method: 'POST',
    base: 's2s',
    path: '/post',
    encoding: 'form',
    params: byOrderId,
    retry: safe,
    toWire: actionWire('GET_TRANS_STATUS_BY_ORDER'),
    finalize: signedWith(['order_id']),
    decode: decodeAction,
  }),
  capture: defineOperation({
    name: 's2s.capture',
    method: 'POST',
    base: 's2s',
    path: '/post',
    encoding: 'form',
    params: amountOptional, // amount: partial capture (PLATFORM_NOTES)
    retry: unsentOnly, // a repeated capture can act twice
    toWire: actionWire('CAPTURE'),
    finalize: signedWith(['trans_id']),
    reconcile: byTransIdLookup,
    decode: decodeAction,
  }),
  void: defineOperation({
    name: 's2s.void',
    method: 'POST',
    base: 's2s',
    path: '/post',
    encoding: 'form',
    params: byTransId,
    retry: unsentOnly,
    toWire: actionWire('VOID'),
    finalize: signedWith(['trans_id']),
    reconcile: byTransIdLookup,
    decode: decodeAction,
  }),
  creditVoid: defineOperation({
    name: 's2s.creditVoid',
    method: 'POST',
    base: 's2s',
    path: '/post',
    encoding: 'form',
    params: amountOptional, // amount: partial refund (PLATFORM_NOTES)
    retry: unsentOnly,
    toWire: actionWire('CREDITVOID'),
    finalize: signedWith(['trans_id']),
    reconcile: byTransIdLookup,
    decode: decodeAction,
  }),
  recurringSale: defineOperation({
    name: 's2s.recurringSale',
    method: 'POST',
    base: 's2s',
    path: '/post',
    encoding: 'form',
    params: (ctx: GatewayContext) =>
      z.strictObject({
        order_id: nonEmpty,
        order_amount: amountString,
        order_description: nonEmpty,
        order_currency: nonEmpty.optional(),
        recurring_first_trans_id: nonEmpty,
        recurring_token: nonEmpty,
        term_url_3ds: redirectUrl(ctx.rules.allowPrivateRedirectUrls).optional(),
      }),
    retry: withinWindow(DEDUP_WINDOW_MS), // carries order_id: the gateway dedups within 15 s
    toWire: actionWire('RECURRING_SALE'),
    finalize: signedWith(['order_id']),
    reconcile: reconcileBy(
      'order_id',
      'order_id',
      (v) => `gw.s2s.getTransStatusByOrder({ order_id: ${JSON.stringify(v)} })`,
    ),
    decode: decodeAction,
  }),
  createSchedule: defineOperation({
    name: 's2s.createSchedule',
    method: 'POST',
    base: 's2s',
    path: '/post',
    encoding: 'form',
    params: (ctx: GatewayContext) =>
      z.strictObject({
        name: nonEmpty,
        interval_length: positiveInt,
        interval_unit: intervalUnit(ctx.rules.intervalUnits),
        payments_count: positiveInt,
        schedule_id: uuid.optional(),
      }),
    retry: unsentOnly,
    toWire: actionWire('CREATE_SCHEDULE'),
    // Not published for this scheme. The one public fact (another brand's MD5 scheme) signs the
    // password alone, which any captured request replays for any schedule: no default is guessed.
    finalize: signedWith(null),
    reconcile: byScheduleLookup,
    decode: decodeAction,
  }),
  deleteSchedule: defineOperation({
    name: 's2s.deleteSchedule',
    method: 'POST',
    base: 's2s',
    path: '/post',
    encoding: 'form',
    params: byScheduleId,
    retry: unsentOnly,
    toWire: actionWire('DELETE_SCHEDULE'),
    finalize: signedWith(['schedule_id']),
    reconcile: byScheduleLookup,
    decode: decodeAction,
  }),
  updateSchedule: defineOperation({
    name: 's2s.updateSchedule',
    method: 'POST',
    base: 's2s',
    path: '/post',
    encoding: 'form',
    params: (ctx: GatewayContext) =>
      z.strictObject({
        schedule_id: uuid,
        name: nonEmpty.optional(),
        interval_length: positiveInt.optional(),
        interval_unit: intervalUnit(ctx.rules.intervalUnits).optional(),
        payments_count: positiveInt.optional(),
      }),
    retry: unsentOnly,
    toWire: actionWire('UPDATE_SCHEDULE'),
    finalize: signedWith(['schedule_id']),
    reconcile: byScheduleLookup,
    decode: decodeAction,
  }),
}

type Actions = typeof S2S_ACTIONS
type SchemaOf<P> = P extends (ctx: never) => infer S ? S : P
type ParamsOf<K extends keyof Actions> = z.input<SchemaOf<NonNullable<Actions[K]['params']>> & z.ZodType>

export type S2sGetTransStatusParams = ParamsOf<'getTransStatus'>
export type S2sGetTransStatusByOrderParams = ParamsOf<'getTransStatusByOrder'>
export type S2sCaptureParams = ParamsOf<'capture'>
export type S2sVoidParams = ParamsOf<'void'>
export type S2sCreditVoidParams = ParamsOf<'creditVoid'>
export type S2sRecurringSaleParams = ParamsOf<'recurringSale'>
export type S2sCreateScheduleParams = ParamsOf<'createSchedule'>
export type S2sDeleteScheduleParams = ParamsOf<'deleteSchedule'>
export type S2sUpdateScheduleParams = ParamsOf<'updateSchedule'>

/** An S2S answer (PLATFORM_NOTES): the commonly present fields typed, every other field kept. */
export interface S2sActionResult {
  readonly action?: string
  readonly result?: S2sResultValue
  readonly status?: S2sStatus
  readonly order_id?: string
  readonly trans_id?: string
  readonly trans_date?: string
  readonly descriptor?: string
  readonly amount?: string
  readonly currency?: string
  readonly decline_reason?: string
  readonly recurring_token?: string
  readonly schedule_id?: string
  readonly redirect_url?: string
  readonly redirect_params?: unknown
  readonly redirect_method?: string
  readonly [field: string]: unknown
}

export type S2sGetTransStatusResult = S2sActionResult
export type S2sGetTransStatusByOrderResult = S2sActionResult
export type S2sCaptureResult = S2sActionResult
export type S2sVoidResult = S2sActionResult
/** CREDITVOID answers `ACCEPTED` at once; the outcome arrives later by callback (PLATFORM_NOTES). */
export type S2sCreditVoidResult = S2sActionResult
export type S2sRecurringSaleResult = S2sActionResult
export type S2sCreateScheduleResult = S2sActionResult
export type S2sDeleteScheduleResult = S2sActionResult
export type S2sUpdateScheduleResult = S2sActionResult

/** Outcome of `captureIfPending`: either the capture's answer, or why nothing was captured. */
export type S2sCaptureIfPendingResult =
  | { readonly captured: true; readonly lookup: S2sGetTransStatusResult; readonly capture: S2sCaptureResult }
  | { readonly captured: false; readonly lookup: S2sGetTransStatusResult; readonly status: S2sStatus | undefined }

/** The S2S CARD interface: form-encoded actions carrying `client_key` (spec Authentication 1). */
export class S2s {
  readonly #ops: OperationClient<GatewayContext>

  /** @internal */
  constructor(ops: OperationClient<GatewayContext>) {
    this.#ops = ops
  }

  /** GET_TRANS_STATUS: reads a transaction's state; safe to repeat (spec rule 3). */
  getTransStatus<S extends AnswerSchema | undefined = undefined>(
    params: S2sGetTransStatusParams,
    options?: OperationOptions<S>,
  ): ApiPromise<ResultOf<S, S2sGetTransStatusResult>> {
    return this.#ops.call(S2S_ACTIONS.getTransStatus, { body: params }, options)
  }

  /** GET_TRANS_STATUS_BY_ORDER: reads a transaction's state by order_id; safe to repeat. */
  getTransStatusByOrder<S extends AnswerSchema | undefined = undefined>(
    params: S2sGetTransStatusByOrderParams,
    options?: OperationOptions<S>,
  ): ApiPromise<ResultOf<S, S2sGetTransStatusByOrderResult>> {
    return this.#ops.call(S2S_ACTIONS.getTransStatusByOrder, { body: params }, options)
  }

  /** CAPTURE: only a `pending` payment (spec rule 1: else 208003); never retried once sent. */
  capture<S extends AnswerSchema | undefined = undefined>(
    params: S2sCaptureParams,
    options?: OperationOptions<S>,
  ): ApiPromise<ResultOf<S, S2sCaptureResult>> {
    return this.#ops.call(S2S_ACTIONS.capture, { body: params }, options)
  }

  /** VOID: cancels a `pending` authorization (spec rule 2); never retried once sent. */
  void<S extends AnswerSchema | undefined = undefined>(
    params: S2sVoidParams,
    options?: OperationOptions<S>,
  ): ApiPromise<ResultOf<S, S2sVoidResult>> {
    return this.#ops.call(S2S_ACTIONS.void, { body: params }, options)
  }

  /** CREDITVOID: answers `ACCEPTED`, outcome by callback; never retried once sent. */
  creditVoid<S extends AnswerSchema | undefined = undefined>(
    params: S2sCreditVoidParams,
    options?: OperationOptions<S>,
  ): ApiPromise<ResultOf<S, S2sCreditVoidResult>> {
    return this.#ops.call(S2S_ACTIONS.creditVoid, { body: params }, options)
  }

  /** RECURRING_SALE: charges again from an initial recurring transaction (rule 4: the pair must match). */
  recurringSale<S extends AnswerSchema | undefined = undefined>(
    params: S2sRecurringSaleParams,
    options?: OperationOptions<S>,
  ): ApiPromise<ResultOf<S, S2sRecurringSaleResult>> {
    return this.#ops.call(S2S_ACTIONS.recurringSale, { body: params }, options)
  }

  /** CREATE_SCHEDULE: answers with `schedule_id` (PLATFORM_NOTES). */
  createSchedule<S extends AnswerSchema | undefined = undefined>(
    params: S2sCreateScheduleParams,
    options?: OperationOptions<S>,
  ): ApiPromise<ResultOf<S, S2sCreateScheduleResult>> {
    return this.#ops.call(S2S_ACTIONS.createSchedule, { body: params }, options)
  }

  /** DELETE_SCHEDULE: the way to cancel a schedule (rule 1: there is no CANCEL_SCHEDULE). */
  deleteSchedule<S extends AnswerSchema | undefined = undefined>(
    params: S2sDeleteScheduleParams,
    options?: OperationOptions<S>,
  ): ApiPromise<ResultOf<S, S2sDeleteScheduleResult>> {
    return this.#ops.call(S2S_ACTIONS.deleteSchedule, { body: params }, options)
  }

  /** UPDATE_SCHEDULE: changes a schedule; schedule_id must be a UUID (rule 2). */
  updateSchedule<S extends AnswerSchema | undefined = undefined>(
    params: S2sUpdateScheduleParams,
    options?: OperationOptions<S>,
  ): ApiPromise<ResultOf<S, S2sUpdateScheduleResult>> {
    return this.#ops.call(S2S_ACTIONS.updateSchedule, { body: params }, options)
  }

  /**
   * Spec rule 3 as one call: a status lookup, then CAPTURE only when the status is `PENDING`.
   * It cannot capture twice: the lookup is the only retried step, and CAPTURE is sent at most once
   * (`unsent-only`); if its outcome is unknown the error says `requestSent`, reconcile with a lookup.
   */
  async captureIfPending(params: S2sCaptureParams, call?: CallOptions): Promise<S2sCaptureIfPendingResult> {
    const lookup = await this.getTransStatus({ trans_id: params.trans_id }, call)
    if (lookup.status?.toUpperCase() !== 'PENDING') return { captured: false, lookup, status: lookup.status }
    const capture = await this.capture(params, call)
    return { captured: true, lookup, capture }
  }
}
