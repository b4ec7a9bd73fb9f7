/**
 * Money safety at the card gateway, from the attacker's side: a misbehaving server answers each
 * money-moving call with a redirect, a 5xx or an unreadable body, and the error must say whether the
 * payment may have moved and how to settle it. Also the error-table rules an outside tester broke.
 */

import { faults, startFaultServer } from '@paywire/core/testing'
import { HttpResponse, http } from 'msw'
import { describe, expect, it, onTestFinished } from 'vitest'
import type { CardGateway } from '../src/index.js'
import { CREDIT, faultGateway, gatewayError, rejection, setup } from './helpers.js'

const order = { number: 'ord-1', amount: '10.00', currency: 'USD', description: 'Test order' }
const urls = { success_url: 'https://shop.example/ok', cancel_url: 'https://shop.example/cancel' }

/** Each money-moving call, its reconciliation key, and the lookup its error must name. */
const moneyCalls = [
  {
    name: 's2s.capture',
    call: (gw: CardGateway) => gw.s2s.capture({ trans_id: 't-9' }),
    key: { key: 'trans_id', value: 't-9' },
    lookup: 'gw.s2s.getTransStatus({ trans_id: "t-9" })',
  },
  {
    name: 's2s.void',
    call: (gw: CardGateway) => gw.s2s.void({ trans_id: 't-9' }),
    key: { key: 'trans_id', value: 't-9' },
    lookup: 'gw.s2s.getTransStatus({ trans_id: "t-9" })',
  },
  {
    name: 's2s.creditVoid',
    call: (gw: CardGateway) => gw.s2s.creditVoid({ trans_id: 't-9' }),
    key: { key: 'trans_id', value: 't-9' },
    lookup: 'gw.s2s.getTransStatus({ trans_id: "t-9" })',
  },
  {
    name: 'checkout.purchase',
    call: (gw: CardGateway) => gw.checkout.purchase({ order, ...urls }),
    key: { key: 'order_id', value: 'ord-1' },
    lookup: 'gw.checkout.status({ order_id: "ord-1" })',
  },
  {
    name: 'checkout.credit',
    call: (gw: CardGateway) => gw.checkout.credit(CREDIT),
    key: { key: 'order_id', value: 'ref-1' },
    lookup: 'gw.checkout.status({ order_id: "ref-1" })',
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
    key: { key: 'order_id', value: 'rec-1' },
    lookup: 'gw.s2s.getTransStatusByOrder({ order_id: "rec-1" })',
  },
]

describe('a 3xx answer is never success, never followed, never retried', () => {
  it.each(moneyCalls)('$name answered 307 with a success-looking body: unexpected_redirect', async (c) => {
    const elsewhere = await startFaultServer(faults.json(200, { result: 'SUCCESS', redirect_url: 'https://x' }))
    onTestFinished(() => elsewhere.close())
    const { gw, server } = await faultGateway(
      faults.json(
        307,
        { result: 'SUCCESS', status: 'SETTLED', redirect_url: 'https://x' },
        { location: elsewhere.url },
      ),
    )
    const error = await gatewayError(c.call(gw))
    expect(error).toMatchObject({ status: 307, reason: 'unexpected_redirect', outcomeUnknown: true, attempts: 1 })
    expect(error.reconciliation).toMatchObject(c.key)
    expect(error.message).toContain(c.lookup)
    expect(server.requests).toHaveLength(1)
    expect(elsewhere.requests).toHaveLength(0)
  })

  it('an empty 302 to a status lookup is unexpected_redirect, outcome known (a lookup moves no money)', async () => {
    const { gw } = await faultGateway(faults.text(302, '', 'text/plain', { location: 'https://evil.example/' }))
    const error = await gatewayError(gw.s2s.getTransStatus({ trans_id: 't' }))
    expect(error).toMatchObject({ status: 302, reason: 'unexpected_redirect', outcomeUnknown: false })
  })
})

describe('5xx and unreadable answers to money-moving calls are unknown outcomes', () => {
  it.each(moneyCalls)('$name answered with an HTML 502: outcomeUnknown, its key, and the lookup', async (c) => {
    const { gw, server } = await faultGateway(faults.text(502, '<html><h1>502 Bad Gateway</h1></html>'))
    const error = await gatewayError(c.call(gw))
    expect(error).toMatchObject({ status: 502, reason: 'unknown', outcomeUnknown: true, reconciliation: c.key })
    expect(error.message).toContain('Outcome unknown')
    expect(error.message).toContain(c.lookup)
    expect(server.requests.length).toBeGreaterThanOrEqual(1)
  })

  it('a capture answered 200 with a body that is not JSON: unreadable_response, outcome unknown', async () => {
    const { gw } = await faultGateway(faults.text(200, '<html>ok</html>'))
    const error = await gatewayError(gw.s2s.capture({ trans_id: 't-9' }))
    expect(error).toMatchObject({ reason: 'unreadable_response', outcomeUnknown: true })
    expect(error.message).toContain('gw.s2s.getTransStatus({ trans_id: "t-9" })')
  })

  it('a capture reset after it was sent: ConnectionError with the key and the lookup', async () => {
    const { gw } = await faultGateway(faults.resetBeforeAnswer())
    const error = await rejection(gw.s2s.capture({ trans_id: 't-9' }))
    expect(error).toMatchObject({
      name: 'ConnectionError',
      requestSent: true,
      outcomeUnknown: true,
      reconciliation: { key: 'trans_id', value: 't-9' },
    })
  })

  it('a documented error row answers the question: capture_not_pending is no unknown outcome', async () => {
    const { gw } = await faultGateway(
      faults.json(400, {
        result: 'ERROR',
        error_code: 208003,
        error_message: 'capture requested for a payment not in pending status',
      }),
    )
    const error = await gatewayError(gw.s2s.capture({ trans_id: 't-9' }))
    expect(error).toMatchObject({ reason: 'capture_not_pending', outcomeUnknown: false })
    expect(error.message).not.toContain('Outcome unknown')
  })

  it('a documented error row in a 500 is still a known outcome; an unknown code in a 500 is not', async () => {
    const known = await faultGateway(
      faults.json(500, { result: 'ERROR', error_code: 100000, error_message: 'Hash is not valid' }),
    )
    expect(await gatewayError(known.gw.s2s.capture({ trans_id: 't' }))).toMatchObject({
      reason: 'hash_invalid',
      outcomeUnknown: false,
    })
    const unknown = await faultGateway(faults.json(500, { result: 'ERROR', error_code: 999, error_message: 'Oops' }))
    expect(await gatewayError(unknown.gw.s2s.capture({ trans_id: 't' }))).toMatchObject({
      reason: 'unknown',
      outcomeUnknown: true,
    })
  })
})

describe('error table: the code is authoritative, the message refines it', () => {
  async function answered(body: Record<string, unknown>, status = 400) {
    const ctx = await setup()
    ctx.server.use(http.post('*/post', () => HttpResponse.json(body, { status })))
    return gatewayError(ctx.gw.s2s.getTransStatus({ trans_id: 't' }))
  }

  it('101000 with an unfamiliar message is a not-found of the entity it names', async () => {
    const error = await answered({ result: 'ERROR', error_code: 101000, error_message: 'Transaction not found' })
    expect(error).toMatchObject({ code: 101000, isNotFound: true, notFoundEntity: 'transaction', reason: 'not_found' })
  })

  it('101000 with a message naming no entity is still a not-found', async () => {
    const error = await answered({ result: 'ERROR', error_code: 101000, error_message: 'No such record' })
    expect(error).toMatchObject({ code: 101000, isNotFound: true, reason: 'not_found' })
  })

  it('a unique code wins over a colliding message (208003 + "Hash is not valid")', async () => {
    const error = await answered({ result: 'ERROR', error_code: 208003, error_message: 'Hash is not valid' })
    expect(error).toMatchObject({ code: 208003, reason: 'capture_not_pending' })
  })

  it('205005 with a not-found message is card_token_invalid, not a payment not-found', async () => {
    const error = await answered({ result: 'ERROR', error_code: 205005, error_message: 'Payment not found.' })
    expect(error).toMatchObject({ code: 205005, reason: 'card_token_invalid', isNotFound: false })
  })

  it('outer error_code 0 with an unfamiliar inner message keeps the inner code 100000', async () => {
    const error = await answered({
      result: 'ERROR',
      error_code: 0,
      error_message: 'Validation failed',
      errors: [{ error_code: 100000, error_message: 'amount: Something new.' }],
    })
    expect(error).toMatchObject({ code: 100000, envelopeCode: 0, reason: 'unknown' })
  })
})
