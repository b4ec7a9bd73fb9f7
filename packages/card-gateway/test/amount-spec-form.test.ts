/**
 * The gateway's amount rule first (issue 26, item 19): every card amount goes on the wire with two
 * decimals (credit's `order_amount` is "a decimal string with two decimals", e.g. `10.00`), in every
 * currency. The platform's per-currency forms (three decimals for KWD, none for ISK, four for CLF)
 * are an explicit opt-in, `platformDefaults.amountForm: 'per-currency'`. Checked from the wire.
 */

import { RequestValidationError } from '@paywire/core'
import { describe, expect, it } from 'vitest'
import { formatAmount } from '../src/index.js'
import { form, orderId, paidPayment, rejection, type Setup, setup } from './helpers.js'

const urls = { success_url: 'https://shop.example/ok', cancel_url: 'https://shop.example/cancel' }
const credit = { order_description: 'Refund', card_token: 'tok', name: 'Ada Lovelace' }

async function refusedAt(ctx: Setup, call: Promise<unknown>): Promise<string[]> {
  const before = ctx.server.requests.length
  const error = await rejection(call)
  expect(error).toBeInstanceOf(RequestValidationError)
  expect(ctx.server.requests.length).toBe(before)
  return (error as RequestValidationError).issues.map((i) => `${i.path}: ${i.message}`)
}

describe('formatAmount writes two decimals by default, in every currency', () => {
  it.each([
    [1050, 'USD', '10.50'],
    [10500, 'KWD', '10.50'],
    [1000, 'BHD', '1.00'],
    [100, 'ISK', '100.00'],
    [1000, 'JPY', '1000.00'],
    [10000, 'CLF', '1.00'],
  ] as const)('formatAmount(%s, %s) is %s', (minor, currency, wire) => {
    expect(formatAmount(minor, currency)).toBe(wire)
  })

  it.each([
    [10505, 'KWD'],
    [1, 'BHD'],
    [12345, 'CLF'],
  ] as const)('refuses %s %s: it cannot be written with two decimals', (minor, currency) => {
    expect(() => formatAmount(minor, currency)).toThrow(/two decimals/)
  })

  it.each([
    [10500, 'KWD', '10.500'],
    [100, 'ISK', '100'],
    [12345, 'CLF', '1.2345'],
    [1000, 'JPY', '1000.00'],
  ] as const)(
    "the platform's form is an opt-in: formatAmount(%s, %s, { form: 'per-currency' }) is %s",
    (minor, currency, wire) => {
      expect(formatAmount(minor, currency, { form: 'per-currency' })).toBe(wire)
    },
  )
})

describe('every card amount field takes two decimals by default', () => {
  it.each([
    ['10.50', 'KWD'],
    ['100.00', 'ISK'],
    ['1.00', 'CLF'],
    ['1000.00', 'JPY'],
  ])('credit sends %j %s as given', async (order_amount, order_currency) => {
    const ctx = await setup()
    const { card_token } = await paidPayment(ctx, { capture: true, reqToken: true })
    await ctx.gw.checkout.credit({
      ...credit,
      card_token: card_token as string,
      order_id: orderId('r'),
      order_amount,
      order_currency,
    })
    expect(JSON.parse(ctx.server.requests.at(-1)?.body ?? '').order_amount).toBe(order_amount)
  })

  it.each([
    ['10.500', 'KWD'],
    ['100', 'ISK'],
    ['1.0000', 'CLF'],
    ['1000', 'JPY'],
  ])('credit refuses %j %s before sending, naming the two-decimal rule', async (order_amount, order_currency) => {
    const ctx = await setup()
    const issues = await refusedAt(
      ctx,
      ctx.gw.checkout.credit({ ...credit, order_id: 'r', order_amount, order_currency }),
    )
    expect(issues).toHaveLength(1)
    expect(issues[0]).toMatch(/^order_amount: .*exactly two decimals/)
  })

  it.each([
    ['10.50', 'KWD', true],
    ['100.00', 'ISK', true],
    ['10.500', 'KWD', false],
    ['100', 'ISK', false],
    ['1.0000', 'CLF', false],
  ] as const)('purchase order.amount %j %s: sent %s', async (amount, currency, sent) => {
    const ctx = await setup()
    const call = ctx.gw.checkout.purchase({
      order: { number: orderId(), amount, currency, description: 'Two decimals' },
      ...urls,
    })
    if (sent) {
      await call
      expect(JSON.parse(ctx.server.requests[0]?.body ?? '').order.amount).toBe(amount)
    } else {
      expect((await refusedAt(ctx, call))[0]).toMatch(/^order\.amount: .*exactly two decimals/)
    }
  })

  it('RECURRING_SALE, CAPTURE and CREDITVOID refuse three or four decimals, and no decimals', async () => {
    const ctx = await setup()
    const sale = {
      order_id: orderId(),
      order_description: 'Monthly',
      recurring_first_trans_id: 't',
      recurring_token: 'r',
    }
    for (const [order_amount, order_currency] of [
      ['10.500', 'KWD'],
      ['100', 'ISK'],
      ['1.0000', 'CLF'],
    ] as const) {
      const issues = await refusedAt(ctx, ctx.gw.s2s.recurringSale({ ...sale, order_amount, order_currency }))
      expect(issues[0]).toMatch(/^order_amount: .*exactly two decimals/)
    }
    for (const amount of ['10.500', '100', '1.2345']) {
      expect((await refusedAt(ctx, ctx.gw.s2s.capture({ trans_id: 't', amount })))[0]).toMatch(/^amount: /)
      expect((await refusedAt(ctx, ctx.gw.s2s.creditVoid({ trans_id: 't', amount })))[0]).toMatch(/^amount: /)
    }
  })

  it('RECURRING_SALE sends 10.50 KWD', async () => {
    const ctx = await setup()
    const first = await paidPayment(ctx, { capture: true, recurring: true })
    await ctx.gw.s2s.recurringSale({
      order_id: orderId('rec'),
      order_amount: '10.50',
      order_currency: 'KWD',
      order_description: 'Monthly',
      recurring_first_trans_id: first.trans_id,
      recurring_token: first.recurring_token as string,
    })
    expect(form(ctx.server.requests.at(-1)?.body ?? '')['order_amount']).toBe('10.50')
  })
})

describe("platformDefaults.amountForm: 'per-currency' opts in to the platform's forms", () => {
  it('takes 10.500 KWD and 100 ISK, and refuses 10.50 KWD', async () => {
    const ctx = await setup({ client: { platformDefaults: { amountForm: 'per-currency' } } })
    for (const [amount, currency] of [
      ['10.500', 'KWD'],
      ['100', 'ISK'],
    ] as const) {
      await ctx.gw.checkout.purchase({ order: { number: orderId(), amount, currency, description: 'Opt-in' }, ...urls })
    }
    expect(ctx.server.requests).toHaveLength(2)
    const issues = await refusedAt(
      ctx,
      ctx.gw.checkout.purchase({
        order: { number: orderId(), amount: '10.50', currency: 'KWD', description: 'Opt-in' },
        ...urls,
      }),
    )
    expect(issues[0]).toMatch(/exactly 3 decimals/)
  })

  it('refuses an unknown amountForm at construction', async () => {
    await expect(
      // @ts-expect-error not a form
      setup({ client: { platformDefaults: { amountForm: 'three' } } }),
    ).rejects.toThrow(/platformDefaults\.amountForm/)
  })
})
