/**
 * Remittance: send money to a mobile wallet, confirm the transaction, and read its status.
 * `agentTransactionRef` is the idempotency key: keep it with your record before calling, so an
 * unknown outcome (a ConnectionError with requestSent) can be reconciled with the status lookup.
 *
 * Run: npx tsx examples/remittance/mobile-transfer.ts
 * Env: PAYWIRE_REMIT_BASE_URL, PAYWIRE_REMIT_API_KEY (else a local simulator)
 */
import { randomUUID } from 'node:crypto'
import { ConnectionError, Remittance } from '@paywire/remittance'
import { z } from 'zod'
import { remittanceConnection } from '../shared/connect.js'
import { runIfMain, show } from '../shared/run.js'
import { ghanaBeneficiary, transferBasics } from './shared.js'

const Created = z.looseObject({ transactionId: z.string() })
const Confirmed = z.looseObject({ referenceNumber: z.string() })

export async function main(): Promise<void> {
  const connection = await remittanceConnection()
  const remit = new Remittance(connection.options)
  try {
    const beneficiaryId = await ghanaBeneficiary(remit)
    const agentTransactionRef = randomUUID() // store it first
    try {
      const data = await remit.transactions.mobileTransfer(
        {
          ...transferBasics(beneficiaryId),
          agentTransactionRef,
          beneficiaryMobileTransferNumber: '+233201234567',
          beneficiaryMobileTransferNetworkId: 'MTN-GH',
          beneficiaryMobileTransferNetworkCreditTypeId: 'MTN-GH-WALLET',
        },
        { schema: Created },
      )
      show(`transactions.mobileTransfer (agentTransactionRef ${agentTransactionRef}) →`, data)

      const confirmed = await remit.transactions.confirm(data.transactionId, { schema: Confirmed })
      show('transactions.confirm →', confirmed)

      show('lookup.transactionStatus →', await remit.lookup.transactionStatus(confirmed.referenceNumber))
    } catch (error) {
      // Never blindly resend a transfer: the first one may have arrived.
      if (error instanceof ConnectionError && error.requestSent) {
        show('outcome unknown; reconciling →', await remit.lookup.transactionStatus(agentTransactionRef))
      } else throw error
    }
  } finally {
    await remit.close()
    await connection.close()
  }
}

runIfMain(import.meta.url, main)
