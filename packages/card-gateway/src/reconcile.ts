/**
 * Settling an unknown card outcome by the operation's safe lookup (rules States 3, Limits 2):
 * CAPTURE, VOID and CREDITVOID by GET_TRANS_STATUS; purchase and credit by the Checkout status
 * lookup of their order_id; RECURRING_SALE by GET_TRANS_STATUS_BY_ORDER. Lookups only: nothing is
 * sent twice. Only a readable record of the very call proves it acted (its order_id or trans_id,
 * a status, no sign of another operation); an empty, unreadable or foreign answer proves nothing,
 * and a lookup that finds nothing counts as `not_applied` only where that proves it.
 */

import { DEFAULT_SETTLE_AFTER_MS, type Reconciled, type ReconcileOptions, RequestValidationError } from '@paywire/core'
import type { OperationClient, ReconcileSubject } from '@paywire/core/engine'
import { toMinorUnits } from './amount.js'
import { CardGatewayError } from './errors.js'
import type { GatewayContext } from './fields.js'
import { CheckoutResource, type CheckoutStatusResult, DEDUP_WINDOW_MS } from './resources/checkout.js'
import { S2sResource } from './resources/s2s.js'
import type { S2sActionResult } from './resources/s2s-action.js'

/**
 * What a card reconciliation looked at: the status answer of the payment or transaction. An
 * `applied` purchase also has `next`: how to get the payer's `redirect_url` back, which the status
 * lookup does not carry (docs/reconciliation.md).
 */
export type CardReconciled = Reconciled<CheckoutStatusResult | S2sActionResult>

type Outcome = Reconciled['outcome']
type State = CardReconciled['state']

/** S2S statuses, per operation: which prove the call acted and which prove it did not (rule Platform 9). */
export const S2S_OUTCOMES: Readonly<
  Record<string, { action: string; applied: readonly string[]; notApplied: readonly string[] }>
> = {
  's2s.capture': {
    action: 'CAPTURE',
    applied: ['SETTLED', 'REFUND', 'REVERSAL', 'CHARGEBACK'],
    notApplied: ['PENDING', 'VOID', 'DECLINED'],
  },
  's2s.void': {
    action: 'VOID',
    applied: ['VOID'],
    notApplied: ['PENDING', 'SETTLED', 'REFUND', 'REVERSAL', 'CHARGEBACK', 'DECLINED'],
  },
  // CREDITVOID answers ACCEPTED and settles later (rule Platform 11): SETTLED can still become REFUND.
  's2s.creditVoid': {
    action: 'CREDITVOID',
    applied: ['REFUND', 'REVERSAL'],
    notApplied: ['PENDING', 'VOID', 'DECLINED'],
  },
}

/**
 * Checkout record kinds (the callback `type` values, rule Platform 14) that are another operation
 * than the one reconciled: a purchase's record is never a credit or a recurring charge, and a
 * credit's record is never a sale.
 */
const FOREIGN_KINDS: Readonly<Record<string, readonly string[]>> = {
  'checkout.purchase': ['credit', 'recurring', 'debit', 'transfer'],
  'checkout.credit': ['sale', 'recurring', 'debit', 'transfer', '3ds', 'redirect', 'capture', 'void', 'chargeback'],
}

/** A member that holds a value: a non-empty string or a finite number. */
function present(value: unknown): value is string | number {
  return (typeof value === 'string' && value.trim() !== '') || (typeof value === 'number' && Number.isFinite(value))
}

/**
 * What a lookup gave: a record, nothing found, an answer that cannot be read, or one that is not
 * about the key looked up (`unbound`: another record, or none named; core's rule Platform 27).
 */
type Looked<T> =
  | { readonly record: T }
  | { readonly notFound: true }
  | { readonly unreadable: string }
  | { readonly unbound: string }

async function look<T>(lookup: () => PromiseLike<T>): Promise<Looked<T>> {
  try {
    return { record: await lookup() }
  } catch (error) {
    if (error instanceof CardGatewayError && error.isNotFound) return { notFound: true }
    // A 2xx the SDK cannot read (null, not JSON, an empty body) shows nothing either way.
    if (error instanceof CardGatewayError && error.reason === 'unreadable_response') {
      return { unreadable: error.message }
    }
    // A 2xx about another transaction or order, or naming none, shows nothing of this one.
    if (error instanceof CardGatewayError && error.reason === 'unbound_response') return { unbound: error.message }
    throw error
  }
}

/**
 * Why a Checkout status record is not the order reconciled, or `undefined` when it is. That the
 * record names the order (`order.number`) is core's check of the lookup's answer (rule Platform 27):
 * here, only what makes a record of this order still not the call reconciled.
 */
function checkoutUnproven(operation: string, state: CheckoutStatusResult, orderId: string): string | undefined {
  for (const field of ['type', 'operation']) {
    const kind = state[field]
    if (typeof kind === 'string' && FOREIGN_KINDS[operation]?.includes(kind.toLowerCase())) {
      return `the status lookup's record under order ${orderId} is a ${kind.toLowerCase()} (${field}), not the ${operation} reconciled`
    }
  }
  if (!present(state.status)) return `the status lookup answered a record of order ${orderId} without a status`
  // A credit is often sent under the order_id of the payment it refunds: a record that does not say
  // it is a credit may be that payment (settled, not refunded), so only a record that names a credit
  // or refund, by its kind or its status, proves it.
  const shown = [kindOf(state), String(state.status).toLowerCase()]
  if (operation === 'checkout.credit' && !shown.some((kind) => kind !== undefined && CREDIT_KINDS.includes(kind))) {
    return `the status lookup's record under order ${orderId} (status ${String(state.status)}) does not show a credit or refund: it may be the payment the credit refunds`
  }
  return undefined
}

/**
 * Why a recurring sale's record is another charge under the same order_id, or `undefined`: its
 * amount (or currency) differs from the one the intent sent. An order_id reused for each month's
 * charge would otherwise prove this month's by last month's record.
 */
function otherCharge(state: S2sActionResult, params: unknown): string | undefined {
  const sent = (typeof params === 'object' && params !== null ? params : {}) as Record<string, unknown>
  for (const [field, sentField] of [
    ['amount', 'order_amount'],
    ['currency', 'order_currency'],
  ] as const) {
    const shown = state[field]
    const asSent = sent[sentField]
    if (!present(shown) || !present(asSent)) continue
    const same = field === 'amount' ? Number(shown) === Number(asSent) : String(shown) === String(asSent)
    if (!same) {
      return `GET_TRANS_STATUS_BY_ORDER shows a charge of ${field} ${String(shown)} under order_id ${String(state.order_id)}, not the ${String(asSent)} this call sent: it may be an earlier charge under the same order_id`
    }
  }
  return undefined
}

/**
 * How a CREDITVOID's refund is written in a reason when it may be partial (`of 3.00`), or
 * `undefined` for a refund of everything: no amount, or the amount the lookup shows for the payment
 * (compared in minor units). An amount that cannot be compared with the payment's (the lookup shows
 * none, or either is unreadable) may be partial, and so may the refund of an error, which does not
 * record what was sent (`params` undefined): then the lookup cannot prove the refund either way.
 */
function partialRefund(state: S2sActionResult, params: unknown): string | undefined {
  if (params === undefined) return 'whose amount the error does not record'
  const sent = (typeof params === 'object' && params !== null ? params : {}) as Record<string, unknown>
  const amount = sent['amount']
  if (!present(amount)) return undefined
  const currency = typeof state.currency === 'string' ? state.currency : undefined
  const refund = toMinorUnits(String(amount), currency)
  const payment = present(state.amount) ? toMinorUnits(String(state.amount), currency) : undefined
  return refund !== undefined && payment !== undefined && refund >= payment ? undefined : `of ${String(amount)}`
}

/** The evidence of a lookup whose answer is not about the key looked up (its error's message says why). */
function notOf(lookup: string, key: { key: string; value: string }, why: string): string {
  return `${lookup} answered a record that does not name ${key.key} ${key.value}: ${why}`
}

/** The kinds of record that prove a credit. */
const CREDIT_KINDS = ['credit', 'refund']

/** The record's own kind, from `type` or `operation`, lower-cased. */
function kindOf(state: CheckoutStatusResult): string | undefined {
  for (const field of ['type', 'operation']) {
    const kind = state[field]
    if (typeof kind === 'string' && kind !== '') return kind.toLowerCase()
  }
  return undefined
}

/**
 * Why an S2S record is not the call reconciled, or `undefined` when it is: it carries a status, and
 * is of the lookup or of the action reconciled. That it names the key looked up (`trans_id` or
 * `order_id`) is core's check of the lookup's answer (rule Platform 27).
 */
export function s2sUnproven(
  lookupAction: string,
  action: string,
  state: S2sActionResult,
  key: { key: string; value: string },
): string | undefined {
  if (present(state.action) && state.action !== lookupAction && state.action !== action) {
    return `${lookupAction} answered the record of another action (${String(state.action)}) under ${key.key} ${key.value}`
  }
  if (!present(state.status)) return `${lookupAction} answered a record of ${key.key} ${key.value} without a status`
  return undefined
}

/**
 * Reconciles one unknown card outcome with the client's own Checkout and S2S interfaces. Each lookup
 * goes on a connection of its own (`onOwnConnections`), like a money-moving call: a stale answer
 * left on a kept-alive connection (a gateway or proxy that answered an earlier lookup twice) would
 * read as this lookup's answer, and a settled capture could be reported `not_applied` from an old
 * PENDING.
 */
export async function reconcileCard(
  subject: ReconcileSubject,
  ops: OperationClient<GatewayContext>,
  options: ReconcileOptions = {},
): Promise<CardReconciled> {
  const { operation, reconciliation: key, elapsedMs } = subject
  const lookups = ops.onOwnConnections()
  const checkout = new CheckoutResource(lookups)
  const s2s = new S2sResource(lookups)
  // A call that may still be on its way (an intent inside its call's limit) proves nothing by absence.
  const settleAfterMs = Math.max(options.settleAfterMs ?? DEFAULT_SETTLE_AFTER_MS, subject.callLimitMs)
  const result = (outcome: Outcome, state: State, evidence: string, next?: string): CardReconciled => {
    // Absence proves nothing while the request can still arrive: a timed-out call may be queued at the gateway.
    if (outcome === 'not_applied' && elapsedMs < settleAfterMs) {
      const at = new Date(Date.now() + (settleAfterMs - elapsedMs)).toISOString()
      return {
        outcome: 'still_unknown',
        operation,
        key,
        state,
        evidence: `${evidence}, but the call is recent enough to still arrive`,
        next: `reconcile again after ${at} (settleAfterMs)`,
      }
    }
    return { outcome, operation, key, state, evidence, ...(next === undefined ? {} : { next }) }
  }
  // What to do when the answer proves nothing: look again, and send nothing new until it does.
  const unknown = (evidence: string, state?: State) =>
    result(
      'still_unknown',
      state,
      evidence,
      `reconcile again once ${key.lookup} answers a readable record of ${key.key} ${key.value} (or check the gateway's admin portal); do not send the call again${key.key === 'order_id' ? ', under this or a new order_id,' : ''} before that`,
    )

  // A partial refund is not shown by the lookup, which answers the payment's state: SETTLED after a
  // partial refund as before it, REFUND once everything is refunded by whichever refunds. Neither
  // proves this refund was made or not: it stays open, and is never sent again.
  const partialRefundUnknown = (state: State, refund: string, status: string, seen: string) => {
    const callback = refund.startsWith('of ') ? `a refund with amount ${refund.slice(3)}` : 'its amount'
    const journal = refund.startsWith('of ') ? '' : ' (or reconcile its journal intent, which records the amount)'
    return result(
      'still_unknown',
      state,
      status === 'SETTLED'
        ? `${seen}: a partial refund ${refund} leaves the payment SETTLED, so the status lookup cannot tell whether this one was made`
        : `${seen}: the payment is fully refunded, by this refund ${refund} or by others, and the status lookup cannot tell which`,
      status === 'SETTLED'
        ? `look for this refund's callback (${callback}) or check the gateway's admin portal${journal}; do not send it again before that`
        : `the payment is fully refunded and nothing is left to refund: look for this refund's callback (${callback}) or check the gateway's admin portal${journal} to know whether it was made; do not send it again`,
    )
  }

  const s2sRule = S2S_OUTCOMES[operation]
  if (s2sRule) {
    const looked = await look(() => s2s.getTransStatus({ trans_id: key.value }))
    if ('notFound' in looked) {
      return result('not_applied', undefined, `GET_TRANS_STATUS finds no transaction ${key.value}`)
    }
    if ('unreadable' in looked) return unknown(`GET_TRANS_STATUS answered what cannot be read: ${looked.unreadable}`)
    if ('unbound' in looked) return unknown(notOf('GET_TRANS_STATUS', key, looked.unbound))
    const state = looked.record
    const problem = s2sUnproven('GET_TRANS_STATUS', s2sRule.action, state, key)
    if (problem !== undefined) return unknown(problem, state)
    const status = String(state.status).toUpperCase()
    const seen = `GET_TRANS_STATUS shows ${key.value} as ${status}`
    const part = operation === 's2s.creditVoid' ? partialRefund(state, subject.params) : undefined
    if (part !== undefined && !s2sRule.notApplied.includes(status))
      return partialRefundUnknown(state, part, status, seen)
    if (s2sRule.applied.includes(status)) return result('applied', state, seen)
    if (s2sRule.notApplied.includes(status)) return result('not_applied', state, seen)
    return result(
      'still_unknown',
      state,
      seen,
      operation === 's2s.creditVoid'
        ? 'a credit-void settles after its ACCEPTED answer: wait for its callback, or reconcile again in a few minutes'
        : 'the transaction is between states: reconcile again in a minute',
    )
  }

  switch (operation) {
    case 'checkout.purchase':
    case 'checkout.credit': {
      const what = operation === 'checkout.purchase' ? 'order' : 'the credit'
      const looked = await look(() => checkout.status({ order_id: key.value }))
      if ('unreadable' in looked) return unknown(`the status lookup answered what cannot be read: ${looked.unreadable}`)
      if ('unbound' in looked) return unknown(notOf('the status lookup', key, looked.unbound))
      if ('notFound' in looked) {
        if (operation === 'checkout.purchase') {
          // No session was created for this order: the payer was never sent to pay it.
          return result('not_applied', undefined, `the status lookup finds no order ${key.value}`)
        }
        return result(
          'still_unknown',
          undefined,
          `the status lookup finds no order ${key.value}`,
          'whether credits are listed by the status lookup is not published: check for a refund callback or the admin portal before refunding again',
        )
      }
      const state = looked.record
      const problem = checkoutUnproven(operation, state, key.value)
      if (problem !== undefined) return unknown(problem, state)
      const seen = `the status lookup finds ${what} ${key.value} (${String(state.status)})`
      if (operation === 'checkout.purchase') {
        return result('applied', state, seen, redirectBack(subject.sinceFirstSentMs ?? elapsedMs))
      }
      return result('applied', state, seen)
    }
    case 's2s.recurringSale': {
      const looked = await look(() => s2s.getTransStatusByOrder({ order_id: key.value })).catch((error: unknown) => {
        // This client cannot sign the lookup (card-md5-strrev publishes no GET_TRANS_STATUS_BY_ORDER
        // formula): nothing it can send settles the call, which is said, never thrown.
        if (error instanceof RequestValidationError && error.issues.some((issue) => issue.path === 'signature')) {
          return { unsignable: error.issues.map((issue) => issue.message).join('; ') }
        }
        throw error
      })
      if ('unsignable' in looked) {
        return notReconcilable(
          subject,
          `GET_TRANS_STATUS_BY_ORDER cannot be sent by this client: ${looked.unsignable}`,
          `look order_id ${key.value} up in the gateway's admin portal (or take the recurring sale's trans_id from its callback and call gw.s2s.getTransStatus), then close the intent in the journal; do not send the recurring sale again before that`,
        )
      }
      if ('notFound' in looked) {
        return result('not_applied', undefined, `GET_TRANS_STATUS_BY_ORDER finds no order ${key.value}`)
      }
      if ('unreadable' in looked) {
        return unknown(`GET_TRANS_STATUS_BY_ORDER answered what cannot be read: ${looked.unreadable}`)
      }
      if ('unbound' in looked) return unknown(notOf('GET_TRANS_STATUS_BY_ORDER', key, looked.unbound))
      const state = looked.record
      const problem =
        s2sUnproven('GET_TRANS_STATUS_BY_ORDER', 'RECURRING_SALE', state, key) ?? otherCharge(state, subject.params)
      if (problem !== undefined) return unknown(problem, state)
      return result('applied', state, `GET_TRANS_STATUS_BY_ORDER finds ${key.value} (${String(state.status)})`)
    }
    case 's2s.createSchedule':
      return createScheduleUnreconcilable(subject)
    case 's2s.deleteSchedule':
    case 's2s.updateSchedule': {
      const action = operation === 's2s.deleteSchedule' ? 'DELETE_SCHEDULE' : 'UPDATE_SCHEDULE'
      return notReconcilable(
        subject,
        `no action reads a schedule (rule S2S 1), so no lookup tells whether ${action} acted on schedule_id ${key.value}`,
        operation === 's2s.deleteSchedule'
          ? `send the same DELETE_SCHEDULE again: deleting twice is the same act, and "Schedule not found" then means it is gone (deleted by the first call, or never there); then close the intent in the journal`
          : `send the same UPDATE_SCHEDULE again with the same values (it sets them once more; no money moves), or check the schedule in the gateway's admin portal; then close the intent in the journal`,
      )
    }
    default:
      return notReconcilable(subject, `no lookup reads the outcome of ${operation}`, key.lookup)
  }
}

/**
 * `next` of an applied purchase: the status lookup does not carry the payer's `redirect_url`, and
 * only an identical resend inside the 15 s dedup window answers the same session again (rule
 * Limits 1). The window runs from when the gateway received the first attempt, which is no earlier
 * than when that attempt was sent: counted from there (`sinceFirstSentMs`), never from when the call
 * ended (with a 30 s timeout, the whole window would have passed), its end is "at the latest".
 */
function redirectBack(sinceFirstSentMs: number): string {
  const lost = "the status lookup does not give the payer's redirect_url back"
  const left = DEDUP_WINDOW_MS - sinceFirstSentMs
  if (left > 0) {
    const latest = new Date(Date.now() + left).toISOString()
    return `${lost}: send the identical purchase again (the same body, same order_id) within the gateway's 15 s dedup window from when it was first sent, at the latest ${latest}, and it answers the same session with its redirect_url, without opening a second one`
  }
  return `${lost}, and the 15 s dedup window in which an identical resend answers the same session has passed (a resend now can be refused as "order_id: Duplicate payment."): this session's redirect_url cannot be got back, and the payer was never sent to it. To let the payer pay, start a new purchase under a new order_id`
}

/** A result for a call no lookup can settle: nothing was looked up; a person decides. */
function notReconcilable(subject: ReconcileSubject, evidence: string, next: string): CardReconciled {
  const { operation, reconciliation: key } = subject
  return { outcome: 'not_reconcilable', operation, key, state: undefined, evidence, next }
}

/**
 * CREATE_SCHEDULE: no action reads a schedule (rule S2S 1), and repeating the call may create a
 * second one. With a schedule_id it can be checked (and cancelled) by hand; without one nothing
 * identifies the schedule, and the result says so.
 */
function createScheduleUnreconcilable(subject: ReconcileSubject): CardReconciled {
  const { reconciliation: key } = subject
  const close = 'then close the intent in the journal'
  if (key.key === 'schedule_id') {
    const id = JSON.stringify(key.value)
    return notReconcilable(
      subject,
      `no action reads a schedule (rule S2S 1), so no lookup tells whether CREATE_SCHEDULE created schedule_id ${id}`,
      `check in the gateway's admin portal (or with its support) whether schedule ${id} exists. If it does, it is created; if you must be sure there is none, DELETE_SCHEDULE (gw.s2s.deleteSchedule({ schedule_id: ${id} })) cancels it if it was created ("Schedule not found" if it was not). Do not send CREATE_SCHEDULE again before that: it may create a second schedule. ${close}`,
    )
  }
  const name = JSON.stringify(key.value)
  return notReconcilable(
    subject,
    `no action reads a schedule (rule S2S 1) and this CREATE_SCHEDULE was sent without a schedule_id: nothing identifies the schedule it may have created, so nothing can be reconciled`,
    `look in the gateway's admin portal for a schedule named ${name} created around the time of the call. Do not send CREATE_SCHEDULE again before that: it may create a second schedule. Send your own schedule_id next time, so a lost answer can be checked by it (and the schedule cancelled with DELETE_SCHEDULE); ${close}`,
  )
}
