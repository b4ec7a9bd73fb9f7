import { describe, expect, it } from 'vitest'
import { BillPayment, BillPaymentError, RequestValidationError } from '../src/index.js'
import { SIMULATOR_CREDENTIALS } from '../src/testing/index.js'
import { rejection, type Setup, setup } from './fixtures/setup.js'

let env: Setup

async function callAllEight(bills: BillPayment): Promise<void> {
  const settle = (p: PromiseLike<unknown>) => Promise.resolve(p).catch(() => undefined)
  await settle(bills.catalog.list())
  await settle(bills.catalog.get('EDSA-PREPAID'))
  await settle(bills.catalog.enable({ productId: 'EDSA-PREPAID' }))
  await settle(bills.catalog.disable({ productId: 'EDSA-PREPAID' }))
  await settle(bills.catalog.enable({ productId: 'EDSA-PREPAID' }))
  await settle(bills.transactions.list())
  await settle(bills.transactions.execute({ productId: 'EDSA-PREPAID', amount: 10 }))
  await settle(bills.transactions.get('BP00000001'))
  await settle(bills.transactions.filter({}))
}

describe('Authentication: X-Service-Internal-Client-Id and X-Service-Client-Secret', () => {
  it('sends both headers on every request of all eight endpoints', async () => {
    env = await setup()
    await callAllEight(env.bills)
    expect(env.lines()).toEqual([
      'GET /api/catalog/get-all-products',
      'GET /api/catalog/EDSA-PREPAID',
      'POST /api/catalog/enable-product',
      'POST /api/catalog/disable-product',
      'POST /api/catalog/enable-product',
      'GET /api/transactions',
      'POST /api/transactions',
      'GET /api/transactions/BP00000001',
      'POST /api/transactions/all',
    ])
    for (const request of env.server.requests) {
      expect(request.headers['x-service-internal-client-id']).toBe(SIMULATOR_CREDENTIALS.clientId)
      expect(request.headers['x-service-client-secret']).toBe(SIMULATOR_CREDENTIALS.clientSecret)
    }
    expect(env.simulator.ledger).toHaveLength(1)
  })

  it('sends both headers on retries too', async () => {
    env = await setup()
    env.simulator.failNext({ count: 2, status: 503 })
    await env.bills.catalog.list()
    expect(env.server.requests).toHaveLength(3)
    for (const request of env.server.requests) {
      expect(request.headers['x-service-internal-client-id']).toBe(SIMULATOR_CREDENTIALS.clientId)
      expect(request.headers['x-service-client-secret']).toBe(SIMULATOR_CREDENTIALS.clientSecret)
    }
  })

  it('a wrong secret is rejected with 401, and the message names both headers', async () => {
    env = await setup({ clientSecret: 'wrong-secret' })
    const error = (await rejection(env.bills.catalog.list())) as BillPaymentError
    expect(error).toBeInstanceOf(BillPaymentError)
    expect(error.status).toBe(401)
    expect(error.reason).toBe('unauthorized')
    expect(error.isAuthError).toBe(true)
    expect(error.message).toContain('X-Service-Internal-Client-Id')
    expect(error.message).toContain('X-Service-Client-Secret')
    expect(error.message).toMatch(
      /^catalog\.list: the service rejected the credentials \(HTTP 401\)\. Check the X-Service-Internal-Client-Id and X-Service-Client-Secret headers/,
    )
    expect(error.problem?.title).toBe('Unauthorized')
    expect(error.message).not.toContain('wrong-secret')
    expect(error.attempts).toBe(1)
  })

  it('a wrong client id is rejected too (on every endpoint)', async () => {
    env = await setup({ clientId: 'someone-else' })
    const errors: unknown[] = []
    const note = (p: PromiseLike<unknown>) => Promise.resolve(p).catch((e: unknown) => errors.push(e))
    await note(env.bills.catalog.get('EDSA-PREPAID'))
    await note(env.bills.transactions.execute({ productId: 'EDSA-PREPAID', amount: 10 }))
    await note(env.bills.transactions.filter({}))
    expect(errors.map((e) => (e as BillPaymentError).status)).toEqual([401, 401, 401])
    expect(env.simulator.ledger).toHaveLength(0)
  })

  it('a 403 names both headers as well', async () => {
    env = await setup()
    env.simulator.failNext({ status: 403, body: { title: 'Forbidden', status: 403 } })
    const error = (await rejection(env.bills.transactions.list())) as BillPaymentError
    expect(error.reason).toBe('forbidden')
    expect(error.message).toContain('X-Service-Internal-Client-Id and X-Service-Client-Secret')
    expect(error.message).toContain('(HTTP 403). Check the X-Service-Internal-Client-Id')
    expect(error.message).toMatch(/ Forbidden\.$/)
  })

  it('the client refuses missing or malformed credentials at construction, without echoing them', () => {
    const make = (options: Record<string, unknown>) => () =>
      new BillPayment({ baseUrl: 'https://bills.example.com', ...options } as never)
    expect(make({ clientId: 'id' })).toThrow(RequestValidationError)
    try {
      make({ clientId: '', clientSecret: 'line\nbreak-secret' })()
    } catch (error) {
      const e = error as RequestValidationError
      expect(e.issues).toEqual([
        { path: 'clientId', message: 'is required: a non-empty string or a Secret' },
        {
          path: 'clientSecret',
          message: 'must be visible ASCII characters only (it is sent as a header: no spaces or line breaks)',
        },
      ])
      expect(e.message).not.toContain('break-secret')
    }
  })

  it('the base URL must be https (plain http only for loopback)', () => {
    expect(() => new BillPayment({ baseUrl: 'http://bills.example.com', clientId: 'a', clientSecret: 'b' })).toThrow(
      /must use https/,
    )
    const bills = new BillPayment({ baseUrl: 'https://bills.example.com/', clientId: 'a', clientSecret: 'b' })
    expect(bills.baseUrl).toBe('https://bills.example.com')
  })

  it('a per-call header may not override the credentials or the Idempotency-Key', async () => {
    env = await setup()
    const error = (await rejection(
      env.bills.catalog.list({ headers: { 'x-service-client-secret': 'other', 'IDEMPOTENCY-KEY': 'k' } }),
    )) as RequestValidationError
    expect(error).toBeInstanceOf(RequestValidationError)
    expect(error.issues.map((i) => i.path)).toEqual(['headers.x-service-client-secret', 'headers.IDEMPOTENCY-KEY'])
    expect(error.issues[1]?.message).toContain('an idempotency key from the idempotencyKey option')
    expect(env.server.requests).toHaveLength(0)
  })

  it('sends a paywire User-Agent', async () => {
    env = await setup()
    await env.bills.catalog.list()
    expect(env.server.requests[0]?.headers['user-agent']).toMatch(/^paywire-bill-payment\/\d+\.\d+\.\d+ node\//)
  })
})
