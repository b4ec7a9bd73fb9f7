/**
 * Card gateway: a capture whose answer is lost, settled without capturing twice. The simulator books
 * the capture and then fails the answer (as a dropped connection would); the client says the outcome
 * is unknown, and `gw.reconcile(error)` asks GET_TRANS_STATUS, which proves the capture happened. With
 * the intent journal on, the capture was written down before it was sent and `reconcileAll()` closes it.
 *
 * Run: npx tsx examples/card-gateway/reconcile-capture.ts
 * Env: none: the lost answer is staged on the local simulator (against a sandbox, the example only shows the calls)
 */
import { CardGateway, MemoryIntentStore, PaywireError } from '@paywire/card-gateway'
import { cardGatewayConnection } from '../shared/connect.js'
import { expectThat, runIfMain, show } from '../shared/run.js'
import { authorisedPayment } from './shared.js'

export async function main(): Promise<void> {
  const connection = await cardGatewayConnection()
  const journal = new MemoryIntentStore() // @paywire/redis keeps it across restarts
  const gw = new CardGateway({ ...connection.options, journal })
  try {
    const { trans_id } = await authorisedPayment(gw, connection)
    if (!connection.simulator) {
      show('against a sandbox the lost answer cannot be staged; reconcile a real one with gw.reconcile(error)')
      return
    }

    connection.simulator.failNext({ path: '/post', when: 'after' }) // book the capture, lose its answer
    const error = await gw.s2s.capture({ trans_id }).catch((e: unknown) => e)
    if (!(error instanceof PaywireError) || !error.outcomeUnknown) throw error
    show('s2s.capture →', { outcomeUnknown: error.outcomeUnknown, reconciliation: error.reconciliation })
    show(
      'open intents →',
      (await gw.pendingIntents()).map((i) => `${i.operation} ${i.reconciliation?.value}`),
    )

    const settled = await gw.reconcile(error)
    show('gw.reconcile(error) →', { outcome: settled.outcome, evidence: settled.evidence })
    expectThat(settled.outcome === 'applied', 'the lost capture is proven applied by a lookup')

    const closed = await gw.reconcileAll()
    show(
      'gw.reconcileAll() →',
      closed.map(({ intent, result }) => `${intent.operation}: ${result.outcome}`),
    )
    const captures = connection.simulator.ledger.filter((e) => e.kind === 'capture').length
    show('captures in the ledger →', captures)
    expectThat(captures === 1 && (await gw.pendingIntents()).length === 0, 'one capture, no open intent')
  } finally {
    await gw.close()
    await connection.close()
  }
}

runIfMain(import.meta.url, main)
