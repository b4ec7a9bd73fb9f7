/**
 * Money-safety defects found by outside probing, each reproduced from the attacker's side with a
 * misbehaving loopback server and the real undici transport.
 */

import { type AddressInfo, connect, createServer, type Server } from 'node:net'
import {
  ApiError,
  ConnectionError,
  RequestValidationError,
  systemClock,
  TimeoutError,
  UserAbortError,
} from '@paywire/core'
import { type HttpRequest, keyed, parseRetryAfter, unsentOnly, withinWindow } from '@paywire/core/engine'
import { createTestClock, faults, refusedUrl, startFaultServer } from '@paywire/core/testing'
import { Agent } from 'undici'
import { afterEach, describe, expect, it, onTestFinished, vi } from 'vitest'
import { get, jsonHandler, makeClient, post, rejection } from './helpers.js'

afterEach(() => {
  vi.restoreAllMocks()
})

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

const captureKey = { key: 'trans_id', value: 't-1', lookup: 'gw.s2s.getTransStatus({ trans_id: "t-1" })' }

describe('success is 2xx only: 1xx leftovers, 3xx and 304 are errors, never followed, never retried', () => {
  it.each([
    [301, ''],
    [302, ''],
    [303, ''],
    [307, '{"result":"SUCCESS","status":"SETTLED"}'],
    [308, '{"result":"SUCCESS"}'],
    [304, ''],
  ])('HTTP %i to a money-moving POST rejects with ApiError and sends nothing to the Location', async (status, body) => {
    const elsewhere = await server(faults.json(200, { result: 'SUCCESS' }))
    const s = await server(faults.text(status, body, 'application/json', { location: `${elsewhere.url}/steal` }))
    for (const retry of [unsentOnly, withinWindow(15_000)]) {
      const error = await rejection(client().send(post(s.url, { retry }), jsonHandler))
      expect(error).toBeInstanceOf(ApiError)
      expect(error).toMatchObject({ status, attempts: 1, outcomeUnknown: true })
    }
    expect(s.requests).toHaveLength(2)
    expect(elsewhere.requests).toHaveLength(0)
  })

  it('a 3xx to a safe lookup is an error too, not retried', async () => {
    const s = await server(faults.json(302, { ok: true }, { location: 'https://elsewhere.example/' }))
    const error = await rejection(client().send(get(s.url), jsonHandler))
    expect(error).toMatchObject({ status: 302, attempts: 1, outcomeUnknown: false })
    expect(s.requests).toHaveLength(1)
  })
})

/** A dispatcher whose n-th new connection is refused (the request provably never leaves). */
function refuseConnection(which: number, onRefuse: () => void = () => {}): Agent {
  let connections = 0
  const agent = new Agent({
    connect: (options, callback) => {
      connections += 1
      if (connections === which) {
        onRefuse()
        callback(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }), null)
        return
      }
      const socket = connect({ host: options.hostname, port: Number(options.port) })
      socket.once('connect', () => callback(null, socket))
      socket.once('error', (error) => callback(error, null))
    },
  })
  onTestFinished(() => agent.close())
  return agent
}

describe('the 15 s dedup window holds for every attempt after one that may have arrived', () => {
  it('attempt 1 answered 503 at 14.7 s: no later attempt leaves, and the 503 says the outcome is unknown', async () => {
    const clock = createTestClock()
    const s = await server((req, res, n) => {
      clock.advance(14_700)
      faults.json(503, { error: 'busy' }, { connection: 'close' })(req, res, n)
    })
    const c = client({ clock, random: () => 0.999, dispatcher: refuseConnection(2), maxRetries: 5 })
    const request = post(s.url, { retry: withinWindow(15_000), reconciliation: captureKey })
    const error = await rejection(c.send(request, jsonHandler))
    expect(s.requests).toHaveLength(1)
    expect(error).toMatchObject({ status: 503, outcomeUnknown: true, reconciliation: captureKey })
  })

  it('an attempt refused after one that may have arrived does not lift the window for the next', async () => {
    const clock = createTestClock()
    const s = await server((req, res, n) => {
      clock.advance(13_000)
      faults.json(503, { error: 'busy' }, { connection: 'close' })(req, res, n)
    })
    // attempt 2 is refused after 0.5 s; attempt 3 would leave at 13.25 + 0.5 + 0.499 = 14.25 s,
    // inside the 15 s window but past its 1 s margin: it is not sent.
    const dispatcher = refuseConnection(2, () => clock.advance(500))
    const c = client({ clock, random: () => 0.999, dispatcher, maxRetries: 5 })
    const request = post(s.url, { retry: withinWindow(15_000), reconciliation: captureKey })
    const error = await rejection(c.send(request, jsonHandler))
    expect(s.requests).toHaveLength(1)
    expect(error).toBeInstanceOf(ConnectionError)
    // The last attempt was refused, but the first may have acted: the call's outcome is unknown.
    expect(error).toMatchObject({ requestSent: true, outcomeUnknown: true, reconciliation: captureKey, attempts: 2 })
    expect((error as Error).message).toContain('An earlier attempt may have reached the service')
  })

  it('a window retry that would start inside the window is cut before the window closes', async () => {
    const clock = createTestClock()
    let first = true
    const s = await server((req, res, n) => {
      if (first) {
        first = false
        clock.advance(13_900)
        return faults.json(503, {})(req, res, n)
      }
      // attempt 2 never answers: without a cut it would run on to the 30 s attempt timeout
      clock.advance(5_000)
    })
    const c = client({ clock, random: () => 0, maxRetries: 3 })
    const error = await rejection(c.send(post(s.url, { retry: withinWindow(15_000) }), jsonHandler))
    expect(error).toBeInstanceOf(TimeoutError)
    expect(error).toMatchObject({ phase: 'window', requestSent: true, outcomeUnknown: true })
    // 15 s window − 1 s margin − 13.9 s already used
    expect((error as TimeoutError).timeoutMs).toBe(100)
  })

  it('a backoff that oversleeps past the window close sends no retry at all', async () => {
    const clock = createTestClock()
    const s = await server((req, res, n) => {
      clock.advance(10_000)
      faults.json(503, {})(req, res, n)
    })
    // The timer fires late (a loaded machine, a VM pause): the retry would start after the close.
    clock.sleep = async (ms) => clock.advance(ms + 5_000)
    const c = client({ clock, random: () => 0.5, maxRetries: 3 })
    const error = await rejection(c.send(post(s.url, { retry: withinWindow(15_000) }), jsonHandler))
    expect(s.requests).toHaveLength(1)
    expect(error).toMatchObject({ status: 503, attempts: 1, outcomeUnknown: true })
  })

  it('connection refusals before any attempt arrived do not start the window', async () => {
    const clock = createTestClock()
    const s = await server(faults.json(200, { ok: 1 }))
    const dispatcher = refuseConnection(1)
    const c = client({ clock, dispatcher, maxRetries: 2 })
    clock.advance(20_000)
    const { response } = await c.send(post(s.url, { retry: withinWindow(15_000) }), jsonHandler).withResponse()
    expect(response.attempts).toBe(2)
  })
})

describe('durations follow a monotonic clock, not the wall clock', () => {
  it('the system clock is monotonic (performance.now), and a wall-clock step does not close the window', async () => {
    expect(systemClock.now()).toBeLessThan(Date.now() / 10) // performance.now counts from process start
    let wall = Date.now()
    vi.spyOn(Date, 'now').mockImplementation(() => {
      wall += 20_000 // NTP or a VM resume steps the wall clock 20 s forward on every read
      return wall
    })
    const s = await server(faults.json(503, {}))
    const c = makeClient({ random: () => 0, maxRetries: 3 })
    onTestFinished(() => c.close())
    const error = await rejection(c.send(post(s.url, { retry: withinWindow(15_000) }), jsonHandler))
    expect(error).toMatchObject({ status: 503, attempts: 4 })
  })

  it('an HTTP-date Retry-After is read against the wall clock of the injected clock', async () => {
    const clock = createTestClock(Date.UTC(2026, 0, 1))
    const s = await server((req, res, n) =>
      (n === 1
        ? faults.json(429, {}, { 'retry-after': 'Thu, 01 Jan 2026 00:00:07 GMT' })
        : faults.json(200, { ok: 1 }))(req, res, n),
    )
    await client({ clock }).send(get(s.url), jsonHandler)
    expect(clock.sleeps).toEqual([7_000])
  })
})

describe('outcomeUnknown: every error of a call that may have acted says so and carries its key', () => {
  const cases: Array<[string, Parameters<typeof startFaultServer>[0]]> = [
    ['an HTML 502', faults.text(502, '<html>Bad Gateway</html>')],
    ['a 503', faults.json(503, {})],
    ['a 500', faults.json(500, { error: 'boom' })],
    ['an unreadable 2xx', faults.truncatedJson()],
  ]
  it.each(cases)('%s to a capture: outcomeUnknown, the key, and how to reconcile', async (_name, behaviour) => {
    const s = await server(behaviour)
    const strict = {
      decode: (response: { json: unknown; status: number }, request: HttpRequest) => {
        if (response.json === undefined) {
          throw new ApiError({
            ...request,
            response: response as never,
            body: undefined,
            message: 'unreadable',
          })
        }
        return response.json
      },
      toError: jsonHandler.toError,
    }
    const error = await rejection(
      client().send(post(s.url, { retry: unsentOnly, reconciliation: captureKey }), strict as never),
    )
    expect(error).toBeInstanceOf(ApiError)
    expect(error).toMatchObject({ outcomeUnknown: true, reconciliation: captureKey })
    expect((error as Error).message).toContain('gw.s2s.getTransStatus({ trans_id: "t-1" })')
  })

  it('a reset after send and a timeout after send are unknown outcomes of a capture', async () => {
    const reset = await server(faults.resetBeforeAnswer())
    const stall = await server(faults.neverAnswer())
    const request = (url: string) => post(url, { retry: unsentOnly, reconciliation: captureKey })
    const lost = await rejection(client().send(request(reset.url), jsonHandler))
    expect(lost).toMatchObject({ name: 'ConnectionError', requestSent: true, outcomeUnknown: true })
    expect((lost as Error).message).toContain('getTransStatus')
    const timedOut = await rejection(client({ timeout: 100 }).send(request(stall.url), jsonHandler))
    expect(timedOut).toMatchObject({ name: 'TimeoutError', requestSent: true, outcomeUnknown: true })
    expect(timedOut).toMatchObject({ reconciliation: captureKey })
  })

  it('a keyed call is retried like a lookup, yet its ambiguous end is still an unknown outcome', async () => {
    const s = await server(faults.json(503, {}))
    const error = await rejection(client().send(post(s.url, { retry: keyed, reconciliation: captureKey }), jsonHandler))
    expect(s.requests).toHaveLength(3)
    expect(error).toMatchObject({ status: 503, attempts: 3, outcomeUnknown: true })
  })

  it.each([400, 404, 408, 409, 429])('HTTP %i is an answered refusal: outcome known', async (status) => {
    const s = await server(faults.json(status, { error: 'no' }))
    const error = await rejection(
      client().send(post(s.url, { retry: unsentOnly, reconciliation: captureKey }), jsonHandler),
    )
    expect(error).toMatchObject({ status, outcomeUnknown: false, reconciliation: captureKey })
  })

  it('a refused connection is no unknown outcome; neither is a safe lookup that timed out', async () => {
    const refused = await refusedUrl()
    const e1 = await rejection(
      client({ maxRetries: 0 }).send(post(refused, { retry: unsentOnly, reconciliation: captureKey }), jsonHandler),
    )
    expect(e1).toMatchObject({ requestSent: false, outcomeUnknown: false })
    const stall = await server(faults.neverAnswer())
    const e2 = await rejection(client({ timeout: 100, maxRetries: 0 }).send(get(stall.url), jsonHandler))
    expect(e2).toMatchObject({ requestSent: true, outcomeUnknown: false })
    expect((e2 as Error).message).not.toMatch(/reconcile/i)
  })
})

describe('requestSent is false where the request provably never left', () => {
  it('abort during the backoff after a refused connection', async () => {
    const refused = await refusedUrl()
    const controller = new AbortController()
    const clock = createTestClock()
    clock.sleep = async () => {
      controller.abort()
      throw controller.signal.reason
    }
    const error = await rejection(
      client({ clock }).send(post(refused, { retry: unsentOnly }), jsonHandler, { signal: controller.signal }),
    )
    expect(error).toBeInstanceOf(UserAbortError)
    expect(error).toMatchObject({ requestSent: false, outcomeUnknown: false })
  })

  it('abort during the backoff after a 503 keeps requestSent true', async () => {
    const s = await server(faults.json(503, {}))
    const controller = new AbortController()
    const clock = createTestClock()
    clock.sleep = async () => {
      controller.abort()
      throw controller.signal.reason
    }
    const error = await rejection(
      client({ clock }).send(post(s.url, { retry: withinWindow(15_000), reconciliation: captureKey }), jsonHandler, {
        signal: controller.signal,
      }),
    )
    expect(error).toMatchObject({ name: 'UserAbortError', requestSent: true, outcomeUnknown: true })
  })

  it('a call after close() sends nothing and says so', async () => {
    const s = await server(faults.json(200, {}))
    const c = makeClient()
    await c.close()
    const error = await rejection(c.send(post(s.url, { retry: unsentOnly }), jsonHandler))
    expect(error).toBeInstanceOf(ConnectionError)
    expect(error).toMatchObject({ requestSent: false, outcomeUnknown: false })
    expect(s.requests).toHaveLength(0)
  })

  it('a call on a caller-supplied dispatcher that was destroyed sends nothing', async () => {
    const s = await server(faults.json(200, {}))
    const dispatcher = new Agent()
    await dispatcher.destroy()
    const error = await rejection(client({ dispatcher }).send(post(s.url, { retry: unsentOnly }), jsonHandler))
    expect(error).toMatchObject({ name: 'ConnectionError', requestSent: false })
  })
})

describe('timer limits: Node clamps delays of 2^31 ms or more to 1 ms', () => {
  const tooLong = 2 ** 31
  it.each([
    ['timeout', { timeout: tooLong }],
    ['totalTimeout', { totalTimeout: tooLong }],
    ['backoff.maxDelayMs', { backoff: { maxDelayMs: tooLong } }],
    ['backoff.maxRetryAfterMs', { backoff: { maxRetryAfterMs: tooLong } }],
    ['backoff.baseDelayMs', { backoff: { baseDelayMs: -1 } }],
  ])('%s is refused at construction', (path, options) => {
    let error: unknown
    try {
      makeClient(options)
    } catch (e) {
      error = e
    }
    expect(error).toBeInstanceOf(RequestValidationError)
    expect((error as RequestValidationError).issues[0]?.path).toBe(path)
  })

  it('a per-call timeout of 2^31 ms is refused and nothing is sent', async () => {
    const s = await server(faults.json(200, {}))
    const error = await rejection(client().send(post(s.url), jsonHandler, { timeout: tooLong }))
    expect(error).toBeInstanceOf(RequestValidationError)
    expect((error as Error).message).toContain('2147483647')
    expect(s.requests).toHaveLength(0)
  })

  it('the largest timer Node honours is accepted', () => {
    expect(() => makeClient({ timeout: 2 ** 31 - 1, totalTimeout: 2 ** 31 - 1 })).not.toThrow()
  })
})

describe('Retry-After: only the RFC 9110 forms count', () => {
  const now = Date.UTC(1994, 10, 6, 8, 49, 30)
  it.each(['-5', '4.5', '+5', '5s', ' ', '1e3', '0x10', 'soon', 'Sun, 06 Nov 1994 08:49:37'])(
    '%j is no Retry-After',
    (value) => {
      expect(parseRetryAfter(value, now)).toBeUndefined()
    },
  )
  it.each([
    ['0', 0],
    ['7', 7_000],
    [' 120 ', 120_000],
    ['Sun, 06 Nov 1994 08:49:37 GMT', 7_000], // IMF-fixdate
    ['Sunday, 06-Nov-94 08:49:37 GMT', 7_000], // obsolete RFC 850
    ['Sun Nov  6 08:49:37 1994', 7_000], // obsolete asctime
    ['Sun, 06 Nov 1994 08:49:00 GMT', 0], // a date in the past: retry now
  ])('%j waits %i ms', (value, ms) => {
    expect(parseRetryAfter(value, now)).toBe(ms)
  })

  it('a malformed Retry-After falls back to normal backoff instead of zero-delay retries', async () => {
    const s = await server(faults.json(503, {}, { 'retry-after': '-5' }))
    const clock = createTestClock()
    await rejection(client({ clock, random: () => 0.5, maxRetries: 3 }).send(get(s.url), jsonHandler))
    expect(clock.sleeps).toEqual([125, 250, 500])
  })
})

describe('response cookies never leave through errors, hooks or logs', () => {
  it('Set-Cookie is redacted on ApiError.headers, onError and logger.warn', async () => {
    const s = await server(faults.json(400, { error: 'no' }, { 'set-cookie': 'session=s3cr3t-cookie; HttpOnly' }))
    const seen: unknown[] = []
    const c = client({
      hooks: { onError: (event) => seen.push(event), onResponse: (event) => seen.push(event) },
      logger: { debug: (...args) => seen.push(args), warn: (...args) => seen.push(args) },
    })
    const error = await rejection(c.send(post(s.url), jsonHandler))
    seen.push(error, (error as ApiError).headers)
    const text = JSON.stringify(seen, (_k, v) => (v instanceof Error ? { ...v, message: v.message } : v))
    expect(text).not.toContain('s3cr3t-cookie')
    expect((error as ApiError).headers['set-cookie']).toBe('[redacted]')
  })
})

/** A raw TCP server: undici's own server-side parser would not let node:http send an unsolicited 100. */
async function rawServer(answer: string): Promise<{ url: string; requests: () => number }> {
  let requests = 0
  const srv: Server = createServer((socket) => {
    let head = ''
    socket.on('data', (chunk) => {
      head += chunk
      if (!head.includes('\r\n\r\n')) return
      requests += 1
      head = ''
      socket.write(answer)
    })
    socket.on('error', () => {})
  })
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve))
  onTestFinished(
    () =>
      new Promise<void>((resolve) => {
        srv.close(() => resolve())
      }),
  )
  const { port } = srv.address() as AddressInfo
  return { url: `http://127.0.0.1:${port}`, requests: () => requests }
}

describe('an interim 100 Continue (undici 7 refuses it on HTTP/1.1)', () => {
  const answer =
    'HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 20\r\nconnection: close\r\n\r\n{"result":"SUCCESS"}'

  it('a capture answered 100 then 200 is an unknown outcome with its key, sent once', async () => {
    const s = await rawServer(answer)
    const error = await rejection(
      client().send(post(s.url, { retry: unsentOnly, reconciliation: captureKey }), jsonHandler),
    )
    expect(error).toBeInstanceOf(ConnectionError)
    expect(error).toMatchObject({ requestSent: true, outcomeUnknown: true, reconciliation: captureKey })
    expect((error as Error).message).toContain('100 Continue')
    expect(s.requests()).toBe(1)
  })
})
