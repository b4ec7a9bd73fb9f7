// Long: one resource, its rows and the public interface they must match, read together.
/**
 * S2S CARD actions: one row per action (its params with their field docs, retry policy,
 * reconciliation and answer binding), the params types derived from them, and the `S2s` resource
 * with `captureIfPending`.
 */

import type { ApiPromise, CallOptions, OperationOptions, ResponseSchema } from '@paywire/core'
import type { OperationClient } from '@paywire/core/engine'
import { reconcileRule, resource, safe, unsentOnly, withinWindow } from '@paywire/core/engine'
import * as z from '@paywire/core/zod'
import type { SentRefunds } from '../callbacks/sent-refunds.js'
import {
  actionAnswerNames,
  amountText,
  appliedWhenStatus,
  currencyCode,
  type GatewayContext,
  keptAliveAnswerNames,
  lookupAnswerNames,
  nonEmpty,
  positiveInt,
  reconcileBy,
  redirectUrl,
  type S2sStatus,
  uuid,
  withAmountRule,
} from '../fields.js'
import { wireField } from '../wire.js'
import { DEDUP_WINDOW_MS } from './checkout.js'
import { type S2sActionResult, s2sAction } from './s2s-action.js'

/** `interval_unit` platform-default values (rule Platform 12); `platformDefaults.intervalUnits` can allow others. */
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
  type Unit = S2sIntervalUnit | (string & {})
  return z
    .string({ error: message })
    .check(z.refine((value) => units.includes(value), message)) as unknown as z.ZodMiniType<Unit, Unit>
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

const SECOND_SCHEDULE = 'do not send CREATE_SCHEDULE again before that: it may create a second schedule'

/**
 * The key of an unknown CREATE_SCHEDULE (rule S2S 1: no action reads a schedule): the schedule_id
 * when the call sent one, else the schedule's name, the only thing a person can search the admin
 * portal by. Either way the check is by hand, and `reconcile` answers `not_reconcilable`.
 */
const createScheduleKey = reconcileRule(['schedule_id', 'name'], ({ wire }) => {
  if (wire === undefined) return undefined
  const scheduleId = wireField(wire, 'schedule_id')
  if (scheduleId) {
    return {
      key: 'schedule_id',
      value: scheduleId,
      lookup: `a check by hand in the gateway's admin portal for schedule_id ${JSON.stringify(scheduleId)} (no action reads a schedule; ${SECOND_SCHEDULE})`,
    }
  }
  const name = wireField(wire, 'name') ?? ''
  return {
    key: 'name',
    value: name,
    lookup: `a check by hand in the gateway's admin portal for a schedule named ${JSON.stringify(name)} (no schedule_id was sent and no action reads a schedule; ${SECOND_SCHEDULE})`,
  }
})

/** An optional `amount` (a partial capture or refund): two decimals by default, any currency's form under 'per-currency' (rule Platform 22; the request names no currency). */
function withOptionalAmount<T extends z.ZodMiniObject>(ctx: GatewayContext, schema: T): T {
  return withAmountRule(schema, ctx.rules.amountForm, 'amount')
}

/**
 * The S2S CARD actions, one row each; each row is also the `gw.s2s` method of its name, and its
 * params schema (built on the first call) is the method's argument type with its field docs. Params
 * are strict: an unknown key is refused with the closest wire name suggested (typo guard).
 */
export const S2S = {
  getTransStatus: s2sAction('s2s.getTransStatus', {
    action: 'GET_TRANS_STATUS',
    hashInputs: ['trans_id'],
    params: () =>
      z.strictObject({
        /** The gateway's transaction identifier; the hash input (rule Authentication 5). */
        trans_id: nonEmpty(),
      }),
    retry: safe, // a lookup (rules States 3, Limits 2)
    answerBinding: lookupAnswerNames({ trans_id: ['trans_id'] }),
  }),
  getTransStatusByOrder: s2sAction('s2s.getTransStatusByOrder', {
    action: 'GET_TRANS_STATUS_BY_ORDER',
    hashInputs: ['order_id'],
    params: () =>
      z.strictObject({
        /** Your order identifier; the hash input (rule Authentication 5). */
        order_id: nonEmpty(),
      }),
    retry: safe,
    answerBinding: lookupAnswerNames({ order_id: ['order_id'] }),
  }),
  capture: s2sAction('s2s.capture', {
    action: 'CAPTURE',
    hashInputs: ['trans_id'],
    params: (ctx) =>
      withOptionalAmount(
        ctx,
        z.strictObject({
          /** The authorised (`pending`) transaction; the hash input (rules States 1, Authentication 5). */
          trans_id: nonEmpty(),
          /** A partial capture: the amount string with two decimals, e.g. `"5.00"`; omitted captures it all (rules Interfaces, Platform 11). */
          amount: z.optional(amountText()),
        }),
      ),
    retry: unsentOnly, // a repeated capture can act twice
    reconcile: byTransIdLookup,
    // Kept alive: a stale answer is refused by the binding, or states the payment's own state (a
    // second capture is refused by rule States 1), and one not believed is settled by the lookup.
    answerBinding: keptAliveAnswerNames(),
    reusesConnection: appliedWhenStatus('SETTLED'),
  }),
  void: s2sAction('s2s.void', {
    action: 'VOID',
    hashInputs: ['trans_id'],
    params: () =>
      z.strictObject({
        /** The `pending` authorisation to cancel; the hash input (rule States 2). */
        trans_id: nonEmpty(),
      }),
    retry: unsentOnly,
    reconcile: byTransIdLookup,
    // Kept alive, like CAPTURE: a VOID of a payment no longer pending is refused (rule States 2).
    answerBinding: keptAliveAnswerNames(),
    reusesConnection: appliedWhenStatus('VOID'),
  }),
  creditVoid: s2sAction('s2s.creditVoid', {
    action: 'CREDITVOID',
    hashInputs: ['trans_id'],
    params: (ctx) =>
      withOptionalAmount(
        ctx,
        z.strictObject({
          /** The transaction to refund or reverse; the hash input (rule Authentication 5). */
          trans_id: nonEmpty(),
          /** A partial refund: the amount string with two decimals, e.g. `"5.00"`; omitted refunds it all (rules Interfaces, Platform 11). */
          amount: z.optional(amountText()),
        }),
      ),
    retry: unsentOnly,
    reconcile: byTransIdLookup,
    answerBinding: actionAnswerNames('trans_id'),
  }),
  recurringSale: s2sAction('s2s.recurringSale', {
    action: 'RECURRING_SALE',
    hashInputs: ['order_id'],
    params: (ctx) =>
      withAmountRule(
        z.strictObject({
          /** A new order identifier for this charge; the hash input; deduplicated for 15 s (rule Limits 1). */
          order_id: nonEmpty(),
          /** The amount string with two decimals, e.g. `"10.00"` (rule Interfaces; per currency by opt-in, rule Platform 22). */
          order_amount: amountText(),
          /** Not empty. */
          order_description: nonEmpty(),
          /** ISO 4217 code in capitals; with it a currency without a minor unit takes `.00` (rule Interfaces). */
          order_currency: z.optional(currencyCode()),
          /** The `trans_id` of the initial recurring payment; must pair with `recurring_token` (rule S2S 4). */
          recurring_first_trans_id: nonEmpty(),
          /** The `recurring_token` of the initial recurring payment (rule S2S 4). */
          recurring_token: nonEmpty(),
          /** Where the payer returns after 3DS: a public HTTPS URL (rule Events 4). */
          term_url_3ds: z.optional(redirectUrl(ctx.rules.allowPrivateRedirectUrls)),
        }),
        ctx.rules.amountForm,
        'order_amount',
        'order_currency',
      ),
    // The gateway's duplicate rule (rule Limits 1) names merchant_key, which S2S does not send: a
    // repeat after a possibly-sent failure may charge twice, so it is reconciled, not retried,
    // unless the merchant's account documents S2S deduplication (platformDefaults.recurringSaleDedup).
    retry: (ctx) => (ctx.rules.recurringSaleDedup ? withinWindow(DEDUP_WINDOW_MS) : unsentOnly),
    reconcile: reconcileBy(
      'order_id',
      'order_id',
      (v) => `gw.s2s.getTransStatusByOrder({ order_id: ${JSON.stringify(v)} })`,
    ),
    // Its answer's trans_id is the new charge's; the order_id is the one this call sent.
    answerBinding: actionAnswerNames('order_id'),
  }),
  createSchedule: s2sAction('s2s.createSchedule', {
    action: 'CREATE_SCHEDULE',
    // Not published for this scheme. The one public fact (another brand's MD5 scheme) signs the
    // password alone, which any captured request replays for any schedule: no default is guessed.
    hashInputs: null,
    params: (ctx) =>
      z.strictObject({
        /** The schedule's name; not empty. */
        name: nonEmpty(),
        /** Intervals between payments: a positive whole number (or its digit string). */
        interval_length: positiveInt(),
        /** `day` or `month` (rule Platform 12), or the units set in `platformDefaults.intervalUnits`. */
        interval_unit: intervalUnit(ctx.rules.intervalUnits),
        /** How many payments: a positive whole number (or its digit string). */
        payments_count: positiveInt(),
        /**
         * Your own UUID for the schedule; the gateway makes one when omitted (rule S2S 2). Send one: no
         * action reads a schedule, so after a lost answer it is what you can check the schedule by
         * (and cancel it with DELETE_SCHEDULE); without it nothing identifies the schedule.
         */
        schedule_id: z.optional(uuid()),
      }),
    retry: unsentOnly,
    reconcile: createScheduleKey,
    // Only when this call sent its own schedule_id; else the answer's is the gateway's new one.
    answerBinding: actionAnswerNames('schedule_id'),
  }),
  deleteSchedule: s2sAction('s2s.deleteSchedule', {
    action: 'DELETE_SCHEDULE',
    hashInputs: ['schedule_id'],
    params: () =>
      z.strictObject({
        /** A UUID; the hash input (rules S2S 2, Authentication 5). */
        schedule_id: uuid(),
      }),
    retry: unsentOnly,
    reconcile: byScheduleLookup,
    answerBinding: actionAnswerNames('schedule_id'),
  }),
  updateSchedule: s2sAction('s2s.updateSchedule', {
    action: 'UPDATE_SCHEDULE',
    hashInputs: ['schedule_id'],
    params: (ctx) =>
      z.strictObject({
        /** A UUID; the hash input (rules S2S 2, Authentication 5). */
        schedule_id: uuid(),
        /** The schedule's new name; not empty. */
        name: z.optional(nonEmpty()),
        /** Intervals between payments: a positive whole number (or its digit string). */
        interval_length: z.optional(positiveInt()),
        /** `day` or `month` (rule Platform 12), or the units set in `platformDefaults.intervalUnits`. */
        interval_unit: z.optional(intervalUnit(ctx.rules.intervalUnits)),
        /** How many payments: a positive whole number (or its digit string). */
        payments_count: z.optional(positiveInt()),
      }),
    retry: unsentOnly,
    reconcile: byScheduleLookup,
    answerBinding: actionAnswerNames('schedule_id'),
  }),
}

// Written out by scripts/public-types.mjs (edit the rows, then run it) from: (typeof S2S)[keyof typeof S2S]['action']
/** The action names, read from the rows; no other name can be sent through the typed surface (rule S2S 1). */
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

// The params types users import, derived from the rows (one source: the schema and its field docs).
// Written out by scripts/public-types.mjs (edit the rows, then run it) from: EndpointParams<typeof S2S.getTransStatus>
/** Params of GET_TRANS_STATUS. */
export interface S2sGetTransStatusParams {
  /** The gateway's transaction identifier; the hash input (rule Authentication 5). */
  trans_id: string
}
// Written out by scripts/public-types.mjs (edit the rows, then run it) from: EndpointParams<typeof S2S.getTransStatusByOrder>
/** Params of GET_TRANS_STATUS_BY_ORDER. */
export interface S2sGetTransStatusByOrderParams {
  /** Your order identifier; the hash input (rule Authentication 5). */
  order_id: string
}
// Written out by scripts/public-types.mjs (edit the rows, then run it) from: EndpointParams<typeof S2S.capture>
/** Params of CAPTURE (and `captureIfPending`). */
export interface S2sCaptureParams {
  /** The authorised (`pending`) transaction; the hash input (rules States 1, Authentication 5). */
  trans_id: string
  /**
   * A partial capture: the amount string with two decimals, e.g. `"5.00"`; omitted captures it all (rules Interfaces, Platform 11).
   */
  amount?: string | undefined
}
// Written out by scripts/public-types.mjs (edit the rows, then run it) from: EndpointParams<typeof S2S.void>
/** Params of VOID. */
export interface S2sVoidParams {
  /** The `pending` authorisation to cancel; the hash input (rule States 2). */
  trans_id: string
}
// Written out by scripts/public-types.mjs (edit the rows, then run it) from: EndpointParams<typeof S2S.creditVoid>
/** Params of CREDITVOID. */
export interface S2sCreditVoidParams {
  /** The transaction to refund or reverse; the hash input (rule Authentication 5). */
  trans_id: string
  /**
   * A partial refund: the amount string with two decimals, e.g. `"5.00"`; omitted refunds it all (rules Interfaces, Platform 11).
   */
  amount?: string | undefined
}
// Written out by scripts/public-types.mjs (edit the rows, then run it) from: EndpointParams<typeof S2S.recurringSale>
/** Params of RECURRING_SALE (rules S2S 3, 4). */
export interface S2sRecurringSaleParams {
  /** A new order identifier for this charge; the hash input; deduplicated for 15 s (rule Limits 1). */
  order_id: string
  /**
   * The amount string with two decimals, e.g. `"10.00"` (rule Interfaces; per currency by opt-in, rule Platform 22).
   */
  order_amount: string
  /** Not empty. */
  order_description: string
  /** ISO 4217 code in capitals; with it a currency without a minor unit takes `.00` (rule Interfaces). */
  order_currency?: string | undefined
  /** The `trans_id` of the initial recurring payment; must pair with `recurring_token` (rule S2S 4). */
  recurring_first_trans_id: string
  /** The `recurring_token` of the initial recurring payment (rule S2S 4). */
  recurring_token: string
  /** Where the payer returns after 3DS: a public HTTPS URL (rule Events 4). */
  term_url_3ds?: string | undefined
}
// Written out by scripts/public-types.mjs (edit the rows, then run it) from: EndpointParams<typeof S2S.createSchedule>
/** Params of CREATE_SCHEDULE (rule S2S 3); its hash inputs must be configured (`hashInputs`). */
export interface S2sCreateScheduleParams {
  /** The schedule's name; not empty. */
  name: string
  /** Intervals between payments: a positive whole number (or its digit string). */
  interval_length: string | number
  /** `day` or `month` (rule Platform 12), or the units set in `platformDefaults.intervalUnits`. */
  interval_unit: 'day' | 'month' | (string & {})
  /** How many payments: a positive whole number (or its digit string). */
  payments_count: string | number
  /**
   * Your own UUID for the schedule; the gateway makes one when omitted (rule S2S 2). Send one: no
   * action reads a schedule, so after a lost answer it is what you can check the schedule by
   * (and cancel it with DELETE_SCHEDULE); without it nothing identifies the schedule.
   */
  schedule_id?: string | undefined
}
// Written out by scripts/public-types.mjs (edit the rows, then run it) from: EndpointParams<typeof S2S.deleteSchedule>
/** Params of DELETE_SCHEDULE: the way to cancel a schedule (rule S2S 1). */
export interface S2sDeleteScheduleParams {
  /** A UUID; the hash input (rules S2S 2, Authentication 5). */
  schedule_id: string
}
// Written out by scripts/public-types.mjs (edit the rows, then run it) from: EndpointParams<typeof S2S.updateSchedule>
/** Params of UPDATE_SCHEDULE: the schedule and the members to change. */
export interface S2sUpdateScheduleParams {
  /** A UUID; the hash input (rules S2S 2, Authentication 5). */
  schedule_id: string
  /** The schedule's new name; not empty. */
  name?: string | undefined
  /** Intervals between payments: a positive whole number (or its digit string). */
  interval_length?: string | number | undefined
  /** `day` or `month` (rule Platform 12), or the units set in `platformDefaults.intervalUnits`. */
  interval_unit?: 'day' | 'month' | (string & {}) | undefined
  /** How many payments: a positive whole number (or its digit string). */
  payments_count?: string | number | undefined
}

/**
 * Outcome of `captureIfPending`. `captured: true` only when CAPTURE answered `result: SUCCESS`.
 * `captured: false` with no `capture`: the lookup did not show `PENDING`, so CAPTURE was not sent.
 * `captured: false` with `capture`: CAPTURE was sent and answered another result (`DECLINED` with
 * its `decline_reason`, `UNDEFINED`, `ACCEPTED`, a newer value): the payment was not captured by this
 * answer; on anything but `DECLINED` look it up again (`getTransStatus`) before capturing again.
 */
export type S2sCaptureIfPendingResult =
  | { readonly captured: true; readonly lookup: S2sActionResult; readonly capture: S2sActionResult }
  | {
      readonly captured: false
      readonly lookup: S2sActionResult
      /** The payment's status as last seen: the capture answer's, else the lookup's. */
      readonly status: S2sStatus | undefined
      /** CAPTURE's answer, when it was sent and answered a result other than `SUCCESS`. */
      readonly capture?: S2sActionResult
    }

/**
 * The S2S CARD interface (`gw.s2s`): form-encoded actions carrying `client_key` (rules
 * Authentication 1, Platform 13), one method per action, and `captureIfPending`, which combines two
 * of them. Params are strict: an unknown key is refused with the closest wire name suggested. Every
 * method also takes a `schema` in its options, which checks the answer and types the result with it.
 */
export interface S2s {
  /** GET_TRANS_STATUS: reads a transaction's state; safe to repeat (rule States 3). */
  getTransStatus(params: S2sGetTransStatusParams, options?: OperationOptions): ApiPromise<S2sActionResult>
  getTransStatus<T>(params: S2sGetTransStatusParams, options: OperationOptions<ResponseSchema<T>>): ApiPromise<T>
  /** GET_TRANS_STATUS_BY_ORDER: reads a transaction's state by order_id; safe to repeat. */
  getTransStatusByOrder(params: S2sGetTransStatusByOrderParams, options?: OperationOptions): ApiPromise<S2sActionResult>
  getTransStatusByOrder<T>(
    params: S2sGetTransStatusByOrderParams,
    options: OperationOptions<ResponseSchema<T>>,
  ): ApiPromise<T>
  /**
   * CAPTURE: only a `pending` payment (rule States 1: else 208003); never retried once sent; may go
   * on a kept-alive connection.
   */
  capture(params: S2sCaptureParams, options?: OperationOptions): ApiPromise<S2sActionResult>
  capture<T>(params: S2sCaptureParams, options: OperationOptions<ResponseSchema<T>>): ApiPromise<T>
  /**
   * VOID: cancels a `pending` authorization (rule States 2); never retried once sent; may go on a
   * kept-alive connection.
   */
  void(params: S2sVoidParams, options?: OperationOptions): ApiPromise<S2sActionResult>
  void<T>(params: S2sVoidParams, options: OperationOptions<ResponseSchema<T>>): ApiPromise<T>
  /** CREDITVOID: answers `ACCEPTED`, outcome by callback (rule Platform 11); never retried once sent. */
  creditVoid(params: S2sCreditVoidParams, options?: OperationOptions): ApiPromise<S2sActionResult>
  creditVoid<T>(params: S2sCreditVoidParams, options: OperationOptions<ResponseSchema<T>>): ApiPromise<T>
  /** RECURRING_SALE: charges again from an initial recurring transaction (rules S2S 3, 4: the pair must match). */
  recurringSale(params: S2sRecurringSaleParams, options?: OperationOptions): ApiPromise<S2sActionResult>
  recurringSale<T>(params: S2sRecurringSaleParams, options: OperationOptions<ResponseSchema<T>>): ApiPromise<T>
  /**
   * CREATE_SCHEDULE: answers with `schedule_id` (rules S2S 3, Platform 12). Its hash inputs are not
   * published: the client must name them (`hashInputs`).
   */
  createSchedule(params: S2sCreateScheduleParams, options?: OperationOptions): ApiPromise<S2sActionResult>
  createSchedule<T>(params: S2sCreateScheduleParams, options: OperationOptions<ResponseSchema<T>>): ApiPromise<T>
  /** DELETE_SCHEDULE: the way to cancel a schedule (rule S2S 1: there is no CANCEL_SCHEDULE). */
  deleteSchedule(params: S2sDeleteScheduleParams, options?: OperationOptions): ApiPromise<S2sActionResult>
  deleteSchedule<T>(params: S2sDeleteScheduleParams, options: OperationOptions<ResponseSchema<T>>): ApiPromise<T>
  /** UPDATE_SCHEDULE: changes a schedule, given by its UUID, and the members to change (rule S2S 2). */
  updateSchedule(params: S2sUpdateScheduleParams, options?: OperationOptions): ApiPromise<S2sActionResult>
  updateSchedule<T>(params: S2sUpdateScheduleParams, options: OperationOptions<ResponseSchema<T>>): ApiPromise<T>
  /**
   * Rule States 3 as one call: a status lookup, then CAPTURE only when the status is `PENDING`.
   * It cannot capture twice: the lookup is the only retried step, and CAPTURE is sent at most once
   * (`unsent-only`); if its outcome is unknown the error says `requestSent`, reconcile with a lookup.
   * Only an answer with `result: SUCCESS` counts as captured; `DECLINED` or any other result is
   * `captured: false` with the answer in `capture` (rule Platform 9). A lookup answer that does not
   * name this `trans_id` (another transaction's record) rejects with `unbound_response`, and CAPTURE
   * is not sent on it (rule Platform 27).
   */
  captureIfPending(params: S2sCaptureParams, options?: CallOptions): Promise<S2sCaptureIfPendingResult>
}

/** `S2s` made from the rows of `S2S` (which must match it: see `resource`), plus `captureIfPending`. */
export class S2sResource extends resource<GatewayContext, typeof S2S, S2s>(S2S) implements S2s {
  /**
   * @internal `refunds`: where the client notes each CREDITVOID as it is sent (rules S2S 1, Platform
   * 11): a refund callback's amount is outside every callback signature, and the inbox checks it
   * against the refunds this client sent. Reconcile's lookups pass none.
   */
  constructor(ops: OperationClient<GatewayContext>, refunds?: SentRefunds) {
    super(ops)
    if (refunds === undefined) return
    const send = this.creditVoid
    // Typed as the row's method (its generic answer type is the method's own).
    const noted = function (this: S2sResource, ...args: Parameters<typeof send>) {
      refunds.note(args[0]?.trans_id, args[0]?.amount)
      return send.apply(this, args)
    } as typeof send
    // Not enumerable, like the prototype's methods: nothing shows in inspect or JSON.
    Object.defineProperty(this, 'creditVoid', { value: noted, writable: true, configurable: true })
  }

  async captureIfPending(params: S2sCaptureParams, call?: CallOptions): Promise<S2sCaptureIfPendingResult> {
    const lookup = await this.getTransStatus({ trans_id: params.trans_id }, call)
    // A `null` status (the gateway's empty value) is no status: not PENDING, and reported as `undefined`.
    if (lookup.status?.toUpperCase() !== 'PENDING')
      return { captured: false, lookup, status: lookup.status ?? undefined }
    const capture = await this.capture(params, call)
    if (String(capture.result ?? '').toUpperCase() !== 'SUCCESS') {
      return { captured: false, lookup, status: capture.status ?? lookup.status ?? undefined, capture }
    }
    return { captured: true, lookup, capture }
  }
}
