/** S2S CARD actions: one row per action — its fields, hash inputs and retry policy (form-encoded, POST {s2sUrl}/post). */

import {
  ApiPromise,
  type CallOptions,
  formBody,
  RequestValidationError,
  type RetryPolicy,
  safe,
  unsentOnly,
  validateParams,
  withinWindow,
} from '@paywire/core'
import { z } from 'zod'
import { DEDUP_WINDOW_MS } from './checkout.js'
import { type CardGatewayOperation, type GatewayContext, gatewayHandler, reconciliationFor } from './context.js'
import {
  amountString,
  assertWellFormedText,
  lenient,
  nonEmpty,
  positiveInt,
  type RequestRules,
  redirectUrl,
  type S2sResultValue,
  type S2sStatus,
  uuid,
} from './schemas.js'
import { pickInputs } from './signature.js'

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

interface ActionRow<S extends z.ZodType> {
  readonly action: S2sActionName
  readonly operation: CardGatewayOperation
  /**
   * The params schema under the client's rules. Strict: an unknown key is refused with the closest
   * wire name suggested (typo guard).
   */
  readonly params: (rules: RequestRules) => S
  /**
   * Wire fields signed, in order; the password is appended last (spec Authentication 5). `null`:
   * the inputs are not published, so the caller must name them in the `hashInputs` option.
   */
  readonly hashInputs: readonly string[] | null
  readonly retry: RetryPolicy
}

function row<S extends z.ZodType>(r: ActionRow<S>): ActionRow<S> {
  return r
}

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

/** The action table. Adding an action is adding a row here and a one-line method below. */
export const S2S_ACTIONS = {
  getTransStatus: row({
    action: 'GET_TRANS_STATUS',
    operation: 's2s.getTransStatus',
    params: () => byTransId,
    hashInputs: ['trans_id'],
    retry: safe, // a lookup (spec rule 3, Limits 2)
  }),
  getTransStatusByOrder: row({
    action: 'GET_TRANS_STATUS_BY_ORDER',
    operation: 's2s.getTransStatusByOrder',
    params: () => byOrderId,
    hashInputs: ['order_id'],
    retry: safe,
  }),
  capture: row({
    action: 'CAPTURE',
    operation: 's2s.capture',
    params: () => amountOptional, // amount: partial capture (PLATFORM_NOTES)
    hashInputs: ['trans_id'],
    retry: unsentOnly, // a repeated capture can act twice
  }),
  void: row({
    action: 'VOID',
    operation: 's2s.void',
    params: () => byTransId,
    hashInputs: ['trans_id'],
    retry: unsentOnly,
  }),
  creditVoid: row({
    action: 'CREDITVOID',
    operation: 's2s.creditVoid',
    params: () => amountOptional, // amount: partial refund (PLATFORM_NOTES)
    hashInputs: ['trans_id'],
    retry: unsentOnly,
  }),
  recurringSale: row({
    action: 'RECURRING_SALE',
    operation: 's2s.recurringSale',
    params: (rules) =>
      z.strictObject({
        order_id: nonEmpty,
        order_amount: amountString,
        order_description: nonEmpty,
        order_currency: nonEmpty.optional(),
        recurring_first_trans_id: nonEmpty,
        recurring_token: nonEmpty,
        term_url_3ds: redirectUrl(rules.allowPrivateRedirectUrls).optional(),
      }),
    hashInputs: ['order_id'],
    retry: withinWindow(DEDUP_WINDOW_MS), // carries order_id: the gateway dedups within 15 s
  }),
  createSchedule: row({
    action: 'CREATE_SCHEDULE',
    operation: 's2s.createSchedule',
    params: (rules) =>
      z.strictObject({
        name: nonEmpty,
        interval_length: positiveInt,
        interval_unit: intervalUnit(rules.intervalUnits),
        payments_count: positiveInt,
        schedule_id: uuid.optional(),
      }),
    // Not published for this scheme. The one public fact (another brand's MD5 scheme) signs the
    // password alone, which any captured request replays for any schedule: no default is guessed.
    hashInputs: null,
    retry: unsentOnly,
  }),
  deleteSchedule: row({
    action: 'DELETE_SCHEDULE',
    operation: 's2s.deleteSchedule',
    params: () => byScheduleId,
    hashInputs: ['schedule_id'],
    retry: unsentOnly,
  }),
  updateSchedule: row({
    action: 'UPDATE_SCHEDULE',
    operation: 's2s.updateSchedule',
    params: (rules) =>
      z.strictObject({
        schedule_id: uuid,
        name: nonEmpty.optional(),
        interval_length: positiveInt.optional(),
        interval_unit: intervalUnit(rules.intervalUnits).optional(),
        payments_count: positiveInt.optional(),
      }),
    hashInputs: ['schedule_id'],
    retry: unsentOnly,
  }),
} as const

type Actions = typeof S2S_ACTIONS
type ParamsOf<K extends keyof Actions> = z.input<ReturnType<Actions[K]['params']>>

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

/** The S2S CARD interface: form-encoded actions carrying `client_key` (spec Authentication 1). */
export class S2s {
  readonly #ctx: GatewayContext
  /** Each row's schema under this client's rules, built once. */
  readonly #schemas = new Map<unknown, z.ZodType>()

  /** @internal */
  constructor(ctx: GatewayContext) {
    this.#ctx = ctx
  }

  /** GET_TRANS_STATUS: reads a transaction's state; safe to repeat (spec rule 3). */
  getTransStatus(params: S2sGetTransStatusParams, call?: CallOptions): ApiPromise<S2sGetTransStatusResult> {
    return this.#send(S2S_ACTIONS.getTransStatus, params, call)
  }

  /** GET_TRANS_STATUS_BY_ORDER: reads a transaction's state by order_id; safe to repeat. */
  getTransStatusByOrder(
    params: S2sGetTransStatusByOrderParams,
    call?: CallOptions,
  ): ApiPromise<S2sGetTransStatusByOrderResult> {
    return this.#send(S2S_ACTIONS.getTransStatusByOrder, params, call)
  }

  /** CAPTURE: only a `pending` payment (spec rule 1: else 208003); never retried once sent. */
  capture(params: S2sCaptureParams, call?: CallOptions): ApiPromise<S2sCaptureResult> {
    return this.#send(S2S_ACTIONS.capture, params, call)
  }

  /** VOID: cancels a `pending` authorization (spec rule 2); never retried once sent. */
  void(params: S2sVoidParams, call?: CallOptions): ApiPromise<S2sVoidResult> {
    return this.#send(S2S_ACTIONS.void, params, call)
  }

  /** CREDITVOID: answers `ACCEPTED`, outcome by callback; never retried once sent. */
  creditVoid(params: S2sCreditVoidParams, call?: CallOptions): ApiPromise<S2sCreditVoidResult> {
    return this.#send(S2S_ACTIONS.creditVoid, params, call)
  }

  /** RECURRING_SALE: charges again from an initial recurring transaction (rule 4: the pair must match). */
  recurringSale(params: S2sRecurringSaleParams, call?: CallOptions): ApiPromise<S2sRecurringSaleResult> {
    return this.#send(S2S_ACTIONS.recurringSale, params, call)
  }

  /** CREATE_SCHEDULE: answers with `schedule_id` (PLATFORM_NOTES). */
  createSchedule(params: S2sCreateScheduleParams, call?: CallOptions): ApiPromise<S2sCreateScheduleResult> {
    return this.#send(S2S_ACTIONS.createSchedule, params, call)
  }

  /** DELETE_SCHEDULE: the way to cancel a schedule (rule 1: there is no CANCEL_SCHEDULE). */
  deleteSchedule(params: S2sDeleteScheduleParams, call?: CallOptions): ApiPromise<S2sDeleteScheduleResult> {
    return this.#send(S2S_ACTIONS.deleteSchedule, params, call)
  }

  /** UPDATE_SCHEDULE: changes a schedule; schedule_id must be a UUID (rule 2). */
  updateSchedule(params: S2sUpdateScheduleParams, call?: CallOptions): ApiPromise<S2sUpdateScheduleResult> {
    return this.#send(S2S_ACTIONS.updateSchedule, params, call)
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

  #send<S extends z.ZodType>(
    row: ActionRow<S>,
    input: unknown,
    call: CallOptions | undefined,
  ): ApiPromise<S2sActionResult> {
    return ApiPromise.try(() => this.#build(row, input, call))
  }

  #build<S extends z.ZodType>(
    row: ActionRow<S>,
    input: unknown,
    call: CallOptions | undefined,
  ): ApiPromise<S2sActionResult> {
    const ctx = this.#ctx
    const hashInputs = ctx.hashInputs(row.operation) ?? row.hashInputs ?? refuseUnconfigured(row.operation)
    let schema = this.#schemas.get(row)
    if (!schema) {
      schema = row.params(ctx.rules)
      this.#schemas.set(row, schema)
    }
    const params = validateParams(row.operation, schema, input) as Record<string, string | number | undefined>
    const fields: Record<string, string> = { action: row.action, client_key: ctx.clientKey() }
    for (const [name, value] of Object.entries(params)) if (value !== undefined) fields[name] = String(value)
    assertWellFormedText(row.operation, fields)
    // Signed from the very strings that are form-encoded next (spec Authentication 4).
    fields['hash'] = ctx.sign(pickInputs(fields, hashInputs))
    return ctx.http.send(
      {
        operation: row.operation,
        method: 'POST',
        url: `${ctx.s2sUrl}/post`,
        body: formBody(fields),
        retry: row.retry,
        reconciliation: reconciliationFor(row.operation, fields),
      },
      gatewayHandler(ctx, (body) => lenient<S2sActionResult>(body, STRING_FIELDS)),
      call,
    )
  }
}

/** An operation whose hash inputs are not published cannot be signed until the caller names them. */
function refuseUnconfigured(operation: CardGatewayOperation): never {
  throw new RequestValidationError(operation, [
    {
      path: `hashInputs.${operation}`,
      message:
        'the hash inputs of this action are not published, so the SDK will not guess them: a password-only hash ' +
        'would let anyone who sees one request sign any schedule and test passwords offline. Set ' +
        `hashInputs: { '${operation}': [...] } on the client to the fields your gateway signs (ask its support), ` +
        'or [] to sign the password alone knowingly; nothing was sent',
    },
  ])
}
