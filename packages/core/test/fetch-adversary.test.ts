/**
 * The fetch transport against hostile `fetch` functions: each call ends by its deadline, never reads
 * as a success it was not, and a money-moving call is never repeated after `fetch` was called.
 */

import { inspect } from 'node:util'
import { ApiError, ConnectionError, PaywireError, TimeoutError } from '@paywire/core'
import { unsentOnly } from '@paywire/core/engine'
import { describe, expect, it, onTestFinished } from 'vitest'
import { jsonHandler, makeClient, post, rejection } from './helpers.js'

const URL_ = 'http://127.0.0.1:9/pay'

/** A hostile `fetch`, counted: the test sees how many times the call reached it. */
function hostile(behaviour: (init: RequestInit | undefined) => unknown): typeof fetch & { calls: number } {
  const f = ((_input: unknown, init?: RequestInit) => {
    f.calls++
    return behaviour(init)
  }) as typeof fetch & { calls: number }
  f.calls = 0
  return f
}

/** A money-moving POST (repeated only when known unsent) with a short per-attempt timeout. */
async function moneyCall(fetch: typeof globalThis.fetch, timeout = 100): Promise<unknown> {
  const client = makeClient({ fetch, timeout, maxRetries: 3 })
  onTestFinished(() => client.close())
  return rejection(client.send(post(URL_, { retry: unsentOnly }), jsonHandler))
}

function waitForAbort(init: RequestInit | undefined): Promise<void> {
  return new Promise((resolve) => init?.signal?.addEventListener('abort', () => resolve(), { once: true }))
}

describe('every call on a hostile fetch ends by its deadline', () => {
  it('a fetch that ignores the abort signal and never settles: the call times out, unknown outcome, no retry', async () => {
    const fetch = hostile(() => new Promise(() => {}))
    const e = await moneyCall(fetch)
    expect(e).toBeInstanceOf(TimeoutError)
    expect(e).toMatchObject({ outcomeUnknown: true })
    expect(fetch.calls).toBe(1)
  }, 3_000)

  it('a body stream that never ends and ignores cancel: the call times out in the body phase', async () => {
    const fetch = hostile(
      () =>
        new Response(
          new ReadableStream({
            start(controller) {
              controller.enqueue(new TextEncoder().encode('{"result":'))
            },
            pull() {
              return new Promise(() => {})
            },
            cancel() {
              return new Promise(() => {})
            },
          }),
          { status: 200 },
        ),
    )
    const e = await moneyCall(fetch)
    expect(e).toBeInstanceOf(TimeoutError)
    expect(e).toMatchObject({ outcomeUnknown: true, phase: 'body' })
    expect(fetch.calls).toBe(1)
  }, 3_000)

  it('a fetch that resolves a 200 only after the deadline aborted it: a time-out, never a success', async () => {
    const fetch = hostile(async (init) => {
      await waitForAbort(init)
      return new Response('{"result":"SUCCESS"}', { status: 200 })
    })
    const e = await moneyCall(fetch)
    expect(e).toBeInstanceOf(TimeoutError)
    expect(e).toMatchObject({ outcomeUnknown: true })
    expect(fetch.calls).toBe(1)
  }, 3_000)

  it("a fetch that ignores the caller's abort: the call ends at the abort, unknown outcome, no retry", async () => {
    let called!: () => void
    const reached = new Promise<void>((resolve) => {
      called = resolve
    })
    const fetch = hostile(() => {
      called()
      return new Promise(() => {})
    })
    const client = makeClient({ fetch, timeout: 60_000, maxRetries: 3 })
    onTestFinished(() => client.close())
    const controller = new AbortController()
    const call = rejection(client.send(post(URL_, { retry: unsentOnly }), jsonHandler, { signal: controller.signal }))
    await reached
    controller.abort()
    const e = await call
    expect(e).toMatchObject({ name: 'UserAbortError', outcomeUnknown: true })
    expect(fetch.calls).toBe(1)
  }, 3_000)

  it('the body of an answer that came after the deadline is cancelled unread', async () => {
    let cancelled!: () => void
    const wasCancelled = new Promise<void>((resolve) => {
      cancelled = resolve
    })
    const fetch = hostile(async (init) => {
      await waitForAbort(init)
      return new Response(new ReadableStream({ pull: () => new Promise(() => {}), cancel: () => cancelled() }))
    })
    expect(await moneyCall(fetch)).toBeInstanceOf(TimeoutError)
    await wasCancelled
  }, 3_000)

  it('a fetch that throws synchronously: a connection error, outcome unknown, not repeated', async () => {
    const fetch = hostile(() => {
      throw new TypeError('boom')
    })
    const e = await moneyCall(fetch)
    expect(e).toBeInstanceOf(ConnectionError)
    expect(e).toMatchObject({ outcomeUnknown: true })
    expect(fetch.calls).toBe(1)
  })

  for (const [name, value] of [
    ['{}', {}],
    ['a string', 'HTTP/1.1 200 OK'],
    ['null', null],
    ['an object with a status but no headers', { status: 200, body: null }],
  ] as const) {
    it(`a fetch that resolves ${name} instead of a Response: a clear error, unknown outcome, not repeated`, async () => {
      const fetch = hostile(() => Promise.resolve(value))
      const e = await moneyCall(fetch)
      expect(e).toBeInstanceOf(PaywireError)
      expect(e).not.toBeInstanceOf(ApiError)
      expect(e).toMatchObject({ outcomeUnknown: true })
      expect((e as Error).message).toMatch(/fetch.*Response/)
      expect(fetch.calls).toBe(1)
    })
  }

  it("a Response-like object (a polyfill's Response) is read as the answer it is", async () => {
    const fetch = hostile(() =>
      Promise.resolve({ status: 200, headers: new Headers(), body: new Response('{"ok":true}').body }),
    )
    const client = makeClient({ fetch })
    onTestFinished(() => client.close())
    await expect(client.send(post(URL_, { retry: unsentOnly }), jsonHandler)).resolves.toEqual({ ok: true })
  })

  it('a body stream that gives strings instead of bytes: a clear error, unknown outcome', async () => {
    const fetch = hostile(
      () =>
        new Response(
          // A hostile stream: strings where a body gives bytes.
          new ReadableStream<unknown>({
            pull(controller) {
              controller.enqueue('x'.repeat(1024))
            },
          }) as ReadableStream<Uint8Array>,
        ),
    )
    const e = await moneyCall(fetch)
    expect(e).toBeInstanceOf(ConnectionError)
    expect(e).toMatchObject({ outcomeUnknown: true })
    expect((e as Error).message).toMatch(/not bytes/)
  })

  it('an error Response (status 0, as an opaque redirect reads in a browser-like fetch): never a success', async () => {
    const fetch = hostile(() => Promise.resolve(Response.error()))
    const e = await moneyCall(fetch)
    expect(e).toBeInstanceOf(PaywireError)
    expect(e).toMatchObject({ outcomeUnknown: true })
    expect(fetch.calls).toBe(1)
  })
})

/** A loopback service that answers every connection with `raw` bytes, then does `end` with the socket. */
async function rawServer(raw: string, end: 'close' | 'reset' | 'hang' = 'close') {
  const { createServer } = await import('node:net')
  const requests: string[] = []
  const sockets = new Set<import('node:net').Socket>()
  const server = createServer((socket) => {
    sockets.add(socket)
    let seen = ''
    socket.on('error', () => {})
    socket.on('data', (chunk) => {
      seen += chunk.toString('latin1')
      if (!seen.includes('\r\n\r\n')) return
      requests.push(seen)
      seen = ''
      socket.write(raw, 'latin1', () => {
        if (end === 'close') socket.end()
        else if (end === 'reset') socket.resetAndDestroy()
      })
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as import('node:net').AddressInfo).port
  onTestFinished(
    () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy()
        server.close(() => resolve())
      }),
  )
  return { url: `http://127.0.0.1:${port}/pay`, requests }
}

/** A money-moving POST through Node's own fetch (the `fetch` option), up to 3 retries allowed. */
async function moneyOnNodeFetch(url: string, options: { maxResponseBytes?: number } = {}) {
  const fetch = hostile((init) => globalThis.fetch(url, init))
  const client = makeClient({ fetch, timeout: 2_000, maxRetries: 3, ...options })
  onTestFinished(() => client.close())
  const e = await rejection(client.send(post(url, { retry: unsentOnly }), jsonHandler))
  return { e, calls: fetch.calls }
}

describe('money is never moved twice on the fetch transport (Node fetch, misbehaving loopback service)', () => {
  it('a 307 to another host is the answer; the other host is never asked', async () => {
    const other = await rawServer('HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\n{}')
    const s = await rawServer(`HTTP/1.1 307 Temporary Redirect\r\nlocation: ${other.url}\r\ncontent-length: 0\r\n\r\n`)
    const { e, calls } = await moneyOnNodeFetch(s.url)
    expect(e).toBeInstanceOf(ApiError)
    expect(e).toMatchObject({ status: 307, outcomeUnknown: true })
    expect(calls).toBe(1)
    expect(other.requests).toHaveLength(0)
  })

  it('a 304 is no success', async () => {
    const s = await rawServer('HTTP/1.1 304 Not Modified\r\n\r\n')
    const { e, calls } = await moneyOnNodeFetch(s.url)
    expect(e).toBeInstanceOf(ApiError)
    expect(calls).toBe(1)
    expect(s.requests).toHaveLength(1)
  })

  it('a 100 Continue and then a dropped connection: unknown outcome, not repeated', async () => {
    const s = await rawServer('HTTP/1.1 100 Continue\r\n\r\n', 'reset')
    const { e, calls } = await moneyOnNodeFetch(s.url)
    expect(e).toMatchObject({ outcomeUnknown: true })
    expect(calls).toBe(1)
  })

  for (const [name, raw, end] of [
    ['a reset mid-body', 'HTTP/1.1 200 OK\r\ncontent-length: 100\r\n\r\n{"result":', 'reset'],
    ['a 200 whose Content-Length is larger than its body', 'HTTP/1.1 200 OK\r\ncontent-length: 100\r\n\r\n{}', 'close'],
    [
      'a duplicated, conflicting Content-Length',
      'HTTP/1.1 200 OK\r\ncontent-length: 2\r\ncontent-length: 3\r\n\r\n{}x',
      'close',
    ],
    [
      'both Content-Length and chunked',
      'HTTP/1.1 200 OK\r\ncontent-length: 2\r\ntransfer-encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n',
      'close',
    ],
  ] as const) {
    it(`${name}: unknown outcome, not repeated`, async () => {
      const s = await rawServer(raw, end)
      const { e, calls } = await moneyOnNodeFetch(s.url)
      expect(e).toBeInstanceOf(PaywireError)
      expect(e).toMatchObject({ outcomeUnknown: true })
      expect(calls).toBe(1)
      expect(s.requests).toHaveLength(1)
    })
  }

  it('a gzip bomb (Node fetch decompresses): refused at maxResponseBytes of decoded bytes, not read whole', async () => {
    const { gzipSync } = await import('node:zlib')
    const bomb = gzipSync(Buffer.alloc(64 * 1024 * 1024)).toString('latin1')
    const s = await rawServer(
      `HTTP/1.1 200 OK\r\ncontent-encoding: gzip\r\ncontent-length: ${bomb.length}\r\n\r\n${bomb}`,
      'hang',
    )
    const { e, calls } = await moneyOnNodeFetch(s.url, { maxResponseBytes: 64 * 1024 })
    expect(e).toMatchObject({ name: 'ResponseTooLargeError', outcomeUnknown: true })
    expect(calls).toBe(1)
  })

  it('a body over maxResponseBytes with no length: refused, unknown outcome, not repeated', async () => {
    const chunk = 'x'.repeat(4096)
    const chunks = Array.from({ length: 64 }, () => `1000\r\n${chunk}\r\n`).join('')
    const s = await rawServer(`HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n${chunks}`, 'hang')
    const { e, calls } = await moneyOnNodeFetch(s.url, { maxResponseBytes: 16 * 1024 })
    expect(e).toMatchObject({ name: 'ResponseTooLargeError', outcomeUnknown: true })
    expect(calls).toBe(1)
  })
})

describe('secrets on the fetch transport', () => {
  it('set-cookie and an echoed credential header are redacted in the error, its JSON and inspect, and the hooks', async () => {
    const s = await rawServer(
      'HTTP/1.1 500 Internal Server Error\r\nset-cookie: session=COOKIE-SECRET-1\r\nset-cookie: other=COOKIE-SECRET-2\r\n' +
        'x-api-key: KEY-SECRET\r\ncontent-type: application/json\r\ncontent-length: 2\r\n\r\n{}',
    )
    const seen: unknown[] = []
    const client = makeClient({
      fetch: (input, init) => globalThis.fetch(input, init),
      hooks: { onResponse: (event) => void seen.push(event), onRequest: (event) => void seen.push(event) },
    })
    onTestFinished(() => client.close())
    const req = post(s.url, {
      retry: unsentOnly,
      headers: { 'x-api-key': 'KEY-SECRET' },
      credentialHeaders: ['x-api-key'],
    })
    const e = await rejection(client.send(req, jsonHandler))
    const exposed = [inspect(e, { depth: 8 }), JSON.stringify(e), inspect(seen, { depth: 8 })].join('\n')
    expect(exposed).not.toMatch(/COOKIE-SECRET|KEY-SECRET/)
    expect(s.requests[0]).toContain('KEY-SECRET')
  })
})
