/** What the operation groups share: transport, keys, signer and the response handler (internal). */

import type { HttpClient, HttpRequest, RawResponse, Reconciliation, ResponseHandler } from '@paywire/core'
import { CardGatewayError } from './errors.js'
import { asObject, type RequestRules } from './schemas.js'
import { pickInputs, type SignatureInput } from './signature.js'

/** Operation names, as used in errors, hooks and the `hashInputs` option. */
export type CardGatewayOperation =
  | 'checkout.purchase'
  | 'checkout.credit'
  | 'checkout.status'
  | 's2s.getTransStatus'
  | 's2s.getTransStatusByOrder'
  | 's2s.capture'
  | 's2s.void'
  | 's2s.creditVoid'
  | 's2s.recurringSale'
  | 's2s.createSchedule'
  | 's2s.deleteSchedule'
  | 's2s.updateSchedule'

export interface GatewayContext {
  readonly http: HttpClient
  readonly checkoutUrl: string
  readonly s2sUrl: string
  readonly environment: string | undefined
  readonly paths: { readonly purchase: string; readonly status: string }
  /** The client's redirect-target policy and platform defaults, for the schemas it builds. */
  readonly rules: RequestRules
  merchantKey(): string
  clientKey(): string
  /** The hash of `inputs` with the password appended, using the configured digest. */
  sign(inputs: readonly SignatureInput[]): string
  /** The caller's explicit hash input list for `operation`, or `undefined` when it gave none. */
  hashInputs(operation: CardGatewayOperation): readonly string[] | undefined
}

/**
 * Builds the handler of one operation. A 2xx whose body says `result: "ERROR"` (the spec leaves
 * most error statuses unspecified) is an error too, and so is a 2xx body that is not a JSON object.
 */
export function gatewayHandler<T>(
  ctx: GatewayContext,
  decode: (body: Record<string, unknown>, raw: RawResponse, req: RequestLike) => T,
): ResponseHandler<T> {
  const toError = (raw: RawResponse, req: RequestLike) =>
    new CardGatewayError({ ...req, response: raw, environment: ctx.environment })
  return {
    decode(raw, req) {
      const body = asObject(raw.json)
      if (!body) throw unreadableError(raw, req, 'is not a JSON object')
      if (isErrorEnvelope(body)) throw toError(raw, req)
      return decode(body, raw, req)
    },
    toError,
  }
}

/** The request an answer belongs to: its policy and reconciliation key go on every error. */
export type RequestLike = HttpRequest

/** A 2xx answer the SDK cannot read: the call may have acted, so its outcome is unknown (unless it is a lookup). */
export function unreadableError(raw: RawResponse, req: RequestLike, problem: string): CardGatewayError {
  return new CardGatewayError({
    ...req,
    response: raw,
    reason: 'unreadable_response',
    message: `${req.operation}: the HTTP ${raw.status} answer ${problem}.`,
  })
}

function isErrorEnvelope(body: Record<string, unknown>): boolean {
  if (body['result'] === 'ERROR') return true
  const code = body['error_code']
  return body['result'] === undefined && typeof body['error_message'] === 'string' && code !== undefined
}

interface ReconcileRow {
  /** Wire field of the key (`order.number` reads the nested purchase order). */
  readonly field: string
  /** The key's name as the lookup takes it. */
  readonly key: string
  readonly lookup: (value: string) => string
}

const byTransId: ReconcileRow = {
  field: 'trans_id',
  key: 'trans_id',
  lookup: (v) => `gw.s2s.getTransStatus({ trans_id: ${JSON.stringify(v)} })`,
}
const checkoutStatus = (v: string) => `gw.checkout.status({ order_id: ${JSON.stringify(v)} })`
const bySchedule: ReconcileRow = {
  field: 'schedule_id',
  key: 'schedule_id',
  lookup: () =>
    'a repeat of the same call with this schedule_id (no action reads a schedule; a second DELETE_SCHEDULE answers "Schedule not found")',
}

/**
 * The key and the safe lookup that settle an unknown outcome, per operation: CAPTURE, VOID and
 * CREDITVOID by `trans_id` (GET_TRANS_STATUS); purchase and credit by `order_id` (Checkout status);
 * RECURRING_SALE by `order_id` (GET_TRANS_STATUS_BY_ORDER); schedules by `schedule_id`.
 */
const RECONCILE: Partial<Record<CardGatewayOperation, ReconcileRow>> = {
  's2s.capture': byTransId,
  's2s.void': byTransId,
  's2s.creditVoid': byTransId,
  'checkout.purchase': { field: 'order.number', key: 'order_id', lookup: checkoutStatus },
  'checkout.credit': { field: 'order_id', key: 'order_id', lookup: checkoutStatus },
  's2s.recurringSale': {
    field: 'order_id',
    key: 'order_id',
    lookup: (v) => `gw.s2s.getTransStatusByOrder({ order_id: ${JSON.stringify(v)} })`,
  },
  's2s.createSchedule': bySchedule,
  's2s.deleteSchedule': bySchedule,
  's2s.updateSchedule': bySchedule,
}

/** The reconciliation of one request, read from its wire fields; `undefined` for lookups. */
export function reconciliationFor(
  operation: CardGatewayOperation,
  wire: Readonly<Record<string, unknown>>,
): Reconciliation | undefined {
  const row = RECONCILE[operation]
  const value = row && pickInputs(wire, [row.field])[0]?.value
  return row && value ? { key: row.key, value, lookup: row.lookup(value) } : undefined
}
