/**
 * The simulator's clock faults: an authorisation left `pending` expires after `authorizationValidMs`
 * (rule States: the `expired` outcome; rule Platform 28: `void`, reason `Authorization expired`,
 * with a void callback), and a hosted page the payer abandons stays `prepare` with no callback.
 */

import { createTestClock } from '@paywire/core/testing'
import { describe, expect, it } from 'vitest'
import { CardGatewaySimulator, SIMULATOR_AUTHORIZATION_VALID_MS, TEST_CARDS } from '../src/testing/index.js'
import { form, gatewayError, orderId, paidPayment, type Setup, setup } from './helpers.js'

const DAY = 24 * 60 * 60 * 1000
const urls = { success_url: 'https://shop.example/ok', cancel_url: 'https://shop.example/cancel' }

function expiries(ctx: Setup) {
  return ctx.simulator.ledger.filter((e) => e.kind === 'expire')
}

describe('simulator: an authorisation expires after authorizationValidMs (rule Platform 28)', () => {
  it('is voided at 7 days by default, not one ms before; a signed void callback is produced', async () => {
    expect(SIMULATOR_AUTHORIZATION_VALID_MS).toBe(7 * DAY)
    const clock = createTestClock()
    const ctx = await setup({ sim: { clock } })
    const p = await paidPayment(ctx)
    clock.advance(7 * DAY - 1)
    expect(await ctx.gw.s2s.getTransStatus({ trans_id: p.trans_id })).toMatchObject({ status: 'PENDING' })
    expect(ctx.simulator.callbacks).toHaveLength(1)
    clock.advance(1)
    expect(await ctx.gw.s2s.getTransStatus({ trans_id: p.trans_id })).toMatchObject({ status: 'VOID' })
    expect(ctx.simulator.callbacks).toHaveLength(2)
    const body = ctx.simulator.callbacks[1] as string
    expect(form(body)).toMatchObject({
      id: p.payment_id,
      order_number: p.order_id,
      order_status: 'void',
      type: 'void',
      status: 'success',
      reason: 'Authorization expired',
    })
    expect(ctx.gw.callbacks.verify(body).id).toBe(p.payment_id)
    expect(expiries(ctx)).toMatchObject([{ kind: 'expire', trans_id: p.trans_id, order_id: p.order_id }])
  })

  it('CAPTURE after expiry is refused with 208003, as for any payment not pending (rule States 1)', async () => {
    const clock = createTestClock()
    const ctx = await setup({ sim: { clock } })
    const p = await paidPayment(ctx)
    clock.advance(7 * DAY)
    const error = await gatewayError(ctx.gw.s2s.capture({ trans_id: p.trans_id }))
    expect(error).toMatchObject({ code: 208003, reason: 'capture_not_pending' })
    expect(ctx.simulator.payment(p.trans_id)?.status).toBe('void')
    expect(ctx.simulator.ledger.some((e) => e.kind === 'capture')).toBe(false)
  })

  it.each([
    [
      'the Checkout status by payment_id',
      (ctx: Setup, p: { payment_id: string }) => ctx.gw.checkout.status({ payment_id: p.payment_id }),
    ],
    [
      'the Checkout status by order_id',
      (ctx: Setup, p: { order_id: string }) => ctx.gw.checkout.status({ order_id: p.order_id }),
    ],
    [
      'GET_TRANS_STATUS_BY_ORDER',
      (ctx: Setup, p: { order_id: string }) => ctx.gw.s2s.getTransStatusByOrder({ order_id: p.order_id }),
    ],
    [
      'VOID (refused: the payment is no longer pending)',
      (ctx: Setup, p: { trans_id: string }) => ctx.gw.s2s.void({ trans_id: p.trans_id }).catch(() => undefined),
    ],
    ['simulator.payment()', async (ctx: Setup, p: { trans_id: string }) => ctx.simulator.payment(p.trans_id)],
  ])('%s brings the payment up to date: void, once', async (_name, ask) => {
    const clock = createTestClock()
    const ctx = await setup({ sim: { clock } })
    const p = await paidPayment(ctx)
    clock.advance(8 * DAY)
    expect(ctx.simulator.payments[0]?.status).toBe('pending') // nothing asked yet: lazy
    await ask(ctx, p)
    await ask(ctx, p)
    expect(ctx.simulator.payments[0]?.status).toBe('void')
    expect(expiries(ctx)).toHaveLength(1)
    expect(ctx.simulator.callbacks.filter((b) => form(b)['reason'] === 'Authorization expired')).toHaveLength(1)
    expect(ctx.simulator.ledger.some((e) => e.kind === 'void')).toBe(false)
  })

  it('expireAuthorizations() expires every overdue authorisation and nothing else', async () => {
    const clock = createTestClock()
    const ctx = await setup({ sim: { clock, authorizationValidMs: 60_000 } })
    const old = await paidPayment(ctx)
    const settled = await paidPayment(ctx, { capture: true })
    const declined = await paidPayment(ctx, { expiry: TEST_CARDS.decline })
    const challenged = await paidPayment(ctx, { expiry: TEST_CARDS.threeDsSuccess })
    clock.advance(30_000)
    const fresh = await paidPayment(ctx)
    clock.advance(30_000)
    expect(ctx.simulator.expireAuthorizations().map((p) => p.trans_id)).toEqual([old.trans_id])
    expect(ctx.simulator.expireAuthorizations()).toEqual([])
    expect([old, settled, declined, challenged, fresh].map((p) => p.status)).toEqual([
      'void',
      'settled',
      'decline',
      '3ds',
      'pending',
    ])
    clock.advance(30_000)
    expect(ctx.simulator.expireAuthorizations().map((p) => p.trans_id)).toEqual([fresh.trans_id])
  })

  it('the age counts from the authorisation, not from the session', async () => {
    const clock = createTestClock()
    const ctx = await setup({ sim: { clock, authorizationValidMs: DAY } })
    const number = orderId()
    await ctx.gw.checkout.purchase({
      order: { number, amount: '10.00', currency: 'USD', description: 'Test' },
      ...urls,
    })
    clock.advance(2 * DAY)
    ctx.simulator.pay(number, { card: TEST_CARDS.number, expiry: TEST_CARDS.success })
    clock.advance(DAY - 1)
    expect(ctx.simulator.expireAuthorizations()).toEqual([])
    expect((await ctx.gw.s2s.capture({ trans_id: ctx.simulator.payments[0]?.trans_id as string })).status).toBe(
      'SETTLED',
    )
  })

  it('authorizationValidMs: Infinity never expires; 0, a negative or NaN is refused', () => {
    const clock = createTestClock()
    const simulator = new CardGatewaySimulator({ clock, authorizationValidMs: Number.POSITIVE_INFINITY })
    simulator.payments.push(pendingPayment(clock.now()))
    clock.advance(10_000 * DAY)
    expect(simulator.expireAuthorizations()).toEqual([])
    for (const bad of [0, -1, Number.NaN]) {
      expect(() => new CardGatewaySimulator({ authorizationValidMs: bad })).toThrow(RangeError)
    }
  })
})

describe('simulator: a hosted page the payer abandons', () => {
  it('stays prepare for a month: the status lookup keeps answering prepare, and no callback is sent', async () => {
    const clock = createTestClock()
    const ctx = await setup({ sim: { clock } })
    const number = orderId()
    await ctx.gw.checkout.purchase({
      order: { number, amount: '10.00', currency: 'USD', description: 'Test' },
      ...urls,
    })
    for (let day = 0; day < 30; day += 1) {
      clock.advance(DAY)
      expect(await ctx.gw.checkout.status({ order_id: number })).toMatchObject({ status: 'prepare' })
    }
    expect(await ctx.gw.s2s.getTransStatusByOrder({ order_id: number })).toMatchObject({ status: 'PREPARE' })
    expect(ctx.simulator.expireAuthorizations()).toEqual([])
    expect(ctx.simulator.callbacks).toEqual([])
  })
})

/** A pending payment record, authorised at `at`. */
function pendingPayment(at: number) {
  return {
    payment_id: 'p-1',
    trans_id: 't-1',
    order_id: 'o-1',
    amount: '1.00',
    currency: 'USD',
    description: 'd',
    status: 'pending' as const,
    card_token: undefined,
    recurring_token: undefined,
    tokenise: false,
    recurringInit: false,
    captureFails: false,
    captureOnSuccess: false,
    declineAfter3ds: false,
    capturedAmount: undefined,
    createdAt: at,
    authorizedAt: at,
  }
}
