import { createTestClock, faults, startFaultServer } from '@paywire/core/testing'
import { HttpResponse, http } from 'msw'
import { describe, expect, it, onTestFinished } from 'vitest'
import { z } from 'zod'
import { ApiError, BillPayment, BillPaymentError, PaywireError, TimeoutError, UserAbortError } from '../src/index.js'
import { rejection, type Setup, setup } from './fixtures/setup.js'

let env: Setup

describe('BillPaymentError', () => {
  it('extends ApiError and PaywireError, and carries status, headers, request id and raw body', async () => {
    env = await setup()
    env.server.use(
      http.get('*/api/catalog/:id', () =>
        HttpResponse.json(
          { type: 'urn:x', title: 'Gone', status: 410, detail: 'Retired.', traceId: 't-1' },
          { status: 410, headers: { 'content-type': 'application/problem+json', 'x-request-id': 'req-9' } },
        ),
      ),
    )
    const error = (await rejection(env.bills.catalog.get('OLD'))) as BillPaymentError
    expect(error).toBeInstanceOf(BillPaymentError)
    expect(error).toBeInstanceOf(ApiError)
    expect(error).toBeInstanceOf(PaywireError)
    expect(error.name).toBe('BillPaymentError')
    expect(error.status).toBe(410)
    expect(error.reason).toBe('http_error')
    expect(error.requestId).toBe('req-9')
    expect(error.headers['content-type']).toBe('application/problem+json')
    expect(error.problem).toEqual({ type: 'urn:x', title: 'Gone', status: 410, detail: 'Retired.', traceId: 't-1' })
    expect(error.code).toBe('urn:x')
    expect(JSON.parse(error.rawBody)).toMatchObject({ traceId: 't-1' })
    expect(error.method).toBe('GET')
    expect(error.url).toBe(`${env.url}/api/catalog/OLD`)
  })

  it('keeps a body that is not ProblemDetails as raw body (an HTML 502 from a proxy), after retrying a read', async () => {
    const server = await startFaultServer(faults.text(502, '<html><h1>Bad gateway</h1></html>'))
    onTestFinished(() => server.close())
    const clock = createTestClock()
    const bills = new BillPayment({ baseUrl: server.url, clientId: 'id', clientSecret: 'secret', clock })
    onTestFinished(() => bills.close())
    const error = (await rejection(bills.transactions.list())) as BillPaymentError
    expect(error.status).toBe(502)
    expect(error.reason).toBe('upstream_failure')
    expect(error.problem).toBeUndefined()
    expect(error.code).toBeUndefined()
    expect(error.body).toBeUndefined()
    expect(error.rawBody).toBe('<html><h1>Bad gateway</h1></html>')
    expect(error.message).toBe(
      'transactions.list: the service reports an upstream failure (HTTP 502). The answer is not a ProblemDetails record (text/html, 33 bytes; see rawBody).',
    )
    expect(error.attempts).toBe(3)
    expect(server.requests).toHaveLength(3)
    expect(clock.sleeps).toHaveLength(2)
  })

  it('keeps a JSON body that is not ProblemDetails in body', async () => {
    env = await setup()
    env.server.use(http.post('*/api/transactions/all', () => HttpResponse.json({ error: 'nope' }, { status: 400 })))
    const error = (await rejection(env.bills.transactions.filter({}))) as BillPaymentError
    expect(error.problem).toBeUndefined()
    expect(error.body).toEqual({ error: 'nope' })
    expect(error.attempts).toBe(1)
  })

  it('honours Retry-After on a 429 for reads', async () => {
    env = await setup()
    env.simulator.failNext({ status: 429, headers: { 'retry-after': '2' } })
    await env.bills.catalog.list()
    expect(env.clock.sleeps).toEqual([2000])
  })

  it('a read is not retried on 500, nor on a 4xx other than 408 and 429', async () => {
    env = await setup()
    env.simulator.failNext({ status: 500 })
    const error = (await rejection(env.bills.catalog.list())) as BillPaymentError
    expect(error.reason).toBe('server_error')
    await rejection(env.bills.catalog.get('NOPE'))
    expect(env.server.requests).toHaveLength(2)
  })

  it('instanceof holds for a copy of the class from another module instance (brand)', () => {
    const fake = Object.create(BillPaymentError.prototype) as object
    expect(fake instanceof BillPaymentError).toBe(true)
    expect({} instanceof BillPaymentError).toBe(false)
  })

  it('a timeout of execute is a TimeoutError carrying the key, not retried once sent', async () => {
    const server = await startFaultServer(faults.neverAnswer())
    onTestFinished(() => server.close())
    const bills = new BillPayment({ baseUrl: server.url, clientId: 'id', clientSecret: 'secret', timeout: 50 })
    onTestFinished(() => bills.close())
    const error = (await rejection(
      bills.transactions.execute({ productId: 'EDSA-PREPAID', amount: 10 }, { idempotencyKey: 'k-t' }),
    )) as TimeoutError
    expect(error).toBeInstanceOf(TimeoutError)
    expect(error.requestSent).toBe(true)
    expect((error as PaywireError).idempotencyKey).toBe('k-t')
    expect(server.requests).toHaveLength(1)
  })

  it("the caller's abort signal gives UserAbortError carrying the key", async () => {
    env = await setup()
    const controller = new AbortController()
    controller.abort()
    const error = await rejection(
      env.bills.transactions.execute({ productId: 'EDSA-PREPAID', amount: 10 }, { signal: controller.signal }),
    )
    expect(error).toBeInstanceOf(UserAbortError)
    expect((error as PaywireError).idempotencyKey).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    )
    expect(env.simulator.ledger).toHaveLength(0)
  })

  it('.withResponse() gives the status, headers and attempts behind a result', async () => {
    env = await setup()
    env.simulator.failNext({ status: 503 })
    const { data, response } = await env.bills.catalog.get('EDSA-PREPAID').withResponse()
    expect(data).toMatchObject({ id: 'EDSA-PREPAID' })
    expect(response.status).toBe(200)
    expect(response.attempts).toBe(2)
    expect(JSON.parse(response.rawBody)).toEqual(data)
  })
})

describe('client.request (raw escape hatch)', () => {
  it('sends any path on the same pipeline with both auth headers and the same error class', async () => {
    env = await setup()
    const products = await env.bills.request(
      { method: 'GET', path: '/api/catalog/get-all-products' },
      { schema: z.array(z.object({ id: z.string() })) },
    )
    expect(products).toHaveLength(4)
    const error = (await rejection(env.bills.request({ method: 'GET', path: '/api/catalog/NOPE' }))) as BillPaymentError
    expect(error).toBeInstanceOf(BillPaymentError)
    expect(error.operation).toBe('request')
    for (const request of env.server.requests) {
      expect(request.headers['x-service-internal-client-id']).toBe(env.simulator.clientId)
      expect(request.headers['x-service-client-secret']).toBe(env.simulator.clientSecret)
    }
  })

  it('sends a JSON body and an Idempotency-Key, is not retried for POST after a 503, and tags the error', async () => {
    env = await setup()
    env.simulator.failNext({ status: 503 })
    const error = await rejection(
      env.bills.request(
        { method: 'POST', path: '/api/transactions', body: { productId: 'EDSA-PREPAID', amount: 10 } },
        { idempotencyKey: 'raw-1' },
      ),
    )
    expect((error as PaywireError).idempotencyKey).toBe('raw-1')
    expect(env.server.requests).toHaveLength(1)
    expect(env.server.requests[0]?.headers['idempotency-key']).toBe('raw-1')
    expect(env.server.requests[0]?.body).toBe('{"productId":"EDSA-PREPAID","amount":10}')
  })

  it('returns text for a non-JSON body and undefined for an empty one', async () => {
    env = await setup()
    env.server.use(
      http.get('*/text', () => HttpResponse.text('plain')),
      http.get('*/empty', () => new HttpResponse(null, { status: 204 })),
    )
    await expect(env.bills.request({ method: 'GET', path: '/text' })).resolves.toBe('plain')
    await expect(env.bills.request({ method: 'GET', path: '/empty' })).resolves.toBeUndefined()
  })

  it('refuses auth headers in the raw input and paths that leave the base URL', async () => {
    env = await setup()
    const headerError = await rejection(
      env.bills.request({ method: 'GET', path: '/x', headers: { 'X-Service-Internal-Client-Id': 'other' } }),
    )
    expect(headerError).toMatchObject({ issues: [{ path: 'headers.X-Service-Internal-Client-Id' }] })
    await expect(env.bills.request({ method: 'GET', path: '//evil.example/x' })).rejects.toMatchObject({
      name: 'RequestValidationError',
    })
    expect(env.server.requests).toHaveLength(0)
  })
})
