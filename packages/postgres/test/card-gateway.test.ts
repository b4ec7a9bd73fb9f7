/**
 * The card client with its journal on PostgreSQL, end to end: a process killed between sending a
 * capture and reading its answer loses nothing; the next process's reconcileAll() finds the intent
 * and proves it against the simulator's ledger, with one lookup and no second capture.
 */

import { once } from 'node:events'
import { createServer, type IncomingMessage } from 'node:http'
import type { AddressInfo } from 'node:net'
import { CardGateway } from '@paywire/card-gateway'
import { startCardGatewaySimulator, TEST_CARDS } from '@paywire/card-gateway/testing'
import type pg from 'pg'
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest'
import { runsOfOneRefundWrittenManyWays } from '../../../tests/support/refund-callbacks.js'
import { PostgresClaimStore, PostgresIntentStore } from '../src/index.js'
import { eventually, freshSchema, killFixtures, lines, sigkill, spawnFixture } from './helpers.js'
import { describeWithPostgres } from './postgres-server.js'

afterEach(killFixtures)

async function bodyOf(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = []
  for await (const chunk of req) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks)
}

describeWithPostgres('@paywire/card-gateway with the PostgreSQL journal', (server) => {
  let pool: pg.Pool
  let schema: string
  beforeAll(async () => {
    pool = server().pool()
    schema = await freshSchema(pool, 'card')
  })
  afterAll(async () => {
    await pool.end()
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
        order: { number: 'order-pg-crash-1', amount: '25.00', currency: 'USD', description: 'Espresso machine' },
        success_url: 'https://shop.example/ok',
        cancel_url: 'https://shop.example/cancel',
      })
      const { trans_id } = sim.simulator.pay('order-pg-crash-1', {
        card: TEST_CARDS.number,
        expiry: TEST_CARDS.success,
      })

      const child = await spawnFixture('capture-child.ts', [
        String(server().port),
        schema,
        JSON.stringify({ ...sim.clientOptions, s2sUrl: proxyUrl }),
        trans_id,
      ])
      const sending = new Promise<void>((resolve) => {
        void lines(child, (line) => {
          if (line.sending) resolve()
        })
      })
      await sending
      const captured = () => sim.simulator.ledger.filter((e) => e.kind === 'capture').length
      await eventually(async () => captured() === 1, 20_000, 'the capture reached the gateway')
      await sigkill(child) // after the gateway acted, before the process read any answer

      // The restart: a new client (same configuration), a new store, the same database; the network is back.
      answering = true
      const gw = new CardGateway({
        ...sim.clientOptions,
        s2sUrl: proxyUrl,
        journal: new PostgresIntentStore({ pool, schema }),
      })
      closers.push(() => gw.close())
      const [open, ...more] = await gw.pendingIntents()
      expect(more).toEqual([])
      expect(open).toMatchObject({
        operation: 's2s.capture',
        params: { trans_id },
        reconciliation: { value: trans_id },
      })

      const settled = await gw.reconcileAll()
      expect(
        settled.map(({ result }) => [result.outcome, (result.state as { status?: string } | undefined)?.status]),
      ).toEqual([['applied', 'SETTLED']])
      expect(await gw.pendingIntents()).toEqual([])
      expect(captured()).toBe(1)
    } finally {
      for (const close of closers.reverse()) await close()
    }
  }, 60_000)
  it('one refund redelivered written six ways (reordered, 5.0, 05.00, percent-encoded) to two instances on PostgreSQL runs onEvent once', async () => {
    const second = server().pool()
    try {
      const stores = [pool, second].map((p) => new PostgresClaimStore({ pool: p, schema }))
      expect(await runsOfOneRefundWrittenManyWays(stores)).toBe(1)
    } finally {
      await second.end()
    }
  })
})
