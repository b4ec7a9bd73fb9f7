/**
 * Card gateway, S2S CARD: look a transaction up by its trans_id and by its order id.
 *
 * Run: npx tsx examples/card-gateway/s2s-status.ts
 * Env: PAYWIRE_CARD_* (see purchase-and-status.ts; else a local simulator)
 */
import { CardGateway } from '@paywire/card-gateway'
import { cardGatewayConnection } from '../shared/connect.js'
import { runIfMain, show } from '../shared/run.js'
import { authorisedPayment } from './shared.js'

export async function main(): Promise<void> {
  const connection = await cardGatewayConnection()
  const gw = new CardGateway(connection.options)
  try {
    const { order_id, trans_id } = await authorisedPayment(gw, connection)

    const byTrans = await gw.s2s.getTransStatus({ trans_id })
    show('s2s.getTransStatus({ trans_id }) →', { result: byTrans.result, status: byTrans.status })

    const byOrder = await gw.s2s.getTransStatusByOrder({ order_id })
    show('s2s.getTransStatusByOrder({ order_id }) →', { trans_id: byOrder.trans_id, status: byOrder.status })

    // Every result can show the HTTP answer behind it.
    const { response } = await gw.s2s.getTransStatus({ trans_id }).withResponse()
    show('.withResponse() →', { status: response.status, attempts: response.attempts })
  } finally {
    await gw.close()
    await connection.close()
  }
}

runIfMain(import.meta.url, main)
