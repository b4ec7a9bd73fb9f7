import { createTestClock, HTML_ERROR_PAGE, rejection } from '@paywire/core/testing'
import { describe, expect, it } from 'vitest'
import { CardGatewaySimulator, cardGatewayHandlers, TEST_CARDS } from '../src/testing/index.js'
import { orderId, paidPayment, setup } from './helpers.js'

const urls = { success_url: 'https://shop.example/ok', cancel_url: 'https://shop.example/cancel' }

describe('simulator: 15 s dedup window by merchant_key + order_id', () => {
  it('a repeat inside the window returns the original outcome without a second session', async () => {
    const clock = createTestClock(5_000_000)
    const ctx = await setup({ sim: { clock } })
    const params = { order: { number: orderId(), amount: '3.00', currency: 'USD', description: 'Test order' }, ...urls }
    const first = await ctx.gw.checkout.purchase(params)
    clock.advance(14_999)
    const second = await ctx.gw.checkout.purchase(params)
    expect(second).toEqual(first)
    expect(ctx.simulator.ledger.filter((e) => e.kind === 'session')).toHaveLength(1)
  })

  it('after the window the reuse is refused with "order_id: Duplicate payment."', async () => {
    const clock = createTestClock(5_000_000)
    const ctx = await setup({ sim: { clock } })
    const params = { order: { number: orderId(), amount: '3.00', currency: 'USD', description: 'Test order' }, ...urls }
    await ctx.gw.checkout.purchase(params)
    clock.advance(15_000)
    await expect(ctx.gw.checkout.purchase(params)).rejects.toMatchObject({
      errorMessage: 'order_id: Duplicate payment.',
    })
  })

  it('RECURRING_SALE is deduplicated the same way', async () => {
    const clock = createTestClock(0)
    const ctx = await setup({ sim: { clock } })
    const first = await paidPayment(ctx, { capture: true, recurring: true })
    const params = {
      order_id: orderId('rec'),
      order_amount: '2.00',
      order_description: 'Plan',
      recurring_first_trans_id: first.trans_id,
      recurring_token: first.recurring_token as string,
    }
    const a = await ctx.gw.s2s.recurringSale(params)
    const b = await ctx.gw.s2s.recurringSale(params)
    expect(b.trans_id).toBe(a.trans_id)
    expect(ctx.simulator.ledger.filter((e) => e.kind === 'recurring_sale')).toHaveLength(1)
    clock.advance(20_000)
    await expect(ctx.gw.s2s.recurringSale(params)).rejects.toMatchObject({ reason: 'duplicate_order' })
  })
})

describe('simulator: test cards drive outcomes', () => {
  it.each([
    [TEST_CARDS.success, 'pending'],
    [TEST_CARDS.decline, 'decline'],
    [TEST_CARDS.captureFails, 'pending'],
    [TEST_CARDS.threeDsSuccess, '3ds'],
    [TEST_CARDS.threeDsDecline, '3ds'],
  ])('expiry %s leaves the payment %s', async (expiry, status) => {
    const ctx = await setup()
    const p = await paidPayment(ctx, { expiry })
    expect(p.status).toBe(status)
    expect((await ctx.gw.checkout.status({ payment_id: p.payment_id })).status).toBe(status)
  })

  it('an unknown card declines', async () => {
    const ctx = await setup()
    const number = orderId()
    await ctx.gw.checkout.purchase({ order: { number, amount: '1.00', currency: 'USD', description: 'xx' }, ...urls })
    expect(ctx.simulator.pay(number, { card: '4000000000000002', expiry: TEST_CARDS.success }).status).toBe('decline')
  })

  it('records a ledger of every side effect', async () => {
    const ctx = await setup()
    const p = await paidPayment(ctx)
    await ctx.gw.s2s.capture({ trans_id: p.trans_id })
    await ctx.gw.s2s.creditVoid({ trans_id: p.trans_id })
    expect(ctx.simulator.ledger.map((e) => e.kind)).toEqual(['session', 'charge', 'capture', 'refund'])
    expect(ctx.simulator.ledger.every((e) => typeof e.at === 'number')).toBe(true)
  })
})

describe('simulator: checks', () => {
  it('checks the hash, the keys and the allowlist on every request', async () => {
    const ctx = await setup({ sim: { allowedIps: ['198.51.100.1'] } })
    await expect(ctx.gw.s2s.getTransStatus({ trans_id: 't' })).rejects.toMatchObject({ reason: 'ip_not_allowed' })
    ctx.simulator.allowedIps = undefined
    await expect(ctx.gw.s2s.getTransStatus({ trans_id: 't' })).rejects.toMatchObject({
      reason: 'transaction_does_not_exist',
    })
  })

  it('exports its handlers for an msw setup of your own', () => {
    const sim = new CardGatewaySimulator()
    expect(cardGatewayHandlers(sim)).toHaveLength(4)
  })

  it('signs callbacks the client verifies', async () => {
    const ctx = await setup()
    const body = ctx.simulator.signCallback({
      id: 'p',
      order_number: 'o',
      order_amount: '1.00',
      order_currency: 'EUR',
      order_description: 'ß',
    })
    expect(ctx.gw.callbacks.verify(body).order_description).toBe('ß')
  })
})

describe('simulator: failNext, the same on every paywire simulator', () => {
  it('before (default): answers the fault without acting, for the path given only', async () => {
    const ctx = await setup()
    const paid = await paidPayment(ctx)
    ctx.simulator.failNext({ path: '/post', status: 503 })
    const error = await rejection(ctx.gw.s2s.capture({ trans_id: paid.trans_id }, { maxRetries: 0 }))
    expect(error).toMatchObject({ name: 'CardGatewayError', status: 503, outcomeUnknown: true })
    expect(ctx.simulator.ledger.filter((e) => e.kind === 'capture')).toHaveLength(0)
    // One request was taken: the next one is served.
    await expect(ctx.gw.s2s.capture({ trans_id: paid.trans_id })).resolves.toMatchObject({ status: 'SETTLED' })
  })

  it('after: acts (the capture is booked) and loses the answer, so the error says the outcome is unknown', async () => {
    const ctx = await setup()
    const paid = await paidPayment(ctx)
    ctx.simulator.failNext({ when: 'after' })
    const error = await rejection(ctx.gw.s2s.capture({ trans_id: paid.trans_id }))
    expect(error).toMatchObject({ status: 500, outcomeUnknown: true, reconciliation: { key: 'trans_id' } })
    expect(ctx.simulator.ledger.filter((e) => e.kind === 'capture')).toHaveLength(1)
    expect(ctx.server.requests.map((r) => r.url)).toEqual(['/api/v1/session', '/post']) // one capture: never retried once sent
  })

  it('a count fails that many requests to its path only, and a given body is sent as it is', async () => {
    const ctx = await setup()
    ctx.simulator.failNext({ path: '/api/v1/session', count: 2, status: 502, body: HTML_ERROR_PAGE })
    const paid = await paidPayment(ctx) // purchase is retried inside the dedup window: the third attempt is served
    expect(ctx.server.requests.map((r) => r.url)).toEqual(['/api/v1/session', '/api/v1/session', '/api/v1/session'])
    await ctx.gw.s2s.getTransStatus({ trans_id: paid.trans_id }) // another path: untouched
    ctx.simulator.failNext({ status: 502, body: HTML_ERROR_PAGE })
    const error = await rejection(ctx.gw.s2s.getTransStatus({ trans_id: paid.trans_id }, { maxRetries: 0 }))
    expect(error).toMatchObject({ status: 502, rawBody: HTML_ERROR_PAGE })
  })

  it('refuses a count or status a test could not mean', () => {
    const simulator = new CardGatewaySimulator()
    expect(() => simulator.failNext({ count: 0 })).toThrow(/count must be a whole number >= 1/)
    expect(() => simulator.failNext({ status: 99 })).toThrow(/status must be an HTTP status/)
    expect(() => simulator.failNext({ path: 'post' })).toThrow(/path must start with/)
  })
})

describe('simulator: states a test sets, ids it can repeat, callbacks it can hear', () => {
  it('setStatus moves a payment with the callback of that change; the status lookup shows it', async () => {
    const heard: string[] = []
    const ctx = await setup({ sim: { onCallback: (body) => heard.push(body) } })
    const number = orderId()
    await ctx.gw.checkout.purchase({
      order: { number, amount: '4.00', currency: 'USD', description: 'Set me' },
      ...urls,
    })
    const moved = ctx.simulator.setStatus(number, 'settled')
    expect(moved).toMatchObject({ status: 'settled', capturedAmount: '4.00' })
    expect((await ctx.gw.s2s.getTransStatusByOrder({ order_id: number })).status).toBe('SETTLED')
    expect(heard).toEqual(ctx.simulator.callbacks)
    const fields = Object.fromEntries(new URLSearchParams(heard.at(-1)))
    expect(fields).toMatchObject({ type: 'capture', status: 'success', order_status: 'settled', order_number: number })
    expect(ctx.gw.callbacks.verify(heard.at(-1) as string).order_number).toBe(number)
    expect(ctx.simulator.ledger.at(-1)).toMatchObject({ kind: 'status_set', status: 'settled', order_id: number })
    ctx.simulator.setStatus(number, 'refund')
    expect(Object.fromEntries(new URLSearchParams(heard.at(-1)))).toMatchObject({ type: 'refund', status: 'success' })
    expect(() => ctx.simulator.setStatus('nope', 'void')).toThrow('simulator: no payment nope')
    expect(() => ctx.simulator.setStatus(number, 'paid' as never)).toThrow('unknown payment status paid')
  })

  it('uuid makes payment ids, transaction ids and tokens', async () => {
    let n = 0
    const uuid = () => `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}`
    const ctx = await setup({ sim: { uuid } })
    const number = orderId()
    await ctx.gw.checkout.purchase({ order: { number, amount: '4.00', currency: 'USD', description: 'Ids' }, ...urls })
    ctx.simulator.pay(number, { card: TEST_CARDS.number, expiry: TEST_CARDS.success })
    expect(ctx.simulator.payment(number)).toMatchObject({
      payment_id: '00000000-0000-4000-8000-000000000001',
      trans_id: '00000000-0000-4000-8000-000000000002',
      card_token: 'tok_00000000000040008000000000000003',
    })
  })

  it('the hosted page URL keeps the path prefix the simulator is served under', async () => {
    const simulator = new CardGatewaySimulator()
    const { startMockServer } = await import('@paywire/core/testing')
    const server = await startMockServer(simulator.handlers)
    try {
      const body = {
        merchant_key: simulator.merchantKey,
        operation: 'purchase',
        order: { number: 'P-1', amount: '1.00', currency: 'USD', description: 'Prefix' },
        ...urls,
      }
      const { simulatorHash } = await import('../src/testing/index.js')
      const hash = simulatorHash(['P-1', '1.00', 'USD', 'Prefix'], simulator.password)
      const response = await fetch(`${server.url}/card/api/v1/session`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ ...body, hash }),
      })
      const { redirect_url } = (await response.json()) as { redirect_url: string }
      expect(redirect_url).toMatch(new RegExp(`^${server.url}/card/checkout/[0-9a-f-]{36}$`))
    } finally {
      await server.close()
    }
  })
})
