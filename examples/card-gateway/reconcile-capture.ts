/**
 * Card gateway: a capture whose answer is lost, settled without capturing twice. The simulator books
 * the capture and then fails the answer (as a dropped connection would).
 * - On a kept-alive connection the SDK cannot tell a lost or odd answer from a stale one, so it
 *   settles the capture at once by GET_TRANS_STATUS: the call resolves with the SETTLED record.
 * - On a connection of its own (here the first call of a worker's client) the client says the
 *   outcome is unknown, and `gw.reconcile(error)` asks GET_TRANS_STATUS, which proves the capture
 *   happened. With the intent journal on, the capture was written down before it was sent and
 *   `reconcileAll()` closes it.
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
  // A worker's client: its first call goes on a new connection.
  const worker = new CardGateway({ ...connection.options, journal })
  try {
    const kept = await authorisedPayment(gw, connection)
    const own = await authorisedPayment(gw, connection)
    if (!connection.simulator) {
      show('against a sandbox the lost answer cannot be staged; reconcile a real one with gw.reconcile(error)')
      return
    }

    connection.simulator.failNext({ path: '/post', when: 'after' }) // book the capture, lose its answer
    const settledAtOnce = await gw.s2s.capture({ trans_id: kept.trans_id })
    show('s2s.capture on a kept-alive connection →', { action: settledAtOnce.action, status: settledAtOnce.status })
    expectThat(settledAtOnce.status === 'SETTLED', 'the lost answer is settled at once by GET_TRANS_STATUS')

    connection.simulator.failNext({ path: '/post', when: 'after' })
    const error = await worker.s2s.capture({ trans_id: own.trans_id }).catch((e: unknown) => e)
    if (!(error instanceof PaywireError) || !error.outcomeUnknown) throw error
    show('s2s.capture on a connection of its own →', {
      outcomeUnknown: error.outcomeUnknown,
      reconciliation: error.reconciliation,
    })
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
    expectThat(captures === 2 && (await gw.pendingIntents()).length === 0, 'one capture each, no open intent')
  } finally {
    await worker.close()
    await gw.close()
    await connection.close()
  }
}

runIfMain(import.meta.url, main)
