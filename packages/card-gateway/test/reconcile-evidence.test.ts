/**
 * `applied` only on a record that really is the operation reconciled (issue 26, card reconcile
 * hole): a gateway (or a proxy in front of it) whose status lookup answers an empty object, `null`,
 * a page that is not JSON, the record of another order or transaction, or the record of another
 * kind of operation must leave the outcome `still_unknown` with the reason — never `applied`, and
 * never a rejection. The call itself is booked by the simulator and its answer lost; only the
 * lookup is made to misbehave, on a real loopback server through the real transport.
 */

import { type Intent, MemoryIntentStore, type PaywireError, RequestValidationError } from '@paywire/core'
import { HttpResponse, http } from 'msw'
import { describe, expect, it } from 'vitest'
import { orderId, paidPayment, rejection, type Setup, secondClient, setup } from './helpers.js'

const urls = { success_url: 'https://shop.example/ok', cancel_url: 'https://shop.example/cancel' }

async function lostAnswer(ctx: Setup, path: string, call: () => Promise<unknown>): Promise<PaywireError> {
  ctx.simulator.failNext({ path, when: 'after' })
  const error = (await rejection(call())) as PaywireError
  expect(error.outcomeUnknown).toBe(true)
  return error
}

type Answer = () => Response

/** Every answer a lookup must not take as proof: each one gives `still_unknown`. */
const unreadable: [string, Answer][] = [
  ['an empty object', () => HttpResponse.json({})],
  ['null', () => HttpResponse.json(null)],
  ['an array', () => HttpResponse.json([])],
  ['a record without any status', () => HttpResponse.json({ note: 'no status member' })],
  ['a page that is not JSON', () => HttpResponse.text('<html>maintenance</html>')],
  ['an empty body', () => new HttpResponse(null, { status: 200 })],
]

/** Makes the Checkout status lookup answer `answer`. */
function checkoutStatusAnswers(ctx: Setup, answer: Answer): void {
  ctx.server.use(http.post('*/api/v1/payment/status', answer))
}

/** Makes the S2S action `action` (a lookup) answer `answer`; every other action reaches the simulator. */
function s2sAnswers(ctx: Setup, action: string, answer: Answer): void {
  ctx.server.use(
    http.post('*/post', async ({ request }) => {
      const sent = new URLSearchParams(await request.clone().text())
      return sent.get('action') === action ? answer() : undefined
    }),
  )
}

async function lostPurchase(ctx: Setup): Promise<{ error: PaywireError; number: string }> {
  const number = orderId()
  const error = await lostAnswer(ctx, '/api/v1/session', () =>
    ctx.gw.checkout.purchase({
      order: { number, amount: '10.00', currency: 'USD', description: 'Lost answer' },
      ...urls,
    }),
  )
  return { error, number }
}

async function lostRecurringSale(ctx: Setup): Promise<{ error: PaywireError; order_id: string }> {
  const first = await paidPayment(ctx, { capture: true, recurring: true })
  const order_id = orderId('rec')
  const error = await lostAnswer(ctx, '/post', () =>
    ctx.gw.s2s.recurringSale({
      order_id,
      order_amount: '5.00',
      order_description: 'Monthly',
      recurring_first_trans_id: first.trans_id,
      recurring_token: first.recurring_token as string,
    }),
  )
  return { error, order_id }
}

async function lostCredit(ctx: Setup): Promise<{ error: PaywireError; order_id: string }> {
  const { order_id: paid } = await paidPayment(ctx, { capture: true, reqToken: true })
  const { card_token } = await ctx.gw.checkout.status({ order_id: paid })
  const order_id = orderId('refund')
  const error = await lostAnswer(ctx, '/api/v1/payment/card/credit', () =>
    ctx.gw.checkout.credit({
      order_id,
      order_amount: '5.00',
      order_currency: 'USD',
      order_description: 'Refund',
      card_token: card_token as string,
      name: 'Ada Lovelace',
    }),
  )
  return { error, order_id }
}

describe('a status answer that cannot be read proves nothing: still_unknown, never applied, never a rejection', () => {
  it.each(unreadable)('purchase: the status lookup answers %s', async (_, answer) => {
    const ctx = await setup()
    const { error } = await lostPurchase(ctx)
    checkoutStatusAnswers(ctx, answer)
    const result = await ctx.gw.reconcile(error)
    expect(result.outcome).toBe('still_unknown')
    expect(result.evidence).toMatch(/status lookup/)
    expect(result.next).toBeTruthy()
  })

  it.each(unreadable)('credit: the status lookup answers %s', async (_, answer) => {
    const ctx = await setup()
    const { error } = await lostCredit(ctx)
    checkoutStatusAnswers(ctx, answer)
    expect((await ctx.gw.reconcile(error)).outcome).toBe('still_unknown')
  })

  it.each(unreadable)('recurring sale: GET_TRANS_STATUS_BY_ORDER answers %s', async (_, answer) => {
    const ctx = await setup()
    const { error } = await lostRecurringSale(ctx)
    s2sAnswers(ctx, 'GET_TRANS_STATUS_BY_ORDER', answer)
    const result = await ctx.gw.reconcile(error)
    expect(result.outcome).toBe('still_unknown')
    expect(result.evidence).toMatch(/GET_TRANS_STATUS_BY_ORDER/)
  })

  it.each(unreadable)('capture: GET_TRANS_STATUS answers %s', async (_, answer) => {
    const ctx = await setup()
    const { trans_id } = await paidPayment(ctx)
    const error = await lostAnswer(ctx, '/post', () => ctx.gw.s2s.capture({ trans_id }))
    s2sAnswers(ctx, 'GET_TRANS_STATUS', answer)
    // Even long after the call: an answer that says nothing is not "not applied" either.
    const result = await ctx.gw.reconcile(error, { settleAfterMs: 0 })
    expect(result.outcome).toBe('still_unknown')
    expect(result.evidence).toMatch(/GET_TRANS_STATUS/)
  })
})

describe('a record of another order, transaction or operation is not the call reconciled', () => {
  it('purchase: the status lookup answers the record of another order', async () => {
    const ctx = await setup()
    const { error } = await lostPurchase(ctx)
    checkoutStatusAnswers(ctx, () =>
      HttpResponse.json({ payment_id: 'p-9', status: 'settled', order: { number: 'someone-else', amount: '10.00' } }),
    )
    const result = await ctx.gw.reconcile(error)
    expect(result.outcome).toBe('still_unknown')
    expect(result.evidence).toMatch(/does not name order/)
  })

  it('purchase: a record without order.number does not name the order', async () => {
    const ctx = await setup()
    const { error } = await lostPurchase(ctx)
    checkoutStatusAnswers(ctx, () => HttpResponse.json({ payment_id: 'p-9', status: 'settled' }))
    expect((await ctx.gw.reconcile(error)).outcome).toBe('still_unknown')
  })

  it.each(['credit', 'recurring'])('purchase: the record under this order_id is a %s, not a purchase', async (type) => {
    const ctx = await setup()
    const { error, number } = await lostPurchase(ctx)
    checkoutStatusAnswers(ctx, () =>
      HttpResponse.json({ payment_id: 'p-9', type, status: 'settled', order: { number, amount: '10.00' } }),
    )
    const result = await ctx.gw.reconcile(error)
    expect(result.outcome).toBe('still_unknown')
    expect(result.evidence).toMatch(new RegExp(`a ${type}`))
  })

  it('credit: the record under this order_id is a sale, not a credit', async () => {
    const ctx = await setup()
    const { error, order_id } = await lostCredit(ctx)
    checkoutStatusAnswers(ctx, () =>
      HttpResponse.json({ payment_id: 'p-9', type: 'sale', status: 'settled', order: { number: order_id } }),
    )
    expect((await ctx.gw.reconcile(error)).outcome).toBe('still_unknown')
  })

  it('credit: a record without a status proves nothing', async () => {
    const ctx = await setup()
    const { error, order_id } = await lostCredit(ctx)
    checkoutStatusAnswers(ctx, () => HttpResponse.json({ payment_id: 'p-9', order: { number: order_id } }))
    expect((await ctx.gw.reconcile(error)).outcome).toBe('still_unknown')
  })

  it('recurring sale: GET_TRANS_STATUS_BY_ORDER answers the record of another order', async () => {
    const ctx = await setup()
    const { error } = await lostRecurringSale(ctx)
    s2sAnswers(ctx, 'GET_TRANS_STATUS_BY_ORDER', () =>
      HttpResponse.json({
        action: 'GET_TRANS_STATUS_BY_ORDER',
        result: 'SUCCESS',
        status: 'SETTLED',
        order_id: 'other',
      }),
    )
    const result = await ctx.gw.reconcile(error)
    expect(result.outcome).toBe('still_unknown')
    expect(result.evidence).toMatch(/does not name order_id/)
  })

  it('recurring sale: the record under this order_id is of another action (a CREDITVOID)', async () => {
    const ctx = await setup()
    const { error, order_id } = await lostRecurringSale(ctx)
    s2sAnswers(ctx, 'GET_TRANS_STATUS_BY_ORDER', () =>
      HttpResponse.json({ action: 'CREDITVOID', result: 'SUCCESS', status: 'REFUND', order_id, trans_id: 't-1' }),
    )
    expect((await ctx.gw.reconcile(error)).outcome).toBe('still_unknown')
  })

  it('capture: GET_TRANS_STATUS answers SETTLED for another transaction', async () => {
    const ctx = await setup()
    const { trans_id } = await paidPayment(ctx)
    const error = await lostAnswer(ctx, '/post', () => ctx.gw.s2s.capture({ trans_id }))
    s2sAnswers(ctx, 'GET_TRANS_STATUS', () =>
      HttpResponse.json({ action: 'GET_TRANS_STATUS', result: 'SUCCESS', status: 'SETTLED', trans_id: 'other' }),
    )
    const result = await ctx.gw.reconcile(error, { settleAfterMs: 0 })
    expect(result.outcome).toBe('still_unknown')
    expect(result.evidence).toMatch(/does not name trans_id/)
  })

  it('void: GET_TRANS_STATUS answers PENDING for another transaction: not not_applied either', async () => {
    const ctx = await setup()
    const { trans_id } = await paidPayment(ctx)
    const error = await lostAnswer(ctx, '/post', () => ctx.gw.s2s.void({ trans_id }))
    s2sAnswers(ctx, 'GET_TRANS_STATUS', () =>
      HttpResponse.json({ result: 'SUCCESS', status: 'PENDING', trans_id: 'x' }),
    )
    expect((await ctx.gw.reconcile(error, { settleAfterMs: 0 })).outcome).toBe('still_unknown')
  })

  it('the real records still settle: purchase, credit, recurring sale and capture are applied', async () => {
    const ctx = await setup()
    expect((await ctx.gw.reconcile((await lostPurchase(ctx)).error)).outcome).toBe('applied')
    expect((await ctx.gw.reconcile((await lostCredit(ctx)).error)).outcome).toBe('applied')
    expect((await ctx.gw.reconcile((await lostRecurringSale(ctx)).error)).outcome).toBe('applied')
    const { trans_id } = await paidPayment(ctx)
    // On a connection of its own: on a kept-alive one the lost answer is settled at once instead.
    const capture = await lostAnswer(ctx, '/post', () => secondClient(ctx).s2s.capture({ trans_id }))
    expect((await ctx.gw.reconcile(capture)).outcome).toBe('applied')
  })
})

describe('reconcile() goes through core reconcileSubject with the client service and clock', () => {
  it('an intent of another service is refused, and nothing is looked up', async () => {
    const journal = new MemoryIntentStore()
    const ctx = await setup({ client: { journal } })
    const foreign: Intent = {
      id: 'intent-1',
      service: 'remittance',
      operation: 's2s.capture',
      params: {},
      reconciliation: { key: 'trans_id', value: 't-1', lookup: 'x' },
      idempotencyKey: undefined,
      createdAt: Date.now() - 1_000,
    }
    const error = await rejection(ctx.gw.reconcile(foreign))
    expect(error).toBeInstanceOf(RequestValidationError)
    expect((error as Error).message).toMatch(/intent of remittance, not of card-gateway/)
    expect(ctx.server.requests).toHaveLength(0)
  })
})
