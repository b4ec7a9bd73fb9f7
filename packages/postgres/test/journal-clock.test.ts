/**
 * Reconciliation on a shared PostgreSQL journal, from the attacker's side: a host whose clock runs
 * ahead by more than `settleAfterMs` reconciled an intent another process had just written, found
 * nothing (the call was still on its way) and settled it `not_applied` (read as "call it again": a
 * second charge). The time since the intent was written is now measured on the server's clock
 * alone (`writtenAt` against `now()`), whatever the clocks of the writer and the reconciler say.
 */

import { CardGateway } from '@paywire/card-gateway'
import { startCardGatewaySimulator } from '@paywire/card-gateway/testing'
import { type Intent, systemClock } from '@paywire/core'
import { accountFingerprint } from '@paywire/core/engine'
import type pg from 'pg'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { PostgresIntentStore } from '../src/index.js'
import { freshSchema } from './helpers.js'
import { describeWithPostgres } from './postgres-server.js'

describeWithPostgres('reconciliation timed on the shared journal’s clock', (server) => {
  let pool: pg.Pool
  let schema: string
  beforeAll(async () => {
    pool = server().pool()
    schema = await freshSchema(pool, 'journal_clock')
  })
  afterAll(async () => {
    await pool.end()
  })

  it('a reconciler whose clock runs 10 minutes ahead does not settle a capture written a moment ago as not_applied', async () => {
    const sim = await startCardGatewaySimulator()
    try {
      const journal = new PostgresIntentStore({ pool, schema })
      const { merchantKey, clientKey } = sim.clientOptions
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
      const [listed] = await journal.openIntents('card-gateway')
      const now = await journal.now()
      expect(now - (listed?.writtenAt ?? 0)).toBeGreaterThanOrEqual(0)
      expect(now - (listed?.writtenAt ?? 0)).toBeLessThan(5_000)
      const ahead = { now: () => performance.now(), date: () => Date.now() + 10 * 60_000, sleep: systemClock.sleep }
      const reconciler = new CardGateway({ ...sim.clientOptions, journal, clock: ahead })
      try {
        const [settled] = await reconciler.reconcileAll()
        expect(settled?.result.outcome).toBe('still_unknown')
        expect(settled?.closed).toBe(false)
      } finally {
        await reconciler.close()
      }
    } finally {
      await sim.close()
    }
  })
})
