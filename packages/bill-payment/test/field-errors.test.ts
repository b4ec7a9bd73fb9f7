import { type FaultServer, faults, startFaultServer } from '@paywire/core/testing'
import { describe, expect, it, onTestFinished } from 'vitest'
import { ApiError, BillPayment, BillPaymentError } from '../src/index.js'
import { rejection } from './fixtures/setup.js'

/**
 * A hostile or merely different service, seen from the wire: a plain node:http server on loopback
 * answers the payment with a canned body, and the client reads it through its real undici transport.
 * The service publishes no error body, so every common shape of a validation failure must reach
 * `fieldErrors` (rule Platform 3).
 */
async function refusal(
  body: unknown,
  status = 400,
  contentType = 'application/problem+json',
): Promise<{ error: BillPaymentError; server: FaultServer }> {
  const server = await startFaultServer(faults.text(status, JSON.stringify(body), contentType))
  onTestFinished(() => server.close())
  const bills = new BillPayment({ baseUrl: server.url, clientId: 'client-1', clientSecret: 'secret-1' })
  onTestFinished(() => bills.close())
  const error = await rejection(bills.transactions.execute({ productId: 'EDSA-PREPAID', amount: -5 }))
  expect(error).toBeInstanceOf(BillPaymentError)
  expect(error).toBeInstanceOf(ApiError)
  expect((error as BillPaymentError).name).toBe('BillPaymentError')
  return { error: error as BillPaymentError, server }
}

const TITLE = 'One or more validation errors occurred.'

describe('BillPaymentError on a 400: field errors in every common shape (rule Platform 3)', () => {
  it('an errors map with one message per field as a string, not a list', async () => {
    const { error, server } = await refusal({
      type: 'https://tools.ietf.org/html/rfc9110#section-15.5.1',
      title: TITLE,
      status: 400,
      errors: { amount: 'The amount must be greater than 0.', productId: ['Unknown product.', 'Disabled.'] },
    })
    expect(error.status).toBe(400)
    expect(error.reason).toBe('bad_request')
    expect(error.fieldErrors).toEqual({
      amount: ['The amount must be greater than 0.'],
      productId: ['Unknown product.', 'Disabled.'],
    })
    expect(error.message).toBe(
      `transactions.execute: the service refused the request (HTTP 400). ${TITLE} Field errors: amount: The amount must be greater than 0.; productId: Unknown product. Disabled.`,
    )
    expect(server.requests).toHaveLength(1)
  })

  it('an errors list of { pointer, detail }, as RFC 9457 shows it', async () => {
    const { error } = await refusal({
      type: 'https://example.net/validation-error',
      title: 'Your request is not valid.',
      errors: [
        { detail: 'must be a positive number', pointer: '#/amount' },
        { detail: 'must be a known product', pointer: '#/items/0/product~1id' },
        { detail: 'the body is too large', pointer: '#' },
      ],
    })
    expect([error.status, error.reason]).toEqual([400, 'bad_request'])
    expect(error.fieldErrors).toEqual({
      amount: ['must be a positive number'],
      'items.0.product/id': ['must be a known product'],
      '(body)': ['the body is too large'],
    })
    expect(error.message).toBe(
      'transactions.execute: the service refused the request (HTTP 400). Your request is not valid. Field errors: amount: must be a positive number; items.0.product/id: must be a known product; (body): the body is too large.',
    )
  })

  it('an invalid-params list of { name, reason }, as RFC 7807 shows it, and a { field, message } list', async () => {
    const { error } = await refusal({
      type: 'https://example.net/validation-error',
      title: "Your request parameters didn't validate.",
      'invalid-params': [{ name: 'amount', reason: 'must be a positive number' }],
      errors: [{ field: 'customerReference', message: 'must not be empty' }],
    })
    expect(error.fieldErrors).toEqual({
      customerReference: ['must not be empty'],
      amount: ['must be a positive number'],
    })
    expect(error.message).toContain(
      "Your request parameters didn't validate. Field errors: customerReference: must not be empty; amount: must be a positive number.",
    )
  })

  it('an errors map in a body with none of the ProblemDetails members, sent as plain JSON', async () => {
    const { error } = await refusal({ errors: { amount: ['must be greater than 0'] } }, 400, 'application/json')
    expect(error.problem).toBeUndefined()
    expect(error.fieldErrors).toEqual({ amount: ['must be greater than 0'] })
    expect(error.message).toBe(
      'transactions.execute: the service refused the request (HTTP 400). The answer is not a ProblemDetails record (application/json, 48 bytes; see rawBody). Field errors: amount: must be greater than 0.',
    )
  })

  it('a hostile body: a field named __proto__ stays a field, and messages that are not text are dropped', async () => {
    const body = JSON.parse(
      '{"title":"Bad","errors":{"__proto__":["polluted?"],"amount":[42,null,{"x":1},"kept"],"n":7}}',
    ) as unknown
    const { error } = await refusal(body, 422)
    expect([error.status, error.reason]).toEqual([422, 'unprocessable'])
    expect(Object.getPrototypeOf(error.fieldErrors)).toBe(Object.prototype)
    expect(Object.hasOwn(error.fieldErrors, '__proto__')).toBe(true)
    expect(Object.getOwnPropertyDescriptor(error.fieldErrors, '__proto__')?.value).toEqual(['polluted?'])
    expect(error.fieldErrors['amount']).toEqual(['kept'])
    expect(Object.keys(error.fieldErrors)).toEqual(['__proto__', 'amount'])
    expect(({} as Record<string, unknown>)['polluted?']).toBeUndefined()
    expect(Object.isFrozen(error.fieldErrors)).toBe(true)
    expect(Object.isFrozen(error.fieldErrors['amount'])).toBe(true)
  })

  it('the ASP.NET map reads as before, listed once in the message', async () => {
    const { error } = await refusal({
      title: TITLE,
      status: 400,
      detail: 'See errors.',
      errors: { amount: ['The amount must be a number > 0.'] },
    })
    expect(error.fieldErrors).toEqual({ amount: ['The amount must be a number > 0.'] })
    expect(error.fieldErrors).toEqual(error.problem?.errors)
    expect(error.message).toBe(
      `transactions.execute: the service refused the request (HTTP 400). ${TITLE}: See errors. — amount: The amount must be a number > 0.`,
    )
  })

  it('a refusal without field errors has an empty map and an unchanged message', async () => {
    const { error } = await refusal({ title: 'Product disabled', status: 409, detail: 'Enable it first.' }, 409)
    expect([error.status, error.reason]).toEqual([409, 'conflict'])
    expect(error.fieldErrors).toEqual({})
    expect(error.message).toBe(
      'transactions.execute: the service reports a conflict (HTTP 409). Product disabled: Enable it first.',
    )
  })

  it('an errors member of a success answer is no refusal: the 2xx error carries no field errors', async () => {
    const server = await startFaultServer(faults.json(200, [{ errors: { amount: ['x'] } }]))
    onTestFinished(() => server.close())
    const bills = new BillPayment({ baseUrl: server.url, clientId: 'client-1', clientSecret: 'secret-1' })
    onTestFinished(() => bills.close())
    const error = (await rejection(bills.catalog.get('EDSA-PREPAID'))) as BillPaymentError
    expect(error.reason).toBe('unreadable_response')
    expect(error.fieldErrors).toEqual({})
  })
})
