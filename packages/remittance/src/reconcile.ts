/**
 * Settling an unknown remittance outcome by lookups only. The status lookup is documented by the
 * `referenceNumber` that confirm answers (rule Endpoints 16); whether it also finds a transfer by its
 * `agentTransactionRef` or `transactionId` is not published, and neither is what it answers (rule
 * Platform 15 is our reading). So only a readable record of the very transaction proves it was made
 * (core refuses a record that does not name it, rule Platform 19), and only a confirmed state proves
 * a confirm; not found, an empty answer or a record of another proves nothing.
 */

import { ProblemDetailsError, type Reconciled, type Reconciliation } from '@paywire/core'
import type { OperationClient, ReconcileSubject } from '@paywire/core/engine'
import type { RemittanceRules } from './fields.js'
import { LookupResource, type TransactionStatus } from './resources/lookup.js'

/** What a remittance reconciliation looked at: the status lookup's answer. */
export type RemittanceReconciled = Reconciled<TransactionStatus>

/** A member of the status record that holds a value: a non-empty string or a number. */
function present(value: unknown): value is string | number {
  return (typeof value === 'string' && value.trim() !== '') || (typeof value === 'number' && Number.isFinite(value))
}

/**
 * The states that prove a transaction was confirmed. A transfer is `ENTERED` until confirmed, and
 * confirm moves it on, to `AGENT_OK` first (rule Platform 3): `ENTERED` and `PENDING_CLEARANCE`
 * come before it; `ABORTED`, `ERROR` and `DELETED` end a transaction whether or not it was
 * confirmed; a value not listed is not known to follow confirm. None of those proves it.
 */
const CONFIRMED_STATES: readonly string[] = [
  'AGENT_OK',
  'HQ_READY',
  'HQ_OK',
  'HQ_OK_PAID',
  'SENT_FOR_PAY',
  'SENT_FOR_DELIVERY',
  'PROCESSED',
]

/**
 * Why the status record does not prove the call acted, or `undefined` when it does. That the record
 * is of the key looked up (one of its identifiers repeats it) is core's check of the lookup's answer
 * (rule Platform 19); here, what makes a record of it still no proof: no `status`; for a confirm,
 * a state before confirmation (rule Platform 3), or no `referenceNumber`, which confirm gives
 * (it is empty before confirm, rule Platform 2).
 */
function unproven(state: TransactionStatus, key: Reconciliation): string | undefined {
  if (!present(state.status)) return 'the status lookup answered a record without a status'
  if (key.key !== 'transactionId') return undefined
  if (!CONFIRMED_STATES.includes(String(state.status).toUpperCase())) {
    return `the status lookup shows transaction ${key.value} as ${String(state.status)}, which does not prove it was confirmed (rule Platform 3)`
  }
  if (!present(state.referenceNumber)) {
    return `the status lookup shows transaction ${key.value} (status ${String(state.status)}) without the referenceNumber confirm gives: it may not be confirmed`
  }
  return undefined
}

/**
 * What to do when the lookup cannot tell. A resend is advised only when the merchant says the
 * service deduplicates `agentTransactionRef` (`serviceDedupsIdempotencyKey`): that a reused one is
 * refused is reported by a third-party client only (rule Platform 5), and elsewhere it pays twice.
 */
export function remittanceNext(key: Reconciliation, serviceDedups: boolean): string {
  const ref = JSON.stringify(key.value)
  if (key.key !== 'agentTransactionRef') {
    return `look the transaction up with remit.lookup.transactionStatus(referenceNumber) by the referenceNumber confirm answers, or ask the service about transaction ${ref}, before confirming it again`
  }
  if (serviceDedups) {
    return `you told the client the service deduplicates agentTransactionRef (serviceDedupsIdempotencyKey): send the same transfer again with agentTransactionRef ${ref}; it acts at most once under that reference, and a refusal as a duplicate proves the first arrived`
  }
  return `look the transfer up before anything else: remit.lookup.transactionStatus by its referenceNumber once you have it, or ask the service for the transfer sent with agentTransactionRef ${ref}; no lookup by agentTransactionRef is published, so not finding it here proves nothing. Do not send it again with the same agentTransactionRef: that is safe only where the service's dedup of it is known (serviceDedupsIdempotencyKey), and elsewhere pays twice`
}

/**
 * Reconciles a transfer (by `agentTransactionRef`) or a confirm (by `transactionId`) with the status
 * lookup; a beneficiary write (by `posid`) is `not_reconcilable`. The lookup goes on a connection of
 * its own (`onOwnConnections`), like a money-moving call: a stale answer left on a kept-alive
 * connection (a service or proxy that answered an earlier lookup twice) would read as its answer.
 */
export async function reconcileRemittance(
  subject: ReconcileSubject,
  ops: OperationClient<RemittanceRules>,
  serviceDedups: boolean,
): Promise<RemittanceReconciled> {
  const { operation, reconciliation: key } = subject
  const base = { operation, key }
  if (key.key === 'posid') {
    // A posid is not a beneficiary's identity: the lookup lists every beneficiary registered under it,
    // and the fields of a stored one are not published, so neither a match nor none settles the write.
    return {
      ...base,
      outcome: 'not_reconcilable',
      state: undefined,
      evidence: `no lookup the service documents tells whether this ${operation} acted: posid ${JSON.stringify(key.value)} lists every beneficiary registered under it, not the one this call wrote`,
      next: `check by hand with remit.beneficiaries.getByPosId(${JSON.stringify(key.value)}) (or getByTelephone) whether the beneficiary is there as you meant it before writing it again, then close the intent in the journal`,
    }
  }
  const unknown = (evidence: string, state?: TransactionStatus): RemittanceReconciled => ({
    ...base,
    outcome: 'still_unknown',
    state,
    evidence,
    next: remittanceNext(key, serviceDedups),
  })
  let state: TransactionStatus
  try {
    state = await new LookupResource(ops.onOwnConnections()).transactionStatus(key.value)
  } catch (error) {
    if (error instanceof ProblemDetailsError && error.isNotFound) {
      return unknown(`the status lookup finds nothing under ${key.key} ${key.value}`)
    }
    // A 2xx the SDK cannot read (not JSON, a field of the wrong kind) shows nothing either way.
    if (error instanceof ProblemDetailsError && error.reason === 'unreadable_response') {
      return unknown(`the status lookup answered what cannot be read: ${error.message}`)
    }
    // A record of another transaction, or no record (an empty 200), shows nothing of this one.
    if (error instanceof ProblemDetailsError && error.reason === 'unbound_response') {
      return unknown(`the status lookup's answer does not name ${key.key} ${key.value}: ${error.message}`)
    }
    throw error
  }
  const problem = unproven(state, key)
  if (problem !== undefined) return unknown(problem, state)
  return {
    ...base,
    outcome: 'applied',
    state,
    evidence: `the status lookup finds ${key.key} ${key.value} (status ${String(state.status)})`,
  }
}
