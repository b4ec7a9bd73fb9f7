/**
 * Remittance: send money to a mobile wallet, confirm the transaction, and read its status.
 * `agentTransactionRef` is the idempotency key (rule Platform 5): keep it with your record before
 * calling, so an unknown outcome can be looked up by it. Never resend blindly: that the service
 * refuses a reused one is not published, so a resend could pay twice.
 *
 * Run: npx tsx examples/remittance/mobile-transfer.ts
 * Env: PAYWIRE_REMIT_BASE_URL, PAYWIRE_REMIT_API_KEY (else a local simulator)
 */
import { randomUUID } from 'node:crypto'
import { PaywireError, Remittance } from '@paywire/remittance'
import { remittanceConnection } from '../shared/connect.js'
import { expectThat, runIfMain, show } from '../shared/run.js'
import { ghanaBeneficiary, transferBasics } from './shared.js'

export async function main(): Promise<void> {
  const connection = await remittanceConnection()
  const remit = new Remittance(connection.options)
  try {
    const beneficiaryId = await ghanaBeneficiary(remit)
    const body = {
      ...transferBasics(beneficiaryId),
      agentTransactionRef: randomUUID(), // store it first
      beneficiaryMobileTransferNumber: '+233201234567',
      beneficiaryMobileTransferNetworkId: 'MTN-GH',
      beneficiaryMobileTransferNetworkCreditTypeId: 'MTN-GH-WALLET',
    }
    try {
      const transfer = await remit.transactions.mobileTransfer(body)
      show(`transactions.mobileTransfer (agentTransactionRef ${body.agentTransactionRef}) →`, transfer)
      // Confirm takes the transfer's transactionId and answers the reference of the status lookup (rule Platform 2).
      if (transfer?.transactionId == null) throw new Error('the transfer answered no transactionId')
      const confirmed = await remit.transactions.confirm(transfer.transactionId)
      show('transactions.confirm →', confirmed)
      if (confirmed?.referenceNumber == null) throw new Error('confirm answered no referenceNumber')

      const status = await remit.lookup.transactionStatus(confirmed.referenceNumber)
      show('lookup.transactionStatus →', status)
      expectThat(status?.agentTransactionRef === body.agentTransactionRef, 'the status names our agentTransactionRef')
    } catch (error) {
      // Never resend a transfer blindly: the first one may have arrived. Look it up first; a resend
      // with the same agentTransactionRef is safe only where the service's dedup of it is known.
      if (!(error instanceof PaywireError && error.outcomeUnknown)) throw error
      const settled = await remit.reconcile(error)
      show('outcome unknown; reconciled →', settled)
    }
  } finally {
    await remit.close()
    await connection.close()
  }
}

runIfMain(import.meta.url, main)
