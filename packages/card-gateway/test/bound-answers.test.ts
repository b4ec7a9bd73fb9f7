/**
 * Bound answers at the card gateway, from the attacker's side (rule Platform 27): a misbehaving
 * gateway, proxy or cache answers a lookup, or a money-moving call, with the record of another
 * transaction, order or payment. Through the real undici transport, the answer must not be
 * believed: a lookup fails with `unbound_response` and confirms nothing; a money-moving call's
 * outcome is unknown, with its reconciliation key; CAPTURE is never sent on another's state.
 */

import { faults } from '@paywire/core/testing'
import { describe, expect, it } from 'vitest'
import { type CardGateway, CardGatewayError } from '../src/index.js'
import { CREDIT, faultGateway, form, gatewayError, orderId, paidPayment, setup } from './helpers.js'

/** T2's record: what a gateway answers about another transaction. */
const T2 = {
  action: 'GET_TRANS_STATUS',
  result: 'SUCCESS',
  status: 'SETTLED',
  trans_id: 'T2',
  order_id: 'ORDER-2',
  amount: '99.00',
  currency: 'USD',
}

/** A lookup's request and the answer field that must repeat it. */
const lookups = [
  {
    name: 's2s.getTransStatus',
    call: (gw: CardGateway) => gw.s2s.getTransStatus({ trans_id: 'T1' }),
    field: 'trans_id',
    sent: 'T1',
    answer: (value: unknown) => ({ ...T2, trans_id: value }),
  },
  {
    name: 's2s.getTransStatusByOrder',
    call: (gw: CardGateway) => gw.s2s.getTransStatusByOrder({ order_id: 'ORDER-1' }),
    field: 'order_id',
    sent: 'ORDER-1',
    answer: (value: unknown) => ({ ...T2, action: 'GET_TRANS_STATUS_BY_ORDER', order_id: value }),
  },
  {
    name: 'checkout.status',
    call: (gw: CardGateway) => gw.checkout.status({ payment_id: 'PAY-1' }),
    field: 'payment_id',
    sent: 'PAY-1',
    answer: (value: unknown) => ({ payment_id: value, status: 'settled', order: { number: 'ORDER-2' } }),
  },
  {
    name: 'checkout.status',
    call: (gw: CardGateway) => gw.checkout.status({ order_id: 'ORDER-1' }),
    field: 'order.number',
    sent: 'ORDER-1',
    answer: (value: unknown) => ({ payment_id: 'PAY-2', status: 'settled', order: { number: value } }),
  },
]

/** Each way an answer can name something other than the subject asked for. */
const others = [
  { what: 'another subject', value: 'OTHER-2', named: '"OTHER-2"' },
  {
    what: 'the subject with a trailing space',
    value: (sent: string) => `${sent} `,
    named: (sent: string) => `"${sent} "`,
  },
  {
    what: 'the subject in lower case',
    value: (sent: string) => sent.toLowerCase(),
    named: (sent: string) => `"${sent.toLowerCase()}"`,
  },
] as const

describe('a lookup answer that does not name the subject asked for confirms nothing', () => {
  for (const lookup of lookups) {
    for (const other of others) {
      it(`${lookup.name} by ${lookup.field} answered naming ${other.what}: unbound_response, outcome known`, async () => {
        const value = typeof other.value === 'function' ? other.value(lookup.sent) : other.value
        const named = typeof other.named === 'function' ? other.named(lookup.sent) : other.named
        const { gw, server } = await faultGateway(faults.json(200, lookup.answer(value)))
        const error = await gatewayError(lookup.call(gw))
        expect(error).toBeInstanceOf(CardGatewayError)
        expect(error).toMatchObject({ status: 200, code: undefined, reason: 'unbound_response', outcomeUnknown: false })
        expect(error.message).toBe(
          `${lookup.name}: the HTTP 200 answer is not about this request: it names ${lookup.field} ${named}, not the ${JSON.stringify(lookup.sent)} this call sent (rule Platform 27); act on none of it, and look the subject up again.`,
        )
        // A lookup is safe to repeat, but an answer about something else is not a transport fault: not retried.
        expect(server.requests).toHaveLength(1)
      })
    }

    it(`${lookup.name} by ${lookup.field} answered a record naming no ${lookup.field}: unbound_response`, async () => {
      const record = lookup.answer('x') as Record<string, unknown>
      const without =
        lookup.field === 'order.number'
          ? { ...record, order: { amount: '10.00' } }
          : { ...record, [lookup.field]: null }
      const { gw } = await faultGateway(faults.json(200, without))
      const error = await gatewayError(lookup.call(gw))
      expect(error).toMatchObject({ status: 200, reason: 'unbound_response', outcomeUnknown: false })
      expect(error.message).toBe(
        `${lookup.name}: the HTTP 200 answer is not about this request: it names no ${lookup.field}, so nothing binds it to the ${JSON.stringify(lookup.sent)} this call sent (rule Platform 27); act on none of it, and look the subject up again.`,
      )
    })
  }

  it('an empty record names nothing either: unbound_response', async () => {
    const { gw } = await faultGateway(faults.json(200, {}))
    const error = await gatewayError(gw.s2s.getTransStatus({ trans_id: 'T1' }))
    expect(error).toMatchObject({ status: 200, reason: 'unbound_response' })
    expect(error.message).toMatch(/names no trans_id/)
  })

  it('a record that names the subject exactly is the answer (a number is read as its decimal text)', async () => {
    const { gw } = await faultGateway(faults.json(200, { ...T2, trans_id: 1001 }))
    expect(await gw.s2s.getTransStatus({ trans_id: '1001' })).toMatchObject({ trans_id: '1001', status: 'SETTLED' })
  })
})

describe('captureIfPending never decides on another transaction’s state', () => {
  it('the lookup answers T2’s SETTLED record for T1: it fails with unbound_response, and CAPTURE is not sent', async () => {
    const { gw, server } = await faultGateway(faults.json(200, T2))
    const error = await gatewayError(gw.s2s.captureIfPending({ trans_id: 'T1' }))
    expect(error).toMatchObject({ status: 200, reason: 'unbound_response', operation: 's2s.getTransStatus' })
    expect(server.requests.map((r) => form(r.body)['action'])).toEqual(['GET_TRANS_STATUS'])
  })

  it('the lookup answers T2’s PENDING record for T1: CAPTURE of T1 is never sent on it', async () => {
    const { gw, server } = await faultGateway(faults.json(200, { ...T2, status: 'PENDING' }))
    const error = await gatewayError(gw.s2s.captureIfPending({ trans_id: 'T1' }))
    expect(error.reason).toBe('unbound_response')
    expect(server.requests.map((r) => form(r.body)['action'])).toEqual(['GET_TRANS_STATUS'])
  })

  it('against the simulator, a pending payment whose lookup names it is captured as before', async () => {
    const ctx = await setup()
    const paid = await paidPayment(ctx)
    const result = await ctx.gw.s2s.captureIfPending({ trans_id: paid.trans_id })
    expect(result.captured).toBe(true)
  })
})

/** Each money-moving call, the identifier its answer must not name otherwise, and its reconciliation key. */
const moneyCalls = [
  {
    name: 's2s.capture',
    call: (gw: CardGateway) => gw.s2s.capture({ trans_id: 'T1' }),
    answer: { action: 'CAPTURE', result: 'SUCCESS', status: 'SETTLED', trans_id: 'T2' },
    field: 'trans_id',
    named: '"T2"',
    sent: '"T1"',
    key: { key: 'trans_id', value: 'T1' },
    lookup: 'gw.s2s.getTransStatus({ trans_id: "T1" })',
  },
  {
    name: 's2s.void',
    call: (gw: CardGateway) => gw.s2s.void({ trans_id: 'T1' }),
    answer: { action: 'VOID', result: 'SUCCESS', status: 'VOID', trans_id: 'T2' },
    field: 'trans_id',
    named: '"T2"',
    sent: '"T1"',
    key: { key: 'trans_id', value: 'T1' },
    lookup: 'gw.s2s.getTransStatus({ trans_id: "T1" })',
  },
  {
    name: 's2s.creditVoid',
    call: (gw: CardGateway) => gw.s2s.creditVoid({ trans_id: 'T1' }),
    answer: { action: 'CREDITVOID', result: 'ACCEPTED', trans_id: 'T1 ' },
    field: 'trans_id',
    named: '"T1 "',
    sent: '"T1"',
    key: { key: 'trans_id', value: 'T1' },
    lookup: 'gw.s2s.getTransStatus({ trans_id: "T1" })',
  },
  {
    name: 's2s.recurringSale',
    call: (gw: CardGateway) =>
      gw.s2s.recurringSale({
        order_id: 'rec-1',
        order_amount: '5.00',
        order_description: 'Monthly',
        recurring_first_trans_id: 't-1',
        recurring_token: 'rt',
      }),
    answer: { action: 'RECURRING_SALE', result: 'SUCCESS', status: 'SETTLED', order_id: 'REC-1', trans_id: 'T9' },
    field: 'order_id',
    named: '"REC-1"',
    sent: '"rec-1"',
    key: { key: 'order_id', value: 'rec-1' },
    lookup: 'gw.s2s.getTransStatusByOrder({ order_id: "rec-1" })',
  },
  {
    name: 'checkout.credit',
    call: (gw: CardGateway) => gw.checkout.credit(CREDIT),
    answer: { result: 'SUCCESS', status: 'refund', order_id: 'ref-2' },
    field: 'order_id',
    named: '"ref-2"',
    sent: '"ref-1"',
    key: { key: 'order_id', value: 'ref-1' },
    lookup: 'gw.checkout.status({ order_id: "ref-1" })',
  },
]

describe('a money-moving call answered success for another transaction is an unknown outcome, never a success', () => {
  it.each(moneyCalls)('$name answered with $field $named: unbound_response, outcomeUnknown, its key', async (c) => {
    const { gw, server } = await faultGateway(faults.json(200, c.answer))
    const error = await gatewayError(c.call(gw))
    expect(error).toBeInstanceOf(CardGatewayError)
    expect(error).toMatchObject({
      status: 200,
      code: undefined,
      reason: 'unbound_response',
      outcomeUnknown: true,
      reconciliation: c.key,
    })
    expect(error.message).toBe(
      `${c.name}: the HTTP 200 answer is not about this request: it names ${c.field} ${c.named}, not the ${c.sent} this call sent (rule Platform 27); act on none of it. Outcome unknown: the service may have acted on this ${c.name}; reconcile with ${c.lookup} before repeating it.`,
    )
    expect(server.requests).toHaveLength(1)
  })

  it.each(moneyCalls)(
    '$name answered success naming no identifier: accepted as before (success bodies are not published)',
    async (c) => {
      const { [c.field]: _named, ...anonymous } = c.answer as Record<string, unknown>
      const { gw } = await faultGateway(faults.json(200, anonymous))
      expect(await c.call(gw)).toMatchObject({ result: c.answer.result })
    },
  )

  it('the simulator’s own answers name the very transaction: capture, void, refund and recurring sale succeed', async () => {
    const ctx = await setup()
    const paid = await paidPayment(ctx, { recurring: true })
    expect(await ctx.gw.s2s.capture({ trans_id: paid.trans_id })).toMatchObject({ trans_id: paid.trans_id })
    const sale = await ctx.gw.s2s.recurringSale({
      order_id: orderId('rec'),
      order_amount: '5.00',
      order_description: 'Monthly',
      recurring_first_trans_id: paid.trans_id,
      recurring_token: paid.recurring_token as string,
    })
    expect(sale.result).toBe('SUCCESS')
    expect(await ctx.gw.s2s.creditVoid({ trans_id: paid.trans_id, amount: '1.00' })).toMatchObject({
      result: 'ACCEPTED',
    })
  })
})

describe('reconcile believes no lookup that names another transaction (the same rule, in core)', () => {
  it('an unknown capture of T1 whose lookup answers T2’s SETTLED record: still_unknown, never applied', async () => {
    // The capture's answer is lost (an HTML 502); the lookup answers T2's record.
    const { gw } = await faultGateway((_req, res, n) =>
      n === 1 ? faults.text(502, '<html>502</html>')(_req, res, n) : faults.json(200, T2)(_req, res, n),
    )
    const error = await gatewayError(gw.s2s.capture({ trans_id: 'T1' }))
    expect(error.outcomeUnknown).toBe(true)
    const result = await gw.reconcile(error)
    expect(result.outcome).toBe('still_unknown')
    expect(result.evidence).toMatch(/^GET_TRANS_STATUS answered a record that does not name trans_id T1: /)
    expect(result.evidence).toMatch(/names trans_id "T2"/)
  })
})
