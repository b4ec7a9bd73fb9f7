/**
 * The inbox as a newcomer mounts it in a framework, and as an attacker probes it: Hono's route gets
 * a `Context` (the raw `Request` is `c.req.raw`), a body some middleware read first, a body the
 * merchant already holds, a tampered body that must be refused loudly, and a serverless platform
 * that freezes the instance unless it is given the run to wait for.
 */

import { createTestClock } from '@paywire/core/testing'
import { Hono } from 'hono'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { type CallbackEvent, type CallbackHandlerOptions, type CallbackRefusal, CardGateway } from '../src/index.js'
import { SIMULATOR_CREDENTIALS, signCallback } from '../src/testing/index.js'

const FIELDS = {
  id: 'pay-1',
  order_number: 'order-1',
  order_amount: '10.00',
  order_currency: 'USD',
  order_description: 'Filters',
  order_status: 'settled',
  type: 'sale',
  status: 'success',
}
const signed = (fields: Record<string, string> = FIELDS) => signCallback(fields, SIMULATOR_CREDENTIALS.password)

function gateway(extra: Record<string, unknown> = {}) {
  return new CardGateway({
    checkoutUrl: 'https://checkout.example',
    s2sUrl: 'https://s2s.example',
    ...SIMULATOR_CREDENTIALS,
    ...extra,
  })
}

const handlers: { close(): Promise<void> }[] = []
afterEach(async () => {
  vi.unstubAllEnvs()
  vi.restoreAllMocks()
  for (const handler of handlers.splice(0)) await handler.close()
})

function inbox(options: Partial<CallbackHandlerOptions> = {}, gw = gateway()) {
  const runs: CallbackEvent[] = []
  const refusals: CallbackRefusal[] = []
  const handler = gw.callbacks.handler({
    onEvent: (event) => {
      runs.push(event)
    },
    onRefused: (refusal) => refusals.push(refusal),
    recoverEveryMs: 0,
    clock: createTestClock(),
    ...options,
  })
  handlers.push(handler)
  return { handler, runs, refusals }
}

const form = (body: string) =>
  new Request('http://merchant.example/callbacks/card', {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body,
  })

describe('Hono: the route gets a Context, the handler the raw Request', () => {
  it('(c) => handler.fetch(c.req.raw) answers OK and runs onEvent once', async () => {
    const { handler, runs } = inbox()
    const app = new Hono()
    app.post('/callbacks/card', (c) => handler.fetch(c.req.raw))
    const res = await app.request(form(signed()))
    expect([res.status, await res.text()]).toEqual([200, 'OK'])
    await handler.drain()
    expect(runs.map((e) => e.id)).toEqual(['pay-1'])
  })

  it('a body a middleware read first answers 500 body_already_parsed (before: ReadableStream is locked, a bare 500)', async () => {
    const { handler, runs, refusals } = inbox()
    const app = new Hono()
    app.use(async (c, next) => {
      await c.req.raw.clone().text() // a clone leaves the body unread: must verify
      await next()
    })
    app.post('/callbacks/card', (c) => handler.fetch(c.req.raw))
    app.post('/read-first', async (c) => {
      await c.req.text() // a body-reading middleware or the route itself
      return handler.fetch(c.req.raw)
    })
    const ok = await app.request(new Request('http://m.example/callbacks/card', form(signed())))
    expect(ok.status).toBe(200)
    const res = await app.request(new Request('http://m.example/read-first', form(signed())))
    expect(res.status).toBe(500)
    expect(await res.text()).toMatch(/^body_already_parsed: .*handler\.handle\(body\)/)
    await handler.drain()
    expect(runs).toHaveLength(1)
    expect(refusals.map((r) => [r.status, r.reason])).toEqual([[500, 'body_already_parsed']])
  })

  it('a stream being read by someone else (locked) answers body_already_parsed too', async () => {
    const { handler } = inbox()
    const request = form(signed())
    request.body?.getReader() // locks it
    const res = await handler.fetch(request)
    expect(res.status).toBe(500)
    expect(await res.text()).toMatch(/^body_already_parsed/)
  })

  it("handler.handle(bytes) for a body you hold: its status is one Hono's c.body() takes as it is", async () => {
    const { handler, runs } = inbox()
    const app = new Hono()
    app.post('/callbacks/card', async (c) => {
      const a = await handler.handle(new Uint8Array(await c.req.arrayBuffer()))
      return c.body(a.body, a.status, a.headers) // type-checks: a.status is CallbackAnswerStatus
    })
    const res = await app.request(form(signed()))
    expect([res.status, await res.text()]).toEqual([200, 'OK'])
    const bad = await app.request(form(`${signed()}0`))
    expect([bad.status, await bad.text()]).toEqual([400, 'hash_mismatch'])
    await handler.drain()
    expect(runs).toHaveLength(1)
  })

  it('handle() given an object a parser made answers 500 body_already_parsed, not 400', async () => {
    const { handler, refusals } = inbox()
    const parsed = Object.fromEntries(new URLSearchParams(signed())) as unknown as string
    const a = await handler.handle(parsed)
    expect([a.status, a.body.split(':')[0]]).toEqual([500, 'body_already_parsed'])
    expect(refusals.map((r) => r.reason)).toEqual(['body_already_parsed'])
  })

  it('a handler failure inside fetch answers 500 internal_error and is reported, never a thrown error', async () => {
    const onError = vi.fn()
    const { handler } = inbox({ onError })
    const broken = new Request('http://m.example/cb', { method: 'POST', body: signed() })
    Object.defineProperty(broken, 'headers', {
      get() {
        throw new TypeError('broken request')
      },
    })
    const res = await handler.fetch(broken)
    expect([res.status, await res.text()]).toEqual([500, 'internal_error'])
    expect(onError).toHaveBeenCalledOnce()
  })
})

describe('node:http: a stream some middleware read first', () => {
  it('answers 500 body_already_parsed (before: 400 empty_body, a refusal the gateway counts and no fix names)', async () => {
    const { createServer } = await import('node:http')
    const { once } = await import('node:events')
    const { handler, refusals } = inbox()
    const server = createServer(async (req, res) => {
      for await (const _ of req) {
        // a logging middleware that read the body and kept nothing
      }
      handler.node(req, res)
    })
    server.listen(0, '127.0.0.1')
    await once(server, 'listening')
    const { port } = server.address() as { port: number }
    try {
      const res = await fetch(`http://127.0.0.1:${port}/`, { method: 'POST', body: signed() })
      expect(res.status).toBe(500)
      expect(await res.text()).toMatch(/^body_already_parsed/)
      const empty = await fetch(`http://127.0.0.1:${port}/`, { method: 'POST' })
      expect([empty.status, await empty.text()]).toEqual([400, 'empty_body'])
      expect(refusals.map((r) => r.reason)).toEqual(['body_already_parsed', 'empty_body'])
    } finally {
      server.close()
    }
  })
})

describe('a refused callback is loud', () => {
  it('a tampered body reaches onRefused with its reason and the ids it claims, never the body, hash or password', async () => {
    const { handler, refusals } = inbox()
    const body = signed().replace('order_amount=10.00', 'order_amount=1000.00')
    const res = await handler.fetch(form(body))
    expect([res.status, await res.text()]).toEqual([400, 'hash_mismatch'])
    expect(refusals).toHaveLength(1)
    const refusal = refusals[0] as CallbackRefusal
    expect(refusal).toMatchObject({
      reason: 'hash_mismatch',
      status: 400,
      claimed: { id: 'pay-1', order: 'order-1', type: 'sale', status: 'success' },
    })
    const text = JSON.stringify({ ...refusal, error: undefined })
    expect(text).not.toContain('1000.00')
    expect(text).not.toContain(new URLSearchParams(body).get('hash'))
    expect(text).not.toContain(SIMULATOR_CREDENTIALS.password)
  })

  it("goes to the client's logger at warn, with the ids as data (before: no line at all)", async () => {
    const warn = vi.fn()
    const { handler } = inbox({}, gateway({ logger: { debug: () => {}, warn } }))
    await handler.fetch(form(`${signed()}0`))
    expect(warn).toHaveBeenCalledOnce()
    const [message, data] = warn.mock.calls[0] as [string, Record<string, string>]
    expect(message).toMatch(/^paywire callback refused: 400 hash_mismatch: /)
    expect(data).toMatchObject({ reason: 'hash_mismatch', status: 400, claimed: { id: 'pay-1', order: 'order-1' } })
    expect(`${message}${JSON.stringify(data)}`).not.toContain(SIMULATOR_CREDENTIALS.password)
  })

  it('with PAYWIRE_LOG=warn and no logger, the console gets the warn line', async () => {
    vi.stubEnv('PAYWIRE_LOG', 'warn')
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {})
    const { handler } = inbox({ onRefused: undefined }, gateway())
    await handler.fetch(form('id=x&hash=00'))
    expect(warn.mock.calls.map((c) => String(c[0]))).toEqual([
      expect.stringMatching(/^paywire callback refused: 400 missing_signed_fields/),
    ])
  })

  it('a claimed id is written printable and short: a forged body cannot write a log line of its own', async () => {
    const { handler, refusals } = inbox()
    const forged = new URLSearchParams({ ...FIELDS, id: `x\nERROR fake line${'y'.repeat(200)}`, hash: '00' })
    await handler.fetch(form(forged.toString()))
    const id = refusals[0]?.claimed.id ?? ''
    expect(id).not.toMatch(/[\n\r]/)
    expect(id.length).toBeLessThanOrEqual(64)
  })

  it('an oversized body is refused 413 with no ids read, and reported', async () => {
    const { handler, refusals } = inbox({ maxBodyBytes: 100 })
    const res = await handler.fetch(form(`${signed()}&pad=${'x'.repeat(200)}`))
    expect(res.status).toBe(413)
    expect(refusals.map((r) => [r.status, r.reason, r.claimed])).toEqual([[413, 'body_too_large', {}]])
  })

  it('onRefused that is not a function is refused by name', () => {
    expect(() => gateway().callbacks.handler({ onEvent: () => {}, onRefused: 'x' as never })).toThrow(/onRefused/)
  })
})

describe('serverless: the platform is told to wait for the run', () => {
  it('fetch(request, { waitUntil }) hands over a promise that settles after onEvent has run', async () => {
    let finish = () => {}
    const gate = new Promise<void>((resolve) => {
      finish = resolve
    })
    const done: string[] = []
    const { handler } = inbox({
      onEvent: async (event) => {
        await gate
        done.push(event.id ?? '')
      },
    })
    const waited: Promise<unknown>[] = []
    const res = await handler.fetch(form(signed()), { waitUntil: (p) => waited.push(p) })
    expect(res.status).toBe(200) // answered before onEvent ended
    expect(done).toEqual([])
    expect(waited).toHaveLength(1)
    finish()
    await waited[0]
    expect(done).toEqual(['pay-1'])
  })

  it('a refused delivery asks the platform to wait for nothing', async () => {
    const { handler } = inbox()
    const waitUntil = vi.fn()
    await handler.handle(`${signed()}0`, { waitUntil })
    expect(waitUntil).not.toHaveBeenCalled()
  })
})
