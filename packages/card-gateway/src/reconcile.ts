/**
 * Settling an unknown card outcome by the operation's safe lookup (rules States 3, Limits 2):
 * CAPTURE, VOID and CREDITVOID by GET_TRANS_STATUS; purchase and credit by the Checkout status
 * lookup of their order_id; RECURRING_SALE by GET_TRANS_STATUS_BY_ORDER. Lookups only: nothing is
 * sent twice. `applied` needs a readable record that names the very transaction or order and has a
 * status (a credit's shows it as a refund); an empty, unreadable or foreign record is `still_unknown`.
 * A lookup that finds nothing counts as `not_applied` only where that proves it, once the call had
 * time to arrive. Schedules have no lookup (rule S2S 1): `not_reconcilable`, saying what to do.
 */

import {
  DEFAULT_SETTLE_AFTER_MS,
  type Reconciled,
  type ReconcileOptions,
  type ReconcileSubject,
  type Reconciliation,
} from '@paywire/core'
import type { Checkout, CheckoutStatusResult } from './checkout.js'
import { CardGatewayError } from './errors.js'
import type { S2s, S2sActionResult } from './s2s.js'

/** What a card reconciliation looked at: the status answer of the payment or transaction. */
export type CardReconciled = Reconciled<CheckoutStatusResult | S2sActionResult>

type Outcome = Reconciled['outcome']

/** S2S statuses, per operation: which prove the call acted and which prove it did not (rule Platform 9). */
const S2S_OUTCOMES: Readonly<Record<string, { applied: readonly string[]; notApplied: readonly string[] }>> = {
  's2s.capture': {
    applied: ['SETTLED', 'REFUND', 'REVERSAL', 'CHARGEBACK'],
    notApplied: ['PENDING', 'VOID', 'DECLINED'],
  },
  's2s.void': { applied: ['VOID'], notApplied: ['PENDING', 'SETTLED', 'REFUND', 'REVERSAL', 'CHARGEBACK', 'DECLINED'] },
  // CREDITVOID answers ACCEPTED and settles later (rule Platform 11): SETTLED can still become REFUND.
  's2s.creditVoid': { applied: ['REFUND', 'REVERSAL'], notApplied: ['PENDING', 'VOID', 'DECLINED'] },
}

/** What the status lookup shows a credit as: a refund (or its reversal). */
const CREDIT_STATUSES: readonly string[] = ['refund', 'reversal']

function notFound(error: unknown): boolean {
  return error instanceof CardGatewayError && error.isNotFound
}

/** A 2xx lookup answer the SDK could not read (not JSON, not an object): it shows nothing either way. */
function unreadable(error: unknown): error is CardGatewayError {
  return error instanceof CardGatewayError && error.reason === 'unreadable_response'
}

/** A member that holds a value: a non-empty string. */
function present(value: unknown): value is string {
  return typeof value === 'string' && value.trim() !== ''
}

/**
 * Why a record does not prove the call it was looked up for, or `undefined` when it does: it must
 * carry a status and name the key looked up (`named` is the record's member that holds it).
 */
function unproven(named: unknown, status: unknown, key: Reconciliation): string | undefined {
  if (named !== key.value) return `the lookup answered a record that does not name ${key.key} ${key.value}`
  if (!present(status)) return `the lookup answered a record of ${key.key} ${key.value} with no status`
  return undefined
}

/**
 * The schedule actions have no lookup: no action reads or lists a schedule (rule S2S 1). What a
 * person can do instead, per action; none of it moves money.
 */
function scheduleNext(operation: string, key: Reconciliation | undefined): string {
  if (operation === 's2s.createSchedule') {
    if (key === undefined) {
      return "the schedule was created without a schedule_id, so nothing identifies it: check the schedules in the gateway's admin portal before creating it again, or the payer may be charged by two schedules. Send your own schedule_id (a UUID) with CREATE_SCHEDULE so an unknown outcome can be settled"
    }
    const id = JSON.stringify(key.value)
    return `once the call's deadline has passed, send UPDATE_SCHEDULE with schedule_id ${id} and the same definition: it answers "Schedule not found" if the schedule was never created (then create it again with the same schedule_id) and changes nothing if it was; or DELETE_SCHEDULE ${id} to be sure there is none. Do not repeat CREATE_SCHEDULE first: whether the gateway refuses a repeated schedule_id is not published, and a second schedule charges the payer again`
  }
  const id = JSON.stringify(key?.value)
  if (operation === 's2s.deleteSchedule') {
    return `send DELETE_SCHEDULE with schedule_id ${id} again: deleting twice moves no money, and "Schedule not found" then proves the first one went through`
  }
  return `send the same UPDATE_SCHEDULE for schedule_id ${id} again: it sets the same values, and "Schedule not found" proves the schedule is gone`
}

/**
 * The result for an unknown outcome no lookup can settle: a schedule action, or a call sent without a
 * key (`key` then stands for the call itself). Nothing is sent.
 */
export function unreconcilableCard(operation: string, key: Reconciliation | undefined): CardReconciled {
  const schedule = operation.endsWith('Schedule')
  return {
    outcome: 'not_reconcilable',
    operation,
    key: key ?? { key: 'none', value: '', lookup: 'none' },
    state: undefined,
    evidence: schedule
      ? `no action reads or lists a schedule, so no lookup tells whether this ${operation} acted`
      : `${operation} was sent without a key any lookup could find it by`,
    next: schedule ? scheduleNext(operation, key) : 'settle it by hand with the gateway before repeating it',
  }
}

/** After a purchase whose answer was lost, the payer's page is gone with it: how to get it back. */
function purchaseNext(orderId: string): string {
  return `the session of order ${JSON.stringify(orderId)} exists, but its redirect_url (the payer's page) was in the lost answer and no lookup returns it: a purchase identical to the first (same params, so the same body) sent within 15 s of it returns the same session and its redirect_url; after that the order_id is refused as a duplicate, so wait for the session to end (status, callback) before paying the order under a new order_id`
}

/** Reconciles one unknown card outcome with the client's own Checkout and S2S interfaces. */
export async function reconcileCard(
  subject: ReconcileSubject,
  checkout: Checkout,
  s2s: S2s,
  options: ReconcileOptions = {},
): Promise<CardReconciled> {
  const { operation, reconciliation: key } = subject
  if (operation.endsWith('Schedule')) return unreconcilableCard(operation, key)
  const settleAfterMs = options.settleAfterMs ?? DEFAULT_SETTLE_AFTER_MS
  const result = (
    outcome: Outcome,
    state: CardReconciled['state'],
    evidence: string,
    next?: string,
  ): CardReconciled => {
    // Absence proves nothing while the request can still arrive: a timed-out call may be queued at the gateway.
    if (outcome === 'not_applied' && subject.elapsedMs < settleAfterMs) {
      const settleAt = new Date(Date.now() + settleAfterMs - subject.elapsedMs)
      return {
        outcome: 'still_unknown',
        operation,
        key,
        state,
        evidence: `${evidence}, but the call is recent enough to still arrive`,
        next: `reconcile again after ${settleAt.toISOString()} (settleAfterMs)`,
      }
    }
    return { outcome, operation, key, state, evidence, ...(next === undefined ? {} : { next }) }
  }
  const cannotTell = (evidence: string, state?: CardReconciled['state']): CardReconciled =>
    result('still_unknown', state, evidence, `reconcile again later, or look it up by hand with ${key.lookup}`)
  /**
   * Runs a lookup: its record when it names the call (`named` reads where) and has a status; else the
   * outcome: `absent()` when it found nothing, `still_unknown` when it cannot be read or proves nothing.
   */
  const look = async <T extends { readonly status?: unknown }>(
    lookup: () => Promise<T>,
    absent: () => CardReconciled,
    named: (state: T) => unknown,
  ): Promise<{ state: T } | { settled: CardReconciled }> => {
    let state: T
    try {
      state = await lookup()
    } catch (error) {
      if (notFound(error)) return { settled: absent() }
      if (unreadable(error)) return { settled: cannotTell(`the lookup answered what cannot be read: ${error.message}`) }
      throw error
    }
    const problem = unproven(named(state), state.status, key)
    return problem === undefined ? { state } : { settled: cannotTell(problem, state as CardReconciled['state']) }
  }

  const s2sRule = S2S_OUTCOMES[operation]
  if (s2sRule) {
    const found = await look(
      () => s2s.getTransStatus({ trans_id: key.value }),
      () => result('not_applied', undefined, `GET_TRANS_STATUS finds no transaction ${key.value}`),
      (state) => state.trans_id,
    )
    if ('settled' in found) return found.settled
    const { state } = found
    const status = String(state.status).toUpperCase()
    const seen = `GET_TRANS_STATUS shows ${key.value} as ${status}`
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
    case 'checkout.purchase': {
      const found = await look(
        () => checkout.status({ order_id: key.value }),
        // No session was created for this order: the payer was never sent to pay it.
        () => result('not_applied', undefined, `the status lookup finds no order ${key.value}`),
        (state) => state.order?.number,
      )
      if ('settled' in found) return found.settled
      const { state } = found
      return result(
        'applied',
        state,
        `the status lookup finds order ${key.value} (${String(state.status)})`,
        purchaseNext(key.value),
      )
    }
    case 'checkout.credit': {
      const found = await look(
        () => checkout.status({ order_id: key.value }),
        () =>
          result(
            'still_unknown',
            undefined,
            `the status lookup finds no order ${key.value}`,
            'whether credits are listed by the status lookup is not published: check for a refund callback or the admin portal before refunding again',
          ),
        (state) => state.order?.number,
      )
      if ('settled' in found) return found.settled
      const { state } = found
      // A credit is listed as a refund; a payment in any other state under this order_id is not this credit.
      if (!CREDIT_STATUSES.includes(String(state.status).toLowerCase())) {
        return cannotTell(`the status lookup shows order ${key.value} as ${String(state.status)}: not a credit`, state)
      }
      return result('applied', state, `the status lookup finds the credit ${key.value} (${String(state.status)})`)
    }
    case 's2s.recurringSale': {
      const found = await look(
        () => s2s.getTransStatusByOrder({ order_id: key.value }),
        () => result('not_applied', undefined, `GET_TRANS_STATUS_BY_ORDER finds no order ${key.value}`),
        (state) => state.order_id,
      )
      if ('settled' in found) return found.settled
      const { state } = found
      return result('applied', state, `GET_TRANS_STATUS_BY_ORDER finds ${key.value} (${String(state.status)})`)
    }
    default:
      return unreconcilableCard(operation, key)
  }
}
