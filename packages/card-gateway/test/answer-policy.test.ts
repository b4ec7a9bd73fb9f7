/**
 * One decoding policy for every service: a known answer field of the wrong JSON kind makes the
 * answer unreadable (never silently dropped); on a call that may have acted the error says the
 * outcome is unknown and carries the key to reconcile by. Through the real client and transport,
 * against a loopback server that answers what a faulty gateway would.
 */

import { faults } from '@paywire/core/testing'
import { describe, expect, it } from 'vitest'
import { CREDIT, faultGateway, gatewayError } from './helpers.js'

describe('a known field of the wrong kind: the answer is unreadable, never read with the field dropped', () => {
  it('CAPTURE answered 200 with "result": {…}: unreadable, outcome unknown, its trans_id to reconcile by', async () => {
    const { gw, server } = await faultGateway(faults.json(200, { result: { x: 1 }, status: 'SETTLED' }))
    const error = await gatewayError(gw.s2s.capture({ trans_id: 't-9' }))
    expect(error).toMatchObject({
      status: 200,
      reason: 'unreadable_response',
      outcomeUnknown: true,
      reconciliation: { key: 'trans_id', value: 't-9' },
    })
    expect(error.message).toContain('result is an object')
    expect(error.message).toContain('gw.s2s.getTransStatus({ trans_id: "t-9" })')
    expect(server.requests).toHaveLength(1) // never resent: a capture may have acted
  })

  it('GET_TRANS_STATUS answered 200 with "status": […]: unreadable; a lookup moved no money, so the outcome is known', async () => {
    const { gw } = await faultGateway(faults.json(200, { result: 'SUCCESS', trans_id: 't-9', status: [] }))
    const error = await gatewayError(gw.s2s.getTransStatus({ trans_id: 't-9' }))
    expect(error).toMatchObject({ status: 200, reason: 'unreadable_response', outcomeUnknown: false })
    expect(error.message).toContain('status is an array')
  })

  it('Checkout credit answered 200 with "status": true: unreadable, outcome unknown, its order_id', async () => {
    const { gw } = await faultGateway(faults.json(200, { result: 'ACCEPTED', status: true }))
    const error = await gatewayError(gw.checkout.credit(CREDIT))
    expect(error).toMatchObject({
      reason: 'unreadable_response',
      outcomeUnknown: true,
      reconciliation: { key: 'order_id', value: 'ref-1' },
    })
    expect(error.message).toContain('status is a boolean')
  })

  it('Checkout status answered 200 with "card_token": {…}: unreadable, outcome known', async () => {
    const { gw } = await faultGateway(faults.json(200, { payment_id: 'p-1', status: 'settled', card_token: { t: 1 } }))
    const error = await gatewayError(gw.checkout.status({ payment_id: 'p-1' }))
    expect(error).toMatchObject({ reason: 'unreadable_response', outcomeUnknown: false })
    expect(error.message).toContain('card_token is an object')
  })
})

describe("the status answer's order and customer are read by the same policy", () => {
  it.each([
    [{ order: { amount: { value: 10 } } }, 'order.amount is an object'],
    [{ order: 'ord-1' }, 'order is a string, not an object'],
    [{ customer: { email: ['a@b.example'] } }, 'customer.email is an array'],
  ])('%j is unreadable', async (body, message) => {
    const { gw } = await faultGateway(faults.json(200, { payment_id: 'p-1', status: 'settled', ...body }))
    const error = await gatewayError(gw.checkout.status({ payment_id: 'p-1' }))
    expect(error).toMatchObject({ reason: 'unreadable_response', outcomeUnknown: false })
    expect(error.message).toContain(message)
  })

  it('a number in order.amount reads as its decimal text', async () => {
    const { gw } = await faultGateway(
      faults.json(200, { payment_id: 'p-1', status: 'settled', order: { amount: 10.5, number: 7 } }),
    )
    expect(await gw.checkout.status({ payment_id: 'p-1' })).toMatchObject({ order: { amount: '10.5', number: '7' } })
  })
})

describe('what still reads', () => {
  it('a number in a text field reads as its decimal text; unknown fields are kept as they came', async () => {
    const { gw } = await faultGateway(
      faults.json(200, {
        action: 'CAPTURE',
        result: 'SUCCESS',
        status: 'SETTLED',
        amount: 10.5,
        trans_id: 42,
        extra: { a: [1] },
      }),
    )
    const answer = await gw.s2s.capture({ trans_id: '42' })
    expect(answer).toMatchObject({ amount: '10.5', trans_id: '42', extra: { a: [1] } })
  })

  it('a number in a Checkout status text field reads as its decimal text', async () => {
    const { gw } = await faultGateway(faults.json(200, { payment_id: 123, status: 'settled' }))
    expect(await gw.checkout.status({ payment_id: '123' })).toMatchObject({ payment_id: '123', status: 'settled' })
  })
})
