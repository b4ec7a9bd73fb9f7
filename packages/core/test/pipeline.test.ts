import { ApiPromise, ConnectionError, RequestValidationError } from '@paywire/core'
import {
  buildRawRequest,
  closest,
  describeProblem,
  formBody,
  jsonBody,
  parseProblemDetails,
  validateParams,
  withQuery,
} from '@paywire/core/engine'
import { faults, startFaultServer, startMockServer } from '@paywire/core/testing'
import { HttpResponse, http } from 'msw'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { jsonHandler, makeClient } from './helpers.js'

describe('results', () => {
  it('await gives the data; .withResponse() adds status, headers, request id, raw body and attempts', async () => {
    const server = await startMockServer([
      http.get('*/thing', () => HttpResponse.json({ id: 1 }, { status: 200, headers: { 'x-request-id': 'abc' } })),
    ])
    const client = makeClient()
    const request = {
      operation: 'thing.get',
      method: 'GET' as const,
      url: `${server.url}/thing`,
      retry: { kind: 'safe' as const },
    }
    const promise = client.send(request, jsonHandler)
    expect(promise).toBeInstanceOf(ApiPromise)
    expect(promise).toBeInstanceOf(Promise)
    expect(await promise).toEqual({ id: 1 })
    const { data, response } = await client.send(request, jsonHandler).withResponse()
    expect(data).toEqual({ id: 1 })
    expect(response).toMatchObject({ status: 200, requestId: 'abc', rawBody: '{"id":1}', attempts: 1 })
    expect(response.headers['content-type']).toContain('application/json')
    await client.close()
    await server.close()
  })

  it('sends the User-Agent paywire-<package>/<version> node/<version> with the caller suffix', async () => {
    const s = await startFaultServer(faults.json(200, {}))
    const client = makeClient({ userAgent: 'my-shop/1.4' })
    await client.send({ operation: 'o', method: 'GET', url: s.url, retry: { kind: 'safe' } }, jsonHandler)
    await client.close()
    await s.close()
    expect(s.requests[0]?.headers['user-agent']).toBe(
      `paywire-core-test/1.2.3 node/${process.versions.node} my-shop/1.4`,
    )
  })

  it('keeps one keep-alive connection across sequential calls', async () => {
    const s = await startFaultServer(faults.json(200, {}))
    const client = makeClient()
    for (let i = 0; i < 5; i++)
      await client.send({ operation: 'o', method: 'GET', url: s.url, retry: { kind: 'safe' } }, jsonHandler)
    await client.close()
    await s.close()
    expect(new Set(s.requests.map((r) => r.headers.connection ?? 'keep-alive'))).toEqual(new Set(['keep-alive']))
  })
})

describe('raw escape hatch', () => {
  it('builds JSON, form and query requests on the same pipeline; GET is safe, the rest unsent-only', () => {
    const get = buildRawRequest(
      'raw',
      'https://h.test',
      { method: 'GET', path: '/a', query: { q: 'x y', n: 1, skip: undefined } },
      { 'x-code': 'k' },
    )
    expect(get).toMatchObject({
      url: 'https://h.test/a?q=x+y&n=1',
      retry: { kind: 'safe' },
      headers: { 'x-code': 'k' },
    })
    const post = buildRawRequest(
      'raw',
      'https://h.test',
      { method: 'POST', path: '/b', form: { a: '1', b: undefined } },
      {},
    )
    expect(post).toMatchObject({
      body: { contentType: 'application/x-www-form-urlencoded', text: 'a=1' },
      retry: { kind: 'unsent-only' },
    })
    const put = buildRawRequest('raw', 'https://h.test', { method: 'PUT', path: '/c', body: { a: 1 } }, {})
    expect(put.body).toEqual({ contentType: 'application/json', text: '{"a":1}' })
  })

  it.each([
    [{ method: 'GET', path: 'https://evil.test/x' }, 'path'],
    [{ method: 'GET', path: '//evil.test/x' }, 'path'],
    [{ method: 'TRACE', path: '/x' }, 'method'],
    [{ method: 'POST', path: '/x', body: {}, form: {} }, 'body'],
  ])('refuses %j before sending', (input, path) => {
    expect(() => buildRawRequest('raw', 'https://h.test', input as never, {})).toThrow(RequestValidationError)
    try {
      buildRawRequest('raw', 'https://h.test', input as never, {})
    } catch (e) {
      expect((e as RequestValidationError).issues.map((i) => i.path)).toContain(path)
    }
  })
})

describe('encoders', () => {
  it('form encoding keeps field order, drops undefined, and round-trips through URLSearchParams', () => {
    const body = formBody({ action: 'CAPTURE', client_key: 'k', amount: undefined, note: 'a&b=c é+' })
    expect(body.text).toBe('action=CAPTURE&client_key=k&note=a%26b%3Dc+%C3%A9%2B')
    expect(Object.fromEntries(new URLSearchParams(body.text))).toEqual({
      action: 'CAPTURE',
      client_key: 'k',
      note: 'a&b=c é+',
    })
  })
  it('JSON bodies and queries', () => {
    expect(jsonBody({ a: '10.00' })).toEqual({ contentType: 'application/json', text: '{"a":"10.00"}' })
    expect(withQuery('https://h/x', { a: [1, 2], b: null })).toBe('https://h/x?a=1&a=2')
    expect(withQuery('https://h/x', {})).toBe('https://h/x')
  })
})

describe('validation', () => {
  const schema = z.strictObject({
    trans_id: z.string().min(1),
    order: z.strictObject({ amount: z.string() }).optional(),
  })

  it('lists every issue with its wire path', () => {
    try {
      validateParams('s2s.capture', schema, { trans_id: 5, order: { amount: 1 } })
      expect.unreachable()
    } catch (e) {
      expect(e).toBeInstanceOf(RequestValidationError)
      expect((e as RequestValidationError).issues.map((i) => i.path)).toEqual(['trans_id', 'order.amount'])
    }
  })

  it('refuses unknown keys and suggests the closest wire name, also in nested objects', () => {
    try {
      validateParams('s2s.capture', schema, { transid: 'x', order: { amuont: '1' } })
      expect.unreachable()
    } catch (e) {
      const issues = (e as RequestValidationError).issues
      expect(issues).toContainEqual({ path: 'transid', message: 'unknown field; did you mean "trans_id"?' })
      expect(issues).toContainEqual({ path: 'order.amuont', message: 'unknown field; did you mean "amount"?' })
    }
  })

  it('closest() suggests nothing for unrelated words', () => {
    expect(closest('zzzzzz', ['trans_id', 'order_id'])).toBeUndefined()
    expect(closest('order_di', ['trans_id', 'order_id'])).toBe('order_id')
  })
})

describe('ProblemDetails (RFC 9457)', () => {
  it('keeps standard members, extension members and the ASP.NET errors map', () => {
    const problem = parseProblemDetails({
      type: 'https://tools.ietf.org/html/rfc9110#section-15.5.1',
      title: 'One or more validation errors occurred.',
      status: 400,
      traceId: '00-abc',
      errors: { amountSLE: ['must be positive'] },
    })
    expect(problem).toMatchObject({ status: 400, traceId: '00-abc', errors: { amountSLE: ['must be positive'] } })
    expect(describeProblem(problem!)).toBe('One or more validation errors occurred. — amountSLE: must be positive')
  })
  it('is undefined for bodies that are not ProblemDetails', () => {
    expect(parseProblemDetails(undefined)).toBeUndefined()
    expect(parseProblemDetails('<html>')).toBeUndefined()
    expect(parseProblemDetails([1])).toBeUndefined()
    expect(parseProblemDetails({ foo: 1 })).toBeUndefined()
  })
  it('drops members of the wrong type, as the RFC asks', () => {
    expect(parseProblemDetails({ status: '400', title: 'x' })).toEqual({ title: 'x' })
  })
})

describe('ApiPromise helpers', () => {
  const response = { status: 200, headers: {}, requestId: undefined, rawBody: '1', attempts: 1 }

  it('rejected() turns a refusal before sending into a rejection, withResponse() included', async () => {
    const refusal = new RequestValidationError('op', [{ path: 'a', message: 'bad' }])
    const started = ApiPromise.rejected(refusal)
    expect(started).toBeInstanceOf(ApiPromise)
    await expect(started).rejects.toBe(refusal)
    await expect(started.withResponse()).rejects.toBe(refusal)
  })

  it('has no static try(): it would clash with Promise.try in an esnext target (TS2417)', () => {
    expect(Object.hasOwn(ApiPromise, 'try')).toBe(false)
  })

  it('map() transforms the data and keeps the response', async () => {
    const mapped = new ApiPromise(Promise.resolve({ data: 1, response })).map((n) => n + 1)
    expect(await mapped).toBe(2)
    expect((await mapped.withResponse()).response).toBe(response)
  })

  it('mapError() replaces the error of a failed call', async () => {
    const failed = new ApiPromise<number>(Promise.reject(new Error('a'))).mapError(() => new Error('b'))
    await expect(failed).rejects.toThrow('b')
  })
})

describe('checks before sending', () => {
  it.each([
    [{ 'x-code': 'ключ' }, 'headers.x-code'],
    [{ 'x-note': 'a\nb' }, 'headers.x-note'],
    [{ 'bad name': 'value-9f3' }, 'headers.bad name'],
  ])(
    'refuses header %j with RequestValidationError, never quoting the value, and sends nothing',
    async (headers, path) => {
      const s = await startFaultServer(faults.json(200, {}))
      const client = makeClient()
      const error = await client
        .send({ operation: 'o', method: 'GET', url: s.url, retry: { kind: 'safe' } }, jsonHandler, { headers })
        .catch((e: unknown) => e)
      await client.close()
      await s.close()
      expect(error).toBeInstanceOf(RequestValidationError)
      expect((error as RequestValidationError).issues[0]?.path).toBe(path)
      expect((error as Error).message).not.toContain(Object.values(headers)[0])
      expect(s.requests).toHaveLength(0)
    },
  )

  it.each([
    ['timeout', -1],
    ['maxRetries', Number.NaN],
    ['maxResponseBytes', Number.POSITIVE_INFINITY],
  ])('refuses client option %s = %s with RequestValidationError', (name, value) => {
    expect(() => makeClient({ [name]: value })).toThrow(RequestValidationError)
  })

  it('a 2xx the service cannot read reaches onError like any other failure', async () => {
    const s = await startFaultServer(faults.text(200, 'not json'))
    const errors: string[] = []
    const client = makeClient({ hooks: { onError: (e) => errors.push(e.error.name) } })
    const unreadable = {
      decode: () => {
        throw new RequestValidationError('o', [{ path: 'body', message: 'unreadable' }])
      },
      toError: jsonHandler.toError,
    }
    await expect(
      client.send({ operation: 'o', method: 'GET', url: s.url, retry: { kind: 'safe' } }, unreadable),
    ).rejects.toThrow()
    await client.close()
    await s.close()
    expect(errors).toEqual(['RequestValidationError'])
  })
})

describe('the msw mock server', () => {
  it('HttpResponse.error() drops the connection, as a network error does, instead of answering 500', async () => {
    const server = await startMockServer([http.post('*/pay', () => HttpResponse.error())])
    const client = makeClient({ maxRetries: 0 })
    const request = {
      operation: 'pay.create',
      method: 'POST' as const,
      url: `${server.url}/pay`,
      body: { contentType: 'application/json', text: '{}' },
      retry: { kind: 'unsent-only' as const },
    }
    const error = await client.send(request, jsonHandler).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(ConnectionError)
    expect(error).toMatchObject({ requestSent: true, outcomeUnknown: true })
    expect(server.requests).toHaveLength(1)
    await client.close()
    await server.close()
  })
})
