/**
 * `remit.transactions.follow()` against the simulator on loopback: a confirmed transfer is followed
 * to its final state by the status lookup, forward only, also when confirm's answer was lost.
 */

import { createTestClock } from '@paywire/core/testing'
import { describe, expect, it } from 'vitest'
import type { TransferUpdate } from '../src/index.js'
import { createBeneficiary, mobileTransferBody, setup } from './helpers.js'

async function following() {
  const clock = createTestClock(Date.UTC(2026, 10, 27))
  const ctx = await setup({}, {})
  const updates: TransferUpdate[] = []
  const follower = ctx.remit.transactions.follow({
    clock,
    tickEveryMs: 0,
    lookupsPerSecond: 1000,
    onUpdate: (update) => void updates.push(update),
  })
  return { ...ctx, clock, follower, updates }
}

describe('remit.transactions.follow', () => {
  it('follows a confirmed transfer through its states to PROCESSED, forward only', async () => {
    const ctx = await following()
    const transfer = await ctx.remit.transactions.mobileTransfer(mobileTransferBody(await createBeneficiary(ctx.remit)))
    await ctx.remit.transactions.confirm(String(transfer?.transactionId))
    const ref = String(transfer?.agentTransactionRef)
    ctx.clock.advance(30_000)
    await ctx.follower.tick()
    ctx.simulator.setStatus(ref, 'HQ_OK')
    ctx.clock.advance(60_000)
    await ctx.follower.tick()
    // A stale answer of an earlier state moves nothing.
    ctx.simulator.setStatus(ref, 'AGENT_OK')
    ctx.clock.advance(120_000)
    await ctx.follower.tick()
    ctx.simulator.setStatus(ref, 'PROCESSED')
    ctx.clock.advance(300_000)
    await ctx.follower.tick()
    expect(ctx.updates.map((u) => [u.ref, u.state, u.previous, u.final])).toEqual([
      [ref, 'AGENT_OK', undefined, false],
      [ref, 'HQ_OK', 'AGENT_OK', false],
      [ref, 'PROCESSED', 'HQ_OK', true],
    ])
    await ctx.follower.stop()
  })

  it('a transfer whose answer was lost is followed by its agentTransactionRef all the same', async () => {
    const ctx = await following()
    const agentTransactionRef = 'AGENT-LOST-1'
    ctx.simulator.failNext({ path: '/api/transactions/mobile-transfer', when: 'after' })
    const body = { ...mobileTransferBody(await createBeneficiary(ctx.remit)), agentTransactionRef }
    const lost = await ctx.remit.transactions.mobileTransfer(body).catch((e: unknown) => e)
    expect(lost).toMatchObject({ outcomeUnknown: true })
    ctx.simulator.setStatus(agentTransactionRef, 'ABORTED')
    ctx.clock.advance(30_000)
    await ctx.follower.tick()
    expect(ctx.updates).toEqual([
      expect.objectContaining({ ref: agentTransactionRef, state: 'ABORTED', final: true, source: 'lookup' }),
    ])
    await ctx.follower.stop()
  })

  it('a transfer never confirmed stays ENTERED and is reported stuck; track() follows one started elsewhere', async () => {
    const ctx = await following()
    const attentions: string[] = []
    const follower = ctx.remit.transactions.follow({
      clock: ctx.clock,
      tickEveryMs: 0,
      stuckAfterMs: 60 * 60 * 1000,
      onUpdate: (update) => void ctx.updates.push(update),
      onAttention: (attention) => void attentions.push(`${attention.kind}:${attention.state}`),
    })
    const transfer = await ctx.remit.transactions.mobileTransfer(mobileTransferBody(await createBeneficiary(ctx.remit)))
    for (let i = 0; i < 8; i++) {
      ctx.clock.advance(10 * 60 * 1000)
      await follower.tick()
    }
    expect(ctx.updates.filter((u) => u.ref === transfer?.agentTransactionRef).map((u) => u.state)).toContain('ENTERED')
    expect(attentions).toEqual(['stuck:ENTERED'])
    const confirmed = await ctx.remit.transactions.confirm(String(transfer?.transactionId))
    expect(await ctx.follower.track(String(confirmed?.referenceNumber))).toBe('followed')
    await follower.stop()
    await ctx.follower.stop()
  })
})
