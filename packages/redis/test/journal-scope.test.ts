/**
 * From the attacker's side (found in review): the intent journal is namespaced by the
 * service package's name only (`open:card-gateway`). Two clients of the same package that talk to
 * different gateways (sandbox and production, or two merchant accounts) sharing one Redis journal
 * see each other's intents, and `reconcileAll()` of one settles the other's by its own lookups.
 */

import { once } from 'node:events'
import { createServer, type IncomingMessage } from 'node:http'
import type { AddressInfo } from 'node:net'
import { CardGateway } from '@paywire/card-gateway'
import { startCardGatewaySimulator, TEST_CARDS } from '@paywire/card-gateway/testing'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { RedisIntentStore } from '../src/index.js'
import { type Connected, connect, eventually } from './helpers.js'
import { describeWithRedis } from './redis-server.js'

async function bodyOf(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = []
  for await (const chunk of req) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks)
}

describeWithRedis('review r3: one Redis journal shared by two gateways of the same service', (server) => {
  let client: Connected
  beforeAll(async () => {
    client = await connect(server().url)
  })
  afterAll(async () => {
    await client?.close()
  })

  it("the sandbox client's reconcileAll() never settles (or closes) a production intent it cannot look up", async () => {
    const production = await startCardGatewaySimulator()
    const sandbox = await startCardGatewaySimulator()
    const closers: (() => Promise<unknown>)[] = [() => production.close(), () => sandbox.close()]
    try {
      // In front of production: forwards each request and never answers (the answer is lost).
      const blackhole = createServer((req) => {
        void bodyOf(req).then((body) =>
          fetch(`${production.url}${req.url}`, {
            method: req.method ?? 'POST',
            headers: { 'content-type': String(req.headers['content-type']) },
            body,
          }),
        )
      })
      blackhole.listen(0, '127.0.0.1')
      await once(blackhole, 'listening')
      closers.push(
        () => new Promise((resolve) => blackhole.close(resolve)),
        async () => blackhole.closeAllConnections(),
      )
      const blackholeUrl = `http://127.0.0.1:${(blackhole.address() as AddressInfo).port}`

      const prefix = `journal-scope-${Date.now()}:`
      const journal = new RedisIntentStore({ client, keyPrefix: prefix })
      const prod = new CardGateway({
        ...production.clientOptions,
        environment: 'production',
        s2sUrl: blackholeUrl,
        journal,
        timeout: 1_000,
      })
      const test = new CardGateway({ ...sandbox.clientOptions, journal })
      closers.push(
        () => prod.close(),
        () => test.close(),
      )

      await prod.checkout.purchase({
        order: { number: 'order-scope-1', amount: '25.00', currency: 'USD', description: 'Espresso machine' },
        success_url: 'https://shop.example/ok',
        cancel_url: 'https://shop.example/cancel',
      })
      const { trans_id } = production.simulator.pay('order-scope-1', {
        card: TEST_CARDS.number,
        expiry: TEST_CARDS.success,
      })
      const capture = await prod.s2s.capture({ trans_id }).then(
        () => undefined,
        (error: unknown) => error,
      )
      expect(capture).toMatchObject({ outcomeUnknown: true })
      await eventually(
        async () => production.simulator.ledger.some((e) => e.kind === 'capture'),
        10_000,
        'the capture reached production',
      )
      const [intent] = await prod.pendingIntents()
      expect(intent).toMatchObject({ operation: 's2s.capture', params: { trans_id } })

      // The error itself, handed to the sandbox client (the wrong client object in a merchant's code).
      const viaError = await test
        .reconcile(capture as Parameters<CardGateway['reconcile']>[0], { settleAfterMs: 1 })
        .then(
          (result) => result.outcome,
          (error: unknown) => (error instanceof Error ? error.name : String(error)),
        )
      expect.soft(viaError, 'the sandbox client settled the production error').not.toBe('not_applied')

      // The sandbox client runs its own reconciliation (a nightly job, a test run against sandbox).
      const settled = await test.reconcileAll({ settleAfterMs: 1 })
      // It may not settle production's capture by asking the sandbox: the sandbox knows nothing of it.
      expect(settled.map(({ intent: i, result }) => [i.id, result.outcome])).not.toContainEqual([
        intent?.id,
        'not_applied',
      ])
      // And production's intent, applied at production, must still be open for production's reconcileAll().
      expect((await prod.pendingIntents()).map((i) => i.id)).toEqual([intent?.id])
    } finally {
      for (const close of closers.reverse()) await close()
    }
  }, 30_000)
})
