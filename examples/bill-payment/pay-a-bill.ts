/**
 * Bill payment: list the catalog, read one product, pay it with an idempotency key, read the payment
 * back, and find it again with a filter. Results are typed (`Product`, `Transaction`): the fields the
 * SDK expects are checked as they arrive (rules Platform 9–12).
 *
 * Run: npx tsx examples/bill-payment/pay-a-bill.ts
 * Env: PAYWIRE_BILLS_BASE_URL, PAYWIRE_BILLS_CLIENT_ID, PAYWIRE_BILLS_CLIENT_SECRET (else a local simulator)
 */
import { randomUUID } from 'node:crypto'
import { BillPayment } from '@paywire/bill-payment'
import { billPaymentConnection } from '../shared/connect.js'
import { expectThat, runIfMain, show } from '../shared/run.js'

export async function main(): Promise<void> {
  const connection = await billPaymentConnection()
  const bills = new BillPayment(connection.options)
  try {
    const products = await bills.catalog.list()
    show(
      'catalog.list →',
      products?.map((p) => `${p.id}${p.enabled === false ? ' (disabled)' : ''}`),
    )

    const product = await bills.catalog.get('EDSA-PREPAID')
    show('catalog.get("EDSA-PREPAID") →', product)
    if (product?.id == null) throw new Error('no product EDSA-PREPAID')

    // Keep the key with your order before calling: if the answer is lost, look the payment up by it
    // (bills.reconcile(error)); resend with the same key only where the service is known to deduplicate it.
    const idempotencyKey = randomUUID()
    const { data: payment, response } = await bills.transactions
      .execute({ productId: product.id, amount: 50, customerReference: 'METER-0042' }, { idempotencyKey })
      .withResponse()
    show(`transactions.execute (Idempotency-Key ${response.idempotencyKey}) →`, payment)
    expectThat(response.idempotencyKey === idempotencyKey, 'the key we chose is the key sent')
    if (payment?.transReference == null)
      throw new Error(`the payment answered no transReference (key ${idempotencyKey})`)

    const again = await bills.transactions.get(payment.transReference)
    show('transactions.get →', again)

    const mine = await bills.transactions.filter({ customerReference: 'METER-0042' })
    show(
      'transactions.filter({ customerReference }) →',
      mine?.map((t) => `${t.transReference} ${t.status} ${t.amount} ${t.currency}`),
    )
  } finally {
    await bills.close()
    await connection.close()
  }
}

runIfMain(import.meta.url, main)
