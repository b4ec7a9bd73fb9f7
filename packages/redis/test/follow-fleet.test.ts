/**
 * The payment follower's fleet on Redis: 1,000 payments whose callbacks are dropped (30 %), sent
 * twice (10 %), out of order (5 %) and blocked for 15 minutes once, three instances each with its own
 * connection to one redis-server, one of them killed midway (tests/support/follower-fleet.ts).
 */

import { it } from 'vitest'
import { runFleet } from '../../../tests/support/follower-fleet.js'
import { judgeFleet } from '../../../tests/support/follower-fleet-judge.js'
import { RedisClaimStore } from '../src/index.js'
import { type Connected, connect } from './helpers.js'
import { describeWithRedis } from './redis-server.js'

describeWithRedis('the payment follower on Redis', (server) => {
  it('1,000 payments, callbacks failing, 3 instances, one killed: every final state delivered, none false, none backward', async () => {
    const clients: Connected[] = []
    const prefix = `fleet-${Date.now()}:`
    judgeFleet(
      await runFleet({
        label: 'redis',
        payments: 1_000,
        stores: async () => {
          const client = await connect(server().url)
          clients.push(client)
          return {
            callbacks: new RedisClaimStore({ client, keyPrefix: `${prefix}callbacks:` }),
            follow: new RedisClaimStore({ client, keyPrefix: `${prefix}follow:` }),
          }
        },
        close: async () => {
          for (const client of clients) await client.close().catch(() => {})
        },
      }),
    )
  }, 180_000)
})
