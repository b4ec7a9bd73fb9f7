/**
 * `remit.transactions.follow()`: every transfer followed to its final state by the status lookup
 * (rule Platform 15) by its `agentTransactionRef`, which the lookup's record names (rule Platform
 * 19). The states rank by the platform's order (rule Platform 3).
 */

import type { FollowUpdate } from '@paywire/core'
import type { CallEffect, FollowedRef, Observation, SettledCall } from '@paywire/core/engine'
import { RemittanceError } from './errors.js'
import type { Lookup, TransactionStatus } from './resources/lookup.js'

/** A confirmed change of a transfer's state, in the platform's words (`AGENT_OK`, `PROCESSED`). */
export type TransferUpdate = FollowUpdate<TransactionStatus>

/**
 * How far each state is along a transfer's life (rule Platform 3): entered, confirmed to the agent,
 * through head office, sent for payment or delivery, paid; and the states that end it.
 */
const STAGE: Readonly<Record<string, number>> = {
  ENTERED: 1,
  PENDING_CLEARANCE: 1,
  AGENT_OK: 2,
  HQ_READY: 3,
  HQ_OK: 4,
  SENT_FOR_PAY: 5,
  SENT_FOR_DELIVERY: 5,
  HQ_OK_PAID: 6,
  PROCESSED: 7,
  ABORTED: 7,
  ERROR: 7,
  DELETED: 7,
}

/** The states a transfer leaves no more (rule Platform 3). */
const FINAL = new Set(['PROCESSED', 'ABORTED', 'ERROR', 'DELETED'])

function text(value: unknown): string | undefined {
  if (typeof value === 'string' && value.trim() !== '') return value
  if (typeof value === 'number' && Number.isFinite(value)) return String(value)
  return undefined
}

/** The calls that start a transfer. */
const TRANSFERS = new Set(['transactions.mobileTransfer', 'transactions.cashCollection', 'transactions.bankTransfer'])

/**
 * The transfer a settled call started, by its `agentTransactionRef` (its idempotency key, the
 * caller's or generated, rule Platform 5): known before any answer, so a transfer whose answer was
 * lost is followed too, and the status lookup finds a transfer by it from the start (rule
 * Platform 15). It is followed until final: one never confirmed stays `ENTERED`, and is reported stuck.
 */
export function transferCallEffect(call: SettledCall): CallEffect | undefined {
  if (!TRANSFERS.has(call.operation) || call.idempotencyKey === undefined) return undefined
  return { followed: { ref: call.idempotencyKey, api: undefined }, effect: 'started' }
}

/** The status lookup of a followed transfer, read into what the follower ranks. */
export async function lookupTransfer(lookup: Lookup, followed: FollowedRef): Promise<Observation<TransactionStatus>> {
  let record: TransactionStatus
  try {
    record = await lookup.transactionStatus(followed.ref)
  } catch (error) {
    if (
      error instanceof RemittanceError &&
      (error.isNotFound || error.reason === 'unreadable_response' || error.reason === 'unbound_response')
    ) {
      return { kind: 'unknown', reason: error.message }
    }
    throw error
  }
  const state = text(record.status)?.toUpperCase()
  const stage = state === undefined ? undefined : STAGE[state]
  if (state === undefined || stage === undefined) {
    return {
      kind: 'unknown',
      reason: `the status lookup shows a state the SDK does not rank (${JSON.stringify(String(record.status).slice(0, 40))})`,
    }
  }
  return { kind: 'state', state, stage, final: FINAL.has(state), record }
}
