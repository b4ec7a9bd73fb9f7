import { createTestClock } from '@paywire/core/testing'
import { describe, expect, it } from 'vitest'
import { type BillPaymentError, RequestValidationError } from '../src/index.js'
import { BillPaymentSimulator, DEFAULT_PRODUCTS, SIMULATOR_FILTER_KEYS } from '../src/testing/index.js'
import { rejection, type Setup, setup } from './fixtures/setup.js'

let env: Setup

describe('the simulator (@paywire/bill-payment/testing)', () => {
  it('starts with the fixture catalog and an empty ledger', async () => {
    env = await setup()
    expect(env.simulator.products.map((p) => p.id)).toEqual(DEFAULT_PRODUCTS.map((p) => p.id))
    expect(env.simulator.ledger).toEqual([])
    expect(env.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
  })

  it('rejects missing credentials with a 401 ProblemDetails', async () => {
    env = await setup()
    const response = await fetch(`${env.url}/api/catalog/get-all-products`)
    expect(response.status).toBe(401)
    expect(response.headers.get('content-type')).toBe('application/problem+json')
    expect(await response.json()).toMatchObject({ title: 'Unauthorized', status: 401 })
  })

  it('failNext answers the next requests with the status, then recovers', async () => {
    env = await setup()
    env.simulator.failNext({ status: 500 })
    const error = (await rejection(env.bills.catalog.list())) as BillPaymentError
    expect(error.problem?.type).toBe('https://paywire.dev/problems/bill-payment/injected-fault')
    await expect(env.bills.catalog.list()).resolves.toHaveLength(4)
  })

  it('the same Idempotency-Key with a different body is refused with 422 (simulator rule)', async () => {
    env = await setup()
    await env.bills.transactions.execute({ productId: 'EDSA-PREPAID', amount: 10 }, { idempotencyKey: 'k' })
    const error = (await rejection(
      env.bills.transactions.execute({ productId: 'EDSA-PREPAID', amount: 11 }, { idempotencyKey: 'k' }),
    )) as BillPaymentError
    expect(error.status).toBe(422)
    expect(error.code).toBe('https://paywire.dev/problems/bill-payment/idempotency-key-reused')
    expect(env.simulator.ledger).toHaveLength(1)
  })

  it('refuses an amount outside the product range with 422', async () => {
    env = await setup()
    const error = (await rejection(
      env.bills.transactions.execute({ productId: 'EDSA-PREPAID', amount: 9 }),
    )) as BillPaymentError
    expect(error.status).toBe(422)
    expect(error.problem?.detail).toBe('Amount must be between 10 and 5000 SLE.')
  })

  it('refuses unknown filter keys and bad dates with a 400 listing its own keys', async () => {
    env = await setup()
    const error = (await rejection(
      env.bills.transactions.filter({ product: 'x', from: 'yesterday' }),
    )) as BillPaymentError
    expect(error.status).toBe(400)
    expect(error.problem?.errors).toEqual({
      product: [`Unknown filter key; the simulator supports ${SIMULATOR_FILTER_KEYS.join(', ')}.`],
      from: ['Must be an ISO 8601 date-time.'],
    })
  })

  it('enable/disable require a productId', async () => {
    env = await setup()
    const error = (await rejection(env.bills.catalog.enable({}))) as BillPaymentError
    expect(error.status).toBe(400)
    expect(error.problem?.errors).toEqual({ productId: ['The productId field is required.'] })
  })

  it('reset() restores the catalog and forgets transactions and faults', async () => {
    env = await setup()
    await env.bills.catalog.disable({ productId: 'EDSA-PREPAID' })
    await env.bills.transactions.execute({ productId: 'AIRTIME-ORANGE', amount: 1 })
    env.simulator.failNext({ count: 3, status: 503 })
    env.simulator.reset()
    expect(env.simulator.product('EDSA-PREPAID')?.enabled).toBe(true)
    expect(env.simulator.transactions).toEqual([])
    await expect(env.bills.transactions.list()).resolves.toEqual([])
  })

  it('accepts custom credentials, products and clock', async () => {
    env = await setup(
      {},
      {
        clientId: 'other-id',
        clientSecret: 'other-secret',
        products: [{ ...DEFAULT_PRODUCTS[0]!, id: 'ONLY' }],
        clock: createTestClock(Date.UTC(2030, 5, 1)),
      },
    )
    const transaction = await env.bills.transactions.execute({ productId: 'ONLY', amount: 10 })
    expect(transaction).toMatchObject({ createdAt: '2030-06-01T00:00:00.000Z' })
    expect(env.server.requests[0]?.headers['x-service-internal-client-id']).toBe('other-id')
  })

  it('the fixture products are not mutated by a simulator', () => {
    const simulator = new BillPaymentSimulator()
    simulator.setProduct({ ...DEFAULT_PRODUCTS[0]!, enabled: false })
    expect(DEFAULT_PRODUCTS[0]?.enabled).toBe(true)
    expect(Object.isFrozen(DEFAULT_PRODUCTS)).toBe(true)
  })

  it('the client still validates before the simulator sees anything', async () => {
    env = await setup()
    await expect(env.bills.transactions.execute([] as never)).rejects.toBeInstanceOf(RequestValidationError)
    expect(env.server.requests).toHaveLength(0)
  })
})
