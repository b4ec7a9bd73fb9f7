/**
 * Card gateway: capture an authorised payment safely. Rule States 3: look the status up first and
 * capture only a PENDING payment. CAPTURE itself is never retried once it may have arrived, so this
 * flow cannot capture twice; a second run finds the payment SETTLED and captures nothing.
 *
 * Run: npx tsx examples/card-gateway/capture-flow.ts
 * Env: PAYWIRE_CARD_* (see purchase-and-status.ts; else a local simulator)
 */
import { CardGateway } from '@paywire/card-gateway'
import { cardGatewayConnection } from '../shared/connect.js'
import { expectThat, runIfMain, show } from '../shared/run.js'
import { authorisedPayment } from './shared.js'

export async function main(): Promise<void> {
  const connection = await cardGatewayConnection()
  const gw = new CardGateway(connection.options)
  try {
    const { trans_id } = await authorisedPayment(gw, connection)

    const first = await gw.s2s.captureIfPending({ trans_id })
    show('s2s.captureIfPending (1st) →', first.captured ? { captured: true, result: first.capture.result } : first)
    expectThat(first.captured, 'a pending payment is captured')

    const second = await gw.s2s.captureIfPending({ trans_id })
    show('s2s.captureIfPending (2nd) →', { captured: second.captured, status: second.lookup.status })
    expectThat(!second.captured, 'a settled payment is not captured again')
  } finally {
    await gw.close()
    await connection.close()
  }
}

runIfMain(import.meta.url, main)
