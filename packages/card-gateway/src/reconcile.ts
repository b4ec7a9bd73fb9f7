/**
 * Settling an unknown card outcome by the operation's safe lookup (rules States 3, Limits 2):
 * CAPTURE, VOID and CREDITVOID by GET_TRANS_STATUS; purchase and credit by the Checkout status
 * lookup of their order_id; RECURRING_SALE by GET_TRANS_STATUS_BY_ORDER. Lookups only: nothing is
 * sent twice. A lookup that finds nothing counts as `not_applied` only where that proves it.
 */

import { DEFAULT_SETTLE_AFTER_MS, type Reconciled, type ReconcileOptions, type ReconcileSubject } from '@paywire/core'
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

function notFound(error: unknown): boolean {
  return error instanceof CardGatewayError && error.isNotFound
}

/** Reconciles one unknown card outcome with the client's own Checkout and S2S interfaces. */
export async function reconcileCard(
  subject: ReconcileSubject,
  checkout: Checkout,
  s2s: S2s,
  options: ReconcileOptions = {},
): Promise<CardReconciled> {
  const { operation, reconciliation: key } = subject
  const settleAt = subject.since + (options.settleAfterMs ?? DEFAULT_SETTLE_AFTER_MS)
  const result = (
    outcome: Outcome,
    state: CardReconciled['state'],
    evidence: string,
    next?: string,
  ): CardReconciled => {
    // Absence proves nothing while the request can still arrive: a timed-out call may be queued at the gateway.
    if (outcome === 'not_applied' && Date.now() < settleAt) {
      return {
        outcome: 'still_unknown',
        operation,
        key,
        state,
        evidence: `${evidence}, but the call is recent enough to still arrive`,
        next: `reconcile again after ${new Date(settleAt).toISOString()} (settleAfterMs)`,
      }
    }
    return { outcome, operation, key, state, evidence, ...(next === undefined ? {} : { next }) }
  }

  const s2sRule = S2S_OUTCOMES[operation]
  if (s2sRule) {
    let state: S2sActionResult
    try {
      state = await s2s.getTransStatus({ trans_id: key.value })
    } catch (error) {
      if (!notFound(error)) throw error
      return result('not_applied', undefined, `GET_TRANS_STATUS finds no transaction ${key.value}`)
    }
    const status = String(state.status ?? '').toUpperCase()
    const seen = `GET_TRANS_STATUS shows ${key.value} as ${status || 'no status'}`
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
      try {
        const state = await checkout.status({ order_id: key.value })
        return result('applied', state, `the status lookup finds order ${key.value} (${state.status ?? 'no status'})`)
      } catch (error) {
        if (!notFound(error)) throw error
        // No session was created for this order: the payer was never sent to pay it.
        return result('not_applied', undefined, `the status lookup finds no order ${key.value}`)
      }
    }
    case 'checkout.credit': {
      try {
        const state = await checkout.status({ order_id: key.value })
        return result(
          'applied',
          state,
          `the status lookup finds the credit ${key.value} (${state.status ?? 'no status'})`,
        )
      } catch (error) {
        if (!notFound(error)) throw error
        return result(
          'still_unknown',
          undefined,
          `the status lookup finds no order ${key.value}`,
          'whether credits are listed by the status lookup is not published: check for a refund callback or the admin portal before refunding again',
        )
      }
    }
    case 's2s.recurringSale': {
      try {
        const state = await s2s.getTransStatusByOrder({ order_id: key.value })
        return result('applied', state, `GET_TRANS_STATUS_BY_ORDER finds ${key.value} (${state.status ?? 'no status'})`)
      } catch (error) {
        if (!notFound(error)) throw error
        return result('not_applied', undefined, `GET_TRANS_STATUS_BY_ORDER finds no order ${key.value}`)
      }
    }
    default:
      // Schedules: no action reads one (rule S2S 1), so no lookup can settle them.
      return result('still_unknown', undefined, `no lookup reads the outcome of ${operation}`, key.lookup)
  }
}
