import { RequestValidationError } from '@paywire/core'
import { describe, expect, it } from 'vitest'
import { CardGatewayError } from '../src/index.js'
import { simulatorHash, TEST_CARDS } from '../src/testing/index.js'
import { orderId, PASSWORD, paidPayment, rejection, setup } from './helpers.js'

const urls = { success_url: 'https://shop.example/ok', cancel_url: 'https://shop.example/cancel' }

describe('Checkout purchase', () => {
  it('POSTs JSON to {checkoutUrl}/api/v1/session with the nested order shape and answers redirect_url', async () => {
    const ctx = await setup()
    const number = orderId()
    const result = await ctx.gw.checkout.purchase({
      order: { number, amount: '10.00', currency: 'USD', description: 'Crème brûlée' },
      ...urls,
      customer: { name: 'Ada', email: 'ada@example.com' },
    })
    expect(result.redirect_url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/checkout\//)
    const [req] = ctx.server.requests
    expect(req?.method).toBe('POST')
    expect(req?.url).toBe('/api/v1/session')
    expect(req?.headers['content-type']).toBe('application/json')
    const body = JSON.parse(req?.body ?? '')
    expect(Object.keys(body)).toEqual([
      'merchant_key',
      'operation',
      'customer',
      'order',
      'success_url',
      'cancel_url',
      'hash',
    ])
    expect(body.operation).toBe('purchase')
    expect(body.order).toEqual({ number, amount: '10.00', currency: 'USD', description: 'Crème brûlée' })
    expect(body.hash).toBe(simulatorHash([number, '10.00', 'USD', 'Crème brûlée'], PASSWORD))
  })

  it('signs the amount string byte-identical to the body', async () => {
    // The platform's KWD form, by opt-in: 10.500 and 10.50 are one amount, and two different hashes.
    const ctx = await setup({ client: { platformDefaults: { amountForm: 'per-currency' } } })
    const number = orderId()
    await ctx.gw.checkout.purchase({
      order: { number, amount: '10.500', currency: 'KWD', description: 'Half' },
      ...urls,
    })
    const body = JSON.parse(ctx.server.requests[0]?.body ?? '')
    expect(body.order.amount).toBe('10.500')
    expect(body.hash).toBe(simulatorHash([number, '10.500', 'KWD', 'Half'], PASSWORD))
    expect(body.hash).not.toBe(simulatorHash([number, '10.50', 'KWD', 'Half'], PASSWORD))
  })

  it('refuses a number amount before sending, saying why', async () => {
    const ctx = await setup()
    const error = await rejection(
      ctx.gw.checkout.purchase({
        // @ts-expect-error the wire amount is a string
        order: { number: orderId(), amount: 10, currency: 'USD', description: 'Test order' },
        ...urls,
      }),
    )
    expect(error).toBeInstanceOf(RequestValidationError)
    expect((error as RequestValidationError).issues[0]).toMatchObject({ path: 'order.amount' })
    expect((error as Error).message).toMatch(/not a number/)
    expect(ctx.server.requests).toHaveLength(0)
  })

  it('refuses unknown keys with the closest wire name (typo guard)', async () => {
    const ctx = await setup()
    const error = await rejection(
      ctx.gw.checkout.purchase({
        order: { number: orderId(), amount: '1.00', currency: 'USD', description: 'Test order' },
        ...urls,
        // @ts-expect-error typo
        sucess_url: 'https://x.example',
      }),
    )
    expect((error as RequestValidationError).issues).toContainEqual({
      path: 'sucess_url',
      message: 'unknown field; did you mean "success_url"?',
    })
    expect(ctx.server.requests).toHaveLength(0)
  })

  it('refuses non-https redirect targets and a too-short description', async () => {
    const ctx = await setup()
    const error = await rejection(
      ctx.gw.checkout.purchase({
        order: { number: orderId(), amount: '1.00', currency: 'USD', description: 'x' },
        success_url: 'http://shop.example/ok',
        cancel_url: 'https://shop.example/cancel',
      }),
    )
    const paths = (error as RequestValidationError).issues.map((i) => i.path)
    expect(paths).toEqual(expect.arrayContaining(['order.description', 'success_url']))
  })

  it('uses a caller-overridden path', async () => {
    const ctx = await setup()
    ctx.server.use(...ctx.simulator.handlers) // same handlers; the path override must still reach one
    const gw2 = new (await import('../src/index.js')).CardGateway({
      checkoutUrl: ctx.url,
      s2sUrl: ctx.url,
      merchantKey: ctx.simulator.merchantKey,
      clientKey: ctx.simulator.clientKey,
      password: PASSWORD,
      paths: { purchase: '/custom/session' },
    })
    const error = await rejection(
      gw2.checkout.purchase({
        order: { number: orderId(), amount: '1.00', currency: 'USD', description: 'ab' },
        ...urls,
      }),
    )
    expect(ctx.server.requests.at(-1)?.url).toBe('/custom/session')
    expect(error).toBeInstanceOf(CardGatewayError) // the simulator has no such route
    await gw2.close()
  })
})

describe('Checkout credit', () => {
  it('POSTs the flat shape exactly to /api/v1/payment/card/credit', async () => {
    const ctx = await setup()
    const paid = await paidPayment(ctx, { capture: true })
    const id = orderId('refund')
    const result = await ctx.gw.checkout.credit({
      order_id: id,
      order_amount: '5.00',
      order_currency: 'USD',
      order_description: 'Partial refund',
      card_token: paid.card_token as string,
      name: 'Ada Lovelace',
    })
    expect(result.result).toBe('SUCCESS')
    const req = ctx.server.requests.at(-1)
    expect(req?.url).toBe('/api/v1/payment/card/credit')
    expect(req?.headers['content-type']).toBe('application/json')
    const body = JSON.parse(req?.body ?? '')
    expect(Object.keys(body)).toEqual([
      'merchant_key',
      'operation',
      'order_id',
      'order_amount',
      'order_currency',
      'order_description',
      'card_token',
      'name',
      'hash',
    ])
    expect(body.operation).toBe('credit')
    expect(body.hash).toBe(simulatorHash([id, '5.00', 'USD', 'Partial refund'], PASSWORD))
    expect(ctx.simulator.ledger.at(-1)).toMatchObject({ kind: 'credit', amount: '5.00' })
  })

  it('refuses the nested order.* shape before sending, saying why', async () => {
    const ctx = await setup()
    const error = await rejection(
      ctx.gw.checkout.credit({
        // @ts-expect-error nested shape is purchase-only
        order: { number: '1', amount: '1.00', currency: 'USD', description: 'x' },
      }),
    )
    expect(error).toBeInstanceOf(RequestValidationError)
    expect((error as Error).message).toMatch(/flat shape.*nested order\.\* shape is rejected/)
    expect(ctx.server.requests).toHaveLength(0)
  })

  it('refuses an array card_token before sending, saying why', async () => {
    const ctx = await setup()
    const error = await rejection(
      ctx.gw.checkout.credit({
        order_id: orderId(),
        order_amount: '1.00',
        order_currency: 'USD',
        order_description: 'x',
        // @ts-expect-error credit takes one string
        card_token: ['tok_a'],
        name: 'A',
      }),
    )
    expect((error as RequestValidationError).issues).toContainEqual({
      path: 'card_token',
      message: expect.stringMatching(/single string.*rejects an array/),
    })
    expect(ctx.server.requests).toHaveLength(0)
  })

  it('requires order_amount with exactly two decimals', async () => {
    const ctx = await setup()
    for (const amount of ['10', '10.5', '10.000']) {
      const error = await rejection(
        ctx.gw.checkout.credit({
          order_id: orderId(),
          order_amount: amount,
          order_currency: 'USD',
          order_description: 'x',
          card_token: 'tok',
          name: 'A',
        }),
      )
      expect((error as RequestValidationError).issues[0]?.path).toBe('order_amount')
    }
    expect(ctx.server.requests).toHaveLength(0)
  })
})

describe('Checkout status lookup', () => {
  it('looks up by payment_id: POST /api/v1/payment/status {merchant_key, payment_id, hash}', async () => {
    const ctx = await setup()
    const paid = await paidPayment(ctx)
    const result = await ctx.gw.checkout.status({ payment_id: paid.payment_id })
    expect(result.status).toBe('pending')
    expect(result.order?.amount).toBe('10.00')
    const req = ctx.server.requests.at(-1)
    expect(req?.url).toBe('/api/v1/payment/status')
    const body = JSON.parse(req?.body ?? '')
    expect(Object.keys(body)).toEqual(['merchant_key', 'payment_id', 'hash'])
    expect(body.hash).toBe(simulatorHash([paid.payment_id], PASSWORD))
  })

  it('looks up by order_id', async () => {
    const ctx = await setup()
    const paid = await paidPayment(ctx, { expiry: TEST_CARDS.decline })
    const result = await ctx.gw.checkout.status({ order_id: paid.order_id })
    expect(result.status).toBe('decline')
    const body = JSON.parse(ctx.server.requests.at(-1)?.body ?? '')
    expect(Object.keys(body)).toEqual(['merchant_key', 'order_id', 'hash'])
    expect(body.hash).toBe(simulatorHash([paid.order_id], PASSWORD))
  })

  it('needs exactly one of payment_id and order_id', async () => {
    const ctx = await setup()
    // @ts-expect-error both given
    const error = await rejection(ctx.gw.checkout.status({ payment_id: 'a', order_id: 'b' }))
    expect((error as Error).message).toMatch(/exactly one of payment_id or order_id/)
    expect(ctx.server.requests).toHaveLength(0)
  })

  it('keeps unknown answer fields and unknown status values', async () => {
    const ctx = await setup()
    const { http, HttpResponse } = await import('msw')
    ctx.server.use(
      http.post('*/api/v1/payment/status', () =>
        HttpResponse.json({ payment_id: 'p1', status: 'on_hold', brand_new: { a: 1 }, date: 20260101 }),
      ),
    )
    const result = await ctx.gw.checkout.status({ payment_id: 'p1' })
    expect(result.status).toBe('on_hold')
    expect(result['brand_new']).toEqual({ a: 1 })
    expect(result.date).toBe('20260101')
  })
})
