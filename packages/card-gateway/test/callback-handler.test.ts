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
import { storeWith } from '../../../tests/support/store-with.js'
import { type CallbackEvent, type CallbackHandler, type CallbackHandlerOptions, CardGateway } from '../src/index.js'
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
    recoverEveryMs: 0, // recovery runs when a test calls recover(), never on a timer
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

  it('N=50 concurrent duplicate deliveries to M=3 instances sharing a store: all acknowledged, onEvent runs exactly once', async () => {
    const store = new MemoryClaimStore()
    const instances = [recording({ store }), recording({ store }), recording({ store })]
    const urls = await Promise.all(instances.map(({ handler }) => listen(createServer(handler.node))))
    const body = signed()
    const answers = await Promise.all(Array.from({ length: 50 }, (_, i) => post(urls[i % 3] as string, body)))
    // Every delivery finds the event recorded (by itself or another): 200, and one run.
    expect(answers.every((a) => a.status === 200 && a.body === 'OK')).toBe(true)
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

  it('an onEvent that throws runs again from the record after its backoff, with no redelivery, and then never again', async () => {
    const clock = createTestClock()
    let calls = 0
    const errors: unknown[] = []
    const handler = gw.callbacks.handler({
      clock,
      recoverEveryMs: 0,
      onEvent: () => {
        calls++
        if (calls === 1) throw new Error('database down')
      },
      onError: (error) => errors.push(error),
    })
    const url = await listen(createServer(handler.node))
    expect(await post(url, signed())).toEqual({ status: 200, body: 'OK' })
    await handler.drain()
    expect(calls).toBe(1)
    // The gateway never delivers again after a 2xx: the record is what runs it. Not before its backoff (1 s ±20 %)…
    expect(await handler.recover()).toBe(0)
    clock.advance(1_200)
    // …then once, by recovery (the interval's work, or a scheduler's call).
    expect(await handler.recover()).toBe(1)
    expect(calls).toBe(2)
    expect(await post(url, signed())).toEqual({ status: 200, body: 'OK' })
    await handler.drain()
    clock.advance(60 * 60 * 1000)
    expect(await handler.recover()).toBe(0)
    expect(calls).toBe(2)
    expect(errors.map(String)).toEqual(['Error: database down'])
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
      /callbacks\.handler: invalid options\. holdMs: must be a whole number >= 1/,
    )
    expect(() => gw.callbacks.handler({ onEvent: () => {}, concurrency: 1.5 })).toThrow(
      /concurrency: must be a whole number >= 1/,
    )
    expect(() => gw.callbacks.handler({ onEvent: () => {}, recoverEveryMs: -1 })).toThrow(
      /recoverEveryMs: must be a whole number >= 0/,
    )
    expect(() => gw.callbacks.handler({ onEvent: () => {}, storeFields: ['hash'] })).toThrow(
      /storeFields: must not list "hash"/,
    )
    expect(() =>
      gw.callbacks.handler({ onEvent: () => {}, retryBackoff: { baseDelayMs: 5_000, maxDelayMs: 1_000 } }),
    ).toThrow(/retryBackoff\.maxDelayMs: must be a whole number >= 5000/)
  })

  it('a store that fails answers 503 after 3 attempts with one token, so the gateway delivers again, and runs nothing', async () => {
    const tokens: string[] = []
    const failing = storeWith(new MemoryClaimStore(), {
      record: async (_event, token) => {
        tokens.push(token)
        throw new Error('redis down')
      },
    })
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
function lossy(lose: { record?: number; complete?: number; release?: number }, clock = createTestClock()) {
  const inner = new MemoryClaimStore({ clock })
  const calls = { record: 0, complete: 0, release: 0 }
  const lost = (what: keyof typeof calls) => {
    calls[what]++
    if (calls[what] <= (lose[what] ?? 0)) throw new Error(`connection lost before the reply to ${what}`)
  }
  const store = storeWith(inner, {
    record: async (event, token, leaseMs) => {
      const answer = await inner.record(event, token, leaseMs)
      lost('record')
      return answer
    },
    complete: async (key, token, keepMs) => {
      const done = await inner.complete(key, token, keepMs)
      lost('complete')
      return done
    },
    release: async (key, token, next) => {
      const released = await inner.release(key, token, next)
      lost('release')
      return released
    },
  })
  return { store, calls, clock, inner }
}

describe('the inbox when the store loses replies', () => {
  it('a record that landed but whose reply was lost is sent again with its token, recognised, and run: never 200 with nothing run', async () => {
    const { store, calls, clock } = lossy({ record: 2 })
    const { handler, runs, release } = recording({ store, clock })
    release()
    expect(await handler.handle(signed())).toEqual(expect.objectContaining({ status: 200, body: 'OK' }))
    await handler.drain()
    expect(runs).toHaveLength(1)
    expect(calls.record).toBe(3)
  })

  it("a key held by a former version's claim (a rolling upgrade) is answered 503 in_progress, not 200", async () => {
    const store = storeWith(new MemoryClaimStore(), { record: async () => 'held' })
    const { handler, runs } = recording({ store })
    expect(await handler.handle(signed())).toEqual(expect.objectContaining({ status: 503, body: 'in_progress' }))
    await handler.drain()
    expect(runs).toHaveLength(0)
  })

  it('a release whose reply was lost is sent again until acknowledged, without giving the attempt back twice', async () => {
    const { store, calls, clock, inner } = lossy({ release: 2 })
    let attempts = 0
    const handler = gw.callbacks.handler({
      store,
      clock,
      recoverEveryMs: 0,
      onError: () => {},
      onEvent: () => {
        attempts++
        if (attempts === 1) throw new Error('database down')
      },
    })
    expect((await handler.handle(signed())).status).toBe(200)
    await handler.drain()
    expect(calls.release).toBe(3)
    clock.advance(1_200)
    const [due] = await inner.takeDue({ token: 'probe', ms: 1, maxAttempts: 8 }, 10)
    // The first release counted the attempt; the two sent again after lost replies changed nothing.
    expect(due?.event.attempts).toBe(2)
  })

  it('a done mark whose reply was lost is sent again until acknowledged: later deliveries find the key done, never run it again', async () => {
    const { store, calls, clock } = lossy({ complete: 2 })
    const errors: unknown[] = []
    const { handler, runs, release } = recording({ store, clock, onError: (e) => errors.push(e) })
    release()
    expect((await handler.handle(signed())).status).toBe(200)
    await handler.drain()
    expect(calls.complete).toBe(3)
    expect(await handler.handle(signed())).toEqual(expect.objectContaining({ status: 200, body: 'OK' }))
    await handler.drain()
    expect(runs).toHaveLength(1)
    expect(errors).toEqual([])
  })

  it('a done mark the store never acknowledges is tried for two leases, then reported: the event may run again', async () => {
    const { store, calls, clock } = lossy({ complete: Number.POSITIVE_INFINITY })
    const errors: unknown[] = []
    const { handler, release } = recording({ store, clock, holdMs: 5_000, onError: (e) => errors.push(e) })
    release()
    const started = clock.now()
    await handler.handle(signed())
    await handler.drain()
    expect(clock.now() - started).toBe(10_000) // the last pause is cut where the second lease ends
    expect(calls.complete).toBeGreaterThan(10)
    expect(errors).toHaveLength(1)
    expect(String(errors[0])).toMatch(/failed complete \d+ times: the event is not marked done/)
  })

  it('a done mark refused because another instance took the event after the lease ended is reported', async () => {
    const store = storeWith(new MemoryClaimStore(), { complete: async () => false })
    const errors: unknown[] = []
    const { handler, release } = recording({ store, onError: (e) => errors.push(e) })
    release()
    await handler.handle(signed())
    await handler.drain()
    expect(errors).toHaveLength(1)
    expect(String(errors[0])).toMatch(/another instance took the event, which may run it again/)
  })

  it('a store written for the former interface (claim/complete/release) is refused when the handler is built, by name', () => {
    const former = { claim: async () => 'claimed', complete: async () => true, release: async () => {} }
    expect(() => gw.callbacks.handler({ onEvent: () => {}, store: former as unknown as ClaimStore })).toThrow(
      /store: must be a ClaimStore .* it lacks record, take, takeDue, renew, wake, failedEvents, retry, forget, prune/,
    )
  })

  it('a store that answers a record with something else is not believed: 503 and reported, nothing run', async () => {
    const errors: unknown[] = []
    const store = storeWith(new MemoryClaimStore(), { record: async () => 'claimed' as never })
    const { handler, runs } = recording({ store, clock: createTestClock(), onError: (error) => errors.push(error) })
    expect(await handler.handle(signed())).toEqual(expect.objectContaining({ status: 503, body: 'store_unavailable' }))
    expect(runs).toHaveLength(0)
    expect(String((errors[0] as Error).cause)).toMatch(/store\.record: answered "claimed"/)
  })
})
