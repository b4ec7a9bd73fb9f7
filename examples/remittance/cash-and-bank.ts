/**
 * Remittance: a cash collection at an agent and a transfer to a bank account. The bank transfer
 * body is not published (rule Resources 8): the known transaction fields are typed, any other member
 * is passed on.
 *
 * Run: npx tsx examples/remittance/cash-and-bank.ts
 * Env: PAYWIRE_REMIT_BASE_URL, PAYWIRE_REMIT_API_KEY (else a local simulator)
 */
import { Remittance } from '@paywire/remittance'
import { remittanceConnection } from '../shared/connect.js'
import { runIfMain, show } from '../shared/run.js'
import { ghanaBeneficiary, transferBasics } from './shared.js'

export async function main(): Promise<void> {
  const connection = await remittanceConnection()
  const remit = new Remittance(connection.options)
  try {
    const beneficiaryId = await ghanaBeneficiary(remit)

    // The result is a typed Transfer (rule Platform 13); the agentTransactionRef it was sent with
    // (generated here) is the response's idempotencyKey, and every error's.
    const cash = await remit.transactions
      .cashCollection({ ...transferBasics(beneficiaryId), collectionPointId: 'CP-GH-001', collectionPin: '4821' })
      .withResponse()
    show(`transactions.cashCollection (agentTransactionRef ${cash.response.idempotencyKey}) →`, cash.data)
    show('  the beneficiary collects', `${cash.data?.receivingAmountFX} ${cash.data?.destCurrency}`)

    const bank = await remit.transactions
      .bankTransfer({ ...transferBasics(beneficiaryId), bankId: 'GH-GCB', accountNumber: '0012345678' })
      .withResponse()
    show(`transactions.bankTransfer (agentTransactionRef ${bank.response.idempotencyKey}) →`, bank.data)
  } finally {
    await remit.close()
    await connection.close()
  }
}

runIfMain(import.meta.url, main)
