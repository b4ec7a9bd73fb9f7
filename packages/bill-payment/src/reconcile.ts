/**
 * Settling an unknown bill payment by lookups only: the transactions list, searched for the payment
 * sent with the call's `Idempotency-Key` (rule Endpoints 5). The service does not publish whether a
 * transaction shows its key, so finding it proves the payment was made and not finding it proves nothing.
 */

import { ProblemDetailsError, type Reconciled } from '@paywire/core'
import type { OperationClient, ReconcileSubject } from '@paywire/core/engine'
import type { Transaction } from './resources/transactions.js'
import { TransactionsResource } from './resources/transactions.js'

/** What a bill payment reconciliation looked at: the transaction found. */
export type BillPaymentReconciled = Reconciled<Transaction>

/**
 * What to do when the list does not show the payment. The service does not publish what it does
 * with a repeated Idempotency-Key (rule Endpoints 9): a resend is advised only when the merchant
 * says it deduplicates (`serviceDedupsIdempotencyKey`), since elsewhere it pays twice.
 */
export function billPaymentNext(key: string, serviceDedups: boolean): string {
  const sentWith = `Idempotency-Key ${JSON.stringify(key)}`
  if (serviceDedups) {
    return `you told the client the service deduplicates Idempotency-Key (serviceDedupsIdempotencyKey): send the same payment again with { idempotencyKey: ${JSON.stringify(key)} }; it acts at most once under that key`
  }
  return `look the payment up before anything else: in bills.transactions.list() or bills.transactions.filter(...) by its product, amount and time, or ask the service for the payment sent with ${sentWith}; a transaction is not published to show its key, so not finding it here proves nothing. Do not send it again with the same key: that is safe only where the service's dedup of Idempotency-Key is known (serviceDedupsIdempotencyKey), and elsewhere pays twice`
}

/**
 * Reconciles `transactions.execute` by its Idempotency-Key in the transactions list. The list is
 * read on a connection of its own (`onOwnConnections`), like a money-moving call: a stale answer
 * left on a kept-alive connection (a service or proxy that answered an earlier list twice) would
 * read as its answer.
 */
export async function reconcileBillPayment(
  subject: ReconcileSubject,
  ops: OperationClient<unknown>,
  serviceDedups: boolean,
): Promise<BillPaymentReconciled> {
  const { operation, reconciliation: key } = subject
  const unknown = (evidence: string): BillPaymentReconciled => ({
    operation,
    key,
    outcome: 'still_unknown',
    state: undefined,
    evidence,
    next: billPaymentNext(key.value, serviceDedups),
  })
  let list: readonly Transaction[] | undefined
  try {
    list = await new TransactionsResource(ops.onOwnConnections()).list()
  } catch (error) {
    // A 2xx the SDK cannot read shows nothing either way; any other failure is the caller's to see.
    if (error instanceof ProblemDetailsError && error.reason === 'unreadable_response') {
      return unknown(`the transactions list answered what cannot be read: ${error.message}`)
    }
    throw error
  }
  if (list === undefined) return unknown('the transactions list answered 200 with no list (an empty or null body)')
  const found = list.find((t) => t.idempotencyKey === key.value)
  if (found) {
    return {
      operation,
      key,
      outcome: 'applied',
      state: found,
      evidence: `the transactions list holds ${String(found.transReference ?? 'a payment')} sent with ${key.key} ${key.value}`,
    }
  }
  return unknown(`no transaction in the list carries ${key.key} ${key.value}`)
}
