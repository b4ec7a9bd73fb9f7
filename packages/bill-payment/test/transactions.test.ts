import { createTestClock } from '@paywire/core/testing'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { BillPaymentError } from '../src/index.js'
import { rejection, type Setup, setup } from './fixtures/setup.js'

let env: Setup

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/

describe('Transactions: POST /api/transactions (execute a payment)', () => {
  it('sends the ExecutePaymentRequest as JSON and returns the transaction with the generated UUID key', async () => {
    env = await setup()
    const { data: transaction, response } = await env.bills.transactions
      .execute({ productId: 'EDSA-PREPAID', amount: 25.5, customerReference: 'METER-0042' })
      .withResponse()
    expect(response.idempotencyKey).toMatch(UUID)
    expect(transaction).toMatchObject({ productId: 'EDSA-PREPAID', amount: 25.5, status: 'SUCCESSFUL' })

    const [request] = env.server.requests
    expect(`${request?.method} ${request?.url}`).toBe('POST /api/transactions')
    expect(request?.headers['content-type']).toBe('application/json')
    expect(request?.headers['idempotency-key']).toBe(response.idempotencyKey)
    expect(JSON.parse(request?.body ?? '')).toEqual({
      productId: 'EDSA-PREPAID',
      amount: 25.5,
      customerReference: 'METER-0042',
    })
    expect(request?.body).toBe('{"productId":"EDSA-PREPAID","amount":25.5,"customerReference":"METER-0042"}')
    expect(env.simulator.ledger).toHaveLength(1)
  })

  it('generates a different key per call and uses the caller key when one is given', async () => {
    env = await setup()
    const keyOf = async (options?: { idempotencyKey: string }) =>
      (await env.bills.transactions.execute({ productId: 'AIRTIME-ORANGE', amount: 5 }, options).withResponse())
        .response.idempotencyKey
    const a = await keyOf()
    const b = await keyOf()
    const c = await keyOf({ idempotencyKey: 'order-77-payment' })
    expect(a).toMatch(UUID)
    expect(b).toMatch(UUID)
    expect(a).not.toBe(b)
    expect(c).toBe('order-77-payment')
    expect(env.server.requests[2]?.headers['idempotency-key']).toBe('order-77-payment')
    expect(env.simulator.ledger).toHaveLength(3)
  })

  it('parses the transaction with a caller schema', async () => {
    env = await setup()
    const Tx = z.object({ transReference: z.string(), amount: z.number() })
    const transaction = await env.bills.transactions.execute({ productId: 'AIRTIME-ORANGE', amount: 3 }, { schema: Tx })
    const reference: string = transaction.transReference
    expect(reference).toMatch(/^BP\d{8}$/)
  })

  it('is refused for a disabled product (simulator: 409 product-disabled) and nothing is paid', async () => {
    env = await setup()
    const error = (await rejection(
      env.bills.transactions.execute({ productId: 'WATER-FREETOWN', amount: 50 }),
    )) as BillPaymentError
    expect(error).toBeInstanceOf(BillPaymentError)
    expect(error.status).toBe(409)
    expect(error.reason).toBe('conflict')
    expect(error.code).toBe('https://paywire.dev/problems/bill-payment/product-disabled')
    expect(error.idempotencyKey).toMatch(UUID)
    expect(error.idempotencyKey).toBe(env.server.requests[0]?.headers['idempotency-key'])
    expect(error.attempts).toBe(1)
    expect(env.simulator.ledger).toHaveLength(0)
  })

  it('is refused for an unknown product (simulator: 404 product-not-found)', async () => {
    env = await setup()
    const error = (await rejection(
      env.bills.transactions.execute({ productId: 'GHOST', amount: 50 }),
    )) as BillPaymentError
    expect(error.status).toBe(404)
    expect(error.problem?.title).toBe('Product not found')
    expect(env.simulator.ledger).toHaveLength(0)
  })

  it('succeeds once the disabled product is enabled', async () => {
    env = await setup()
    await env.bills.catalog.enable({ productId: 'WATER-FREETOWN' })
    const transaction = await env.bills.transactions.execute({ productId: 'WATER-FREETOWN', amount: 50 })
    expect(transaction).toMatchObject({ productId: 'WATER-FREETOWN' })
  })

  it('surfaces ASP.NET-style validation errors of a 400 ProblemDetails', async () => {
    env = await setup()
    const error = (await rejection(env.bills.transactions.execute({ productId: 'EDSA-PREPAID' }))) as BillPaymentError
    expect(error.status).toBe(400)
    expect(error.reason).toBe('bad_request')
    expect(error.problem?.errors).toEqual({ amount: ['The amount must be a number > 0.'] })
    expect(error.message).toBe(
      'transactions.execute: the service refused the request (HTTP 400). One or more validation errors occurred.: See errors. — amount: The amount must be a number > 0.',
    )
  })
})

describe('Transactions: GET /api/transactions/{transReference}', () => {
  it('fetches one transaction by its reference', async () => {
    env = await setup()
    const transaction = await env.bills.transactions.execute({ productId: 'EDSA-PREPAID', amount: 30 })
    const reference = (transaction as { transReference: string }).transReference
    const fetched = await env.bills.transactions.get(reference)
    expect(fetched).toEqual(transaction)
    expect(env.lines()[1]).toBe(`GET /api/transactions/${reference}`)
  })

  it('URL-encodes the reference', async () => {
    env = await setup()
    await rejection(env.bills.transactions.get('A/B C?'))
    expect(env.lines()).toEqual(['GET /api/transactions/A%2FB%20C%3F'])
  })

  it('answers an unknown reference with a typed 404', async () => {
    env = await setup()
    const error = (await rejection(env.bills.transactions.get('BP99999999'))) as BillPaymentError
    expect(error).toBeInstanceOf(BillPaymentError)
    expect(error.isNotFound).toBe(true)
    expect(error.idempotencyKey).toBeUndefined()
  })
})

describe('Transactions: GET /api/transactions (list)', () => {
  it('lists transactions and passes the query through as given', async () => {
    env = await setup()
    await env.bills.transactions.execute({ productId: 'EDSA-PREPAID', amount: 30 })
    await env.bills.transactions.execute({ productId: 'AIRTIME-ORANGE', amount: 2 })
    const all = await env.bills.transactions.list()
    expect(all).toHaveLength(2)
    const some = await env.bills.transactions.list({ productId: 'AIRTIME-ORANGE', status: undefined })
    expect(some).toHaveLength(1)
    expect(env.lines().slice(2)).toEqual(['GET /api/transactions', 'GET /api/transactions?productId=AIRTIME-ORANGE'])
  })

  it('types the list with a caller schema', async () => {
    env = await setup()
    await env.bills.transactions.execute({ productId: 'EDSA-PREPAID', amount: 30 })
    const list = await env.bills.transactions.list(undefined, { schema: z.array(z.object({ amount: z.number() })) })
    expect(list[0]?.amount).toBe(30)
  })
})

describe('Transactions: POST /api/transactions/all (filter)', () => {
  it('sends the TransactionFilter as JSON and returns the matches', async () => {
    env = await setup()
    await env.bills.transactions.execute({ productId: 'EDSA-PREPAID', amount: 30 })
    await env.bills.transactions.execute({ productId: 'AIRTIME-ORANGE', amount: 2 })
    const matches = await env.bills.transactions.filter({ productId: 'EDSA-PREPAID', status: 'SUCCESSFUL' })
    expect(matches).toHaveLength(1)
    const request = env.server.requests[2]
    expect(`${request?.method} ${request?.url}`).toBe('POST /api/transactions/all')
    expect(request?.body).toBe('{"productId":"EDSA-PREPAID","status":"SUCCESSFUL"}')
    expect(request?.headers['content-type']).toBe('application/json')
  })

  it('filters by an inclusive from/to time range (simulator filter keys)', async () => {
    const clock = createTestClock(Date.UTC(2026, 0, 1))
    env = await setup({}, { clock })
    await env.bills.transactions.execute({ productId: 'EDSA-PREPAID', amount: 30 })
    clock.advance(24 * 60 * 60 * 1000)
    await env.bills.transactions.execute({ productId: 'EDSA-PREPAID', amount: 40 })
    const onSecond = await env.bills.transactions.filter({ from: '2026-01-02T00:00:00Z' })
    expect((onSecond as { amount: number }[]).map((t) => t.amount)).toEqual([40])
    const upToFirst = await env.bills.transactions.filter({ to: '2026-01-01T00:00:00.000Z' })
    expect((upToFirst as { amount: number }[]).map((t) => t.amount)).toEqual([30])
  })

  it('is retried after a 503 (a filter is a read)', async () => {
    env = await setup()
    env.simulator.failNext({ status: 503 })
    await expect(env.bills.transactions.filter({})).resolves.toEqual([])
    expect(env.server.requests).toHaveLength(2)
  })
})
