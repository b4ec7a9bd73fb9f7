import { ConnectionError } from '@paywire/core'
import { unsentOnly, withinWindow } from '@paywire/core/engine'
import { createTestClock, faults, refusedUrl, startFaultServer } from '@paywire/core/testing'
import { describe, expect, it, onTestFinished } from 'vitest'
import { get, jsonHandler, makeClient, post } from './helpers.js'

async function server(behaviour: Parameters<typeof startFaultServer>[0]) {
  const s = await startFaultServer(behaviour)
  onTestFinished(s.close)
  return s
}

function client(options: Parameters<typeof makeClient>[0] = {}) {
  const c = makeClient({ clock: createTestClock(), random: () => 0.5, ...options })
  onTestFinished(() => c.close())
  return c
}

describe('safe policy', () => {
  it.each([408, 429, 502, 503, 504])('retries HTTP %i and then succeeds', async (status) => {
    const s = await server((req, res, n) =>
      n === 1 ? faults.json(status, { error: 'busy' })(req, res, n) : faults.json(200, { ok: true })(req, res, n),
    )
    const { data, response } = await client().send(get(s.url), jsonHandler).withResponse()
    expect(data).toEqual({ ok: true })
    expect(response.attempts).toBe(2)
    expect(s.requests).toHaveLength(2)
  })

  it.each([400, 401, 404, 409, 500])('does not retry HTTP %i', async (status) => {
    const s = await server(faults.json(status, { error: 'no' }))
    await expect(client().send(get(s.url), jsonHandler)).rejects.toMatchObject({ status, attempts: 1 })
    expect(s.requests).toHaveLength(1)
  })

  it('retries a reset connection, with exponential backoff and full jitter', async () => {
    const s = await server(faults.resetBeforeAnswer())
    const clock = createTestClock()
    const error = await client({ clock, random: () => 0.999 })
      .send(get(s.url), jsonHandler)
      .catch((e: unknown) => e)
    expect(error).toBeInstanceOf(ConnectionError)
    expect(error).toMatchObject({ requestSent: true, attempts: 3 })
    expect(s.requests).toHaveLength(3)
    // ceilings 250 then 500 ms, times random 0.999
    expect(clock.sleeps).toEqual([249, 499])
  })

  it('caps the backoff ceiling at maxDelayMs', async () => {
    const s = await server(faults.json(503, {}))
    const clock = createTestClock()
    await client({ clock, random: () => 0.999, maxRetries: 6, backoff: { maxDelayMs: 1000 } })
      .send(get(s.url), jsonHandler)
      .catch(() => {})
    expect(clock.sleeps).toEqual([249, 499, 999, 999, 999, 999])
  })

  it('honours Retry-After in seconds', async () => {
    const s = await server((req, res, n) =>
      (n === 1 ? faults.json(503, {}, { 'retry-after': '3' }) : faults.json(200, { ok: 1 }))(req, res, n),
    )
    const clock = createTestClock()
    await client({ clock }).send(get(s.url), jsonHandler)
    expect(clock.sleeps).toEqual([3000])
  })

  it('honours Retry-After as an HTTP date', async () => {
    const clock = createTestClock(Date.UTC(2026, 0, 1, 0, 0, 0))
    const s = await server((req, res, n) =>
      (n === 1
        ? faults.json(429, {}, { 'retry-after': 'Thu, 01 Jan 2026 00:00:07 GMT' })
        : faults.json(200, { ok: 1 }))(req, res, n),
    )
    await client({ clock }).send(get(s.url), jsonHandler)
    expect(clock.sleeps).toEqual([7000])
  })

  it('gives up when Retry-After asks for more than maxRetryAfterMs', async () => {
    const s = await server(faults.json(503, {}, { 'retry-after': '3600' }))
    await expect(client().send(get(s.url), jsonHandler)).rejects.toMatchObject({ status: 503, attempts: 1 })
    expect(s.requests).toHaveLength(1)
  })

  it('stops after maxRetries and reports the last answer', async () => {
    const s = await server(faults.json(502, { e: 1 }))
    await expect(client({ maxRetries: 1 }).send(get(s.url), jsonHandler)).rejects.toMatchObject({
      status: 502,
      attempts: 2,
    })
    expect(s.requests).toHaveLength(2)
  })

  it('a per-call maxRetries overrides the client', async () => {
    const s = await server(faults.json(502, {}))
    await expect(client({ maxRetries: 5 }).send(get(s.url), jsonHandler, { maxRetries: 0 })).rejects.toMatchObject({
      attempts: 1,
    })
  })

  it('does not start a retry that would end past the total deadline', async () => {
    const s = await server(faults.json(503, {}, { 'retry-after': '20' }))
    await expect(client({ totalTimeout: 10_000 }).send(get(s.url), jsonHandler)).rejects.toMatchObject({
      status: 503,
      attempts: 1,
    })
  })
})

describe('unsent-only policy', () => {
  it('retries a refused connection: the request provably never left', async () => {
    const url = await refusedUrl()
    const clock = createTestClock()
    const error = await client({ clock })
      .send(post(url, { retry: unsentOnly }), jsonHandler)
      .catch((e: unknown) => e)
    expect(error).toBeInstanceOf(ConnectionError)
    expect(error).toMatchObject({ requestSent: false, attempts: 3 })
    expect((error as Error).message).toContain('ECONNREFUSED')
    expect(clock.sleeps).toHaveLength(2)
  })

  it('does not retry a POST after a reset before the answer', async () => {
    const s = await server(faults.resetBeforeAnswer())
    const error = await client()
      .send(post(s.url, { retry: unsentOnly }), jsonHandler)
      .catch((e: unknown) => e)
    expect(error).toBeInstanceOf(ConnectionError)
    expect(error).toMatchObject({ requestSent: true, attempts: 1 })
    expect((error as Error).message).toMatch(
      /Outcome unknown: .* no key identifies it, so no lookup can reconcile it: check with the service/,
    )
    expect(s.requests).toHaveLength(1)
  })

  it('does not retry a POST after a reset in the middle of the body', async () => {
    const s = await server(faults.resetMidBody())
    await expect(client().send(post(s.url, { retry: unsentOnly }), jsonHandler)).rejects.toMatchObject({
      requestSent: true,
      attempts: 1,
    })
    expect(s.requests).toHaveLength(1)
  })

  it.each([429, 502, 503, 504])('does not retry HTTP %i (the service may have acted)', async (status) => {
    const s = await server(faults.json(status, {}))
    await expect(client().send(post(s.url, { retry: unsentOnly }), jsonHandler)).rejects.toMatchObject({ status })
    expect(s.requests).toHaveLength(1)
  })
})

describe('window policy', () => {
  it('retries with the identical body while inside the window', async () => {
    const s = await server((req, res, n) =>
      (n === 1 ? faults.resetBeforeAnswer() : faults.json(200, { ok: 1 }))(req, res, n),
    )
    const request = post(s.url, { retry: withinWindow(15_000) })
    await client().send(request, jsonHandler)
    expect(s.requests).toHaveLength(2)
    expect(s.requests[1]?.body).toBe(s.requests[0]?.body)
  })

  it('does not retry once the retry would land outside the window', async () => {
    const s = await server(faults.json(503, {}, { 'retry-after': '16' }))
    await expect(client().send(post(s.url, { retry: withinWindow(15_000) }), jsonHandler)).rejects.toMatchObject({
      status: 503,
      attempts: 1,
    })
    expect(s.requests).toHaveLength(1)
  })

  it('counts the window from the first attempt, not the last', async () => {
    const clock = createTestClock()
    const s = await server((req, res, n) => {
      clock.advance(5_500) // each attempt takes 5.5 seconds of the window
      faults.json(503, {}, { 'retry-after': '1' })(req, res, n)
    })
    await expect(
      client({ clock, maxRetries: 5 }).send(post(s.url, { retry: withinWindow(15_000) }), jsonHandler),
    ).rejects.toMatchObject({ status: 503 })
    // attempts end at 5.5 s and 12 s; a retry at 13 s is inside the window less its 1 s margin, one at 19.5 s is not
    expect(s.requests).toHaveLength(3)
  })
})
