/**
 * The callback inbox from the attacker's side, in the real frameworks over loopback HTTP: forged and
 * hostile bodies, concurrent duplicate deliveries to several instances, a slow or failing onEvent, a
 * store that fails. `onEvent` must run at most once per dedupe key, and the answer must never wait for it.
 */

import { once } from 'node:events'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { Writable } from 'node:stream'
import { type ClaimStore, MemoryClaimStore } from '@paywire/core'
import { createTestClock } from '@paywire/core/testing'
import express from 'express'
import Fastify from 'fastify'
import pino from 'pino'
import { afterEach, describe, expect, it, vi } from 'vitest'
import {
  type CallbackEvent,
  type CallbackHandler,
  type CallbackHandlerOptions,
  CardGateway,
  dedupeKey,
} from '../src/index.js'
import { SIMULATOR_CREDENTIALS, signCallback } from '../src/testing/index.js'

const gw = new CardGateway({
  checkoutUrl: 'https://checkout.example',
  s2sUrl: 'https://s2s.example',
  ...SIMULATOR_CREDENTIALS,
})

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

const closers: (() => Promise<unknown>)[] = []
afterEach(async () => {
  for (const close of closers.splice(0)) await close()
})

async function listen(server: Server): Promise<string> {
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  closers.push(() => new Promise((resolve) => server.close(resolve)))
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/callbacks/card`
}

function post(url: string, body: string | Uint8Array, headers: Record<string, string> = {}) {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body,
  }).then(async (r) => ({ status: r.status, body: await r.text() }))
}

/** A handler that records each onEvent run; `gate` holds every run until released. */
function recording(options: Partial<CallbackHandlerOptions> = {}) {
  const runs: CallbackEvent[] = []
  let release = () => {}
  const gate = new Promise<void>((resolve) => {
    release = resolve
  })
  const handler = gw.callbacks.handler({
    onEvent: async (event) => {
      runs.push(event)
      await gate
    },
    ...options,
  })
  return { handler, runs, release }
}

describe('the inbox on node:http', () => {
  it('answers OK before onEvent has finished, then runs it once', async () => {
    const { handler, runs, release } = recording()
    const url = await listen(createServer(handler.node))
    const answer = await post(url, signed())
    expect(answer).toEqual({ status: 200, body: 'OK' })
    expect(runs).toHaveLength(1) // started, and still held by the gate: the answer did not wait
    release()
    await handler.drain()
    expect(runs[0]).toMatchObject({ id: 'pay-1', type: 'sale', status: 'success' })
  })

  it('refuses a forged body with 400 and its reason only, and runs nothing', async () => {
    const { handler, runs } = recording()
    const url = await listen(createServer(handler.node))
    const forged = signed().replace('order_amount=10.00', 'order_amount=1000.00')
    const answer = await post(url, forged)
    expect(answer).toEqual({ status: 400, body: 'hash_mismatch' })
    const hash = new URLSearchParams(forged).get('hash') as string
    expect(answer.body).not.toContain(hash)
    expect(answer.body).not.toContain(SIMULATOR_CREDENTIALS.password)
    expect((await post(url, '')).body).toBe('empty_body')
    expect(runs).toHaveLength(0)
  })

  it('stops reading an oversized body at the cap and answers 413', async () => {
    const { handler, runs } = recording({ maxBodyBytes: 1024 })
    const url = await listen(createServer(handler.node))
    const answer = await post(url, `${signed()}&pad=${'x'.repeat(100 * 1024)}`).catch((error: unknown) => error)
    // The answer comes at the cap, with the connection closed: the rest of the body is never read.
    expect(answer).toEqual({ status: 413, body: 'body_too_large' })
    expect(runs).toHaveLength(0)
  })

  it('N=50 concurrent duplicate deliveries to M=3 instances sharing a store run onEvent exactly once', async () => {
    const store = new MemoryClaimStore()
    const instances = [recording({ store }), recording({ store }), recording({ store })]
    const urls = await Promise.all(instances.map(({ handler }) => listen(createServer(handler.node))))
    const body = signed()
    const answers = await Promise.all(Array.from({ length: 50 }, (_, i) => post(urls[i % 3] as string, body)))
    // One delivery runs it; the others come while it runs: 503, so the gateway delivers them again.
    expect(answers.filter((a) => a.status === 200 && a.body === 'OK')).toHaveLength(1)
    expect(answers.filter((a) => a.status === 503 && a.body === 'in_progress')).toHaveLength(49)
    for (const { release } of instances) release()
    await Promise.all(instances.map(({ handler }) => handler.drain()))
    expect(instances.reduce((n, { runs }) => n + runs.length, 0)).toBe(1)
    // Delivered again once processed: acknowledged, nothing run.
    expect(await post(urls[1] as string, body)).toEqual({ status: 200, body: 'OK' })
    await Promise.all(instances.map(({ handler }) => handler.drain()))
    expect(instances.reduce((n, { runs }) => n + runs.length, 0)).toBe(1)
    // A different status of the same payment is another event: it runs too.
    await post(urls[0] as string, signed({ ...FIELDS, type: 'refund', order_status: 'refund' }))
    await Promise.all(instances.map(({ handler }) => handler.drain()))
    expect(instances.reduce((n, { runs }) => n + runs.length, 0)).toBe(2)
  })

  it('an onEvent that throws releases its key: the redelivery runs it again, and then never again', async () => {
    let calls = 0
    const errors: unknown[] = []
    const handler = gw.callbacks.handler({
      onEvent: () => {
        calls++
        if (calls === 1) throw new Error('database down')
      },
      onError: (error) => errors.push(error),
    })
    const url = await listen(createServer(handler.node))
    await post(url, signed())
    await handler.drain()
    await post(url, signed())
    await handler.drain()
    await post(url, signed())
    await handler.drain()
    expect(calls).toBe(2)
    expect(errors).toHaveLength(1)
  })

  it('a failure with no onError is never silent: console.error gets the ids, not the body or the hash', async () => {
    const logged = vi.spyOn(console, 'error').mockImplementation(() => {})
    try {
      const handler = gw.callbacks.handler({
        onEvent: () => {
          throw new Error('database down')
        },
      })
      expect((await handler.handle(signed())).status).toBe(200)
      await handler.drain()
      expect(logged).toHaveBeenCalledTimes(1)
      const printed = JSON.stringify(logged.mock.calls[0])
      expect(printed).toContain('database down')
      expect(printed).toContain('pay-1')
      const hash = new URLSearchParams(signed()).get('hash') as string
      expect(printed).not.toContain(hash)
      expect(printed).not.toContain('10.00')
    } finally {
      logged.mockRestore()
    }
  })

  it("a failure with no onError goes to the client's logger when it has one, not to the console", async () => {
    const logged = vi.spyOn(console, 'error').mockImplementation(() => {})
    try {
      const warnings: unknown[][] = []
      const withLogger = new CardGateway({
        checkoutUrl: 'https://checkout.example',
        s2sUrl: 'https://s2s.example',
        ...SIMULATOR_CREDENTIALS,
        logger: { debug: () => {}, warn: (...args: unknown[]) => warnings.push(args) },
      })
      const handler = withLogger.callbacks.handler({
        onEvent: () => {
          throw new Error('database down')
        },
      })
      await handler.handle(signed())
      await handler.drain()
      expect(logged).not.toHaveBeenCalled()
      expect(warnings).toEqual([
        ['paywire callback inbox: Error: database down', expect.objectContaining({ id: 'pay-1' })],
      ])
    } finally {
      logged.mockRestore()
    }
  })

  it("with a pino logger, the inbox's failure line keeps the event's ids as JSON fields", async () => {
    const lines: Record<string, unknown>[] = []
    const stream = new Writable({
      write(chunk, _enc, done) {
        for (const line of String(chunk).split('\n')) if (line) lines.push(JSON.parse(line))
        done()
      },
    })
    const withPino = new CardGateway({
      checkoutUrl: 'https://checkout.example',
      s2sUrl: 'https://s2s.example',
      ...SIMULATOR_CREDENTIALS,
      logger: pino({ level: 'debug' }, stream),
    })
    const handler = withPino.callbacks.handler({
      onEvent: () => {
        throw new Error('database down')
      },
    })
    await handler.handle(signed())
    await handler.drain()
    expect(lines).toMatchObject([{ level: 40, msg: 'paywire callback inbox: Error: database down', id: 'pay-1' }])
    expect(JSON.stringify(lines)).not.toContain(SIMULATOR_CREDENTIALS.password)
  })

  it('refuses bad handler options with RequestValidationError naming the option', () => {
    expect(() => gw.callbacks.handler({ onEvent: () => {}, holdMs: 0 })).toThrow(
      /callbacks\.handler: invalid client options\. holdMs: must be a whole number of ms >= 1/,
    )
  })

  it('a store that fails answers 503 after 3 attempts with one token, so the gateway delivers again, and runs nothing', async () => {
    const tokens: string[] = []
    const failing: ClaimStore = {
      claim: async (_key, token) => {
        tokens.push(token)
        throw new Error('redis down')
      },
      complete: async () => true,
      release: async () => {},
    }
    const errors: unknown[] = []
    const { handler, runs } = recording({ store: failing, clock: createTestClock(), onError: (e) => errors.push(e) })
    const url = await listen(createServer(handler.node))
    expect(await post(url, signed())).toEqual({ status: 503, body: 'store_unavailable' })
    expect(runs).toHaveLength(0)
    expect(tokens).toHaveLength(3)
    expect(new Set(tokens).size).toBe(1)
    expect(errors).toHaveLength(1)
  })
})

describe('the inbox in Express 5', () => {
  async function app(mount: (app: express.Express, handler: CallbackHandler) => void) {
    const { handler, runs, release } = recording()
    release()
    const application = express()
    mount(application, handler)
    const url = await listen(createServer(application))
    return { handler, runs, url }
  }

  it('reads the raw body itself when no body parser ran', async () => {
    const { handler, runs, url } = await app((a, h) => a.post('/callbacks/card', h.node))
    expect(await post(url, signed())).toEqual({ status: 200, body: 'OK' })
    await handler.drain()
    expect(runs).toHaveLength(1)
  })

  it('takes the Buffer of express.raw()', async () => {
    const { handler, runs, url } = await app((a, h) => a.post('/callbacks/card', express.raw({ type: '*/*' }), h.node))
    expect(await post(url, signed())).toEqual({ status: 200, body: 'OK' })
    await handler.drain()
    expect(runs).toHaveLength(1)
  })

  it('refuses a body that express.urlencoded() already parsed, saying how to mount it', async () => {
    const { runs, url } = await app((a, h) => {
      a.use(express.urlencoded({ extended: false }))
      a.post('/callbacks/card', h.node)
    })
    const answer = await post(url, signed())
    expect(answer.status).toBe(500)
    expect(answer.body).toMatch(/^body_already_parsed: mount the callback route before any body parser/)
    expect(runs).toHaveLength(0)
  })

  it('answers an empty POST as empty_body', async () => {
    const { url } = await app((a, h) => a.post('/callbacks/card', h.node))
    expect(await fetch(url, { method: 'POST' }).then((r) => r.text())).toBe('empty_body')
  })
})

describe('the inbox in Fastify 5', () => {
  it('takes the raw Buffer from a content-type parser scoped to the route', async () => {
    const { handler, runs, release } = recording()
    release()
    const fastify = Fastify()
    await fastify.register(async (scope) => {
      scope.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body))
      scope.post('/callbacks/card', async (request, reply) => {
        const answer = await handler.handle(request.body as Buffer)
        return reply.code(answer.status).headers(answer.headers).send(answer.body)
      })
    })
    const address = await fastify.listen({ port: 0, host: '127.0.0.1' })
    closers.push(() => fastify.close())
    const url = `${address}/callbacks/card`
    expect(await post(url, signed())).toEqual({ status: 200, body: 'OK' })
    await handler.drain()
    expect(await post(url, signed())).toEqual({ status: 200, body: 'OK' }) // a duplicate, once processed
    expect((await post(url, `${signed()}0`)).status).toBe(400)
    await handler.drain()
    expect(runs).toHaveLength(1)
  })
})

describe('the inbox as a Fetch API handler (Next.js route handlers, Hono, Bun, Deno)', () => {
  const request = (body: string) => new Request('https://shop.example/callbacks/card', { method: 'POST', body })

  it('verifies, answers OK and runs onEvent once for duplicates', async () => {
    const { handler, runs, release } = recording()
    release()
    const first = await handler.fetch(request(signed()))
    await handler.drain()
    const second = await handler.fetch(request(signed()))
    expect([first.status, await first.text(), second.status, await second.text()]).toEqual([200, 'OK', 200, 'OK'])
    await handler.drain()
    expect(runs).toHaveLength(1)
  })

  it('stops a chunked body at the cap without reading the rest', async () => {
    const { handler, runs } = recording({ maxBodyBytes: 1024 })
    let pulled = 0
    const endless = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled++
        controller.enqueue(new Uint8Array(512).fill(0x61))
      },
    })
    const response = await handler.fetch(
      new Request('https://shop.example/cb', { method: 'POST', body: endless, duplex: 'half' } as RequestInit),
    )
    expect([response.status, await response.text()]).toEqual([413, 'body_too_large'])
    expect(pulled).toBeLessThan(10)
    expect(runs).toHaveLength(0)
  })
})

/**
 * A shared store whose chosen calls run and then lose their reply (they throw after the write), as a
 * Redis command does when the connection drops before its answer arrives.
 */
function lossy(lose: { claim?: number; complete?: number; release?: number }) {
  const inner = new MemoryClaimStore()
  const calls = { claim: 0, complete: 0, release: 0 }
  const lost = (what: keyof typeof calls) => {
    calls[what]++
    if (calls[what] <= (lose[what] ?? 0)) throw new Error(`connection lost before the reply to ${what}`)
  }
  const store: ClaimStore = {
    claim: async (key, token, holdMs) => {
      const state = await inner.claim(key, token, holdMs)
      lost('claim')
      return state
    },
    complete: async (key, token, keepMs) => {
      const done = await inner.complete(key, token, keepMs)
      lost('complete')
      return done
    },
    release: async (key, token) => {
      await inner.release(key, token)
      lost('release')
    },
  }
  return { store, calls }
}

describe('the inbox when the claim store loses replies', () => {
  it('a claim that ran but whose reply was lost is sent again with its token, recognised, and run: never 200 with nothing run', async () => {
    const { store, calls } = lossy({ claim: 2 })
    const { handler, runs, release } = recording({ store, clock: createTestClock() })
    release()
    expect(await handler.handle(signed())).toEqual(expect.objectContaining({ status: 200, body: 'OK' }))
    await handler.drain()
    expect(runs).toHaveLength(1)
    expect(calls.claim).toBe(3)
  })

  it('a key held by another delivery is answered 503 in_progress, not 200: the holder may never finish', async () => {
    const store = new MemoryClaimStore()
    const { handler, runs } = recording({ store })
    const key = `callback:${dedupeKey(FIELDS as unknown as CallbackEvent)}`
    expect(await store.claim(key, 'a-holder-that-lost-its-connection', 60_000)).toBe('claimed')
    expect(await handler.handle(signed())).toEqual(expect.objectContaining({ status: 503, body: 'in_progress' }))
    expect(runs).toHaveLength(0)
  })

  it('a release whose reply was lost is sent again until acknowledged: the next delivery runs the event at once', async () => {
    const { store, calls } = lossy({ release: 2 })
    let attempts = 0
    const handler = gw.callbacks.handler({
      store,
      clock: createTestClock(),
      onError: () => {},
      onEvent: () => {
        attempts++
        if (attempts === 1) throw new Error('database down')
      },
    })
    expect((await handler.handle(signed())).status).toBe(200)
    await handler.drain()
    expect(calls.release).toBe(3)
    expect((await handler.handle(signed())).status).toBe(200)
    await handler.drain()
    expect(attempts).toBe(2)
  })

  it('a done mark whose reply was lost is sent again until acknowledged: later deliveries find the key done, never run it again', async () => {
    const { store, calls } = lossy({ complete: 2 })
    const errors: unknown[] = []
    const { handler, runs, release } = recording({ store, clock: createTestClock(), onError: (e) => errors.push(e) })
    release()
    expect((await handler.handle(signed())).status).toBe(200)
    await handler.drain()
    expect(calls.complete).toBe(3)
    expect(await handler.handle(signed())).toEqual(expect.objectContaining({ status: 200, body: 'OK' }))
    await handler.drain()
    expect(runs).toHaveLength(1)
    expect(errors).toEqual([])
  })

  it('a done mark the store never acknowledges is tried until the hold ends, then reported: onEvent may run again', async () => {
    const clock = createTestClock()
    const { store, calls } = lossy({ complete: Number.POSITIVE_INFINITY })
    const errors: unknown[] = []
    const { handler, release } = recording({ store, clock, holdMs: 5_000, onError: (e) => errors.push(e) })
    release()
    const started = clock.now()
    await handler.handle(signed())
    await handler.drain()
    expect(clock.now() - started).toBe(5_000) // the last pause is cut at the hold's end
    // Pauses of 20, 40, 80, 160, 320, 640, 1 000 ×3, then the 740 ms left: 11 attempts.
    expect(calls.complete).toBe(11)
    expect(errors).toHaveLength(1)
    expect(String(errors[0])).toMatch(/failed complete 11 times: the event is not marked done/)
  })

  it('a done mark refused because another delivery took the expired claim is reported', async () => {
    const memory = new MemoryClaimStore()
    const store: ClaimStore = {
      claim: (key, token, holdMs) => memory.claim(key, token, holdMs),
      complete: async () => false, // the claim expired and another delivery holds the key now
      release: (key, token) => memory.release(key, token),
    }
    const errors: unknown[] = []
    const { handler, release } = recording({ store, onError: (e) => errors.push(e) })
    release()
    await handler.handle(signed())
    await handler.drain()
    expect(errors).toHaveLength(1)
    expect(String(errors[0])).toMatch(/another delivery took the key, which may run onEvent again/)
  })

  it('a store written for the former interface (claim answers a token) is refused: 503 and reported, nothing run', async () => {
    const errors: unknown[] = []
    const former = {
      claim: async () => 'a-token',
      complete: async () => {},
      release: async () => {},
    } as unknown as ClaimStore
    const { handler, runs } = recording({ store: former, onError: (error) => errors.push(error) })
    expect(await handler.handle(signed())).toEqual(expect.objectContaining({ status: 503, body: 'store_unavailable' }))
    expect(runs).toHaveLength(0)
    expect(String(errors[0])).toContain("not 'claimed', 'held' or 'done'")
  })
})
