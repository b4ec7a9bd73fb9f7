/**
 * Partial refunds from the merchant's side: two refunds of one payment are two outcomes, so the
 * callback inbox must run `onEvent` for each (a dedupe key equal for both would swallow the second
 * as a repeat and lose money silently), while a repeated delivery of one refund still runs once.
 */

import { MemoryClaimStore } from '@paywire/core'
import { createTestClock } from '@paywire/core/testing'
import { describe, expect, it, onTestFinished } from 'vitest'
import { type CallbackEvent, CardGateway, dedupeKey, foldPayment } from '../src/index.js'
import { SIMULATOR_CREDENTIALS, signCallback, startCardGatewaySimulator, TEST_CARDS } from '../src/testing/index.js'
import { form, orderId, paidPayment, setup } from './helpers.js'

const gw = new CardGateway({
  checkoutUrl: 'https://checkout.example',
  s2sUrl: 'https://s2s.example',
  ...SIMULATOR_CREDENTIALS,
})

/** An inbox over a shared store that records every onEvent run. */
function inbox(client: CardGateway = gw) {
  const runs: CallbackEvent[] = []
  const handler = client.callbacks.handler({
    store: new MemoryClaimStore(),
    onEvent: (event) => {
      runs.push(event)
    },
  })
  return { handler, runs }
}

const PAYMENT = {
  id: 'pay-1',
  order_number: 'order-1',
  order_amount: '10.00',
  order_currency: 'USD',
  order_description: 'Filters',
}

/** A refund callback as the platform reports one: this refund's amount and date, the payment's state after it. */
function refundCallback(amount: string, date: string, orderStatus: 'settled' | 'refund'): string {
  return signCallback(
    { ...PAYMENT, order_status: orderStatus, type: 'refund', status: 'success', amount, creditvoid_date: date },
    SIMULATOR_CREDENTIALS.password,
  )
}

describe('callback inbox: two partial refunds of one payment', () => {
  it('runs onEvent once per refund (5.00 then 5.00 on 10.00), and once per refund delivered twice', async () => {
    const { handler, runs } = inbox()
    const first = refundCallback('5.00', '2026-11-26 05:00:00', 'settled')
    const second = refundCallback('5.00', '2026-11-26 05:00:07', 'refund')
    for (const body of [first, second, first, second]) {
      expect(await handler.handle(body)).toMatchObject({ status: 200, body: 'OK' })
    }
    await handler.drain()
    expect(runs.map((e) => [e['amount'], e.order_status])).toEqual([
      ['5.00', 'settled'],
      ['5.00', 'refund'],
    ])
  })

  it('runs onEvent for two equal partial refunds that leave the payment in the same state (3.00, 3.00 on 10.00)', async () => {
    const { handler, runs } = inbox()
    const a = refundCallback('3.00', '2026-11-26 05:00:00', 'settled')
    const b = refundCallback('3.00', '2026-11-26 05:00:01', 'settled')
    for (const body of [a, b, b, a]) await handler.handle(body)
    await handler.drain()
    expect(runs).toHaveLength(2)
  })

  it('keeps the key of every other callback as it was (id, type, status)', () => {
    const sale = { ...PAYMENT, order_status: 'settled', type: 'sale', status: 'success', hash: 'h' }
    expect(dedupeKey(sale)).toBe(JSON.stringify(['pay-1', 'sale', 'success']))
  })
})

describe('simulator: partial refunds (CREDITVOID with amount)', () => {
  it('tracks the refunded total, stays SETTLED after a partial refund, REFUND once all is refunded', async () => {
    const clock = createTestClock(Date.UTC(2026, 10, 26, 5))
    const ctx = await setup({ sim: { clock } })
    const p = await paidPayment(ctx, { capture: true, amount: '10.00' })
    const before = ctx.simulator.callbacks.length
    expect(await ctx.gw.s2s.creditVoid({ trans_id: p.trans_id, amount: '5.00' })).toMatchObject({ result: 'ACCEPTED' })
    expect(await ctx.gw.s2s.getTransStatus({ trans_id: p.trans_id })).toMatchObject({ status: 'SETTLED' })
    expect(ctx.simulator.payment(p.trans_id)).toMatchObject({ status: 'settled', refundedAmount: '5.00' })
    clock.advance(1_000)
    await ctx.gw.s2s.creditVoid({ trans_id: p.trans_id, amount: '5.00' })
    expect(await ctx.gw.s2s.getTransStatus({ trans_id: p.trans_id })).toMatchObject({ status: 'REFUND' })
    expect(ctx.simulator.payment(p.trans_id)).toMatchObject({ status: 'refund', refundedAmount: '10.00' })
    const refunds = ctx.simulator.callbacks.slice(before).map(form)
    expect(refunds.map((c) => [c['type'], c['status'], c['order_status'], c['amount']])).toEqual([
      ['refund', 'success', 'settled', '5.00'],
      ['refund', 'success', 'refund', '5.00'],
    ])
    expect(refunds[0]?.['creditvoid_date']).not.toBe(refunds[1]?.['creditvoid_date'])
    expect(ctx.simulator.ledger.filter((e) => e.kind === 'refund').map((e) => e.amount)).toEqual(['5.00', '5.00'])
  })

  it('refuses a refund above what is left to refund, and refunds nothing', async () => {
    const ctx = await setup()
    const p = await paidPayment(ctx, { capture: true, amount: '10.00' })
    await ctx.gw.s2s.creditVoid({ trans_id: p.trans_id, amount: '6.00' })
    const callbacks = ctx.simulator.callbacks.length
    await expect(ctx.gw.s2s.creditVoid({ trans_id: p.trans_id, amount: '6.00' })).rejects.toMatchObject({
      code: 100000,
      errorMessage: 'Request data is invalid.',
      errors: [expect.objectContaining({ message: 'amount: This value should be less than or equal to 4.00.' })],
    })
    expect(ctx.simulator.callbacks).toHaveLength(callbacks)
    expect(ctx.simulator.payment(p.trans_id)).toMatchObject({ status: 'settled', refundedAmount: '6.00' })
    // Without an amount, CREDITVOID refunds what is left.
    await ctx.gw.s2s.creditVoid({ trans_id: p.trans_id })
    expect(ctx.simulator.payment(p.trans_id)).toMatchObject({ status: 'refund', refundedAmount: '10.00' })
    expect(ctx.simulator.ledger.filter((e) => e.kind === 'refund').map((e) => e.amount)).toEqual(['6.00', '4.00'])
  })

  it('two partial refunds delivered through the real inbox run onEvent twice, each repeat once; the fold shows the total', async () => {
    const clock = createTestClock(Date.UTC(2026, 10, 26, 5))
    const ctx = await setup({ sim: { clock } })
    const { handler, runs } = inbox(ctx.gw)
    const p = await paidPayment(ctx, { capture: true, amount: '10.00' })
    const before = ctx.simulator.callbacks.length
    await ctx.gw.s2s.creditVoid({ trans_id: p.trans_id, amount: '5.00' })
    await ctx.gw.s2s.creditVoid({ trans_id: p.trans_id, amount: '5.00' })
    const refunds = ctx.simulator.callbacks.slice(before)
    for (const body of [...refunds, ...refunds]) await handler.handle(body)
    await handler.drain()
    expect(runs.map((e) => e['amount'])).toEqual(['5.00', '5.00'])
    const all = ctx.simulator.callbacks.map((body, at) => ({ event: gw.callbacks.verify(body), at }))
    const partial = foldPayment(all.slice(0, before + 1), { now: 0 })
    expect(partial).toMatchObject({ refund: 'partial', refundedAmount: '5.00' })
    expect(foldPayment(all, { now: 0 })).toMatchObject({ status: 'refund', refund: 'full', refundedAmount: '10.00' })
  })
})

describe('callback inbox on the card-md5-strrev scheme: partial refunds confirmed by lookup', () => {
  it('runs onEvent for the capture and for each of two partial refunds, each with its own amount', async () => {
    const clock = createTestClock(Date.UTC(2026, 10, 26, 5))
    const started = await startCardGatewaySimulator({ signature: 'card-md5-strrev', clock })
    const client = new CardGateway(started.clientOptions)
    onTestFinished(async () => {
      await client.close()
      await started.close()
    })
    const number = orderId()
    await client.checkout.purchase({
      order: { number, amount: '10.00', currency: 'USD', description: 'Test order' },
      success_url: 'https://shop.example/ok',
      cancel_url: 'https://shop.example/cancel',
      customer: { email: 'payer@example.com' },
    })
    const p = started.simulator.pay(number, { card: TEST_CARDS.number, expiry: TEST_CARDS.success })
    const before = started.simulator.callbacks.length
    await client.s2s.capture({ trans_id: p.trans_id })
    await client.s2s.creditVoid({ trans_id: p.trans_id, amount: '3.00' })
    clock.advance(1_000)
    await client.s2s.creditVoid({ trans_id: p.trans_id, amount: '3.00' })
    const { handler, runs } = inbox(client)
    const bodies = started.simulator.callbacks.slice(before)
    for (const body of [...bodies, ...bodies]) expect(await handler.handle(body)).toMatchObject({ status: 200 })
    await handler.drain()
    expect(runs.map((e) => [e.action, e.status, e['amount']])).toEqual([
      ['CAPTURE', 'SETTLED', '10.00'],
      ['CREDITVOID', 'SETTLED', '3.00'],
      ['CREDITVOID', 'SETTLED', '3.00'],
    ])
  })
})
