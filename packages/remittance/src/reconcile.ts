/**
 * Settling an unknown remittance outcome by lookups only. The status lookup is documented by the
 * `referenceNumber` that confirm answers (rule Endpoints 16); whether it also finds a transfer by its
 * `agentTransactionRef` or `transactionId` is not published, so finding it proves the transfer was
 * made and not finding it proves nothing.
 */

import { ProblemDetailsError, type Reconciled, type ReconcileSubject } from '@paywire/core'
import type { Lookup } from './lookup.js'
import type { TransactionStatus } from './results.js'

/** What a remittance reconciliation looked at: the status lookup's answer. */
export type RemittanceReconciled = Reconciled<TransactionStatus>

/** Reconciles a transfer (by `agentTransactionRef`) or a confirm (by `transactionId`) with the status lookup. */
export async function reconcileRemittance(subject: ReconcileSubject, lookup: Lookup): Promise<RemittanceReconciled> {
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
  try {
    const state = await lookup.transactionStatus(key.value)
    return {
      ...base,
      outcome: 'applied',
      state: state ?? undefined,
      evidence: `the status lookup finds ${key.key} ${key.value} (status ${String(state?.status ?? 'not given')})`,
    }
  } catch (error) {
    if (!(error instanceof ProblemDetailsError && error.isNotFound)) throw error
    return {
      ...base,
      outcome: 'still_unknown',
      state: undefined,
      evidence: `the status lookup finds nothing under ${key.key} ${key.value}`,
      next:
        key.key === 'agentTransactionRef'
          ? `the lookup is documented by referenceNumber only: resend the same transfer with agentTransactionRef ${JSON.stringify(key.value)} (the service refuses a reused one, so it cannot pay twice; a refusal proves the first arrived)`
          : 'look the transaction up by the referenceNumber confirm answers, or ask the service',
    }
  }
}
