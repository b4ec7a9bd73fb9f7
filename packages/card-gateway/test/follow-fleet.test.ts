/**
 * The payment follower's fleet on the memory store: 1,000 payments whose callbacks are dropped (30 %),
 * sent twice (10 %), out of order (5 %) and blocked for 15 minutes once, three followers in one
 * process sharing one `MemoryClaimStore`, one of them killed midway (tests/support/follower-fleet.ts).
 */

import { MemoryClaimStore } from '@paywire/core'
import { it } from 'vitest'
import { runFleet } from '../../../tests/support/follower-fleet.js'
import { judgeFleet } from '../../../tests/support/follower-fleet-judge.js'

it('1,000 payments, callbacks failing, 3 followers on one memory store, one killed: every final state delivered, none false, none backward', async () => {
  const follow = new MemoryClaimStore()
  const callbacks = new MemoryClaimStore()
  judgeFleet(await runFleet({ label: 'memory', payments: 1_000, stores: () => ({ follow, callbacks }) }))
}, 180_000)
