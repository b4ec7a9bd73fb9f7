/**
 * Core owns two rules every package shares: the idempotency key of a call is on its response info
 * and on every error, set when the error is built (never attached afterwards); and a caller's header
 * never replaces one the SDK sets for the operation.
 */

import { ApiError, ConnectionError, RequestValidationError, TimeoutError, UserAbortError } from '@paywire/core'
import { buildRawRequest, keyed, unsentOnly } from '@paywire/core/engine'
import { createTestClock, faults, startFaultServer } from '@paywire/core/testing'
import { describe, expect, it, onTestFinished } from 'vitest'
import { jsonHandler, makeClient, post, rejection } from './helpers.js'

const KEY = 'pay-7f3a'

async function server(behaviour: Parameters<typeof startFaultServer>[0]) {
  const s = await startFaultServer(behaviour)
  onTestFinished(() => s.close())
  return s
}

function client(options: Parameters<typeof makeClient>[0] = {}) {
  const c = makeClient({ clock: createTestClock(), ...options })
  onTestFinished(() => c.close())
  return c
}

const keyedPost = (url: string) => post(url, { retry: keyed, idempotencyKey: KEY, headers: { 'Idempotency-Key': KEY } })

describe('the idempotency key of a call', () => {
  it('is on the response info of a success, the same for every attempt', async () => {
    const s = await server((req, res, n) => (n === 1 ? faults.json(503, {}) : faults.json(200, { ok: 1 }))(req, res, n))
    const { response } = await client().send(keyedPost(s.url), jsonHandler).withResponse()
    expect(response).toMatchObject({ attempts: 2, idempotencyKey: KEY })
    expect(s.requests.map((r) => r.headers['idempotency-key'])).toEqual([KEY, KEY])
  })

  it.each([
    ['ApiError (an answered 409)', faults.json(409, {}), ApiError],
    ['ConnectionError (reset after send)', faults.resetBeforeAnswer(), ConnectionError],
  ])('is an own field of %s, set at construction', async (_name, behaviour, errorClass) => {
    const s = await server(behaviour)
    const error = await rejection(client({ maxRetries: 0 }).send(keyedPost(s.url), jsonHandler))
    expect(error).toBeInstanceOf(errorClass)
    expect(error).toMatchObject({ idempotencyKey: KEY })
    // A plain data field like outcomeUnknown: enumerable, so JSON and inspect show it.
    expect(JSON.parse(JSON.stringify(error))).toMatchObject({ idempotencyKey: KEY })
  })

  it('is on a TimeoutError and on a UserAbortError', async () => {
    const s = await server(faults.neverAnswer())
    const timeout = await rejection(client({ timeout: 50, maxRetries: 0 }).send(keyedPost(s.url), jsonHandler))
    expect(timeout).toBeInstanceOf(TimeoutError)
    expect(timeout).toMatchObject({ idempotencyKey: KEY, outcomeUnknown: true })
    const controller = new AbortController()
    const pending = client().send(keyedPost(s.url), jsonHandler, { signal: controller.signal })
    controller.abort()
    const abort = await rejection(pending)
    expect(abort).toBeInstanceOf(UserAbortError)
    expect(abort).toMatchObject({ idempotencyKey: KEY })
  })

  it('is absent from every error of a call without one', async () => {
    const s = await server(faults.json(409, {}))
    const error = await rejection(client().send(post(s.url, { retry: unsentOnly }), jsonHandler))
    expect(error).toMatchObject({ idempotencyKey: undefined })
  })
})

describe('one managed-header rule', () => {
  const sdkHeaders = { 'x-code': 'secret-key', 'Idempotency-Key': KEY }

  it.each([['X-CODE'], ['idempotency-key'], ['Content-Type']])(
    'a per-call %s is refused, naming it, and nothing is sent',
    async (name) => {
      const s = await server(faults.json(200, {}))
      const error = await rejection(
        client().send(post(s.url, { headers: sdkHeaders }), jsonHandler, { headers: { [name]: 'other' } }),
      )
      expect(error).toBeInstanceOf(RequestValidationError)
      expect((error as RequestValidationError).issues).toEqual([
        {
          path: `headers.${name}`,
          message:
            'is set by the SDK for this operation (credentials come from the client options, an idempotency key from the idempotencyKey option); it cannot be set per call',
        },
      ])
      expect(JSON.stringify(error)).not.toContain('secret-key')
      expect(s.requests).toHaveLength(0)
    },
  )

  it('an SDK-owned header the call does not send (an idempotency header without a key) is refused too', async () => {
    const s = await server(faults.json(200, {}))
    const request = post(s.url, { managedHeaders: ['Idempotency-Key'] })
    const error = await rejection(client().send(request, jsonHandler, { headers: { 'IDEMPOTENCY-KEY': 'mine' } }))
    expect((error as RequestValidationError).issues.map((i) => i.path)).toEqual(['headers.IDEMPOTENCY-KEY'])
    expect(s.requests).toHaveLength(0)
  })

  it('other per-call headers still go out, and the SDK headers are the ones sent', async () => {
    const s = await server(faults.json(200, {}))
    await client().send(post(s.url, { headers: sdkHeaders }), jsonHandler, { headers: { 'x-trace': 't-1' } })
    expect(s.requests[0]?.headers).toMatchObject({ 'x-trace': 't-1', 'x-code': 'secret-key', 'idempotency-key': KEY })
  })

  it('the raw escape hatch applies the same rule to its own headers', () => {
    const build = () =>
      buildRawRequest(
        'request',
        'https://api.example.com',
        { method: 'POST', path: '/x', body: {}, headers: { 'X-Code': 'other', 'IDEMPOTENCY-KEY': 'k' } },
        { 'x-code': 'secret-key' },
        ['Idempotency-Key'],
      )
    expect(build).toThrow(RequestValidationError)
    try {
      build()
    } catch (error) {
      expect((error as RequestValidationError).issues.map((i) => i.path)).toEqual([
        'headers.X-Code',
        'headers.IDEMPOTENCY-KEY',
      ])
    }
  })
})
