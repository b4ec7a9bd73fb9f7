/**
 * From the attacker's side (found in review): `reconcileAll()` closes each settled intent
 * as it goes, and a close that fails (the connection to Redis dropped at its EXEC) is not caught:
 * the whole run rejects. The intents it already closed are gone from the journal, and their
 * outcomes (here: a capture that did NOT happen, which the merchant must redo) were never returned
 * to anyone; a second run cannot find them. One bad close must not fail the run (item 13's rule for
 * scans), and no intent may be closed without its outcome reaching the caller.
 */

import { CardGateway } from '@paywire/card-gateway'
import { startCardGatewaySimulator, TEST_CARDS } from '@paywire/card-gateway/testing'
import type { Intent } from '@paywire/core'
import { expect, it } from 'vitest'
import { type RedisClient, RedisIntentStore } from '../src/index.js'
import { cutRig } from './cut-proxy.js'
import { describeWithRedis } from './redis-server.js'

describeWithRedis('review r3: reconcileAll() with the connection to Redis cut at a close', (server) => {
  const rig = cutRig(server)

  it('a close cut on its way to Redis fails neither the run nor loses the outcome of an intent already closed', async () => {
    const sim = await startCardGatewaySimulator()
    try {
      const setupClient = new CardGateway(sim.clientOptions)
      /** A paid (authorised, PENDING) payment's trans_id. */
      const paid = async (n: number) => {
        const number = `order-close-cut-${process.pid}-${n}`
        await setupClient.checkout.purchase({
          order: { number, amount: '10.00', currency: 'USD', description: 'Close cut' },
          success_url: 'https://shop.example/ok',
          cancel_url: 'https://shop.example/cancel',
        })
        return sim.simulator.pay(number, { card: TEST_CARDS.number, expiry: TEST_CARDS.success }).trans_id
      }
      const notCaptured = await paid(1) // its capture never reached the gateway: must be redone
      const captured = await paid(2)
      await setupClient.s2s.capture({ trans_id: captured })
      await setupClient.close()

      /** Two open captures, as another process wrote them an hour ago (past any settle delay). */
      const intent = (n: number, trans_id: string): Intent => ({
        id: `close-cut-${process.pid}-${n}`,
        service: 'card-gateway',
        operation: 's2s.capture',
        params: { trans_id },
        reconciliation: {
          key: 'trans_id',
          value: trans_id,
          lookup: `gw.s2s.getTransStatus({ trans_id: ${JSON.stringify(trans_id)} })`,
        },
        idempotencyKey: undefined,
        createdAt: Date.now() - 3_600_000 + n,
      })
      const prefix = `close-cut-${process.pid}-${Date.now()}:`
      const writer = new RedisIntentStore({ client: rig.direct, keyPrefix: prefix })
      await writer.open(intent(1, notCaptured))
      await writer.open(intent(2, captured))

      const gw = new CardGateway({
        ...sim.clientOptions,
        journal: new RedisIntentStore({ client: rig.viaProxy as RedisClient, keyPrefix: prefix }),
      })
      // What a run sends: ZRANGE, MGET, then per intent EVALSHA (Redis's clock, which times it) and
      // GET + MULTI ZREM DEL EXEC. Cut the second EXEC.
      rig.proxy.arm(14, 'request')
      // Written by hand without an account (an earlier version's intents): adopted, and past any settle delay.
      const run = await gw.reconcileAll({ settleAfterMs: 0, adoptUnboundIntents: true }).then(
        (results) => results.map(({ intent: i, result }) => `${i.id}: ${result.outcome}`),
        (error: unknown) => `reconcileAll rejected: ${error instanceof Error ? error.message : String(error)}`,
      )
      expect(rig.proxy.commands.slice(0, 14)).toEqual([
        'ZRANGE',
        'MGET',
        'EVALSHA',
        'GET',
        'MULTI',
        'ZREM',
        'DEL',
        'EXEC',
        'EVALSHA',
        'GET',
        'MULTI',
        'ZREM',
        'DEL',
        'EXEC',
      ])
      expect(rig.proxy.cuts).toBe(1)
      const stillOpen = (
        await new RedisIntentStore({ client: rig.direct, keyPrefix: prefix }).openIntents('card-gateway')
      ).map((i) => i.id)
      await gw.close()
      // The capture that never happened was closed; its outcome must have reached the caller.
      expect(stillOpen).not.toContain(intent(1, notCaptured).id)
      expect(run).toEqual(expect.arrayContaining([`${intent(1, notCaptured).id}: not_applied`]))
    } finally {
      await sim.close()
    }
  }, 30_000)
})
