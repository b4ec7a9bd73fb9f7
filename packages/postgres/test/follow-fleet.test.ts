/**
 * The payment follower's fleet on PostgreSQL: 1,000 payments whose callbacks are dropped (30 %), sent
 * twice (10 %), out of order (5 %) and blocked for 15 minutes once, three instances each with its own
 * pool on one server, one of them killed midway (tests/support/follower-fleet.ts).
 */

import type pg from 'pg'
import { it } from 'vitest'
import { runFleet } from '../../../tests/support/follower-fleet.js'
import { judgeFleet } from '../../../tests/support/follower-fleet-judge.js'
import { PostgresClaimStore } from '../src/index.js'
import { freshSchema } from './helpers.js'
import { describeWithPostgres } from './postgres-server.js'

describeWithPostgres('the payment follower on PostgreSQL', (server) => {
  it('1,000 payments, callbacks failing, 3 instances, one killed: every final state delivered, none false, none backward', async () => {
    const pools: pg.Pool[] = []
    const setup = server().pool()
    // The follower's store in a schema of its own, beside the callback inbox's.
    const callbacks = await freshSchema(setup, `fleet_callbacks_${Date.now()}`)
    const follow = await freshSchema(setup, `fleet_follow_${Date.now()}`)
    await setup.end()
    judgeFleet(
      await runFleet({
        label: 'postgres',
        payments: 1_000,
        stores: () => {
          const pool = server().pool({ max: 10 })
          pools.push(pool)
          return {
            callbacks: new PostgresClaimStore({ pool, schema: callbacks }),
            follow: new PostgresClaimStore({ pool, schema: follow }),
          }
        },
        close: async () => {
          for (const pool of pools) await pool.end().catch(() => {})
        },
      }),
    )
  }, 180_000)
})
