/**
 * A refund needs the card_token of the original sale (rule Platform 26): a purchase with
 * `req_token: true` gets it back in the signed sale callback, the status answer and S2S answers,
 * and credit refunds to it. Nothing here reads the simulator's internal records.
 */

import { describe, expect, it } from 'vitest'
import { orderId, paidPayment, setup } from './helpers.js'

describe('card_token from real answers', () => {
  it('arrives in the verified sale callback, the status answer and S2S answers, and credit refunds to it', async () => {
    const ctx = await setup()
    const { order_id, trans_id } = await paidPayment(ctx, { reqToken: true })

    const rawBody = ctx.simulator.callbacks.at(-1) as string
    const event = ctx.gw.callbacks.verify(rawBody)
    expect(event.type).toBe('sale')
    expect(event.card_token).toMatch(/^tok_[0-9a-f]{32}$/)

    const status = await ctx.gw.checkout.status({ order_id })
    expect(status.status).toBe('pending')
    expect(status.card_token).toBe(event.card_token)

    const lookup = await ctx.gw.s2s.getTransStatus({ trans_id })
    expect(lookup.card_token).toBe(event.card_token)

    const captured = await ctx.gw.s2s.captureIfPending({ trans_id })
    expect(captured.captured).toBe(true)

    const refund = await ctx.gw.checkout.credit({
      order_id: orderId('refund'),
      order_amount: '4.00',
      order_currency: 'USD',
      order_description: 'Refund: damaged box',
      card_token: event.card_token as string,
      name: 'Ada Lovelace',
    })
    expect(refund.result).toBe('SUCCESS')
    expect(ctx.simulator.ledger.at(-1)).toMatchObject({ kind: 'credit', amount: '4.00' })
  })

  it('is not shown for a purchase that did not ask for it', async () => {
    const ctx = await setup()
    const { order_id, trans_id } = await paidPayment(ctx)
    const event = ctx.gw.callbacks.verify(ctx.simulator.callbacks.at(-1) as string)
    expect(event).not.toHaveProperty('card_token')
    expect(await ctx.gw.checkout.status({ order_id })).not.toHaveProperty('card_token')
    expect(await ctx.gw.s2s.getTransStatus({ trans_id })).not.toHaveProperty('card_token')
  })

  it('is not signed: a callback whose card_token was swapped still verifies, so take it from the status answer when in doubt', async () => {
    const ctx = await setup()
    const { order_id } = await paidPayment(ctx, { reqToken: true })
    const original = ctx.simulator.callbacks.at(-1) as string
    const swapped = original.replace(/card_token=[^&]+/, 'card_token=tok_attacker')
    expect(swapped).not.toBe(original)
    // The callback hash covers id, order_number, order_amount, order_currency and order_description only
    // (rule Platform 15): the token in a callback is as trustworthy as the channel it came on.
    expect(ctx.gw.callbacks.verify(swapped).card_token).toBe('tok_attacker')
    const status = await ctx.gw.checkout.status({ order_id })
    expect(status.card_token).not.toBe('tok_attacker')
  })
})
