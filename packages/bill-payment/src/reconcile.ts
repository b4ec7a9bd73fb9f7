/**
 * Settling an unknown bill payment by lookups only: the transactions list, searched for the payment
 * sent with the call's `Idempotency-Key` (rule Endpoints 5). The service does not publish whether a
 * transaction shows its key, so finding it proves the payment was made and not finding it proves nothing.
 */

import type { Reconciled, ReconcileSubject } from '@paywire/core'
import type { Transaction } from './results.js'
import type { Transactions } from './transactions.js'

/** What a bill payment reconciliation looked at: the transaction found. */
export type BillPaymentReconciled = Reconciled<Transaction>

/** Reconciles `transactions.execute` by its Idempotency-Key in the transactions list. */
export async function reconcileBillPayment(
  subject: ReconcileSubject,
  transactions: Transactions,
): Promise<BillPaymentReconciled> {
  const { operation, reconciliation: key } = subject
  const found = (await transactions.list())?.find((t) => t.idempotencyKey === key.value)
  if (found) {
    return {
      operation,
      key,
      outcome: 'applied',
      state: found,
      evidence: `the transactions list holds ${String(found.transReference ?? 'a payment')} sent with ${key.key} ${key.value}`,
    }
  }
  return {
    operation,
    key,
    outcome: 'still_unknown',
    state: undefined,
    evidence: `no transaction in the list carries ${key.key} ${key.value}`,
    next: `repeat the payment with { idempotencyKey: ${JSON.stringify(key.value)}, retryWithSameKey: true }: the service answers a repeated key with the first payment`,
  }
}
