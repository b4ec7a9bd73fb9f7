import { HTML_ERROR_PAGE } from '@paywire/core/testing'
import { HttpResponse, http } from 'msw'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { ApiError, PaywireError, Remittance, RemittanceError, RequestValidationError } from '../src/index.js'
import { beneficiary, setup } from './helpers.js'

async function failure(promise: Promise<unknown>): Promise<RemittanceError> {
  const error = await promise.catch((e: unknown) => e)
  expect(error).toBeInstanceOf(RemittanceError)
  expect(error).toBeInstanceOf(ApiError)
  expect(error).toBeInstanceOf(PaywireError)
  return error as RemittanceError
}

describe('RemittanceError', () => {
  it('a 400 carries the ProblemDetails record: type, title, status, traceId and the ASP.NET errors map', async () => {
    const { remit } = await setup()
    const error = await failure(remit.beneficiaries.create({ firstName: 'A' }))
    expect(error.status).toBe(400)
    expect(error.reason).toBe('bad_request')
    expect(error.code).toBe('https://tools.ietf.org/html/rfc9110#section-15.5.1')
    expect(error.problem).toMatchObject({ title: 'One or more validation errors occurred.', status: 400 })
    expect(error.title).toBe('One or more validation errors occurred.')
    expect(error.traceId).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-00$/)
    expect(error.fieldErrors).toEqual({
      lastName: ['The lastName field is required.'],
      telephone: ['The telephone field is required.'],
    })
    expect(error.operation).toBe('beneficiaries.create')
    expect(error.method).toBe('POST')
    expect(error.requestSent).toBe(true)
    expect(error.headers['content-type']).toBe('application/problem+json')
  })

  it('keeps every extension member of the record, whatever its JSON type', async () => {
    const { remit, server } = await setup()
    const problem = {
      type: 'https://remit.example/problems/limit',
      title: 'Limit exceeded',
      status: 400,
      detail: 'Daily limit reached.',
      instance: '/api/lookup/rates',
      limitSLE: 5000,
      window: { hours: 24 },
      errors: { sendingAmountSLE: ['Too large.', 'Daily limit is 5000.'] },
    }
    server.use(http.post('*/api/lookup/rates', () => HttpResponse.json(problem, { status: 400 })))
    const error = await failure(remit.lookup.rates({ sendingAmountSLE: 6000, destCurrency: 'GHS' }))
    expect(error.problem).toEqual(problem)
    expect([error.detail, error.instance]).toEqual(['Daily limit reached.', '/api/lookup/rates'])
    expect(error.message).toBe(
      'lookup.rates: the service refused the request (HTTP 400). Limit exceeded: Daily limit reached. — sendingAmountSLE: Too large. Daily limit is 5000.',
    )
  })

  it('a missing key is rejected, and the message names the x-code header', async () => {
    const { remit, url } = await setup()
    const wrong = new Remittance({ baseUrl: url, apiKey: 'not-the-key' })
    const error = await failure(wrong.lookup.banks())
    await wrong.close()
    expect(error.status).toBe(401)
    expect(error.reason).toBe('unauthorized')
    expect(error.message).toContain('x-code header')
    expect(error.detail).toBe('The x-code header holds an unknown API key.')
    // A per-call header cannot replace the key (one managed-header rule), so ask the service directly.
    const override = await remit.lookup.banks(undefined, { headers: { 'X-Code': '' } }).catch((e: unknown) => e)
    expect(override).toBeInstanceOf(RequestValidationError)
    expect((override as RequestValidationError).issues.map((i) => i.path)).toEqual(['headers.X-Code'])
    const missing = await fetch(`${url}/api/lookup/banks`)
    expect(missing.status).toBe(401)
    expect(((await missing.json()) as { detail: string }).detail).toBe('The x-code header is missing.')
  })

  it('a 403 is read as a rejected key as well', async () => {
    const { remit, server } = await setup()
    server.use(http.get('*/api/lookup/banks', () => new HttpResponse(null, { status: 403 })))
    const error = await failure(remit.lookup.banks())
    expect([error.reason, error.isAuthError, error.problem]).toEqual(['forbidden', true, undefined])
    expect(error.message).toBe(
      'lookup.banks: the service rejected the credentials (HTTP 403). The API key goes in the x-code header: check the apiKey option. The answer had an empty body.',
    )
  })

  it('a 502 HTML page from a proxy is still a RemittanceError, with the raw body', async () => {
    const { remit, simulator } = await setup({ maxRetries: 0 })
    simulator.failNext({ path: '/api/lookup/banks', body: HTML_ERROR_PAGE })
    const error = await failure(remit.lookup.banks())
    expect(error.status).toBe(502)
    expect(error.reason).toBe('upstream_failure')
    expect(error.problem).toBeUndefined()
    expect(error.fieldErrors).toEqual({})
    expect(error.rawBody).toContain('<h1>502 Bad Gateway</h1>')
    expect(error.message).toMatch(
      /upstream failure \(HTTP 502\)\. The answer is not a ProblemDetails record \(text\/html/,
    )
  })

  it('a 502 with an empty body is a RemittanceError too', async () => {
    const { remit, simulator } = await setup({ maxRetries: 0 })
    simulator.failNext({ path: '/api/lookup/rates', body: '' })
    const error = await failure(remit.lookup.rates({ sendingAmountSLE: 1, destCurrency: 'GHS' }))
    expect([error.status, error.rawBody, error.problem]).toEqual([502, '', undefined])
    expect(error.message).toContain('empty body')
  })

  it('a 502 ProblemDetails from the service keeps its record', async () => {
    const { remit, simulator } = await setup({ maxRetries: 0 })
    simulator.failNext()
    const error = await failure(remit.lookup.destinationCountries())
    expect(error.problem).toMatchObject({ status: 502, title: 'Bad Gateway' })
    expect(error.detail).toContain('simulated upstream failure')
  })

  it('a 400 whose body is not ProblemDetails keeps the raw body', async () => {
    const { remit, server } = await setup()
    server.use(http.post('*/api/lookup/rates', () => HttpResponse.text('Bad Request', { status: 400 })))
    const error = await failure(remit.lookup.rates({}))
    expect([error.reason, error.problem, error.rawBody]).toEqual(['bad_request', undefined, 'Bad Request'])
  })

  it('a 500 is server_error, and a status with no row of its own is http_error', async () => {
    const { remit, server } = await setup({ maxRetries: 0 })
    server.use(http.get('*/api/lookup/banks', () => HttpResponse.json({ title: 'Oops', status: 500 }, { status: 500 })))
    const error = await failure(remit.lookup.banks())
    expect([error.reason, error.title]).toEqual(['server_error', 'Oops'])
    server.use(http.get('*/api/lookup/banks', () => HttpResponse.json({ title: 'Teapot' }, { status: 418 })))
    const other = await failure(remit.lookup.banks())
    expect([other.reason, other.title]).toEqual(['http_error', 'Teapot'])
  })

  it('the raw escape hatch uses the same key, pipeline and error class', async () => {
    const { remit, server, apiKey } = await setup()
    const created = await remit.request(
      { method: 'POST', path: '/api/beneficiaries', body: beneficiary },
      { schema: z.object({ beneficiaryId: z.string() }) },
    )
    expect(created.beneficiaryId).toBe('BEN000001')
    const error = await failure(remit.request({ method: 'POST', path: '/api/beneficiaries', body: { firstName: 7 } }))
    expect(error.fieldErrors.firstName).toEqual([
      'The JSON value could not be converted to System.String. Path: $.firstName',
    ])
    expect(server.requests.every((r) => r.headers['x-code'] === apiKey)).toBe(true)
  })

  it('server-side type checks answer a 400 errors map (sent through the raw escape hatch, bypassing the client checks)', async () => {
    const { remit } = await setup()
    const error = await failure(
      remit.request({
        method: 'POST',
        path: '/api/lookup/rates',
        body: { sendingAmountSLE: '100', destCurrency: 'GHS' },
      }),
    )
    expect(error.fieldErrors).toEqual({
      sendingAmountSLE: ['The JSON value could not be converted to System.Decimal. Path: $.sendingAmountSLE'],
    })
  })
})
