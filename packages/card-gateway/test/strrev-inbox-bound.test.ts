/**
 * The `card-md5-strrev` inbox from the attacker's side, against the strrev simulator: that scheme's
 * S2S callback hash covers the trans_id and the payer only, so a callback's state, action and
 * amounts are claims. The inbox must never file a claimed later state under a key already done, never
 * run an edited replay as a refund of a payment that cannot have one, never run one refund twice; a
 * refund no CREDITVOID of this client explains carries a doubt; `foldPayment` reads S2S callbacks;
 * and a lost RECURRING_SALE is settled, never thrown, on a scheme that cannot sign its lookup.
 */

import type { Intent } from '@paywire/core'
import { createTestClock } from '@paywire/core/testing'
import { describe, expect, it } from 'vitest'
import {
  type CallbackEvent,
  type CallbackHandler,
  CardGateway,
  type CardGatewayOptions,
  DeadLetterError,
  foldPayment,
  type PayerCard,
} from '../src/index.js'
import { TEST_CARDS } from '../src/testing/index.js'
import { orderId, setup } from './helpers.js'

const EMAIL = 'payer@shop.example'
const CARD: PayerCard = { email: EMAIL, cardFirst6: '411111', cardLast4: '1111' }

/** A strrev simulator, its client (no retries), and a paid, authorised (PENDING) payment. */
async function strrevPayment(client: Partial<CardGatewayOptions> = {}) {
  const ctx = await setup({ sim: { signature: 'card-md5-strrev' } })
  const gw = new CardGateway({ ...ctx.clientOptions, maxRetries: 0, payerLookup: () => CARD, ...client })
  const number = orderId('strrev')
  await gw.checkout.purchase({
    order: { number, amount: '10.00', currency: 'USD', description: 'Test order' },
    customer: { name: 'Payer', email: EMAIL },
    success_url: 'https://shop.example/ok',
    cancel_url: 'https://shop.example/cancel',
  })
  const paid = ctx.simulator.pay(number, { card: TEST_CARDS.number, expiry: TEST_CARDS.success })
  return { ...ctx, gw, paid, number }
}

/** The last S2S callback the simulator signed: a genuine body an attacker can capture and replay. */
function lastS2s(callbacks: readonly string[]): string {
  const body = callbacks.findLast((b) => b.startsWith('action='))
  if (body === undefined) throw new Error('no S2S callback was sent')
  return body
}

/** The same body with some fields edited, the hash kept (it does not cover them). */
function edited(body: string, changes: Record<string, string>): string {
  const params = new URLSearchParams(body)
  for (const [name, value] of Object.entries(changes)) params.set(name, value)
  return params.toString()
}

function inbox(gw: CardGateway, maxAttempts = 8) {
  const events: CallbackEvent[] = []
  const errors: unknown[] = []
  const clock = createTestClock()
  const handler: CallbackHandler = gw.callbacks.handler({
    clock,
    maxAttempts,
    recoverEveryMs: 0,
    onEvent: (event) => void events.push(event),
    onError: (error) => errors.push(error),
  })
  /** Delivers, then lets recovery run whatever came due, `rounds` times (each a backoff later). */
  const deliver = async (body: string, rounds = 0) => {
    expect((await handler.handle(body)).status).toBe(200)
    await handler.drain()
    for (let i = 0; i < rounds; i++) {
      clock.advance(15 * 60 * 1000)
      await handler.recover()
    }
  }
  return { handler, events, errors, clock, deliver }
}

const messages = (errors: unknown[]) => errors.map((e) => String((e as Error).message))

describe('card-md5-strrev: a callback is filed by the state the gateway confirms, never by its claim', () => {
  it('a CAPTURE callback arriving while the lookup still says PENDING is not dropped as a repeat of the authorisation: its lookup is repeated until the gateway catches up', async () => {
    const ctx = await strrevPayment()
    const { deliver, events, handler, clock } = inbox(ctx.gw)
    // The authorisation's state, PENDING, is confirmed and done first.
    const pending = edited(await captureCallbackOf(ctx), { action: 'SALE', status: 'PENDING' })
    ctx.simulator.setStatus(ctx.paid.trans_id, 'pending')
    await deliver(pending)
    expect(events.map((e) => e.status)).toEqual(['PENDING'])
    // The capture's callback comes while the gateway's status answer still lags at PENDING.
    const capture = await captureCallbackOf(ctx)
    await deliver(capture)
    expect(events.map((e) => e.status)).toEqual(['PENDING']) // not run: the claim is not confirmed yet
    // The gateway catches up: the next round confirms SETTLED and runs it.
    ctx.simulator.setStatus(ctx.paid.trans_id, 'settled')
    clock.advance(15 * 60 * 1000)
    await handler.recover()
    expect(events.map((e) => e.status)).toEqual(['PENDING', 'SETTLED'])
  })

  it('a claimed later state the gateway never reaches is reported stuck (a dead letter after maxAttempts), never dropped and never run', async () => {
    const ctx = await strrevPayment()
    const { deliver, events, errors } = inbox(ctx.gw, 3)
    const capture = await captureCallbackOf(ctx)
    ctx.simulator.setStatus(ctx.paid.trans_id, 'pending') // the gateway says PENDING for ever
    await deliver(capture, 3)
    expect(events).toEqual([])
    const dead = errors.filter((e) => e instanceof DeadLetterError)
    expect(dead).toHaveLength(1)
    expect(messages(errors).join('\n')).toMatch(/claims SETTLED, and the gateway's status lookup still says PENDING/)
  })

  it('a replay edited into a refund of a PENDING or VOID payment is not run as a refund, and says why', async () => {
    const ctx = await strrevPayment()
    const { deliver, events, errors } = inbox(ctx.gw)
    const genuine = await captureCallbackOf(ctx)
    ctx.simulator.setStatus(ctx.paid.trans_id, 'pending')
    await deliver(edited(genuine, { action: 'CREDITVOID', result: 'SUCCESS', status: 'REFUND', amount: '10.00' }))
    ctx.simulator.setStatus(ctx.paid.trans_id, 'void')
    await deliver(edited(genuine, { action: 'CREDITVOID', result: 'SUCCESS', status: 'SETTLED', amount: '4.00' }))
    expect(events.filter((e) => e.action === 'CREDITVOID')).toEqual([])
    expect(messages(errors).filter((m) => /not a refund/.test(m))).toHaveLength(2)
    const state = foldPayment(
      events.map((event, at) => ({ event, at })),
      { now: 0 },
    )
    expect(state.refundedAmount).toBeUndefined()
  })

  it('a refund callback no CREDITVOID of this client explains carries refundDoubt; one it sent does not', async () => {
    const ctx = await strrevPayment()
    await ctx.gw.s2s.capture({ trans_id: ctx.paid.trans_id })
    const { deliver, events } = inbox(ctx.gw)
    await ctx.gw.s2s.creditVoid({ trans_id: ctx.paid.trans_id, amount: '3.00' })
    const sent = lastS2s(ctx.simulator.callbacks)
    await deliver(sent)
    // The same genuine body replayed with another amount: the hash still verifies.
    await deliver(edited(sent, { amount: '6.00' }))
    const refunds = events.filter((e) => e.action === 'CREDITVOID')
    expect(refunds.map((e) => [e.amount, e.refundDoubt === undefined])).toEqual([
      ['3.00', true],
      ['6.00', false],
    ])
    expect(refunds[1]?.refundDoubt).toMatch(/no CREDITVOID this client sent/)
    const state = foldPayment(
      events.map((event, at) => ({ event, at })),
      { now: 0 },
    )
    expect(state.refundDoubt).toMatch(/no CREDITVOID this client sent/)
  })

  it('an identical redelivery of one refund runs once, even after a later refund changed the payment’s state', async () => {
    const ctx = await strrevPayment()
    await ctx.gw.s2s.capture({ trans_id: ctx.paid.trans_id })
    const { deliver, events } = inbox(ctx.gw)
    await ctx.gw.s2s.creditVoid({ trans_id: ctx.paid.trans_id, amount: '4.00' })
    const first = lastS2s(ctx.simulator.callbacks)
    await deliver(first)
    await ctx.gw.s2s.creditVoid({ trans_id: ctx.paid.trans_id, amount: '6.00' })
    await deliver(lastS2s(ctx.simulator.callbacks))
    await deliver(first) // the first refund's callback again, now that the payment is REFUND
    expect(events.filter((e) => e.action === 'CREDITVOID').map((e) => e.amount)).toEqual(['4.00', '6.00'])
  })
})

describe('foldPayment over S2S callbacks', () => {
  it('reads the S2S status: SETTLED confirmed by a lookup is final; a status only an unsigned field claims is not', async () => {
    const ctx = await strrevPayment()
    await ctx.gw.s2s.capture({ trans_id: ctx.paid.trans_id })
    const { deliver, events } = inbox(ctx.gw)
    await deliver(lastS2s(ctx.simulator.callbacks))
    const confirmed = foldPayment([{ event: events[0] as CallbackEvent, at: 0 }], { now: 0 })
    expect(confirmed).toMatchObject({ status: 'settled', final: true })
    const claimed = ctx.gw.callbacks.verify(lastS2s(ctx.simulator.callbacks))
    expect(claimed.authenticated).toBe('transaction-only')
    expect(foldPayment([{ event: claimed, at: 0 }], { now: 0 })).toMatchObject({ status: 'settled', final: false })
  })
})

describe('reconcile on a scheme that cannot sign the lookup', () => {
  it('a lost RECURRING_SALE on card-md5-strrev (no published GET_TRANS_STATUS_BY_ORDER formula) is not_reconcilable with what to do, never a throw', async () => {
    const ctx = await strrevPayment()
    const intent: Intent = {
      id: 'recurring-strrev',
      service: 'card-gateway',
      operation: 's2s.recurringSale',
      params: { order_id: 'sub-1', order_amount: '5.00', order_description: 'Monthly' },
      reconciliation: {
        key: 'order_id',
        value: 'sub-1',
        lookup: 'gw.s2s.getTransStatusByOrder({ order_id: "sub-1" })',
      },
      idempotencyKey: undefined,
      createdAt: Date.now() - 10 * 60 * 1000,
    }
    const result = await ctx.gw.reconcile(intent)
    expect(result.outcome).toBe('not_reconcilable')
    expect(result.evidence).toMatch(/card-md5-strrev scheme publishes no signature for GET_TRANS_STATUS_BY_ORDER/)
    expect(result.next).toMatch(/admin portal/)
  })
})

/** Captures the payment and answers the CAPTURE callback the simulator sent. */
async function captureCallbackOf(ctx: Awaited<ReturnType<typeof strrevPayment>>): Promise<string> {
  if (!ctx.simulator.callbacks.some((b) => b.startsWith('action=CAPTURE'))) {
    await ctx.gw.s2s.capture({ trans_id: ctx.paid.trans_id })
  }
  return ctx.simulator.callbacks.findLast((b) => b.startsWith('action=CAPTURE')) as string
}
