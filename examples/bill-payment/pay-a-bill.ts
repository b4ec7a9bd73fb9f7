/**
 * Bill payment: list the catalog, read one product, pay it with an idempotency key, read the payment
 * back, and find it again with a filter.
 *
 * Run: npx tsx examples/bill-payment/pay-a-bill.ts
 * Env: PAYWIRE_BILLS_BASE_URL, PAYWIRE_BILLS_CLIENT_ID, PAYWIRE_BILLS_CLIENT_SECRET (else a local simulator)
 */
import { randomUUID } from 'node:crypto'
import { BillPayment } from '@paywire/bill-payment'
import { z } from 'zod'
import { billPaymentConnection } from '../shared/connect.js'
import { expectThat, runIfMain, show } from '../shared/run.js'

// The spec shows no product or transaction fields: narrow them with a schema of what your account returns.
const Product = z.looseObject({ id: z.string(), name: z.string() })
const Transaction = z.looseObject({ transReference: z.string(), status: z.string() })

export async function main(): Promise<void> {
  const connection = await billPaymentConnection()
  const bills = new BillPayment(connection.options)
  try {
    const products = await bills.catalog.list({ schema: z.array(Product) })
    show(
      'catalog.list →',
      products.map((p) => p.id),
    )

    const product = await bills.catalog.get('EDSA-PREPAID', { schema: Product })
    show('catalog.get("EDSA-PREPAID") →', product)

    // Keep the key with your order before calling: if the answer is lost, retry with the same key.
    const idempotencyKey = randomUUID()
    const { data: payment, response } = await bills.transactions
      .execute(
        { productId: product.id, amount: 50, customerReference: 'METER-0042' },
        { idempotencyKey, schema: Transaction },
      )
      .withResponse()
    show(`transactions.execute (Idempotency-Key ${response.idempotencyKey}) →`, payment)
    expectThat(response.idempotencyKey === idempotencyKey, 'the key we chose is the key sent')

    const again = await bills.transactions.get(payment.transReference, { schema: Transaction })
    show('transactions.get →', again)

    const mine = await bills.transactions.filter({ customerReference: 'METER-0042' })
    show('transactions.filter({ customerReference }) →', mine)
  } finally {
    await bills.close()
    await connection.close()
  }
}

runIfMain(import.meta.url, main)
