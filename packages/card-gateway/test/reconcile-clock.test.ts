/**
 * The settle delay of reconciliation is real time (issue 26, item 9): the wall clock steps +5 min
 * (NTP, a VM resume) while the monotonic clock moves 1 s, and a lookup that finds nothing must still
 * be `still_unknown` — the call may sit queued at the gateway — until settleAfterMs of real time.
 * `Date` is faked (the wall clock every caller reads) and the client's injected clock carries the
 * monotonic time; nothing sleeps.
 */

import { type Clock, MemoryIntentStore, type PaywireError } from '@paywire/core'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import type { CardGateway } from '../src/index.js'
import { orderId, paidPayment, rejection, type Setup, setup } from './helpers.js'

const WALL_STEP_MS = 5 * 60_000
const SETTLE_MS = 120_000

/** A clock whose wall time can step while its monotonic time does not; `sleep` moves both, like real time. */
function steppingClock(start: number): Clock & { advance(ms: number): void; stepWall(ms: number): void } {
  let mono = 1_000
  let wall = start
  return {
    now: () => mono,
    date: () => wall,
    async sleep(ms, signal) {
      if (signal?.aborted) throw signal.reason
      mono += ms
      wall += ms
    },
    advance(ms) {
      mono += ms
      wall += ms
      vi.setSystemTime(wall)
    },
    stepWall(ms) {
      wall += ms
      vi.setSystemTime(wall)
    },
  }
}

type Stepping = ReturnType<typeof steppingClock>

let clock: Stepping
beforeEach(() => {
  const start = Date.UTC(2026, 10, 24, 12)
  vi.useFakeTimers({ toFake: ['Date'], now: start })
  clock = steppingClock(start)
})
afterEach(() => {
  vi.useRealTimers()
})

/** One money-moving call per case, made to fail without acting (the gateway answers 500 before booking). */
const cases: {
  name: string
  path: string
  call: (ctx: Setup) => Promise<(gw: CardGateway) => Promise<unknown>>
}[] = [
  {
    name: 's2s.capture',
    path: '/post',
    call: async (ctx) => {
      const { trans_id } = await paidPayment(ctx)
      return (gw) => gw.s2s.capture({ trans_id })
    },
  },
  {
    name: 's2s.void',
    path: '/post',
    call: async (ctx) => {
      const { trans_id } = await paidPayment(ctx)
      return (gw) => gw.s2s.void({ trans_id })
    },
  },
  {
    name: 'checkout.purchase',
    path: '/api/v1/session',
    call: async () => {
      const number = orderId('clock')
      return (gw) =>
        gw.checkout.purchase({
          order: { number, amount: '10.00', currency: 'USD', description: 'Wall clock step' },
          success_url: 'https://shop.example/ok',
          cancel_url: 'https://shop.example/cancel',
        })
    },
  },
  {
    name: 's2s.recurringSale',
    path: '/post',
    call: async (ctx) => {
      const first = await paidPayment(ctx, { recurring: true })
      return (gw) =>
        gw.s2s.recurringSale({
          order_id: orderId('rec'),
          order_amount: '5.00',
          order_description: 'Monthly',
          recurring_first_trans_id: first.trans_id,
          recurring_token: first.recurring_token as string,
        })
    },
  },
]

describe('settleAfterMs is measured on the monotonic clock, not the wall clock', () => {
  it.each(cases)('$name: a +5 min wall step leaves "not found" still_unknown until 2 min of real time', async (c) => {
    const journal = new MemoryIntentStore()
    const ctx = await setup({ client: { clock, journal } })
    const call = await c.call(ctx)
    // This call only (a 500 is not retried): the lookups, on /post too for S2S, are answered.
    ctx.simulator.failNext({ path: c.path, status: 500 })
    const error = (await rejection(call(ctx.gw))) as PaywireError
    expect(error.outcomeUnknown).toBe(true)

    clock.advance(1_000)
    clock.stepWall(WALL_STEP_MS)
    const early = await ctx.gw.reconcile(error)
    expect(early.outcome).toBe('still_unknown')
    expect(early.evidence).toMatch(/recent enough to still arrive/)
    const [fromJournal] = await ctx.gw.reconcileAll()
    expect(fromJournal?.result.outcome).toBe('still_unknown')
    expect(await ctx.gw.pendingIntents()).toHaveLength(1)

    clock.advance(SETTLE_MS)
    // The reconcile's definite answer closes the intent: reconcileAll finds nothing left.
    expect((await ctx.gw.reconcile(error)).outcome).toBe('not_applied')
    expect(await ctx.gw.pendingIntents()).toEqual([])
    expect(await ctx.gw.reconcileAll()).toEqual([])
  })

  it('a wall step backwards does not stretch it either: 2 min of real time settles', async () => {
    const ctx = await setup({ client: { clock } })
    const { trans_id } = await paidPayment(ctx)
    ctx.simulator.failNext({ path: '/post', status: 504 })
    const error = (await rejection(ctx.gw.s2s.capture({ trans_id }))) as PaywireError
    clock.stepWall(-WALL_STEP_MS)
    clock.advance(SETTLE_MS)
    expect((await ctx.gw.reconcile(error)).outcome).toBe('not_applied')
  })
})

describe('reconcile() takes the error or the intent, never a copy of the error (issue 26, item 8)', () => {
  it('an error saved as JSON is refused, not reconciled as not_applied at once', async () => {
    const ctx = await setup({ client: { clock } })
    const { trans_id } = await paidPayment(ctx)
    ctx.simulator.failNext({ path: '/post', status: 500 })
    const error = (await rejection(ctx.gw.s2s.capture({ trans_id }))) as PaywireError
    const saved = JSON.parse(JSON.stringify(error)) as PaywireError
    const before = ctx.server.requests.length
    await expect(ctx.gw.reconcile(saved)).rejects.toThrow(/error saved as JSON/)
    expect(ctx.server.requests.length).toBe(before)
    // The real error is still reconciled, with its settle delay.
    expect((await ctx.gw.reconcile(error)).outcome).toBe('still_unknown')
  })

  it('a definite error saved as JSON (a refused capture) is refused too', async () => {
    const ctx = await setup({ client: { clock } })
    const definite = (await rejection(ctx.gw.s2s.capture({ trans_id: 'no-such-transaction' }))) as PaywireError
    expect(definite.outcomeUnknown).toBe(false)
    await expect(ctx.gw.reconcile(JSON.parse(JSON.stringify(definite)))).rejects.toThrow(/saved as JSON/)
  })
})
