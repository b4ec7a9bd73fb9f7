/**
 * Card gateway, Checkout: create a hosted payment session, send the payer to it, then read the
 * payment's status by order id.
 *
 * Run: npx tsx examples/card-gateway/purchase-and-status.ts
 * Env: PAYWIRE_CARD_CHECKOUT_URL, PAYWIRE_CARD_S2S_URL, PAYWIRE_CARD_MERCHANT_KEY,
 *      PAYWIRE_CARD_CLIENT_KEY, PAYWIRE_CARD_PASSWORD (else a local simulator)
 */
import { CardGateway } from '@paywire/card-gateway'
import { cardGatewayConnection } from '../shared/connect.js'
import { expectThat, runIfMain, show } from '../shared/run.js'

export async function main(): Promise<void> {
  const connection = await cardGatewayConnection()
  const gw = new CardGateway(connection.options)
  try {
    // Amounts are strings: the exact string is both sent and signed (rule Authentication 4).
    const order = { number: 'order-1001', amount: '49.90', currency: 'USD', description: 'Coffee grinder' }
    const session = await gw.checkout.purchase({
      order,
      success_url: 'https://shop.example/paid',
      cancel_url: 'https://shop.example/cancelled',
      customer: { name: 'Ada Lovelace', email: 'ada@example.com' },
    })
    show('checkout.purchase', { order })
    show('  → send the payer to', session.redirect_url)

    await connection.payAsPayer(order.number, String(session.redirect_url))

    // Status lookups are safe to repeat: the SDK retries them on timeouts, 429 and 5xx.
    const status = await gw.checkout.status({ order_id: order.number })
    show('checkout.status({ order_id }) →', { payment_id: status.payment_id, status: status.status })
    expectThat(status.status === 'pending', 'an authorised payment awaits capture')

    const byId = await gw.checkout.status({ payment_id: String(status.payment_id) })
    show('checkout.status({ payment_id }) →', byId.status)
  } finally {
    await gw.close()
    await connection.close()
  }
}

runIfMain(import.meta.url, main)
