/**
 * The card client on Redis, end to end: a process killed between sending a capture and reading its
 * answer loses nothing (the next process's reconcileAll() finds the intent and proves it against the
 * simulator's ledger), and duplicate callback deliveries to several instances run onEvent once.
 */

import { once } from 'node:events'
import { createServer, type IncomingMessage } from 'node:http'
import type { AddressInfo } from 'node:net'
import { type CallbackEvent, CardGateway } from '@paywire/card-gateway'
import { signCallback, startCardGatewaySimulator, TEST_CARDS } from '@paywire/card-gateway/testing'
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest'
import { runsOfOneRefundWrittenManyWays } from '../../../tests/support/refund-callbacks.js'
import { RedisClaimStore, RedisIntentStore } from '../src/index.js'
import { type Connected, connect, eventually, killFixtures, nextLine, sigkill, spawnFixture } from './helpers.js'
import { describeWithRedis } from './redis-server.js'

afterEach(killFixtures)

async function bodyOf(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = []
  for await (const chunk of req) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks)
}

describeWithRedis('@paywire/card-gateway with the Redis stores', (server) => {
  let clients: Connected[] = []
  beforeAll(async () => {
    clients = await Promise.all([1, 2, 3, 4].map(() => connect(server().url)))
  })
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()))
  })

  it('a process killed between sending a capture and its answer: the next one reconciles it as applied, once', async () => {
    const sim = await startCardGatewaySimulator()
    const closers: (() => Promise<unknown>)[] = [() => sim.close()]
    try {
      // In front of the gateway: forwards each request and never answers, like a connection lost
      // mid-call, until the network comes back (`answering`) for the restarted process.
      let answering = false
      const proxy = createServer((req, res) => {
        void bodyOf(req).then(async (body) => {
          const answer = await fetch(`${sim.url}${req.url}`, {
            method: req.method ?? 'POST',
            headers: { 'content-type': String(req.headers['content-type']) },
            body,
          })
          if (!answering) return
          res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' })
          res.end(await answer.text())
        })
      })
      proxy.listen(0, '127.0.0.1')
      await once(proxy, 'listening')
      closers.push(
        () => new Promise((resolve) => proxy.close(resolve)),
        async () => proxy.closeAllConnections(),
      )
      const proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`

      const merchant = new CardGateway(sim.clientOptions)
      closers.push(() => merchant.close())
      await merchant.checkout.purchase({
        order: { number: 'order-crash-1', amount: '25.00', currency: 'USD', description: 'Espresso machine' },
        success_url: 'https://shop.example/ok',
        cancel_url: 'https://shop.example/cancel',
      })
      const { trans_id } = sim.simulator.pay('order-crash-1', { card: TEST_CARDS.number, expiry: TEST_CARDS.success })

      const prefix = `crash-card-${trans_id}:`
      const child = await spawnFixture('capture-child.ts', [
        server().url,
        prefix,
        JSON.stringify({ ...sim.clientOptions, s2sUrl: proxyUrl }),
        trans_id,
      ])
      expect(await nextLine(child)).toEqual({ sending: true })
      const captured = () => sim.simulator.ledger.filter((e) => e.kind === 'capture').length
      await eventually(async () => captured() === 1, 20_000, 'the capture reached the gateway')
      await sigkill(child) // after the gateway acted, before the process read any answer

      // The restart: a new client (same configuration), a new store, the same Redis; the network is back.
      answering = true
      const journal = new RedisIntentStore({ client: clients[0] as Connected, keyPrefix: prefix })
      const gw = new CardGateway({ ...sim.clientOptions, s2sUrl: proxyUrl, journal })
      closers.push(() => gw.close())
      const [open, ...more] = await gw.pendingIntents()
      expect(more).toEqual([])
      expect(open).toMatchObject({
        operation: 's2s.capture',
        params: { trans_id },
        reconciliation: { value: trans_id },
      })

      const lookupsBefore = sim.server.requests.length
      const settled = await gw.reconcileAll()
      expect(
        settled.map(({ result }) => [result.outcome, (result.state as { status?: string } | undefined)?.status]),
      ).toEqual([['applied', 'SETTLED']])
      expect(
        sim.server.requests.slice(lookupsBefore).map((r) => new URLSearchParams(r.body ?? '').get('action')),
      ).toEqual(['GET_TRANS_STATUS'])
      expect(await gw.pendingIntents()).toEqual([])
      expect(captured()).toBe(1)
    } finally {
      for (const close of closers.reverse()) await close()
    }
  })

  it('N=60 concurrent duplicate deliveries to M=3 callback handlers on separate Redis connections run onEvent once, and ack none before', async () => {
    const gw = new CardGateway({
      checkoutUrl: 'https://checkout.example',
      s2sUrl: 'https://s2s.example',
      merchantKey: 'merchant',
      clientKey: 'client',
      password: 'callback-password',
    })
    const runs: CallbackEvent[] = []
    const prefix = `inbox-${Date.now()}:`
    const handlers = [1, 2, 3].map((i) =>
      gw.callbacks.handler({
        store: new RedisClaimStore({ client: clients[i] as Connected, keyPrefix: prefix }),
        onEvent: async (event) => {
          runs.push(event)
        },
      }),
    )
    const body = signCallback(
      {
        id: 'pay-redis-1',
        order_number: 'order-1',
        order_amount: '10.00',
        order_currency: 'USD',
        order_description: 'Filters',
        order_status: 'settled',
        type: 'sale',
        status: 'success',
      },
      'callback-password',
    )
    const answers = await Promise.all(
      Array.from({ length: 60 }, (_, i) => (handlers[i % 3] as (typeof handlers)[number]).handle(body)),
    )
    await Promise.all(handlers.map((h) => h.drain()))
    // One delivery claims and runs it; one that came while it ran was answered 503, to come again.
    const ok = answers.filter((a) => a.status === 200 && a.body === 'OK').length
    expect(ok).toBeGreaterThanOrEqual(1)
    expect(answers.filter((a) => a.status === 503 && a.body === 'in_progress')).toHaveLength(60 - ok)
    expect(runs).toHaveLength(1)
    // Delivered again after processing (a redelivery hours later): dropped, for keepMs.
    await (handlers[0] as (typeof handlers)[number]).handle(body)
    await Promise.all(handlers.map((h) => h.drain()))
    expect(runs).toHaveLength(1)
  })

  it('two partial refunds of one payment (5.00 + 5.00 of 10.00) run onEvent twice on Redis; each redelivery runs nothing', async () => {
    const sim = await startCardGatewaySimulator()
    const gw = new CardGateway(sim.clientOptions)
    try {
      await gw.checkout.purchase({
        order: { number: `order-refund-${Date.now()}`, amount: '10.00', currency: 'USD', description: 'Filters' },
        success_url: 'https://shop.example/ok',
        cancel_url: 'https://shop.example/cancel',
      })
      const paid = sim.simulator.payments.at(-1)
      const { trans_id } = sim.simulator.pay(paid?.order_id ?? '', {
        card: TEST_CARDS.number,
        expiry: TEST_CARDS.success,
        capture: true,
      })
      const before = sim.simulator.callbacks.length
      await gw.s2s.creditVoid({ trans_id, amount: '5.00' })
      await gw.s2s.creditVoid({ trans_id, amount: '5.00' })
      const refunds = sim.simulator.callbacks.slice(before)
      expect(refunds).toHaveLength(2)
      const runs: CallbackEvent[] = []
      const prefix = `refunds-${Date.now()}:`
      const handlers = [1, 2, 3].map((i) =>
        gw.callbacks.handler({
          store: new RedisClaimStore({ client: clients[i] as Connected, keyPrefix: prefix }),
          onEvent: async (event) => {
            runs.push(event)
          },
        }),
      )
      for (const [i, body] of [...refunds, ...refunds, ...refunds].entries()) {
        const handler = handlers[i % 3] as (typeof handlers)[number]
        expect(await handler.handle(body)).toEqual(expect.objectContaining({ status: 200, body: 'OK' }))
        await handler.drain()
      }
      expect(runs.map((e) => [e.order_status, e['amount']])).toEqual([
        ['settled', '5.00'],
        ['refund', '5.00'],
      ])
    } finally {
      await gw.close()
      await sim.close()
    }
  })
  it('one refund redelivered written six ways (reordered, 5.0, 05.00, percent-encoded) to two instances on Redis runs onEvent once', async () => {
    const prefix = `refund-ways-${Date.now()}:`
    const stores = [1, 2].map((i) => new RedisClaimStore({ client: clients[i] as Connected, keyPrefix: prefix }))
    expect(await runsOfOneRefundWrittenManyWays(stores)).toBe(1)
  })
})
