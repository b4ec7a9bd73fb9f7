/**
 * From the attacker's side (found in review): item 18's stale second answer, aimed at the
 * lookups. Money-moving calls now go on connections of their own, but lookups keep the keep-alive
 * pool, and reconciliation decides on a lookup. A gateway (or proxy) that answers one
 * GET_TRANS_STATUS twice leaves the copy to be read as the answer of the next lookup on that
 * connection: the same question, asked later, gets the old answer. A capture looked up while
 * PENDING, then settled, is reconciled `not_applied` from the stale PENDING (the stale answer names
 * the same trans_id, so the record checks pass). The clock is injected; nothing sleeps.
 */

import { once } from 'node:events'
import { type AddressInfo, createConnection, createServer, type Socket } from 'node:net'
import type { Clock, Intent } from '@paywire/core'
import { expect, it, onTestFinished } from 'vitest'
import { CardGateway } from '../src/index.js'
import { SIMULATOR_CREDENTIALS, startCardGatewaySimulator, TEST_CARDS } from '../src/testing/index.js'

const REQUEST_LINE = /(?:GET|POST|PUT|DELETE|PATCH|HEAD) \S+ HTTP\/1\.1\r\n/g

/**
 * A TCP proxy in front of the gateway that, on every connection, sends the first answer again just
 * before the second request's own answer: the duplicate answer of a misbehaving edge.
 */
async function startDoubleAnswerProxy(targetPort: number): Promise<{ url: string; close(): Promise<void> }> {
  const sockets = new Set<Socket>()
  const server = createServer((client) => {
    const upstream = createConnection({ host: '127.0.0.1', port: targetPort })
    for (const s of [client, upstream]) {
      sockets.add(s)
      s.on('error', () => {})
      s.on('close', () => sockets.delete(s))
    }
    client.on('close', () => upstream.destroy())
    upstream.on('close', () => client.destroy())
    let requests = 0
    let firstAnswer = Buffer.alloc(0)
    client.on('data', (chunk: Buffer) => {
      const starts = chunk.toString('latin1').match(REQUEST_LINE)?.length ?? 0
      for (let i = 0; i < starts; i++) {
        requests++
        // The second request is written: now the copy of the first answer arrives, read as its answer.
        if (requests === 2) client.write(firstAnswer)
      }
      upstream.write(chunk)
    })
    upstream.on('data', (chunk: Buffer) => {
      if (requests === 1) firstAnswer = Buffer.concat([firstAnswer, chunk])
      client.write(chunk)
    })
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async close() {
      for (const s of sockets) s.destroy()
      await new Promise((resolve) => server.close(resolve))
    },
  }
}

/** Monotonic and wall time that move together, only when told to. */
function manualClock(): Clock & { advance(ms: number): void } {
  let mono = 1_000
  const wallBase = Date.now()
  return {
    now: () => mono,
    date: () => wallBase + mono,
    async sleep(ms, signal) {
      if (signal?.aborted) throw signal.reason
      mono += ms
    },
    advance(ms) {
      mono += ms
    },
  }
}

it('a capture that settled is never reconciled not_applied from a stale copy of an earlier lookup', async () => {
  const sim = await startCardGatewaySimulator()
  onTestFinished(() => sim.close())
  const edge = await startDoubleAnswerProxy(Number(new URL(sim.url).port))
  onTestFinished(() => edge.close())
  const clock = manualClock()
  const gw = new CardGateway({
    checkoutUrl: sim.url,
    s2sUrl: edge.url,
    merchantKey: SIMULATOR_CREDENTIALS.merchantKey,
    clientKey: SIMULATOR_CREDENTIALS.clientKey,
    password: SIMULATOR_CREDENTIALS.password,
    environment: 'sandbox',
    clock,
  })
  onTestFinished(() => gw.close())

  const number = `order-stale-${process.pid}`
  await gw.checkout.purchase({
    order: { number, amount: '10.00', currency: 'USD', description: 'Stale lookup' },
    success_url: 'https://shop.example/ok',
    cancel_url: 'https://shop.example/cancel',
  })
  const { trans_id } = sim.simulator.pay(number, { card: TEST_CARDS.number, expiry: TEST_CARDS.success })

  // An open intent of a capture whose answer was lost (as pendingIntents() returns it), written now.
  const intent: Intent = {
    id: `intent-stale-${process.pid}`,
    service: 'card-gateway',
    operation: 's2s.capture',
    params: { trans_id },
    reconciliation: { key: 'trans_id', value: trans_id, lookup: `gw.s2s.getTransStatus({ trans_id: "${trans_id}" })` },
    idempotencyKey: undefined,
    createdAt: clock.date?.() ?? Date.now(),
  }
  // Looked up at once: PENDING, too recent to prove anything.
  const early = await gw.reconcile(intent)
  expect(early.outcome).toBe('still_unknown')

  // The capture lands at the gateway (a connection of its own: no stale answer reaches it).
  await gw.s2s.capture({ trans_id })
  expect(sim.simulator.ledger.filter((e) => e.kind === 'capture')).toHaveLength(1)

  // Past the settle delay the same lookup is asked again, on the kept-alive connection.
  clock.advance(130_000)
  const late = await gw.reconcile(intent)
  expect(`${late.outcome} (${late.evidence})`).toMatch(/^applied/)
})
