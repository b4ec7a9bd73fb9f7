/**
 * `bills.transactions.follow()`: every payment followed to a final state by `transactions.get`
 * (rule Endpoints 7), by the `transReference` its execute answered (rule Platform 12), or found by
 * reconciliation when that answer was lost: the effect a settled execute started, and the lookup the
 * follower ranks. Its options (`finalStates`) are the resource's (resources/transactions.ts).
 */

import type { CallEffect, FollowedRef, Observation, SettledCall } from '@paywire/core/engine'
import { BillPaymentError } from './errors.js'
import type { Transaction } from './resources/transactions.js'

function text(value: unknown): string | undefined {
  if (typeof value === 'string' && value.trim() !== '') return value
  if (typeof value === 'number' && Number.isFinite(value)) return String(value)
  return undefined
}

/** The payment a settled execute started: by the `transReference` it answered (or a reconciled record shows). */
export function billCallEffect(call: SettledCall): CallEffect | undefined {
  if (call.operation !== 'transactions.execute') return undefined
  const ref = text((call.data as Record<string, unknown> | undefined)?.['transReference'])
  return ref === undefined ? undefined : { followed: { ref, api: undefined }, effect: 'started' }
}

/**
 * The lookup of a followed payment, read into what the follower ranks: any state before a final one
 * (stage 1), a final one (stage 2); a payment cannot be seen to move between two states that are
 * not final, as the service publishes no order.
 */
export async function lookupBillPayment(
  get: (transReference: string) => PromiseLike<Transaction>,
  followed: FollowedRef,
  finals: ReadonlySet<string>,
): Promise<Observation<Transaction>> {
  let record: Transaction
  try {
    record = await get(followed.ref)
  } catch (error) {
    if (
      error instanceof BillPaymentError &&
      (error.isNotFound || error.reason === 'unreadable_response' || error.reason === 'unbound_response')
    ) {
      return { kind: 'unknown', reason: error.message }
    }
    throw error
  }
  const state = text(record.status)?.toUpperCase()
  if (state === undefined) return { kind: 'unknown', reason: 'the transaction record shows no status' }
  const final = finals.has(state)
  return { kind: 'state', state, stage: final ? 2 : 1, final, record }
}
