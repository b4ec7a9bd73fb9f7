/**
 * Adversarial probes of the transport's money-safety promises: misbehaving loopback servers (raw
 * sockets for byte-level faults), clock steps, aborts, hooks and edge-value options, all against the
 * real HttpClient on undici. A "Regression" comment names a defect these probes found; the test
 * below it now holds the promise.
 */

import { type AddressInfo, createServer, type Server, type Socket } from 'node:net'
import { inspect } from 'node:util'
import {
  ApiError,
  type Clock,
  ConnectionError,
  RequestValidationError,
  TimeoutError,
  UserAbortError,
  WINDOW_MARGIN_MS,
} from '@paywire/core'
import { keyed, parseRetryAfter, unsentOnly, withinWindow } from '@paywire/core/engine'
import { createTestClock, type FaultBehaviour, faults, startFaultServer, type TestClock } from '@paywire/core/testing'
import { Agent, buildConnector } from 'undici'
import { afterEach, describe, expect, it, onTestFinished, vi } from 'vitest'
import { get, jsonHandler, makeClient, post, rejection, TRANSPORTS } from './helpers.js'

afterEach(() => {
  vi.restoreAllMocks()
})

const key = { key: 'trans_id', value: 't-9', lookup: 'gw.s2s.getTransStatus({ trans_id: "t-9" })' }
const WINDOW = 15_000
const CLOSE = WINDOW - WINDOW_MARGIN_MS

function client(options: Parameters<typeof makeClient>[0] = {}) {
  const c = makeClient({ clock: createTestClock(), random: () => 0.5, ...options })
  onTestFinished(() => c.close())
  return c
}

/** A client on the given transport (a row of TRANSPORTS). */
function onBoth(transport: () => Parameters<typeof makeClient>[0], options: Parameters<typeof makeClient>[0] = {}) {
  return client({ ...transport(), ...options })
}

/** node:http fault server that also records the injected clock's time at each receipt. */
async function timedServer(clock: TestClock, behaviour: FaultBehaviour) {
  const arrivals: number[] = []
  const s = await startFaultServer((req, res, n) => {
    arrivals.push(clock.now())
    behaviour(req, res, n)
  })
  onTestFinished(s.close)
  return { ...s, arrivals }
}

interface RawRequest {
  readonly head: string
  readonly body: string
}

/**
 * A raw TCP server: `answer(socket, n, request)` writes whatever bytes it likes. Requests are framed
 * by headers + content-length, so keep-alive connections carry several.
 */
async function rawServer(answer: (socket: Socket, n: number, request: RawRequest) => void) {
  const requests: RawRequest[] = []
  const sockets = new Set<Socket>()
  const srv: Server = createServer((socket) => {
    sockets.add(socket)
    let buf = Buffer.alloc(0)
    socket.on('data', (chunk: Buffer) => {
      buf = Buffer.concat([buf, chunk])
      for (;;) {
        const end = buf.indexOf('\r\n\r\n')
        if (end < 0) return
        const head = buf.subarray(0, end).toString('latin1')
        const length = Number(/\r\ncontent-length:\s*(\d+)/i.exec(head)?.[1] ?? 0)
        if (buf.length < end + 4 + length) return
        const body = buf.subarray(end + 4, end + 4 + length).toString('utf8')
        buf = buf.subarray(end + 4 + length)
        const request = { head, body }
        requests.push(request)
        answer(socket, requests.length, request)
      }
    })
    socket.on('error', () => {})
    socket.on('close', () => sockets.delete(socket))
  })
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve))
  onTestFinished(
    () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy()
        srv.close(() => resolve())
      }),
  )
  const { port } = srv.address() as AddressInfo
  return { url: `http://127.0.0.1:${port}`, requests }
}

/**
 * A dispatcher that logs, on the injected clock, every request head undici writes to a socket: what
 * the SDK really sent, whatever the server manages to read before the client's abort resets it.
 */
function wireLog(clock: TestClock) {
  const writes: number[] = []
  const connect = buildConnector({})
  const dispatcher = new Agent({
    connect: (options, callback) =>
      connect(options, (error, socket) => {
        if (socket) {
          const write = socket.write.bind(socket) as (...args: unknown[]) => boolean
          socket.write = ((chunk: unknown, ...rest: unknown[]) => {
            if (/^(GET|POST|PUT|PATCH|DELETE) /.test(String(chunk))) writes.push(clock.now())
            return write(chunk, ...rest)
          }) as typeof socket.write
        }
        ;(callback as (e: Error | null, s: typeof socket) => void)(error, socket)
      }),
  })
  onTestFinished(() => dispatcher.close())
  /** Times of the writes, relative to the first. */
  const sent = () => writes.map((at) => at - (writes[0] as number))
  return { dispatcher, sent }
}

/** A test-clock sleep that really yields for a few ms (as any real backoff does) and oversleeps by `lateMs`. */
function lateSleep(clock: TestClock, lateMs: number): Clock['sleep'] {
  return async (ms) => {
    await new Promise((resolve) => setTimeout(resolve, 5))
    clock.advance(ms + lateMs)
  }
}

function http(status: string, headers: Record<string, string | string[]>, body = ''): string {
  let out = `HTTP/1.1 ${status}\r\n`
  for (const [name, value] of Object.entries(headers)) {
    for (const v of Array.isArray(value) ? value : [value]) out += `${name}: ${v}\r\n`
  }
  if (
    !Object.keys(headers).some((h) => h.toLowerCase() === 'content-length' || h.toLowerCase() === 'transfer-encoding')
  ) {
    out += `content-length: ${Buffer.byteLength(body)}\r\n`
  }
  return `${out}\r\n${body}`
}

// ---------------------------------------------------------------------------------------------
// Promise 2: no window attempt is SENT after firstArrival + windowMs - margin
// ---------------------------------------------------------------------------------------------

describe('promise 2: window attempts never leave after the window (minus margin) closes', () => {
  // Regression (this used to break), promise 2 — the window is checked against the *planned* resume time; a late backoff timer
  // (event-loop stall, GC, VM pause) makes the next attempt start past the close, and an attempt
  // with budget <= 0 is still handed to undici, which writes it at once on a kept-alive socket.
  it('a backoff timer that fires late does not let the retry leave after the window closed', async () => {
    const clock = createTestClock()
    const s = await timedServer(clock, (req, res, n) => {
      if (n === 1) clock.advance(13_000)
      faults.json(503, {})(req, res, n)
    })
    // planned resume at 13 000 + 249 = 13 249 < 14 000; the timer fires 1 s late (14 249)
    clock.sleep = lateSleep(clock, 1_000)
    const wire = wireLog(clock)
    const c = client({ clock, random: () => 0.999, maxRetries: 3, dispatcher: wire.dispatcher })
    const error = await rejection(c.send(post(s.url, { retry: withinWindow(WINDOW) }), jsonHandler))
    expect(error).toMatchObject({ outcomeUnknown: true })
    // the SDK writes attempt 2 at 14 249 ms, then aborts it at once (TimeoutError phase window)
    expect(wire.sent()).toEqual([0])
  })

  // Regression (this used to break), promise 2 — a synchronous onRetry hook (slow logger) runs between the window check and the
  // sleep; its time is not charged, so the retry leaves after the window closed.
  it('a slow onRetry hook does not push the retry past the window close', async () => {
    const clock = createTestClock()
    const s = await timedServer(clock, (req, res, n) => {
      if (n === 1) clock.advance(13_000)
      faults.json(503, {})(req, res, n)
    })
    clock.sleep = lateSleep(clock, 0)
    const wire = wireLog(clock)
    const c = client({
      clock,
      random: () => 0.999,
      maxRetries: 3,
      dispatcher: wire.dispatcher,
      hooks: { onRetry: () => clock.advance(1_500) },
    })
    await rejection(c.send(post(s.url, { retry: withinWindow(WINDOW) }), jsonHandler))
    // planned 13 249, hook took 1.5 s: attempt 2 is written at 14 749
    expect(wire.sent()).toEqual([0])
  })

  // Regression (this used to break), promise 2 — the attempt budget is measured before the onRequest hook runs, so a slow hook shifts
  // the send (and the window cut) past the window close.
  it('a slow onRequest hook does not make the retry leave after the window closed', async () => {
    const clock = createTestClock()
    const s = await timedServer(clock, (req, res, n) => {
      if (n === 1) clock.advance(13_000)
      faults.json(503, {})(req, res, n)
    })
    const wire = wireLog(clock)
    const c = client({
      clock,
      random: () => 0,
      maxRetries: 1,
      dispatcher: wire.dispatcher,
      hooks: { onRequest: (e) => e.attempt === 2 && clock.advance(1_500) },
    })
    await rejection(c.send(post(s.url, { retry: withinWindow(WINDOW) }), jsonHandler))
    // attempt 2 was budgeted at 13 000 (1 s left) and written at 14 500
    for (const at of wire.sent()) expect(at).toBeLessThan(CLOSE)
  })

  // Regression (this used to break), promise 2 and 6 — backoff.baseDelayMs 0 with > 1024 retries: 0 * 2**1024 = NaN, so the delay is
  // NaN, `resumeAt >= deadline` and `resumeAt >= windowClose` are both false and retries go on past
  // the window and the total deadline (Node runs setTimeout(NaN) after 1 ms).
  it('backoff.baseDelayMs 0 with a huge maxRetries still stops at the window close', async () => {
    const clock = createTestClock()
    const s = await timedServer(clock, (req, res, n) => {
      clock.advance(13)
      faults.json(503, {})(req, res, n)
    })
    const delays: number[] = []
    // Node runs setTimeout(NaN) after 1 ms: so does this sleep, for real, once the delays turn NaN
    clock.sleep = async (ms) => {
      if (Number.isNaN(ms)) await new Promise((resolve) => setTimeout(resolve, 1))
      clock.advance(Number.isNaN(ms) ? 1 : ms)
    }
    const wire = wireLog(clock)
    const c = client({
      clock,
      maxRetries: 1_200,
      backoff: { baseDelayMs: 0 },
      dispatcher: wire.dispatcher,
      hooks: { onRetry: (e) => delays.push(e.delayMs) },
    })
    await rejection(c.send(post(s.url, { retry: withinWindow(WINDOW) }), jsonHandler))
    expect(wire.sent().filter((at) => at >= CLOSE)).toEqual([])
    expect(delays.filter((d) => !Number.isFinite(d))).toEqual([])
  }, 30_000)

  it('guard: a retry planned past the window close is not sent (503 at 13.9 s)', async () => {
    const clock = createTestClock()
    const s = await timedServer(clock, (req, res, n) => {
      if (n === 1) clock.advance(13_900)
      faults.json(503, {})(req, res, n)
    })
    const c = client({ clock, random: () => 0.999, maxRetries: 3 })
    const error = await rejection(
      c.send(post(s.url, { retry: withinWindow(WINDOW), reconciliation: key }), jsonHandler),
    )
    expect(s.requests).toHaveLength(1)
    expect(error).toMatchObject({ status: 503, outcomeUnknown: true, reconciliation: key })
  })
})

// ---------------------------------------------------------------------------------------------
// Promise 4: outcomeUnknown for every error of a call that may have acted
// ---------------------------------------------------------------------------------------------

describe('promise 4: an earlier attempt that may have acted makes every later error an unknown outcome', () => {
  // Regression (this used to break), promise 4 — attempt 1 answered 503 (may have acted); the retry is refused with 429 and retries
  // run out: the final ApiError 429 says outcomeUnknown false, although attempt 1 may have paid.
  it('window: 503 then 429 ends with outcomeUnknown true', async () => {
    const s = await startFaultServer((req, res, n) =>
      (n === 1 ? faults.json(503, {}) : faults.json(429, { error: 'slow down' }))(req, res, n),
    )
    onTestFinished(s.close)
    const error = await rejection(
      client({ maxRetries: 1 }).send(post(s.url, { retry: withinWindow(WINDOW), reconciliation: key }), jsonHandler),
    )
    expect(s.requests).toHaveLength(2)
    expect(error).toMatchObject({ status: 429, outcomeUnknown: true, reconciliation: key })
  })

  // Regression (this used to break), promise 4 — keyed: attempt 1 timed out after sending (may have acted); the replay with the same
  // Idempotency-Key is answered 409 "still in progress"; the call ends with outcomeUnknown false,
  // inviting the caller to start over with a new key: a second payment.
  it('keyed: timeout after send, then 409 in-progress, ends with outcomeUnknown true', async () => {
    const s = await startFaultServer((req, res, n) =>
      (n === 1 ? faults.neverAnswer() : faults.json(409, { error: 'request with this key in progress' }))(req, res, n),
    )
    onTestFinished(s.close)
    const error = await rejection(
      client({ timeout: 100 }).send(post(s.url, { retry: keyed, reconciliation: key }), jsonHandler),
    )
    expect(s.requests).toHaveLength(2)
    expect(error).toMatchObject({ status: 409, outcomeUnknown: true, reconciliation: key })
  })

  // Regression (this used to break), promise 4 — same with a reset after send, then 408 on the replay.
  it('window: reset after send, then 408, ends with outcomeUnknown true', async () => {
    const s = await startFaultServer((req, res, n) =>
      (n === 1 ? faults.resetBeforeAnswer() : faults.json(408, {}))(req, res, n),
    )
    onTestFinished(s.close)
    const error = await rejection(
      client({ maxRetries: 1 }).send(post(s.url, { retry: withinWindow(WINDOW), reconciliation: key }), jsonHandler),
    )
    expect(error).toMatchObject({ status: 408, outcomeUnknown: true })
  })

  // Regression (this used to break), promise 4 (false positive) — the only attempt was refused with a definite 429; the caller then
  // aborts during the backoff. Nothing acted, yet the UserAbortError says outcomeUnknown true.
  it('window: a definite 429, then abort during the backoff, is no unknown outcome', async () => {
    const s = await startFaultServer(faults.json(429, {}))
    onTestFinished(s.close)
    const controller = new AbortController()
    const clock = createTestClock()
    clock.sleep = async () => {
      controller.abort()
      throw controller.signal.reason
    }
    const error = await rejection(
      client({ clock }).send(post(s.url, { retry: withinWindow(WINDOW) }), jsonHandler, { signal: controller.signal }),
    )
    expect(error).toBeInstanceOf(UserAbortError)
    expect(error).toMatchObject({ outcomeUnknown: false })
  })

  // Regression (this used to break), promise 4 and 5 — undici refuses an `Expect` header synchronously (NotSupportedError,
  // UND_ERR_NOT_SUPPORTED) before writing a byte; the SDK does not list that code as unsent, so a
  // capture that never left says requestSent true / outcomeUnknown true.
  it('an Expect header undici refuses: nothing was sent, so no unknown outcome', async () => {
    const s = await startFaultServer(faults.json(200, {}))
    onTestFinished(s.close)
    const error = await rejection(
      client({ maxRetries: 0 }).send(post(s.url, { retry: unsentOnly, reconciliation: key }), jsonHandler, {
        headers: { expect: '100-continue' },
      }),
    )
    expect(s.requests).toHaveLength(0)
    expect(error).toMatchObject({ requestSent: false, outcomeUnknown: false })
  })

  it('guard: a safe lookup never says outcomeUnknown, whatever failed', async () => {
    const s = await startFaultServer((req, res, n) =>
      (n === 1 ? faults.resetBeforeAnswer() : faults.json(503, {}))(req, res, n),
    )
    onTestFinished(s.close)
    const e = await rejection(client().send(get(s.url, { reconciliation: key }), jsonHandler))
    expect(e).toMatchObject({ status: 503, outcomeUnknown: false })
  })

  it('guard: a 2xx for a capture succeeds once; a 500 to a capture is unknown with its key', async () => {
    const s = await startFaultServer(faults.json(500, {}))
    onTestFinished(s.close)
    const e = await rejection(client().send(post(s.url, { retry: unsentOnly, reconciliation: key }), jsonHandler))
    expect(e).toMatchObject({ status: 500, outcomeUnknown: true, reconciliation: key, attempts: 1 })
    expect(s.requests).toHaveLength(1)
  })
})

// ---------------------------------------------------------------------------------------------
// Promise 1: 2xx only; 1xx/3xx/304 never followed, never retried for unsent-only/window
// ---------------------------------------------------------------------------------------------

describe.each(TRANSPORTS)('promise 1: 1xx leftovers, 3xx and 304 (%s)', (_name, transport) => {
  // The transport's promises hold on both transports: the same table, once per transport.
  const client = (options: Parameters<typeof makeClient>[0] = {}) => onBoth(transport, options)

  const ok = http('200 OK', { 'content-type': 'application/json' }, '{"result":"SUCCESS"}')

  it('guard: 103 Early Hints then 302 with duplicate Location is an ApiError, never followed', async () => {
    const target = await rawServer((sock) => sock.write(ok))
    const s = await rawServer((sock) =>
      sock.write(
        `HTTP/1.1 103 Early Hints\r\nlink: </x>; rel=preload\r\n\r\n` +
          http('302 Found', { location: [`${target.url}/a`, `${target.url}/b`] }, ''),
      ),
    )
    for (const retry of [unsentOnly, withinWindow(WINDOW)]) {
      const e = await rejection(client().send(post(s.url, { retry, reconciliation: key }), jsonHandler))
      expect(e).toBeInstanceOf(ApiError)
      expect(e).toMatchObject({ status: 302, attempts: 1, outcomeUnknown: true, reconciliation: key })
    }
    expect(s.requests).toHaveLength(2)
    expect(target.requests).toHaveLength(0)
  })

  it('guard: a bare 304 and a chunked 307 with a SUCCESS body are ApiErrors, sent once each', async () => {
    const s = await rawServer((sock, n) =>
      sock.write(
        n === 1
          ? 'HTTP/1.1 304 Not Modified\r\netag: "x"\r\nconnection: close\r\n\r\n'
          : 'HTTP/1.1 307 Temporary Redirect\r\nlocation: /x\r\ntransfer-encoding: chunked\r\nconnection: close\r\n\r\n14\r\n{"result":"SUCCESS"}\r\n0\r\n\r\n',
      ),
    )
    const e1 = await rejection(client().send(post(s.url, { retry: withinWindow(WINDOW) }), jsonHandler))
    expect(e1).toMatchObject({ name: 'ApiError', status: 304, outcomeUnknown: true })
    const e2 = await rejection(client().send(post(s.url, { retry: unsentOnly }), jsonHandler))
    expect(e2).toMatchObject({ name: 'ApiError', status: 307, outcomeUnknown: true })
    expect(s.requests).toHaveLength(2)
  })

  // Regression (this used to break), promise 1 — a 304 may carry Content-Length without a body (RFC 9110 8.6); undici reports
  // UND_ERR_RES_CONTENT_LENGTH_MISMATCH, the SDK turns it into a ConnectionError and the window
  // policy re-sends the payment POST (3 requests with maxRetries 2) instead of one ApiError 304.
  it('window: a 304 with Content-Length and no body is one ApiError, not retried', async () => {
    const s = await rawServer((sock) => sock.write('HTTP/1.1 304 Not Modified\r\ncontent-length: 20\r\n\r\n'))
    const e = await rejection(
      client().send(post(s.url, { retry: withinWindow(WINDOW), reconciliation: key }), jsonHandler),
    )
    expect(s.requests).toHaveLength(1)
    expect(e).toBeInstanceOf(ApiError)
    expect(e).toMatchObject({ status: 304, outcomeUnknown: true, reconciliation: key })
  })

  // Regression (this used to break), promise 1 — same 304 to an unsent-only capture: sent once (good) but it is a ConnectionError,
  // not the ApiError 304 the promise names.
  it('unsent-only: a 304 with Content-Length and no body is an ApiError', async () => {
    const s = await rawServer((sock) => sock.write('HTTP/1.1 304 Not Modified\r\ncontent-length: 20\r\n\r\n'))
    const e = await rejection(client().send(post(s.url, { retry: unsentOnly, reconciliation: key }), jsonHandler))
    expect(s.requests).toHaveLength(1)
    expect(e).toMatchObject({ name: 'ApiError', status: 304 })
  })

  it('guard: HTTP/1.0 302 without length, closed by the server: ApiError, not retried', async () => {
    const s = await rawServer((sock) => sock.end('HTTP/1.0 302 Found\r\nlocation: /elsewhere\r\n\r\nmoved'))
    const e = await rejection(client().send(post(s.url, { retry: withinWindow(WINDOW) }), jsonHandler))
    expect(e).toMatchObject({ name: 'ApiError', status: 302 })
    expect(s.requests).toHaveLength(1)
  })

  // Regression (this used to break), promise 1 — a 100 Continue leftover (undici drops the socket: "bad response") becomes a
  // ConnectionError, and the window policy retries it: the payment POST is sent twice.
  it('window: 100 Continue then 200 is never retried', async () => {
    const s = await rawServer((sock) => sock.write(`HTTP/1.1 100 Continue\r\n\r\n${ok}`))
    await rejection(client().send(post(s.url, { retry: withinWindow(WINDOW), reconciliation: key }), jsonHandler))
    expect(s.requests).toHaveLength(1)
  })

  // Regression (this used to break), promise 1 — an unsolicited 101 Switching Protocols ("bad upgrade") is retried under window.
  it('window: an unsolicited 101 Switching Protocols is never retried', async () => {
    const s = await rawServer((sock) =>
      sock.write('HTTP/1.1 101 Switching Protocols\r\nupgrade: websocket\r\nconnection: upgrade\r\n\r\n'),
    )
    await rejection(client().send(post(s.url, { retry: withinWindow(WINDOW) }), jsonHandler))
    expect(s.requests).toHaveLength(1)
  })

  // Regression (this used to break), promise 1 — a 1xx (199) leftover followed by a close is a ConnectionError and is retried under window.
  it('window: a 199 leftover then close is never retried', async () => {
    const s = await rawServer((sock) => sock.end('HTTP/1.1 199 Odd\r\n\r\n'))
    await rejection(client().send(post(s.url, { retry: withinWindow(WINDOW) }), jsonHandler))
    expect(s.requests).toHaveLength(1)
  })

  // Regression (this used to break), promise 1 — a 302 whose body is cut (declared 100 bytes, 5 sent, then reset) fails while the body
  // is read, becomes a ConnectionError and the window policy sends the payment again.
  it('window: a 302 cut mid-body is never retried', async () => {
    const s = await rawServer((sock) => {
      sock.write('HTTP/1.1 302 Found\r\nlocation: /x\r\ncontent-length: 100\r\n\r\nhello', () => sock.destroy())
    })
    await rejection(client().send(post(s.url, { retry: withinWindow(WINDOW) }), jsonHandler))
    expect(s.requests).toHaveLength(1)
  })

  it('guard: unsent-only: 100 Continue, 101, 199+close, 302 cut mid-body: each sent exactly once', async () => {
    const answers = [
      `HTTP/1.1 100 Continue\r\n\r\n${ok}`,
      'HTTP/1.1 101 Switching Protocols\r\nupgrade: websocket\r\nconnection: upgrade\r\n\r\n',
      'HTTP/1.1 199 Odd\r\n\r\n',
      'HTTP/1.1 302 Found\r\nlocation: /x\r\ncontent-length: 100\r\n\r\nhello',
    ]
    for (const answer of answers) {
      const s = await rawServer((sock) => sock.end(answer))
      const e = await rejection(client().send(post(s.url, { retry: unsentOnly, reconciliation: key }), jsonHandler))
      expect(e).toMatchObject({ requestSent: true, outcomeUnknown: true, reconciliation: key })
      expect(s.requests).toHaveLength(1)
    }
  })
})

// ---------------------------------------------------------------------------------------------
// Promise 9 / 5: unsent-only never sends twice; requestSent exact
// ---------------------------------------------------------------------------------------------

describe.each(TRANSPORTS)(
  'promise 9 and 5: unsent-only sends once once it may have arrived; requestSent (%s)',
  (_name, transport) => {
    // The transport's promises hold on both transports: the same table, once per transport.
    const client = (options: Parameters<typeof makeClient>[0] = {}) => onBoth(transport, options)

    const behaviours: Array<[string, (sock: Socket) => void]> = [
      ['reset after a partial status line', (sock) => sock.write('HTTP/1.1 2', () => sock.destroy())],
      ['half a header block then FIN', (sock) => sock.end('HTTP/1.1 200 OK\r\ncontent-le')],
      ['garbage instead of HTTP', (sock) => sock.end('SMTP ready\r\n\r\n')],
      [
        'TE + CL smuggling 200',
        (sock) => sock.end('HTTP/1.1 200 OK\r\ncontent-length: 3\r\ntransfer-encoding: chunked\r\n\r\n0\r\n\r\n'),
      ],
      [
        '200 cut mid-body',
        (sock) => sock.write('HTTP/1.1 200 OK\r\ncontent-length: 50\r\n\r\n{"res', () => sock.destroy()),
      ],
      [
        'huge header block (128 KiB)',
        (sock) => sock.end(`HTTP/1.1 200 OK\r\nx-big: ${'a'.repeat(128 * 1024)}\r\n\r\n`),
      ],
    ]
    it.each(behaviours)('%s: one request, requestSent, outcomeUnknown with key', async (_name, behaviour) => {
      const s = await rawServer(behaviour)
      const e = await rejection(
        client({ maxRetries: 5 }).send(post(s.url, { retry: unsentOnly, reconciliation: key }), jsonHandler),
      )
      expect(e).toBeInstanceOf(ConnectionError)
      expect(e).toMatchObject({ requestSent: true, outcomeUnknown: true, reconciliation: key })
      expect(s.requests).toHaveLength(1)
    })

    it('guard: slow-loris before the status line is cut by the attempt timeout, sent once', async () => {
      const s = await rawServer((sock) => {
        const bytes = 'HTTP/1.1 200 OK\r\nx-slow: '
        let i = 0
        const timer = setInterval(() => sock.write(bytes[i++] ?? 'a'), 10)
        sock.on('close', () => clearInterval(timer))
      })
      const e = await rejection(
        client({ timeout: 150, maxRetries: 3 }).send(
          post(s.url, { retry: unsentOnly, reconciliation: key }),
          jsonHandler,
        ),
      )
      expect(e).toBeInstanceOf(TimeoutError)
      expect(e).toMatchObject({ requestSent: true, outcomeUnknown: true })
      expect(s.requests).toHaveLength(1)
    })

    it('guard: close() from the onRetry hook after a 503: no further attempt, requestSent true', async () => {
      const s = await startFaultServer(faults.json(503, {}))
      onTestFinished(s.close)
      const c = makeClient({
        clock: createTestClock(),
        hooks: { onRetry: () => void c.close() },
      })
      const e = await rejection(c.send(post(s.url, { retry: withinWindow(WINDOW), reconciliation: key }), jsonHandler))
      expect(e).toBeInstanceOf(ConnectionError)
      expect(e).toMatchObject({ requestSent: true, outcomeUnknown: true, reconciliation: key })
      expect(s.requests).toHaveLength(1)
    })

    it('guard: close() mid-flight lets the in-flight capture finish, and sends nothing more', async () => {
      const s = await startFaultServer((req, res, n) => setTimeout(() => faults.json(200, { ok: n })(req, res, n), 50))
      onTestFinished(s.close)
      const c = makeClient()
      const p = c.send(post(s.url, { retry: unsentOnly }), jsonHandler)
      await new Promise((r) => setTimeout(r, 20))
      const closing = c.close()
      await expect(p).resolves.toEqual({ ok: 1 })
      await closing
      const e = await rejection(c.send(post(s.url, { retry: unsentOnly }), jsonHandler))
      expect(e).toMatchObject({ requestSent: false, outcomeUnknown: false })
      expect(s.requests).toHaveLength(1)
    })

    it('guard: close() from onRequest (after the closed check) sends nothing; requestSent false', async () => {
      const s = await startFaultServer(faults.json(200, {}))
      onTestFinished(s.close)
      const c = makeClient({ clock: createTestClock(), hooks: { onRequest: () => void c.close() } })
      const e = await rejection(c.send(post(s.url, { retry: unsentOnly, reconciliation: key }), jsonHandler))
      expect(e).toBeInstanceOf(ConnectionError)
      expect(e).toMatchObject({ requestSent: false, outcomeUnknown: false })
      expect(s.requests).toHaveLength(0)
    })

    it('guard: an already-aborted signal sends nothing', async () => {
      const s = await startFaultServer(faults.json(200, {}))
      onTestFinished(s.close)
      const e = await rejection(
        client().send(post(s.url, { retry: unsentOnly }), jsonHandler, { signal: AbortSignal.abort() }),
      )
      expect(e).toMatchObject({ name: 'UserAbortError', requestSent: false, outcomeUnknown: false })
      expect(s.requests).toHaveLength(0)
    })

    // Regression (this used to break), promise signal contract ("aborts the call; it then rejects with UserAbortError") — a signal that
    // aborts before send (here from the onRequest hook) is ignored: the listener is added to an
    // already-aborted signal, the capture is sent and the call resolves as if never aborted.
    it('abort before send (during onRequest) sends nothing and rejects with UserAbortError', async () => {
      const s = await startFaultServer(faults.json(200, { ok: 1 }))
      onTestFinished(s.close)
      const controller = new AbortController()
      const c = client({ hooks: { onRequest: () => controller.abort() } })
      const e = await rejection(c.send(post(s.url, { retry: unsentOnly }), jsonHandler, { signal: controller.signal }))
      expect(e).toBeInstanceOf(UserAbortError)
      expect(s.requests).toHaveLength(0)
    })

    it('guard: abort after send is requestSent true with the key', async () => {
      const s = await startFaultServer(faults.neverAnswer())
      onTestFinished(s.close)
      const controller = new AbortController()
      const p = client().send(post(s.url, { retry: unsentOnly, reconciliation: key }), jsonHandler, {
        signal: controller.signal,
      })
      await vi.waitFor(() => expect(s.requests).toHaveLength(1))
      controller.abort()
      const e = await rejection(p)
      expect(e).toMatchObject({ name: 'UserAbortError', requestSent: true, outcomeUnknown: true, reconciliation: key })
    })
  },
)

// ---------------------------------------------------------------------------------------------
// Promise 3: monotonic clock only
// ---------------------------------------------------------------------------------------------

describe('promise 3: durations follow the injected clock, not Date.now or performance.now', () => {
  it('guard: wild Date.now and performance.now steps change neither retries nor window', async () => {
    const clock = createTestClock()
    const s = await timedServer(clock, (req, res, n) => {
      clock.advance(4_000)
      faults.json(503, {})(req, res, n)
    })
    let wall = 1e12
    vi.spyOn(Date, 'now').mockImplementation(() => (wall += 3_600_000))
    let mono = 0
    vi.spyOn(performance, 'now').mockImplementation(() => (mono -= 3_600_000))
    const c = client({ clock, random: () => 0.5, maxRetries: 5 })
    const e = await rejection(c.send(post(s.url, { retry: withinWindow(WINDOW) }), jsonHandler))
    vi.restoreAllMocks()
    // attempts leave at 0, 4 125, 8 375 and 12 875; the next would resume at 16 875+, past the close
    expect(e).toMatchObject({ status: 503, attempts: 4 })
    expect(clock.sleeps).toEqual([125, 250, 500])
  })

  it('guard: with a clock without date(), Date.now steps do not change a delta-seconds Retry-After', async () => {
    const tc = createTestClock()
    const clock: Clock = { now: tc.now, sleep: tc.sleep }
    const s = await startFaultServer((req, res, n) =>
      (n === 1 ? faults.json(503, {}, { 'retry-after': '2' }) : faults.json(200, { ok: 1 }))(req, res, n),
    )
    onTestFinished(s.close)
    let wall = 1e12
    vi.spyOn(Date, 'now').mockImplementation(() => (wall -= 86_400_000))
    const result = await client({ clock }).send(get(s.url), jsonHandler)
    vi.restoreAllMocks()
    expect(result).toEqual({ ok: 1 })
    expect(tc.sleeps).toEqual([2_000])
  })
})

// ---------------------------------------------------------------------------------------------
// Promise 6: timer limits and the total deadline
// ---------------------------------------------------------------------------------------------

describe('promise 6: timer limits and the total deadline', () => {
  it.each([
    ['NaN', Number.NaN],
    ['-1', -1],
    ['2^31', 2 ** 31],
    ['Infinity', Number.POSITIVE_INFINITY],
    ['2^31 - 0.5', 2 ** 31 - 0.5],
  ])('guard: per-call timeout %s is refused and nothing is sent', async (_n, timeout) => {
    const s = await startFaultServer(faults.json(200, {}))
    onTestFinished(s.close)
    const e = await rejection(client().send(post(s.url, { retry: unsentOnly }), jsonHandler, { timeout }))
    expect(e).toBeInstanceOf(RequestValidationError)
    expect(s.requests).toHaveLength(0)
  })

  it.each([
    ['maxRetries NaN', { maxRetries: Number.NaN }],
    ['maxRetries Infinity', { maxRetries: Number.POSITIVE_INFINITY }],
    ['backoff.baseDelayMs NaN', { backoff: { baseDelayMs: Number.NaN } }],
    ['backoff.maxDelayMs 2^31', { backoff: { maxDelayMs: 2 ** 31 } }],
    ['totalTimeout -1', { totalTimeout: -1 }],
  ])('guard: %s is refused at construction', (_n, options) => {
    expect(() => makeClient(options)).toThrow(RequestValidationError)
  })

  it('guard: per-call timeout 2^31 - 1 is honoured (no early undici timer)', async () => {
    const s = await startFaultServer((req, res, n) => setTimeout(() => faults.json(200, { ok: 1 })(req, res, n), 50))
    onTestFinished(s.close)
    const c = makeClient({ totalTimeout: 2 ** 31 - 1 })
    onTestFinished(() => c.close())
    await expect(c.send(post(s.url, { retry: unsentOnly }), jsonHandler, { timeout: 2 ** 31 - 1 })).resolves.toEqual({
      ok: 1,
    })
  })

  it('guard: fractional maxRetries is floored (2.9 -> 2 retries)', async () => {
    const s = await startFaultServer(faults.json(503, {}))
    onTestFinished(s.close)
    await rejection(client({ maxRetries: 2.9 }).send(get(s.url), jsonHandler))
    expect(s.requests).toHaveLength(3)
  })

  // Regression (this used to break), promise 6 — the total deadline is checked against the planned resume time only; a late backoff
  // timer makes the next attempt start after the deadline, and it is still sent (budget clamped to 0).
  it('no attempt is sent after the total deadline, even when the backoff timer fires late', async () => {
    const clock = createTestClock()
    const s = await timedServer(clock, (req, res, n) => {
      if (n === 1) clock.advance(700)
      faults.json(503, {})(req, res, n)
    })
    // planned resume at 700 + 249 = 949 < 1 000; the timer fires 500 ms late (1 449)
    clock.sleep = lateSleep(clock, 500)
    const wire = wireLog(clock)
    const c = client({ clock, random: () => 0.999, totalTimeout: 1_000, maxRetries: 2, dispatcher: wire.dispatcher })
    await rejection(c.send(post(s.url, { retry: withinWindow(WINDOW) }), jsonHandler))
    expect(wire.sent()).toEqual([0])
  })

  // Regression (this used to break), promise 6 (edge) — a per-call timeout of 0 is accepted, and on a kept-alive socket the capture is
  // written before the 0 ms timer fires: the call both sends money and reports an unknown outcome.
  it('per-call timeout 0 never sends a capture it has no time to wait for', async () => {
    const s = await startFaultServer(faults.json(200, { ok: 1 }))
    onTestFinished(s.close)
    const clock = createTestClock()
    const wire = wireLog(clock)
    const c = client({ clock, dispatcher: wire.dispatcher })
    await c.send(get(s.url), jsonHandler) // warms a keep-alive connection
    const e = await rejection(
      c.send(post(s.url, { retry: unsentOnly, reconciliation: key }), jsonHandler, { timeout: 0 }),
    )
    // the capture is written (2 heads on the wire), then aborted: requestSent true, outcomeUnknown true
    expect(wire.sent()).toHaveLength(1)
    expect(e).toMatchObject({ requestSent: false })
  })
})

// ---------------------------------------------------------------------------------------------
// Promise 7: Retry-After
// ---------------------------------------------------------------------------------------------

describe('promise 7: Retry-After forms', () => {
  const now = Date.UTC(1994, 10, 6, 8, 49, 30)
  it.each([
    '3, 4',
    'Sun, 06 Nov 1994 08:49:37 GMT, x',
    '3 4',
    '٣', // Arabic-Indic digit
    'sun, 06 nov 1994 08:49:37 gmt',
  ])('guard: %j is no Retry-After', (value) => {
    expect(parseRetryAfter(value, now)).toBeUndefined()
  })

  // Regression (this used to break), promise 7 — `String.prototype.trim()` strips more than HTTP's OWS (SP / HTAB): NBSP, VT, FF,
  // BOM around the digits still count as delta-seconds (each of these returns 3 000 ms).
  it('NBSP, VT, FF or BOM around delta-seconds is no Retry-After', () => {
    for (const value of ['3\u00a0', '\u00a03', '\u000b3', '\u000c3', '\ufeff3']) {
      expect(parseRetryAfter(value, now), JSON.stringify(value)).toBeUndefined()
    }
  })

  it.each([
    ['  3', 3_000],
    ['3\t', 3_000],
    ['Sun Nov 06 08:49:37 1994', 7_000],
  ])('guard: %j waits %i ms', (value, ms) => {
    expect(parseRetryAfter(value, now)).toBe(ms)
  })

  it('guard: two Retry-After fields ("3" and "4") fall back to normal backoff', async () => {
    const s = await rawServer((sock, n) =>
      sock.write(
        n === 1
          ? http('503 Busy', { 'retry-after': ['3', '4'] })
          : http('200 OK', { 'content-type': 'application/json' }, '{}'),
      ),
    )
    const clock = createTestClock()
    await client({ clock, random: () => 0.5 }).send(get(s.url), jsonHandler)
    expect(clock.sleeps).toEqual([125])
  })

  it('guard: a huge delta ("99999999999") ends the retries rather than waiting or wrapping', async () => {
    const s = await rawServer((sock) => sock.write(http('503 Busy', { 'retry-after': '99999999999' })))
    const clock = createTestClock()
    const e = await rejection(client({ clock }).send(get(s.url), jsonHandler))
    expect(e).toMatchObject({ status: 503, attempts: 1 })
    expect(clock.sleeps).toEqual([])
  })

  // Regression (this used to break), promise 7 — `trim()` strips Unicode whitespace, so an obs-text NBSP (0xA0, decoded latin1 by
  // undici) around digits is read as delta-seconds instead of falling back to normal backoff.
  it('an NBSP-padded Retry-After on the wire falls back to normal backoff', async () => {
    const s = await rawServer((sock, n) => {
      const head =
        n === 1 ? 'HTTP/1.1 503 Busy\r\nretry-after: \xa030\r\ncontent-length: 0\r\n\r\n' : http('200 OK', {}, '{}')
      sock.write(Buffer.from(head, 'latin1'))
    })
    const clock = createTestClock()
    await client({ clock, random: () => 0.5 }).send(get(s.url), jsonHandler)
    expect(clock.sleeps).toEqual([125])
  })
})

// ---------------------------------------------------------------------------------------------
// Promise 8: credential headers never leak
// ---------------------------------------------------------------------------------------------

describe.each(TRANSPORTS)('promise 8: response credential headers never leak (%s)', (_name, transport) => {
  // The transport's promises hold on both transports: the same table, once per transport.
  const client = (options: Parameters<typeof makeClient>[0] = {}) => onBoth(transport, options)

  function everything(seen: unknown[], error: unknown): string {
    const texts = [
      JSON.stringify(seen, (_k, v) => (v instanceof Error ? { ...v, message: v.message } : v)),
      JSON.stringify(error),
      inspect(error, { depth: 10, showHidden: true }),
      String(error),
      inspect(seen, { depth: 10 }),
    ]
    return texts.join('\n')
  }

  it('guard: Set-Cookie arrays, mixed case SET-COOKIE and split packets are redacted everywhere', async () => {
    const s = await rawServer((sock) => {
      const bytes = http(
        '400 Bad Request',
        {
          'Set-Cookie': ['a=s3cr3t-one; HttpOnly', 'b=s3cr3t-two'],
          'SET-COOKIE': 'c=s3cr3t-three',
          'sEt-CoOkIe': 'd=s3cr3t-four',
          'content-type': 'application/json',
        },
        '{"error":"no"}',
      )
      // one byte at a time for the header names, to cross packet boundaries
      sock.write(bytes.slice(0, 40))
      setTimeout(() => sock.write(bytes.slice(40)), 10)
    })
    const seen: unknown[] = []
    const c = client({
      hooks: { onResponse: (e) => seen.push(e), onError: (e) => seen.push(e) },
      logger: { debug: (...a) => seen.push(a), warn: (...a) => seen.push(a) },
    })
    const error = await rejection(c.send(post(s.url), jsonHandler))
    expect((error as ApiError).headers['set-cookie']).toBe('[redacted]')
    expect(everything(seen, error)).not.toContain('s3cr3t')
  })

  it('guard: withResponse() headers of a 2xx redact Set-Cookie and Authorization echoes', async () => {
    const s = await rawServer((sock) =>
      sock.write(
        http(
          '200 OK',
          { 'set-cookie': 'sid=s3cr3t', authorization: 'Bearer s3cr3t', 'content-type': 'application/json' },
          '{}',
        ),
      ),
    )
    const { response } = await client().send(get(s.url), jsonHandler).withResponse()
    expect(JSON.stringify(response.headers)).not.toContain('s3cr3t')
  })

  // Regression (this used to break), promise 8 — Set-Cookie2 (RFC 2965 cookie-setting header, still emitted by some stacks) is not in
  // the credential list, so the session cookie reaches ApiError.headers, hooks and logs.
  it('Set-Cookie2 is redacted too', async () => {
    const s = await rawServer((sock) =>
      sock.write(http('400 Bad Request', { 'set-cookie2': 'sid="s3cr3t"; Version="1"' }, '{}')),
    )
    const seen: unknown[] = []
    const c = client({ logger: { debug: (...a) => seen.push(a), warn: (...a) => seen.push(a) } })
    const error = await rejection(c.send(post(s.url), jsonHandler))
    expect(everything(seen, error)).not.toContain('s3cr3t')
  })
})

// ---------------------------------------------------------------------------------------------
// Follow-ups of the probes: dates that do not exist, transport-owned headers, a definite refusal
// ---------------------------------------------------------------------------------------------

describe('follow-ups', () => {
  const now = Date.UTC(1994, 10, 6, 8, 49, 30)

  it.each([
    'Sun, 06 Nov 1994 99:49:37 GMT',
    'Sun, 06 Nov 1994 08:60:37 GMT',
    'Thu, 31 Feb 1994 08:49:37 GMT',
    'Sun Nov 32 08:49:37 1994',
  ])('an HTTP-date that does not exist (%j) is no Retry-After', (value) => {
    expect(parseRetryAfter(value, now)).toBeUndefined()
  })

  it.each(['connection', 'Content-Length', 'expect', 'keep-alive', 'transfer-encoding', 'upgrade'])(
    'a %s header is refused before sending, naming the field',
    async (name) => {
      const s = await startFaultServer(faults.json(200, {}))
      onTestFinished(s.close)
      const e = await rejection(
        client().send(post(s.url, { retry: unsentOnly }), jsonHandler, { headers: { [name]: 'close' } }),
      )
      expect(e).toBeInstanceOf(RequestValidationError)
      expect((e as RequestValidationError).issues).toEqual([
        { path: `headers.${name}`, message: 'is set by the transport from the request itself; remove it' },
      ])
      expect(s.requests).toHaveLength(0)
    },
  )

  it('a definite 429, then a refused connection: no unknown outcome, and the message says why', async () => {
    const s = await startFaultServer(faults.json(429, {}))
    onTestFinished(s.close)
    const clock = createTestClock()
    // the server goes away during the backoff: attempt 2 is refused and provably unsent
    clock.sleep = async (ms) => {
      await s.close()
      clock.advance(ms)
    }
    const e = await rejection(
      client({ clock, maxRetries: 1 }).send(post(s.url, { retry: withinWindow(WINDOW) }), jsonHandler),
    )
    expect(e).toBeInstanceOf(ConnectionError)
    expect(e).toMatchObject({ requestSent: true, outcomeUnknown: false })
    expect((e as Error).message).toContain('answered an earlier attempt without acting')
  })

  it('a 503, then a refused connection: unknown outcome naming the earlier attempt', async () => {
    const s = await startFaultServer(faults.json(503, {}))
    onTestFinished(s.close)
    const clock = createTestClock()
    clock.sleep = async (ms) => {
      await s.close()
      clock.advance(ms)
    }
    const e = await rejection(
      client({ clock, maxRetries: 1 }).send(
        post(s.url, { retry: withinWindow(WINDOW), reconciliation: key }),
        jsonHandler,
      ),
    )
    expect(e).toBeInstanceOf(ConnectionError)
    expect(e).toMatchObject({ requestSent: true, outcomeUnknown: true, reconciliation: key })
    expect((e as Error).message).toContain('may have acted on an earlier attempt of')
  })

  it('a timeout of 0 on the client is refused, naming the option', () => {
    expect(() => makeClient({ timeout: 0 })).toThrow(/timeout: must be above 0 ms/)
    expect(() => makeClient({ totalTimeout: 0 })).toThrow(/totalTimeout: must be above 0 ms/)
  })
})
