/**
 * Card gateway: cancel an authorisation with VOID (a pending payment cannot be refunded, rule
 * States 2), and reverse a settled payment with CREDITVOID (answers ACCEPTED; the outcome follows by callback).
 *
 * Run: npx tsx examples/card-gateway/void-and-creditvoid.ts
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
    const pending = await authorisedPayment(gw, connection)
    const voided = await gw.s2s.void({ trans_id: pending.trans_id })
    show('s2s.void (pending authorisation) →', { result: voided.result, status: voided.status })

    const settled = await authorisedPayment(gw, connection, { capture: true })
    const reversed = await gw.s2s.creditVoid({ trans_id: settled.trans_id, amount: '10.00' })
    show('s2s.creditVoid (settled, partial 10.00) →', { result: reversed.result })
  } finally {
    await gw.close()
    await connection.close()
  }
}

runIfMain(import.meta.url, main)
