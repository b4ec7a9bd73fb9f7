/**
 * The simulator's refunded totals attacked: concurrent refunds, a refund after a full refund, a
 * Checkout credit in another currency after a partial refund. The refund callbacks it sends must
 * fold into what it keeps.
 */

import { describe, expect, it } from 'vitest'
import { foldPayment } from '../src/index.js'
import { form, orderId, paidPayment, setup } from './helpers.js'

const credit = { order_description: 'Refund', name: 'Ada Lovelace' }

describe('simulator: refunds under attack', () => {
  it('ten concurrent CREDITVOIDs of 3.00 on 10.00 refund 9.00 at most, never more than captured', async () => {
    const ctx = await setup()
    const p = await paidPayment(ctx, { capture: true, amount: '10.00' })
    const results = await Promise.allSettled(
      Array.from({ length: 10 }, () => ctx.gw.s2s.creditVoid({ trans_id: p.trans_id, amount: '3.00' })),
    )
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(3)
    expect(ctx.simulator.payment(p.trans_id)).toMatchObject({ status: 'settled', refundedAmount: '9.00' })
    expect(ctx.simulator.ledger.filter((e) => e.kind === 'refund').map((e) => e.amount)).toEqual([
      '3.00',
      '3.00',
      '3.00',
    ])
  })

  it('a refund after a full refund is refused and refunds nothing', async () => {
    const ctx = await setup()
    const p = await paidPayment(ctx, { capture: true, amount: '10.00' })
    await ctx.gw.s2s.creditVoid({ trans_id: p.trans_id })
    const callbacks = ctx.simulator.callbacks.length
    await expect(ctx.gw.s2s.creditVoid({ trans_id: p.trans_id, amount: '1.00' })).rejects.toMatchObject({
      code: 208005,
    })
    await expect(ctx.gw.s2s.creditVoid({ trans_id: p.trans_id })).rejects.toMatchObject({ code: 208005 })
    expect(ctx.simulator.callbacks).toHaveLength(callbacks)
    expect(ctx.simulator.payment(p.trans_id)).toMatchObject({ status: 'refund', refundedAmount: '10.00' })
  })

  it('a Checkout credit in another currency after a partial refund: its callback and the fold agree with the simulator', async () => {
    const ctx = await setup()
    const p = await paidPayment(ctx, { capture: true, amount: '10.00', reqToken: true })
    const token = p.card_token as string
    await ctx.gw.checkout.credit({
      ...credit,
      card_token: token,
      order_id: orderId('r'),
      order_amount: '4.00',
      order_currency: 'USD',
    })
    expect(ctx.simulator.payment(p.trans_id)).toMatchObject({ status: 'settled', refundedAmount: '4.00' })
    await ctx.gw.checkout.credit({
      ...credit,
      card_token: token,
      order_id: orderId('r'),
      order_amount: '5.00',
      order_currency: 'EUR',
    })
    expect(ctx.simulator.payment(p.trans_id)).toMatchObject({ status: 'refund', refundedAmount: '10.00' })
    const refunds = ctx.simulator.callbacks.map(form).filter((c) => c['type'] === 'refund')
    // The sale's callbacks speak in the sale's currency: what this credit refunded of it is the 6.00 left.
    expect(refunds.map((c) => [c['order_currency'], c['amount'], c['order_status']])).toEqual([
      ['USD', '4.00', 'settled'],
      ['USD', '6.00', 'refund'],
    ])
    const state = foldPayment(
      ctx.simulator.callbacks.map((body, at) => ({ event: ctx.gw.callbacks.verify(body), at })),
      { now: 0 },
    )
    expect(state).toMatchObject({ refund: 'full', refundedAmount: '10.00', refundDoubt: undefined })
  })

  it('a partial capture (6.00 of 10.00) then a refund of all of it: the fold shows 6.00 and why the state says more', async () => {
    const ctx = await setup()
    const p = await paidPayment(ctx, { capture: false, amount: '10.00' })
    await ctx.gw.s2s.capture({ trans_id: p.trans_id, amount: '6.00' })
    await ctx.gw.s2s.creditVoid({ trans_id: p.trans_id })
    expect(ctx.simulator.payment(p.trans_id)).toMatchObject({ status: 'refund', refundedAmount: '6.00' })
    const state = foldPayment(
      ctx.simulator.callbacks.map((body, at) => ({ event: ctx.gw.callbacks.verify(body), at })),
      { now: 0 },
    )
    expect(state).toMatchObject({
      refund: 'full',
      refundedAmount: '6.00',
      refundDoubt: expect.stringMatching(/partial capture/),
    })
  })
})
