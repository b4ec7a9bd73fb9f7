/**
 * Partial refunds attacked from the sender's side: one refund delivered with its amount written
 * differently (`5.00`, `5.0`, `05.00`) is still one refund, and an amount that is not an amount of
 * the payment's currency (`1e3`, `-5.00`, `Infinity`, 400 digits) neither throws nor makes the fold
 * claim money that was never refunded.
 */

import { MemoryClaimStore } from '@paywire/core'
import { createTestClock } from '@paywire/core/testing'
import { describe, expect, it, onTestFinished } from 'vitest'
import { type CallbackEvent, CardGateway, dedupeKey, foldPayment } from '../src/index.js'
import { SIMULATOR_CREDENTIALS, signCallback, startCardGatewaySimulator, TEST_CARDS } from '../src/testing/index.js'
import { orderId } from './helpers.js'

const gw = new CardGateway({
  checkoutUrl: 'https://checkout.example',
  s2sUrl: 'https://s2s.example',
  ...SIMULATOR_CREDENTIALS,
})

const PAYMENT = {
  id: 'pay-a1',
  order_number: 'order-a1',
  order_amount: '10.00',
  order_currency: 'USD',
  order_description: 'Filters',
}

function refundBody(
  amount: string,
  date = '2026-11-26 05:00:00',
  orderStatus = 'settled',
  payment: Record<string, string> = PAYMENT,
): string {
  return signCallback(
    { ...payment, order_status: orderStatus, type: 'refund', status: 'success', amount, creditvoid_date: date },
    SIMULATOR_CREDENTIALS.password,
  )
}

function saleBody(payment: Record<string, string> = PAYMENT): string {
  return signCallback(
    { ...payment, order_status: 'settled', type: 'sale', status: 'success' },
    SIMULATOR_CREDENTIALS.password,
  )
}

function fold(bodies: readonly string[]) {
  return foldPayment(
    bodies.map((body, at) => ({ event: gw.callbacks.verify(body), at })),
    { now: 0 },
  )
}

describe('one refund written differently is one refund', () => {
  it('runs onEvent once for 5.00, 5.0 and 05.00 of the same refund', async () => {
    const runs: CallbackEvent[] = []
    const handler = gw.callbacks.handler({
      store: new MemoryClaimStore(),
      onEvent: (event) => {
        runs.push(event)
      },
    })
    for (const amount of ['5.00', '5.0', '05.00', '5']) {
      expect(await handler.handle(refundBody(amount))).toMatchObject({ status: 200 })
    }
    await handler.drain()
    expect(runs).toHaveLength(1)
  })

  it('folds 5.00, 5.0 and 05.00 of the same refund into a refunded total of 5.00', () => {
    expect(fold([saleBody(), refundBody('5.00'), refundBody('5.0'), refundBody('05.00')])).toMatchObject({
      refund: 'partial',
      refundedAmount: '5.00',
    })
  })
})

describe('hostile refund amounts', () => {
  for (const amount of ['1e3', '-5.00', 'Infinity', 'NaN', '0x10', ' 5.00', '5.001', '٥.00', '']) {
    it(`an amount of ${JSON.stringify(amount)} does not make the payment fully refunded`, async () => {
      const state = fold([saleBody(), refundBody(amount)])
      expect(state.refund).not.toBe('full')
      expect(state.refundedAmount ?? '0.00').not.toContain('NaN')
      expect(state.refundDoubt).toMatch(/amount/)
      const handler = gw.callbacks.handler({ store: new MemoryClaimStore(), onEvent: () => {} })
      expect(await handler.handle(refundBody(amount))).toMatchObject({ status: 200 })
      await handler.drain()
    })
  }

  it('a 400-digit amount is not summed into a refunded total above the payment', () => {
    const state = fold([saleBody(), refundBody('9'.repeat(400))])
    expect(state.refund).not.toBe('full')
    expect(state.refundedAmount).toBeUndefined()
    expect(state.refundDoubt).toMatch(/above the payment/)
  })

  it('refunds adding up to more than the payment are not shown silently (6.00 + 6.00 on 10.00)', () => {
    const state = fold([saleBody(), refundBody('6.00', 'a'), refundBody('6.00', 'b')])
    expect(state.refund).toBe('full')
    expect(state.refundedAmount).toBe('12.00')
    expect(state.refundDoubt).toMatch(/12\.00.*above the payment's 10\.00/)
  })

  it('a genuine fold has no doubt', () => {
    expect(fold([saleBody(), refundBody('4.00', 'a'), refundBody('6.00', 'b', 'refund')])).toEqual(
      expect.objectContaining({ refund: 'full', refundedAmount: '10.00', refundDoubt: undefined }),
    )
  })
})

describe('folds in zero- and three-decimal currencies', () => {
  it('JPY written 100.00 and 100', () => {
    const jpy = { ...PAYMENT, order_amount: '300', order_currency: 'JPY' }
    const state = fold([
      saleBody(jpy),
      refundBody('100.00', 'a', 'settled', jpy),
      refundBody('100', 'b', 'settled', jpy),
    ])
    expect(state).toMatchObject({ refund: 'partial', refundedAmount: '200.00' })
  })

  it('KWD 0.100 three times is 0.300, no float drift', () => {
    const kwd = { ...PAYMENT, order_amount: '1.000', order_currency: 'KWD' }
    const bodies = ['a', 'b', 'c'].map((date) => refundBody('0.100', date, 'settled', kwd))
    const forward = fold([saleBody(kwd), ...bodies])
    const backward = fold([...bodies].reverse().concat(saleBody(kwd), bodies[0] as string))
    expect(forward).toMatchObject({ refund: 'partial', refundedAmount: '0.300' })
    expect(backward).toMatchObject({ refund: 'partial', refundedAmount: '0.300' })
  })
})

describe('the fold never throws on a callback text', () => {
  it('a 3-decimal refund (0.105 KWD) on a payment written with two decimals (10.50 KWD)', () => {
    const kwd = { ...PAYMENT, order_amount: '10.50', order_currency: 'KWD' }
    expect(fold([saleBody(kwd), refundBody('0.105', 'a', 'settled', kwd)])).toMatchObject({
      refund: 'partial',
      refundedAmount: '0.105',
    })
  })

  it('a currency named like an Object method is a two-decimal currency', () => {
    const odd = { ...PAYMENT, order_amount: '10.00', order_currency: 'constructor' }
    expect(fold([saleBody(odd), refundBody('5.00', 'a', 'settled', odd)])).toMatchObject({
      refund: 'partial',
      refundedAmount: '5.00',
    })
  })
})

describe('the keys of other callbacks are the keys they had before partial refunds', () => {
  it('Checkout sale, S2S CAPTURE and a Checkout void keep id/trans_id + type/action + status', () => {
    expect(dedupeKey({ id: 'p', type: 'sale', status: 'success', amount: '5.00', hash: 'h' })).toBe(
      '["p","sale","success"]',
    )
    expect(dedupeKey({ trans_id: 't', action: 'CAPTURE', status: 'SETTLED', amount: '5.00', hash: 'h' })).toBe(
      '["t","CAPTURE","SETTLED"]',
    )
    expect(dedupeKey({ id: 'p', type: 'void', status: 'success', hash: 'h' })).toBe('["p","void","success"]')
  })
})

describe('a fully refunded payment whose refund amounts add up to less', () => {
  it('keeps the total the callbacks show and says why it may be short', () => {
    const refunded = signCallback(
      { ...PAYMENT, order_status: 'refund', type: 'refund', status: 'success' },
      SIMULATOR_CREDENTIALS.password,
    )
    expect(fold([saleBody(), refunded])).toMatchObject({
      refund: 'full',
      refundedAmount: '10.00',
      refundDoubt: undefined,
    })
    expect(fold([saleBody(), refundBody('5.00', 'a'), refundBody('Infinity', 'b', 'refund')])).toMatchObject({
      refund: 'full',
      refundedAmount: '5.00',
      refundDoubt: expect.stringMatching(/fully refunded, but its refund callbacks add up to 5\.00 of 10\.00/),
    })
  })
})

describe('redeliveries the parser or the confirmed key must catch', () => {
  it('a refund body with its amount duplicated is refused as malformed, and nothing runs', async () => {
    const runs: CallbackEvent[] = []
    const handler = gw.callbacks.handler({ store: new MemoryClaimStore(), onEvent: (e) => void runs.push(e) })
    const body = refundBody('5.00')
    expect(await handler.handle(`${body}&amount=5.00`)).toMatchObject({ status: 400 })
    expect(await handler.handle(`${body}&amount=1.00`)).toMatchObject({ status: 400 })
    await handler.drain()
    expect(runs).toHaveLength(0)
  })

  it('card-md5-strrev: a CREDITVOID callback redelivered with its amount written 3.0 or 03.00 runs once', async () => {
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
    const p = started.simulator.pay(number, { card: TEST_CARDS.number, expiry: TEST_CARDS.success, capture: true })
    await client.s2s.creditVoid({ trans_id: p.trans_id, amount: '3.00' })
    const refund = started.simulator.callbacks.at(-1) as string
    expect(refund).toContain('amount=3.00')
    const runs: CallbackEvent[] = []
    const handler = client.callbacks.handler({ store: new MemoryClaimStore(), onEvent: (e) => void runs.push(e) })
    for (const body of [
      refund,
      refund.replace('amount=3.00', 'amount=3.0'),
      refund.replace('amount=3.00', 'amount=03.00'),
    ]) {
      expect(await handler.handle(body)).toMatchObject({ status: 200 })
    }
    await handler.drain()
    expect(runs.map((e) => [e.action, e['amount']])).toEqual([['CREDITVOID', '3.00']])
  })
})

describe('a field added to a non-refund callback does not make it a refund', () => {
  it('a sale callback replayed with action=CREDITVOID (and result=SUCCESS) appended runs once and is no refund', async () => {
    const runs: CallbackEvent[] = []
    const handler = gw.callbacks.handler({ store: new MemoryClaimStore(), onEvent: (e) => void runs.push(e) })
    const sale = saleBody()
    const replayed = `${sale}&action=CREDITVOID&result=SUCCESS&creditvoid_date=x`
    for (const body of [sale, replayed]) expect(await handler.handle(body)).toMatchObject({ status: 200 })
    await handler.drain()
    expect(runs).toHaveLength(1)
    expect(dedupeKey(gw.callbacks.verify(replayed))).toBe(dedupeKey(gw.callbacks.verify(sale)))
    expect(fold([sale, replayed])).toMatchObject({ refund: 'none', refundedAmount: undefined })
  })
})

describe('S2S callbacks (no order_amount): the payment amount is the capture callback amount', () => {
  const s2s = (fields: Record<string, string>): CallbackEvent => ({
    trans_id: 't-1',
    order_id: 'o-1',
    currency: 'USD',
    hash: 'h',
    ...fields,
  })
  const capture = s2s({ action: 'CAPTURE', result: 'SUCCESS', status: 'SETTLED', amount: '10.00' })
  const refund = (amount: string, date: string) =>
    s2s({ action: 'CREDITVOID', result: 'SUCCESS', status: 'SETTLED', amount, creditvoid_date: date })

  it('refunds above the captured amount are not shown silently (6.00 + 6.00 of 10.00)', () => {
    const state = foldPayment(
      [capture, refund('6.00', 'a'), refund('6.00', 'b')].map((event, at) => ({ event, at })),
      { now: 0 },
    )
    expect(state).toMatchObject({ refund: 'full', refundedAmount: '12.00' })
    expect(state.refundDoubt).toMatch(/12\.00.*above the payment's 10\.00/)
  })

  it('parts that add up to the captured amount are a full refund (4.00 + 6.00 of 10.00)', () => {
    const state = foldPayment(
      [refund('6.00', 'b'), capture, refund('4.00', 'a')].map((event, at) => ({ event, at })),
      { now: 0 },
    )
    expect(state).toMatchObject({ refund: 'full', refundedAmount: '10.00', refundDoubt: undefined })
  })
})
