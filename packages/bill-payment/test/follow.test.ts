/**
 * `bills.transactions.follow()` against the simulator on loopback: an executed payment is followed by
 * `transactions.get` until one of the final states; a payment whose answer was lost is brought in by
 * the journal's reconciliation.
 */

import { MemoryIntentStore } from '@paywire/core'
import { createTestClock } from '@paywire/core/testing'
import { describe, expect, it } from 'vitest'
import type { BillFollowOptions, BillPaymentUpdate } from '../src/index.js'
import { rejection, setup } from './fixtures/setup.js'

async function following(options: Partial<BillFollowOptions> = {}, client = {}) {
  const clock = createTestClock(Date.UTC(2026, 10, 27))
  const env = await setup(client)
  const updates: BillPaymentUpdate[] = []
  const follower = env.bills.transactions.follow({
    clock,
    tickEveryMs: 0,
    lookupsPerSecond: 1000,
    onUpdate: (update) => void updates.push(update),
    ...options,
  })
  return { ...env, followClock: clock, follower, updates }
}

describe('bills.transactions.follow', () => {
  it('follows an executed payment from a state it can leave to a final one', async () => {
    const env = await following()
    const paid = await env.bills.transactions.execute({ productId: 'AIRTIME-ORANGE', amount: 5 })
    const ref = String(paid?.transReference)
    env.simulator.setStatus(ref, 'PENDING')
    env.followClock.advance(30_000)
    await env.follower.tick()
    env.simulator.setStatus(ref, 'REVERSED')
    env.followClock.advance(60_000)
    await env.follower.tick()
    expect(env.updates.map((u) => [u.ref, u.state, u.final])).toEqual([
      [ref, 'PENDING', false],
      [ref, 'REVERSED', true],
    ])
    await env.follower.stop()
  })

  it('a payment whose answer was lost is found by the journal and followed (source journal)', async () => {
    const journal = new MemoryIntentStore()
    const env = await following({}, { journal })
    env.simulator.failNext({ path: '/api/transactions', when: 'after' })
    await rejection(env.bills.transactions.execute({ productId: 'AIRTIME-ORANGE', amount: 5 }))
    await env.follower.tick()
    env.followClock.advance(60_000)
    await env.follower.tick()
    expect(env.updates).toEqual([expect.objectContaining({ state: 'SUCCESSFUL', final: true, source: 'journal' })])
    expect(await journal.openIntents('bill-payment')).toEqual([])
    await env.follower.stop()
  })

  it("finalStates names the provider's own words; a bad list is refused by name", async () => {
    const env = await following({ finalStates: ['done'] })
    const paid = await env.bills.transactions.execute({ productId: 'AIRTIME-ORANGE', amount: 5 })
    env.followClock.advance(30_000)
    await env.follower.tick()
    env.simulator.setStatus(String(paid?.transReference), 'DONE')
    env.followClock.advance(60_000)
    await env.follower.tick()
    expect(env.updates.map((u) => [u.state, u.final])).toEqual([
      ['SUCCESSFUL', false],
      ['DONE', true],
    ])
    expect(() => env.bills.transactions.follow({ onUpdate: () => {}, finalStates: [] })).toThrow(
      'transactions.follow: invalid options. finalStates: must be a non-empty list of state names',
    )
    await env.follower.stop()
  })
})
