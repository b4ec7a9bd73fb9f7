/**
 * Card gateway, Checkout credit: refund to the card of an earlier sale. Credit needs that sale's
 * `card_token`, which the gateway gives when the purchase asked `req_token: true`: here it is read
 * from the status answer of the settled sale (the callback carries it too, outside its signature).
 * The body is the flat shape: `order_amount` in the currency's form, `card_token` one string.
 *
 * Run: npx tsx examples/card-gateway/credit.ts
 * Env: PAYWIRE_CARD_* (see purchase-and-status.ts) and PAYWIRE_CARD_TOKEN (else a local simulator)
 */
import { randomUUID } from 'node:crypto'
import { CardGateway, formatAmount } from '@paywire/card-gateway'
import { cardGatewayConnection } from '../shared/connect.js'
import { runIfMain, show } from '../shared/run.js'
import { authorisedPayment } from './shared.js'

export async function main(): Promise<void> {
  const connection = await cardGatewayConnection()
  const gw = new CardGateway(connection.options)
  try {
    // The card token of the original sale: from your records, or a sale bought with req_token: true.
    let card_token = process.env.PAYWIRE_CARD_TOKEN
    if (!card_token && connection.simulator) {
      const sale = await authorisedPayment(gw, connection, { capture: true, reqToken: true })
      const status = await gw.checkout.status({ order_id: sale.order_id })
      show('checkout.status →', { status: status.status, card_token: status.card_token })
      card_token = status.card_token ?? undefined // null: the gateway wrote no token
    }
    if (!card_token) throw new Error('set PAYWIRE_CARD_TOKEN to the card token of a settled sale')

    const refund = {
      order_id: `refund-${randomUUID().slice(0, 8)}`, // unique per attempt: the gateway dedups on it
      order_amount: formatAmount(500, 'USD'), // 500 cents: "5.00"
      order_currency: 'USD',
      order_description: 'Partial refund: damaged box',
      card_token,
      name: 'Ada Lovelace',
    }
    const result = await gw.checkout.credit(refund)
    show('checkout.credit', { order_id: refund.order_id, order_amount: refund.order_amount })
    show('  →', result)
  } finally {
    await gw.close()
    await connection.close()
  }
}

runIfMain(import.meta.url, main)
