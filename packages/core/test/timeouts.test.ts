import { ConnectionError, TimeoutError, UserAbortError } from '@paywire/core'
import { unsentOnly } from '@paywire/core/engine'
import { createTestClock, faults, startFaultServer } from '@paywire/core/testing'
import { Agent } from 'undici'
import { describe, expect, it, onTestFinished } from 'vitest'
import { get, jsonHandler, makeClient, post, TRANSPORTS } from './helpers.js'

async function server(behaviour: Parameters<typeof startFaultServer>[0]) {
  const s = await startFaultServer(behaviour)
  onTestFinished(s.close)
  return s
}

describe.each(TRANSPORTS)('on %s', (_name, transport) => {
  function client(options: Parameters<typeof makeClient>[0] = {}) {
    // A test that brings its own undici dispatcher is about undici only.
    const base = options.dispatcher ? {} : transport()
    const c = makeClient({ clock: createTestClock(), ...base, ...options })
    onTestFinished(() => c.close())
    return c
  }

  describe('per-attempt timeout', () => {
    it('fires in the headers phase when the server never answers', async () => {
      const s = await server(faults.neverAnswer())
      const error = await client({ timeout: 150, maxRetries: 0 })
        .send(get(s.url), jsonHandler)
        .catch((e: unknown) => e)
      expect(error).toBeInstanceOf(TimeoutError)
      expect(error).toBeInstanceOf(ConnectionError)
      expect(error).toMatchObject({ phase: 'headers', timeoutMs: 150, requestSent: true, operation: 'test.get' })
    })

    it('fires in the body phase when the body trickles', async () => {
      const s = await server(faults.trickleBody(20))
      await expect(client({ timeout: 200, maxRetries: 0 }).send(get(s.url), jsonHandler)).rejects.toMatchObject({
        name: 'TimeoutError',
        phase: 'body',
      })
    })

    it('retries a timed-out lookup under the safe policy', async () => {
      const s = await server((req, res, n) =>
        (n === 1 ? faults.neverAnswer() : faults.json(200, { ok: 1 }))(req, res, n),
      )
      const { response } = await client({ timeout: 150 }).send(get(s.url), jsonHandler).withResponse()
      expect(response.attempts).toBe(2)
    })

    it('does not retry a timed-out POST under unsent-only', async () => {
      const s = await server(faults.neverAnswer())
      await expect(
        client({ timeout: 150 }).send(post(s.url, { retry: unsentOnly }), jsonHandler),
      ).rejects.toMatchObject({
        name: 'TimeoutError',
        requestSent: true,
        attempts: 1,
      })
      expect(s.requests).toHaveLength(1)
    })

    it('a per-call timeout overrides the client', async () => {
      const s = await server(faults.neverAnswer())
      await expect(
        client({ timeout: 60_000, maxRetries: 0 }).send(get(s.url), jsonHandler, { timeout: 100 }),
      ).rejects.toMatchObject({ timeoutMs: 100 })
    })

    it('reports the connect phase and an unsent request when connecting times out', async () => {
      const dispatcher = new Agent({
        connect: (_options, callback) => {
          const error = Object.assign(new Error('Connect Timeout Error'), { code: 'UND_ERR_CONNECT_TIMEOUT' })
          callback(error, null)
        },
      })
      onTestFinished(() => dispatcher.close())
      const error = await client({ dispatcher, maxRetries: 0 })
        .send(post('http://127.0.0.1:9/', { retry: unsentOnly }), jsonHandler)
        .catch((e: unknown) => e)
      expect(error).toBeInstanceOf(TimeoutError)
      expect(error).toMatchObject({ phase: 'connect', requestSent: false })
    })
  })

  describe('total deadline', () => {
    it('shortens the last attempt to the time left and reports the total phase', async () => {
      // The test clock stands still until the server has the request, then jumps to the deadline:
      // the attempt gets exactly the 150 ms left, and no retry fits after it.
      const clock = createTestClock()
      const s = await server(() => clock.advance(150))
      const error = await client({
        clock,
        random: () => 0,
        timeout: 10_000,
        totalTimeout: 150,
        maxRetries: 3,
      })
        .send(get(s.url), jsonHandler)
        .catch((e: unknown) => e)
      expect(error).toMatchObject({ name: 'TimeoutError', phase: 'total', timeoutMs: 150 })
    })
  })

  describe('AbortSignal', () => {
    it('rejects with UserAbortError when the caller aborts mid-request', async () => {
      const s = await server(faults.neverAnswer())
      const controller = new AbortController()
      const pending = client().send(get(s.url), jsonHandler, { signal: controller.signal })
      setImmediate(() => controller.abort())
      const error = await pending.catch((e: unknown) => e)
      expect(error).toBeInstanceOf(UserAbortError)
      expect(error).not.toBeInstanceOf(ConnectionError)
    })

    it('sends nothing when the signal is already aborted', async () => {
      const s = await server(faults.json(200, {}))
      await expect(client().send(get(s.url), jsonHandler, { signal: AbortSignal.abort() })).rejects.toMatchObject({
        name: 'UserAbortError',
        requestSent: false,
      })
      expect(s.requests).toHaveLength(0)
    })

    it('aborting during the backoff ends the call without another attempt', async () => {
      const s = await server(faults.json(503, {}))
      const controller = new AbortController()
      const clock = createTestClock()
      const sleepingClock = {
        now: clock.now,
        sleep: (_ms: number, signal?: AbortSignal) => {
          controller.abort()
          return Promise.reject(signal?.reason)
        },
      }
      await expect(
        client({ clock: sleepingClock }).send(get(s.url), jsonHandler, { signal: controller.signal }),
      ).rejects.toBeInstanceOf(UserAbortError)
      expect(s.requests).toHaveLength(1)
    })
  })
})
