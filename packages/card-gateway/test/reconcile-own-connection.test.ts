/**
 * From the attacker's side (issue 26): an edge that answers one lookup twice, the copy arriving
 * once the next request on that connection was written, where it reads as that request's answer.
 * Every lookup reconciliation decides on goes on a connection of its own, so no copy is ever read:
 * the Checkout status lookup of a purchase, GET_TRANS_STATUS_BY_ORDER of a recurring sale (and
 * GET_TRANS_STATUS of a capture, reconcile-stale-lookup.test.ts). Each case asks the same question
 * twice, before and after the call lands: a stale "not found" would report a booked purchase or
 * recurring charge `not_applied`, and the merchant would charge again.
 */

import { once } from 'node:events'
import { type AddressInfo, createConnection, createServer, type Socket } from 'node:net'
import type { Intent } from '@paywire/core'
import { expect, it, onTestFinished } from 'vitest'
import { CardGateway } from '../src/index.js'
import { SIMULATOR_CREDENTIALS } from '../src/testing/index.js'
import { orderId, paidPayment, setup } from './helpers.js'

const REQUEST_LINE = /(?:GET|POST|PUT|DELETE|PATCH|HEAD) \S+ HTTP\/1\.1\r\n/g

/**
 * A TCP proxy in front of the gateway that, on every connection, sends the first answer again just
 * before the second request's own answer, and counts the requests each connection carried.
 */
async function startDoubleAnswerProxy(targetPort: number) {
  const sockets = new Set<Socket>()
  /** Requests per connection, in the order the connections were accepted. */
  const perConnection: number[] = []
  const server = createServer((client) => {
    const upstream = createConnection({ host: '127.0.0.1', port: targetPort })
    for (const s of [client, upstream]) {
      sockets.add(s)
      s.on('error', () => {})
      s.on('close', () => sockets.delete(s))
    }
    client.on('close', () => upstream.destroy())
    upstream.on('close', () => client.destroy())
    const index = perConnection.push(0) - 1
    let firstAnswer = Buffer.alloc(0)
    client.on('data', (chunk: Buffer) => {
      const starts = chunk.toString('latin1').match(REQUEST_LINE)?.length ?? 0
      for (let i = 0; i < starts; i++) {
        perConnection[index] = (perConnection[index] ?? 0) + 1
        // The second request is written: now the copy of the first answer arrives, read as its answer.
        if (perConnection[index] === 2) client.write(firstAnswer)
      }
      upstream.write(chunk)
    })
    upstream.on('data', (chunk: Buffer) => {
      if (perConnection[index] === 1) firstAnswer = Buffer.concat([firstAnswer, chunk])
      client.write(chunk)
    })
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  onTestFinished(async () => {
    for (const s of sockets) s.destroy()
    await new Promise((resolve) => server.close(resolve))
  })
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, perConnection }
}

/** The scene: a simulator, a client straight to it (the calls that land), and one behind the edge (reconcile). */
async function scene() {
  const ctx = await setup()
  const edge = await startDoubleAnswerProxy(Number(new URL(ctx.url).port))
  const gw = new CardGateway({
    checkoutUrl: edge.url,
    s2sUrl: edge.url,
    merchantKey: SIMULATOR_CREDENTIALS.merchantKey,
    clientKey: SIMULATOR_CREDENTIALS.clientKey,
    password: SIMULATOR_CREDENTIALS.password,
    environment: 'sandbox',
    // One socket per pool: a lookup would otherwise open another socket only by chance.
    maxSockets: 1,
    maxRetries: 0,
  })
  onTestFinished(() => gw.close())
  return { ctx, edge, gw }
}

/** An intent written by hand, as an earlier version did (no account): adopted by the one client reconciling it. */
function intentOf(operation: string, order_id: string, lookup: string): Intent {
  return {
    id: `intent-${order_id}`,
    service: 'card-gateway',
    operation,
    params: { order_id },
    reconciliation: { key: 'order_id', value: order_id, lookup },
    idempotencyKey: undefined,
    // Written a minute ago: with settleAfterMs 0, the lookup decides at once.
    createdAt: Date.now() - 60_000,
  }
}

it('a purchase booked after a first lookup is applied, never not_applied from a stale "no order"', async () => {
  const { ctx, edge, gw } = await scene()
  const number = orderId('stale-purchase')
  const intent = intentOf('checkout.purchase', number, `gw.checkout.status({ order_id: "${number}" })`)
  // Past the settle delay (settleAfterMs 0): "no order" would be read as proof that it never arrived.
  expect(await gw.reconcile(intent, { settleAfterMs: 0, adoptUnboundIntents: true })).toMatchObject({
    outcome: 'not_applied',
  })

  await ctx.gw.checkout.purchase({
    order: { number, amount: '10.00', currency: 'USD', description: 'Booked late' },
    success_url: 'https://shop.example/ok',
    cancel_url: 'https://shop.example/cancel',
  })
  const late = await gw.reconcile(intent, { settleAfterMs: 0, adoptUnboundIntents: true })
  expect(`${late.outcome} (${late.evidence})`).toMatch(/^applied/)
  expect(edge.perConnection).toEqual([1, 1])
})

it('a recurring sale booked after a first lookup is applied, never not_applied from a stale "no order"', async () => {
  const { ctx, edge, gw } = await scene()
  const first = await paidPayment(ctx, { capture: true, recurring: true })
  const order_id = orderId('stale-recurring')
  const intent = intentOf('s2s.recurringSale', order_id, `gw.s2s.getTransStatusByOrder({ order_id: "${order_id}" })`)
  expect(await gw.reconcile(intent, { settleAfterMs: 0, adoptUnboundIntents: true })).toMatchObject({
    outcome: 'not_applied',
  })

  await ctx.gw.s2s.recurringSale({
    order_id,
    order_amount: '5.00',
    order_description: 'Monthly',
    recurring_first_trans_id: first.trans_id,
    recurring_token: first.recurring_token as string,
  })
  const late = await gw.reconcile(intent, { settleAfterMs: 0, adoptUnboundIntents: true })
  expect(`${late.outcome} (${late.evidence})`).toMatch(/^applied/)
  expect(edge.perConnection).toEqual([1, 1])
})
