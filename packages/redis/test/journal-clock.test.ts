/**
 * Reconciliation on a shared Redis journal, from the attacker's side: a host whose clock runs ahead
 * by more than `settleAfterMs` reconciled an intent another process had just written, found nothing
 * (the call was still on its way) and settled it `not_applied` (the docs read that as "call it
 * again": a second charge). The time since the intent was written is now measured on Redis's clock
 * alone (`writtenAt` against `now()`), whatever the clocks of the writer and the reconciler say.
 */

import { CardGateway } from '@paywire/card-gateway'
import { startCardGatewaySimulator } from '@paywire/card-gateway/testing'
import type { Intent } from '@paywire/core'
import { systemClock } from '@paywire/core'
import { accountFingerprint } from '@paywire/core/engine'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { RedisIntentStore } from '../src/index.js'
import { type Connected, connect } from './helpers.js'
import { describeWithRedis } from './redis-server.js'

describeWithRedis('reconciliation timed on the shared journal’s clock', (server) => {
  let client: Connected
  beforeAll(async () => {
    client = await connect(server().url)
  })
  afterAll(async () => {
    await client?.close()
  })

  it('a reconciler whose clock runs 10 minutes ahead does not settle a capture written a moment ago as not_applied', async () => {
    const sim = await startCardGatewaySimulator()
    try {
      const journal = new RedisIntentStore({ client, keyPrefix: `journal-clock-${Date.now()}:` })
      const { merchantKey, clientKey } = sim.clientOptions
      // Written a moment ago by another process (on time), for a capture still on its way.
      const intent: Intent = {
        id: 'capture-in-flight',
        service: 'card-gateway',
        operation: 's2s.capture',
        params: { trans_id: 'trans-in-flight' },
        reconciliation: { key: 'trans_id', value: 'trans-in-flight', lookup: 'gw.s2s.getTransStatus({ trans_id })' },
        idempotencyKey: undefined,
        createdAt: Date.now(),
        callLimitMs: 1_000,
        target: sim.url,
        account: accountFingerprint('card-gateway', [String(merchantKey), String(clientKey)]),
      }
      await journal.open(intent)
      const ahead = { now: () => performance.now(), date: () => Date.now() + 10 * 60_000, sleep: systemClock.sleep }
      const reconciler = new CardGateway({ ...sim.clientOptions, journal, clock: ahead })
      try {
        const [settled] = await reconciler.reconcileAll()
        expect(settled?.result.outcome).toBe('still_unknown')
        expect(settled?.closed).toBe(false)
        expect(await journal.openIntents('card-gateway')).toHaveLength(1)
      } finally {
        await reconciler.close()
      }
    } finally {
      await sim.close()
    }
  })
})
