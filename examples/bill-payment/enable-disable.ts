/**
 * Bill payment: disable a product, see a payment for it refused with a typed error, enable it again.
 *
 * Run: npx tsx examples/bill-payment/enable-disable.ts
 * Env: PAYWIRE_BILLS_BASE_URL, PAYWIRE_BILLS_CLIENT_ID, PAYWIRE_BILLS_CLIENT_SECRET (else a local simulator)
 */
import { BillPayment, BillPaymentError } from '@paywire/bill-payment'
import { billPaymentConnection } from '../shared/connect.js'
import { expectThat, runIfMain, show } from '../shared/run.js'

export async function main(): Promise<void> {
  const connection = await billPaymentConnection()
  const bills = new BillPayment(connection.options)
  try {
    // The service publishes no body for enable/disable (rule Endpoints 10); the simulator reads `productId`.
    const disabled = await bills.catalog.disable({ productId: 'AIRTIME-ORANGE' })
    show('catalog.disable →', disabled)
    expectThat(disabled?.enabled === false, 'the product answered is disabled')

    try {
      await bills.transactions.execute({ productId: 'AIRTIME-ORANGE', amount: 5 })
      expectThat(false, 'a payment for a disabled product is refused')
    } catch (error) {
      if (!(error instanceof BillPaymentError)) throw error
      show(
        `execute refused: ${error.status} ${error.reason} (Idempotency-Key ${error.idempotencyKey}) —`,
        error.problem?.title,
      )
      expectThat(error.status === 409, 'disabled product answers 409 in the simulator')
    }

    show('catalog.enable →', await bills.catalog.enable({ productId: 'AIRTIME-ORANGE' }))
    const transaction = await bills.transactions.execute({ productId: 'AIRTIME-ORANGE', amount: 5 })
    show('execute after enable →', transaction)
  } finally {
    await bills.close()
    await connection.close()
  }
}

runIfMain(import.meta.url, main)
