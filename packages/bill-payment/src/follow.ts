/**
 * `bills.transactions.follow()`: every payment followed to a final state by `transactions.get`
 * (rule Endpoints 7), by the `transReference` its execute answered (rule Platform 12), or found by
 * reconciliation when that answer was lost. The service publishes no states (rule States), so which
 * are final is the merchant's word (`finalStates`), with a default list of the usual words.
 */

import { type FollowOptions, type FollowUpdate, RequestValidationError } from '@paywire/core'
import type { CallEffect, FollowedRef, Observation, SettledCall } from '@paywire/core/engine'
import { BillPaymentError } from './errors.js'
import type { Transaction } from './results.js'

/** A confirmed change of a bill payment's state, in the service's words (`SUCCESSFUL`). */
export type BillPaymentUpdate = FollowUpdate<Transaction>

/** The options of `bills.transactions.follow()`. */
export interface BillFollowOptions extends FollowOptions<BillPaymentUpdate> {
  /**
   * The states (compared without regard to case) a payment leaves no more: the service publishes
   * none (rule States), so name your provider's. Default `DEFAULT_FINAL_BILL_STATES`.
   */
  finalStates?: readonly string[]
}

/** The usual words of a settled or failed payment; any other state is one a payment can leave. */
export const DEFAULT_FINAL_BILL_STATES: readonly string[] = [
  'SUCCESSFUL',
  'SUCCESS',
  'COMPLETED',
  'FAILED',
  'DECLINED',
  'REJECTED',
  'CANCELLED',
  'REVERSED',
  'REFUNDED',
]

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

/** The finals as the follower compares them (upper case), checked. */
export function checkFinalStates(given: unknown): ReadonlySet<string> {
  if (given === undefined) return new Set(DEFAULT_FINAL_BILL_STATES)
  if (!Array.isArray(given) || given.length === 0 || given.some((s) => typeof s !== 'string' || s.trim() === '')) {
    throw new RequestValidationError(
      'transactions.follow',
      [{ path: 'finalStates', message: 'must be a non-empty list of state names' }],
      'options',
    )
  }
  return new Set(given.map((s: string) => s.toUpperCase()))
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
