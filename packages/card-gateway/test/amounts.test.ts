/**
 * One amount rule (two decimals by default; per currency by opt-in, rule Platform 22, see
 * amount-spec-form.test.ts) on every card amount field, one currency rule,
 * non-empty names, and `formatAmount` writing the exact wire string. Every refusal is checked from
 * the wire: nothing reached the simulator.
 */

import { RequestValidationError } from '@paywire/core'
import { describe, expect, it } from 'vitest'
import { formatAmount } from '../src/index.js'
import { orderId, paidPayment, rejection, type Setup, setup } from './helpers.js'

const urls = { success_url: 'https://shop.example/ok', cancel_url: 'https://shop.example/cancel' }

/** The issues of a refused call, after checking it is a validation error and nothing was sent. */
async function refused(ctx: Setup, call: Promise<unknown>) {
  const error = await rejection(call)
  expect(error).toBeInstanceOf(RequestValidationError)
  expect((error as RequestValidationError).requestSent).toBe(false)
  expect((error as Error).message).toMatch(/invalid request, nothing was sent/)
  expect(ctx.server.requests).toHaveLength(0)
  return (error as RequestValidationError).issues
}

function purchase(ctx: Setup, amount: string, currency: string) {
  return ctx.gw.checkout.purchase({
    order: { number: orderId(), amount, currency, description: 'Amount rule' },
    ...urls,
  })
}

describe('formatAmount (minor units to the wire string)', () => {
  it.each([
    [1050, 'USD', '10.50'],
    [0, 'USD', '0.00'],
    [5, 'EUR', '0.05'],
    [10500, 'KWD', '10.50'],
    [10, 'BHD', '0.01'],
    [1000, 'JPY', '1000.00'],
    [7, 'KRW', '7.00'],
    [100, 'ISK', '100.00'],
    [12300, 'CLF', '1.23'],
    [123456789012345678901n, 'USD', '1234567890123456789.01'],
  ] as const)('formatAmount(%s, %s) is %s', (minor, currency, wire) => {
    expect(formatAmount(minor, currency)).toBe(wire)
  })

  it.each([
    [-1, 'USD', 'minorUnits'],
    [10.5, 'USD', 'minorUnits'],
    [Number.NaN, 'USD', 'minorUnits'],
    [Number.POSITIVE_INFINITY, 'USD', 'minorUnits'],
    [2 ** 53, 'USD', 'minorUnits'],
    [-0, 'USD', 'minorUnits'],
    [-1n, 'USD', 'minorUnits'],
    [100, 'usd', 'currency'],
    [100, 'US Dollar', 'currency'],
    [100, '', 'currency'],
  ] as const)('refuses formatAmount(%s, %j), naming %s', (minor, currency, path) => {
    const error = (() => {
      try {
        formatAmount(minor, currency)
      } catch (e) {
        return e
      }
      return undefined
    })()
    expect(error).toBeInstanceOf(RequestValidationError)
    expect((error as RequestValidationError).issues.map((i) => i.path)).toEqual([path])
  })

  it('writes what the purchase rule accepts, for every currency of the table', async () => {
    const ctx = await setup()
    for (const currency of ['USD', 'JPY', 'KWD', 'ISK', 'CLF', 'UGX', 'XOF']) {
      await ctx.gw.checkout.purchase({
        order: { number: orderId(), amount: formatAmount(123400, currency), currency, description: 'Every currency' },
        ...urls,
      })
    }
    expect(ctx.server.requests).toHaveLength(7)
  })
})

describe('the amount rule on purchase order.amount', () => {
  it.each([
    ['10.5', 'USD', /positive amount with exactly two decimals, e\.g\. "10\.50"/],
    ['10', 'USD', /exactly two decimals/],
    ['10.000', 'USD', /exactly two decimals/],
    ['1000', 'JPY', /exactly two decimals, written with "\.00" \(JPY has no minor unit\)/],
    ['1000.50', 'JPY', /JPY has no minor unit/],
    ['10.500', 'KWD', /exactly two decimals/],
    ['100', 'ISK', /exactly two decimals/],
    ['010.00', 'USD', /exactly two decimals/],
    ['0.00', 'USD', /positive/],
    ['+1.00', 'USD', /exactly two decimals/],
    ['1e3', 'USD', /exactly two decimals/],
    [' 1.00', 'USD', /exactly two decimals/],
    ['1,00', 'EUR', /exactly two decimals/],
    ['１.００', 'USD', /exactly two decimals/],
  ])('refuses %j in %s before sending', async (amount, currency, rule) => {
    const ctx = await setup()
    const issues = await refused(ctx, purchase(ctx, amount, currency))
    expect(issues).toHaveLength(1)
    expect(issues[0]?.path).toBe('order.amount')
    expect(issues[0]?.message).toMatch(rule)
  })

  it.each([
    ['10.00', 'USD'],
    ['0.01', 'EUR'],
    ['1000.00', 'JPY'],
    ['10.50', 'KWD'],
    ['100.00', 'ISK'],
  ])('accepts %j in %s', async (amount, currency) => {
    const ctx = await setup()
    await purchase(ctx, amount, currency)
    expect(JSON.parse(ctx.server.requests[0]?.body ?? '').order.amount).toBe(amount)
  })

  it.each(['US Dollar', 'usd', 'US', 'USDT', ''])('refuses the currency %j, naming the rule', async (currency) => {
    const ctx = await setup()
    const issues = await refused(ctx, purchase(ctx, '10.00', currency))
    expect(issues).toContainEqual({
      path: 'order.currency',
      message: 'must be a three-letter ISO 4217 currency code in capitals, e.g. "USD"',
    })
  })

  it('reports the amount, the currency and the description together', async () => {
    const ctx = await setup()
    const issues = await refused(
      ctx,
      ctx.gw.checkout.purchase({
        order: { number: orderId(), amount: '1.5', currency: 'usd', description: 'x' },
        ...urls,
      }),
    )
    expect(issues.map((i) => i.path).sort()).toEqual(['order.amount', 'order.currency', 'order.description'])
  })

  it('refuses an empty customer name', async () => {
    const ctx = await setup()
    const issues = await refused(
      ctx,
      ctx.gw.checkout.purchase({
        order: { number: orderId(), amount: '10.00', currency: 'USD', description: 'Named' },
        ...urls,
        customer: { name: '' },
      }),
    )
    expect(issues).toEqual([{ path: 'customer.name', message: 'must not be empty' }])
  })
})

describe('the same rules on credit', () => {
  const credit = { order_id: 'r-1', order_description: 'Refund', card_token: 'tok', name: 'Ada Lovelace' }

  it.each([
    ['10.5', 'USD', 'order_amount'],
    ['10', 'USD', 'order_amount'],
    ['10.000', 'KWD', 'order_amount'],
    ['10.00', 'US Dollar', 'order_currency'],
  ])('refuses order_amount %j in %s (issue on %s)', async (order_amount, order_currency, path) => {
    const ctx = await setup()
    const issues = await refused(ctx, ctx.gw.checkout.credit({ ...credit, order_amount, order_currency }))
    expect(issues.map((i) => i.path)).toEqual([path])
  })

  it('refuses an empty name, and a missing one says "is required"', async () => {
    const ctx = await setup()
    const empty = await refused(
      ctx,
      ctx.gw.checkout.credit({ ...credit, name: '', order_amount: '1.00', order_currency: 'USD' }),
    )
    expect(empty).toEqual([{ path: 'name', message: 'must not be empty' }])
    const { name: _, ...withoutName } = credit
    const missing = await refused(
      ctx,
      // @ts-expect-error name is required
      ctx.gw.checkout.credit({ ...withoutName, order_amount: '1.00', order_currency: 'USD' }),
    )
    expect(missing).toEqual([{ path: 'name', message: 'is required' }])
  })
})

describe('the same rules on S2S amounts', () => {
  it.each(['10.5', '1e3', '-1.00', '0', '10.'])(
    'CAPTURE and CREDITVOID refuse the amount %j (no currency named)',
    async (amount) => {
      const ctx = await setup()
      const capture = await refused(ctx, ctx.gw.s2s.capture({ trans_id: 't', amount }))
      expect(capture.map((i) => i.path)).toEqual(['amount'])
      const creditVoid = await refused(ctx, ctx.gw.s2s.creditVoid({ trans_id: 't', amount }))
      expect(creditVoid.map((i) => i.path)).toEqual(['amount'])
    },
  )

  it('CAPTURE takes any currency form when the request names no currency', async () => {
    const ctx = await setup()
    const { trans_id } = await paidPayment(ctx, { amount: '10.00' })
    const captured = await ctx.gw.s2s.capture({ trans_id, amount: '5.00' })
    expect(captured.result).toBe('SUCCESS')
  })

  it('RECURRING_SALE checks order_amount against order_currency, and every form without it', async () => {
    const ctx = await setup()
    const sale = {
      order_id: orderId(),
      order_description: 'Monthly',
      recurring_first_trans_id: 't',
      recurring_token: 'r',
    }
    const withCurrency = await refused(
      ctx,
      ctx.gw.s2s.recurringSale({ ...sale, order_amount: '10.50', order_currency: 'JPY' }),
    )
    expect(withCurrency.map((i) => i.path)).toEqual(['order_amount'])
    const badCurrency = await refused(
      ctx,
      ctx.gw.s2s.recurringSale({ ...sale, order_amount: '10.00', order_currency: 'yen' }),
    )
    expect(badCurrency.map((i) => i.path)).toEqual(['order_currency'])
    const noCurrency = await refused(ctx, ctx.gw.s2s.recurringSale({ ...sale, order_amount: '10.5' }))
    expect(noCurrency.map((i) => i.path)).toEqual(['order_amount'])
  })
})
