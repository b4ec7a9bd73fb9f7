/**
 * Card gateway: charge a returning customer again with RECURRING_SALE, using the first payment's
 * trans_id and its recurring_token (the first purchase set `recurring_init: true`).
 *
 * Run: npx tsx examples/card-gateway/recurring-sale.ts
 * Env: PAYWIRE_CARD_* (see purchase-and-status.ts; else a local simulator)
 */
import { randomUUID } from 'node:crypto'
import { CardGateway } from '@paywire/card-gateway'
import { cardGatewayConnection } from '../shared/connect.js'
import { runIfMain, show } from '../shared/run.js'
import { authorisedPayment } from './shared.js'

export async function main(): Promise<void> {
  const connection = await cardGatewayConnection()
  const gw = new CardGateway(connection.options)
  try {
    const first = await authorisedPayment(gw, connection, { capture: true, recurring: true })
    const { recurring_token } = await gw.checkout.status({ order_id: first.order_id })
    if (typeof recurring_token !== 'string') throw new Error('the first payment carries no recurring_token')

    const sale = await gw.s2s.recurringSale({
      order_id: `sub-${randomUUID().slice(0, 8)}`,
      order_amount: '9.99',
      order_currency: 'USD',
      order_description: 'Monthly beans subscription',
      recurring_first_trans_id: first.trans_id,
      recurring_token,
    })
    show('s2s.recurringSale →', { result: sale.result, status: sale.status, trans_id: sale.trans_id })
  } finally {
    await gw.close()
    await connection.close()
  }
}

runIfMain(import.meta.url, main)
