import { describe, expect, expectTypeOf, it } from 'vitest'
import { z } from 'zod'
import { BillPaymentError, RequestValidationError } from '../src/index.js'
import { rejection, type Setup, setup } from './fixtures/setup.js'

let env: Setup

describe('Catalog: GET /api/catalog/get-all-products', () => {
  it('lists all catalog products through the real transport', async () => {
    env = await setup()
    const products = await env.bills.catalog.list()
    expect(Array.isArray(products)).toBe(true)
    expect((products as { id: string }[]).map((p) => p.id)).toEqual([
      'EDSA-PREPAID',
      'AIRTIME-ORANGE',
      'WATER-FREETOWN',
      'TV/PREMIUM',
    ])
    const [request] = env.server.requests
    expect(request?.method).toBe('GET')
    expect(request?.url).toBe('/api/catalog/get-all-products')
    expect(request?.body).toBe('')
    expect(request?.headers['content-type']).toBeUndefined()
  })

  it('parses and types the list with a caller schema', async () => {
    env = await setup()
    const Product = z.object({ id: z.string(), enabled: z.boolean() })
    const products = await env.bills.catalog.list({ schema: z.array(Product) })
    expect(products.filter((p) => !p.enabled).map((p) => p.id)).toEqual(['WATER-FREETOWN'])
  })

  it('is retried after a 503 (safe to repeat)', async () => {
    env = await setup()
    env.simulator.failNext({ count: 2, status: 503 })
    await env.bills.catalog.list()
    expect(env.lines()).toEqual(Array(3).fill('GET /api/catalog/get-all-products'))
    expect(env.clock.sleeps).toHaveLength(2)
  })
})

describe('Catalog: GET /api/catalog/{id}', () => {
  it('fetches one product by id', async () => {
    env = await setup()
    const product = await env.bills.catalog.get('EDSA-PREPAID')
    expect(product).toMatchObject({ id: 'EDSA-PREPAID', enabled: true })
    expect(env.lines()).toEqual(['GET /api/catalog/EDSA-PREPAID'])
  })

  it('URL-encodes the id so "/", "?" and ".." cannot change the route', async () => {
    env = await setup()
    const product = await env.bills.catalog.get('TV/PREMIUM')
    expect(product).toMatchObject({ id: 'TV/PREMIUM' })
    await rejection(env.bills.catalog.get('a?b#c'))
    expect(env.lines()).toEqual(['GET /api/catalog/TV%2FPREMIUM', 'GET /api/catalog/a%3Fb%23c'])
  })

  it('refuses "." and ".." as an id before sending: URL parsing would turn them into dot segments', async () => {
    env = await setup()
    for (const id of ['.', '..']) {
      const error = (await rejection(env.bills.catalog.get(id))) as RequestValidationError
      expect(error).toBeInstanceOf(RequestValidationError)
      expect(error.issues).toEqual([
        { path: 'id', message: 'must not be empty, "." or ".." (it would change the route)' },
      ])
    }
    expect(env.server.requests).toHaveLength(0)
  })

  it('sends Idempotency-Key when given (rule Endpoints 9 shows it as a header parameter here)', async () => {
    env = await setup()
    await env.bills.catalog.get('EDSA-PREPAID', { idempotencyKey: 'lookup-1' })
    await env.bills.catalog.get('EDSA-PREPAID')
    expect(env.server.requests[0]?.headers['idempotency-key']).toBe('lookup-1')
    expect(env.server.requests[1]?.headers['idempotency-key']).toBeUndefined()
  })

  it('answers an unknown id with a typed 404 BillPaymentError carrying the ProblemDetails', async () => {
    env = await setup()
    const error = await rejection(env.bills.catalog.get('NOPE'))
    expect(error).toBeInstanceOf(BillPaymentError)
    const e = error as BillPaymentError
    expect(e.status).toBe(404)
    expect(e.reason).toBe('not_found')
    expect(e.isNotFound).toBe(true)
    expect(e.code).toBe('https://paywire.dev/problems/bill-payment/product-not-found')
    expect(e.problem).toMatchObject({ title: 'Product not found', status: 404 })
    expect(e.message).toBe('catalog.get: not found (HTTP 404). Product not found: No product with id "NOPE".')
    expect(e.operation).toBe('catalog.get')
    expect(e.attempts).toBe(1)
  })

  it('returns undefined for a 200 with no body (rule Endpoints 2: no documented body)', async () => {
    env = await setup()
    const { http, HttpResponse } = await import('msw')
    env.server.use(http.get('*/api/catalog/:id', () => new HttpResponse(null, { status: 200 })))
    await expect(env.bills.catalog.get('EDSA-PREPAID')).resolves.toBeUndefined()
  })

  it('parses the product with a caller schema and types it', async () => {
    env = await setup()
    const Product = z.object({ id: z.string(), name: z.string(), maxAmount: z.number() })
    const product = await env.bills.catalog.get('AIRTIME-ORANGE', { schema: Product })
    const max: number = product.maxAmount
    expect(max).toBe(1000)
  })

  it('rejects an answer that fails the caller schema with BillPaymentError response_schema_mismatch', async () => {
    env = await setup()
    const Product = z.object({ id: z.number() })
    const error = (await rejection(env.bills.catalog.get('AIRTIME-ORANGE', { schema: Product }))) as BillPaymentError
    expect(error).toBeInstanceOf(BillPaymentError)
    expect(error.reason).toBe('response_schema_mismatch')
    expect(error.status).toBe(200)
    expect(error.issues).toEqual([{ path: 'id', message: expect.stringContaining('expected number') }])
    expect(error.message).toMatch(
      /^catalog\.get: the success answer \(HTTP 200\) does not match the schema you passed: id: /,
    )
    expect(error.body).toMatchObject({ id: 'AIRTIME-ORANGE' })
  })

  it('rejects a 2xx that is not a JSON object (without a schema) as unreadable_response', async () => {
    env = await setup()
    const { http, HttpResponse } = await import('msw')
    env.server.use(http.get('*/api/catalog/:id', () => HttpResponse.text('<html>maintenance</html>')))
    const error = (await rejection(env.bills.catalog.get('X'))) as BillPaymentError
    expect(error.reason).toBe('unreadable_response')
    expect(error.rawBody).toBe('<html>maintenance</html>')
    env.server.use(http.get('*/api/catalog/:id', () => HttpResponse.json([1, 2])))
    const arrayError = (await rejection(env.bills.catalog.get('X'))) as BillPaymentError
    expect(arrayError.reason).toBe('unreadable_response')
    expect(arrayError.message).toContain('a JSON object (or no body) was expected, not an array')
  })

  it('types the answer only through a checked schema (no unchecked type parameter)', async () => {
    env = await setup()
    const product = await env.bills.catalog.get('AIRTIME-ORANGE', {
      schema: z.object({ id: z.string(), category: z.string() }),
    })
    expectTypeOf(product).toEqualTypeOf<{ id: string; category: string }>()
    expect(product.category).toBe('airtime')
    // @ts-expect-error the type of an answer is the schema's output, never an unchecked assertion
    await env.bills.catalog.get<{ id: string }>('AIRTIME-ORANGE')
  })
})

describe('Catalog: POST enable-product / disable-product', () => {
  it('disables then enables a product, sending the body as JSON', async () => {
    env = await setup()
    const disabled = await env.bills.catalog.disable({ productId: 'EDSA-PREPAID' })
    expect(disabled).toMatchObject({ id: 'EDSA-PREPAID', enabled: false })
    expect(env.simulator.product('EDSA-PREPAID')?.enabled).toBe(false)
    const enabled = await env.bills.catalog.enable({ productId: 'EDSA-PREPAID' })
    expect(enabled).toMatchObject({ enabled: true })
    expect(env.simulator.product('EDSA-PREPAID')?.enabled).toBe(true)

    const [disableReq, enableReq] = env.server.requests
    expect(`${disableReq?.method} ${disableReq?.url}`).toBe('POST /api/catalog/disable-product')
    expect(`${enableReq?.method} ${enableReq?.url}`).toBe('POST /api/catalog/enable-product')
    expect(disableReq?.headers['content-type']).toBe('application/json')
    expect(disableReq?.body).toBe('{"productId":"EDSA-PREPAID"}')
  })

  it('is retried after a 502 (setting a state twice is harmless)', async () => {
    env = await setup()
    env.simulator.failNext({ status: 502 })
    await env.bills.catalog.enable({ productId: 'WATER-FREETOWN' })
    expect(env.lines()).toEqual(['POST /api/catalog/enable-product', 'POST /api/catalog/enable-product'])
    expect(env.simulator.product('WATER-FREETOWN')?.enabled).toBe(true)
  })

  it('answers an unknown product with 404', async () => {
    env = await setup()
    const error = (await rejection(env.bills.catalog.enable({ productId: 'NOPE' }))) as BillPaymentError
    expect(error.status).toBe(404)
    expect(error.operation).toBe('catalog.enable')
  })
})
