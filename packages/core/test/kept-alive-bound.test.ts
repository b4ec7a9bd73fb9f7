/**
 * Keep-alive where the answer is bound (docs/reliability.md): lookups, and the money-moving rows
 * marked `reusesConnection`, go on kept-alive connections, and on a connection that carried an
 * earlier answer only a 2xx naming every bound value is believed. From the attacker's side: a server
 * that owes each connection a stale second answer (an error envelope, or a copy naming the earlier
 * subject) and writes it as the next request arrives, after the client wrote that request.
 */

import { once } from 'node:events'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import { type AddressInfo, createServer as createNetServer } from 'node:net'
import { ConnectionError, ProblemDetailsError, TimeoutError } from '@paywire/core'
import {
  bindAnswer,
  defineOperation,
  OperationClient,
  type OperationClientConfig,
  problemAnswers,
  reconcileRule,
  safe,
  unsentOnly,
} from '@paywire/core/engine'
import {
  createTestClock,
  type DoubleAnswerRequest,
  rawHttpAnswer,
  startDoubleAnswerServer,
} from '@paywire/core/testing'
import { Agent } from 'undici'
import { describe, expect, it, onTestFinished, vi } from 'vitest'
import { MONEY_IDLE_LIMIT_MS, SUBJECTS_PER_SOCKET } from '../src/transport/kept-connections.js'
import { countingFetch, makeClient, rejection } from './helpers.js'

class ShopError extends ProblemDetailsError {}

/** The stale second answer: a definite refusal, as a gateway answers a capture of a payment not pending. */
const STALE_REFUSAL = rawHttpAnswer(400, 'Bad Request', {
  type: 'urn:test:not-pending',
  title: 'not pending',
  status: 400,
})

const binding = bindAnswer('lookup', { path: { id: ['id'] }, rule: 'Test 1' })

const status = defineOperation({
  name: 'test.status',
  method: 'GET',
  path: '/status/{id}',
  retry: safe,
  answerBinding: binding,
})

const capture = defineOperation({
  name: 'test.capture',
  method: 'POST',
  path: '/capture/{id}',
  retry: unsentOnly,
  reconcile: reconcileRule(['id'], ({ path }) => ({ key: 'id', value: String(path['id']), lookup: 'status' })),
  answerBinding: bindAnswer('action', { path: { id: ['id'] }, rule: 'Test 1' }),
  reusesConnection: {
    applied: (answer) => (answer as { result?: unknown }).result === 'SUCCESS',
    shows: 'result SUCCESS',
  },
})

/** What the server answers: each request's own subject, and which request it was (`n`). */
function answerOf(request: DoubleAnswerRequest) {
  const [, kind, id] = request.path.split('/')
  return kind === 'status' ? { id, n: request.n, status: 'PENDING' } : { id, n: request.n, result: 'SUCCESS' }
}

/** A server owing each connection `copy` after its first answer, written as the next request arrives (`late`). */
async function server(copy: (request: DoubleAnswerRequest, first: string) => string) {
  const s = await startDoubleAnswerServer({ answer: answerOf, copy, when: 'late' })
  onTestFinished(() => s.close())
  return { url: s.url, seen: s.requests }
}

/** One engine on one client; `maxSockets` 1 so every call after the first is offered the same connection. */
function engine(url: string, extra: Partial<OperationClientConfig<undefined>> = {}, options = {}) {
  const own = !('dispatcher' in options) && !('fetch' in options)
  const http = makeClient({ maxRetries: 0, ...(own ? { maxSockets: 1 } : {}), ...options })
  onTestFinished(() => http.close())
  return new OperationClient<undefined>({
    http,
    baseUrls: { default: url },
    context: undefined,
    journal: undefined,
    answers: problemAnswers(ShopError),
    ...extra,
  })
}

const lookup = (ops: OperationClient<undefined>, id: string) => ops.call(status, { path: { id } })
const captureOf = (ops: OperationClient<undefined>, id: string) => ops.call(capture, { path: { id } })

describe('a row that reuses connections is believed on a reused one only when its answer names it', () => {
  it('against a well-behaved server, lookups and bound captures share one connection', async () => {
    const s = await server(() => '')
    const ops = engine(s.url)
    await expect(lookup(ops, '1')).resolves.toMatchObject({ id: '1' })
    await expect(captureOf(ops, '2')).resolves.toMatchObject({ id: '2', result: 'SUCCESS' })
    await expect(captureOf(ops, '3')).resolves.toMatchObject({ id: '3', result: 'SUCCESS' })
    expect(s.seen.map((r) => r.connection)).toEqual([1, 1, 1])
  })

  it('a lookup that reads a stale refusal on a reused connection asks again on a connection of its own', async () => {
    const s = await server(() => STALE_REFUSAL)
    const ops = engine(s.url)
    await expect(lookup(ops, '1')).resolves.toMatchObject({ id: '1', n: 1 })
    // Without the rule: a ShopError 400 "not pending" for a lookup that was never refused.
    await expect(lookup(ops, '2')).resolves.toMatchObject({ id: '2', n: 3 })
    expect(s.seen.map((r) => [r.path, r.connection])).toEqual([
      ['/status/1', 1],
      ['/status/2', 1],
      ['/status/2', 2],
    ])
  })

  it('a lookup that reads a copy naming the earlier subject asks again, and gets its own', async () => {
    const s = await server((_request, first) => first)
    const ops = engine(s.url)
    await expect(lookup(ops, '1')).resolves.toMatchObject({ id: '1' })
    await expect(lookup(ops, '2')).resolves.toMatchObject({ id: '2', n: 3 })
  })

  it("a lookup's retryable status is left to its retry policy, not asked again at once", async () => {
    const s = await server(() => rawHttpAnswer(503, 'Service Unavailable', { error: 'busy' }))
    const ops = engine(s.url)
    await expect(lookup(ops, '1')).resolves.toMatchObject({ id: '1' })
    // maxRetries 0: the 503 ends the call, as a 503 on a fresh connection would (safe to ask again).
    await expect(rejection(lookup(ops, '2'))).resolves.toMatchObject({ status: 503 })
    expect(s.seen).toHaveLength(2)
  })

  it('a capture that reads a stale refusal is not believed: the connection is closed, and settled at once (applied)', async () => {
    const s = await server(() => STALE_REFUSAL)
    const settled = { data: { id: '2', settledBy: 'lookup' }, response: undefined as never }
    const settleAtOnce = vi.fn(async () => ({ applied: settled }))
    const ops = engine(s.url, { settleAtOnce })
    await expect(lookup(ops, '1')).resolves.toMatchObject({ id: '1' })
    await expect(captureOf(ops, '2')).resolves.toEqual({ id: '2', settledBy: 'lookup' })
    expect(settleAtOnce).toHaveBeenCalledTimes(1)
    const [error, within] = settleAtOnce.mock.calls[0] as unknown as [ConnectionError, { timeoutMs: number }]
    expect(error).toBeInstanceOf(ConnectionError)
    expect(error.reconciliation).toMatchObject({ key: 'id', value: '2' })
    expect(within.timeoutMs).toBeGreaterThan(0)
    // The capture's own answer came on the closed connection: the next call reads its own on a new one.
    await expect(lookup(ops, '3')).resolves.toMatchObject({ id: '3' })
    expect(s.seen.map((r) => r.connection)).toEqual([1, 1, 2])
  })

  it("proven not applied (a state the capture cannot act on), the refusal read is the call's error, outcome known", async () => {
    const s = await server(() => STALE_REFUSAL)
    const ops = engine(s.url, {
      settleAtOnce: async () => ({
        notApplied: true,
        refusals: ['urn:test:not-pending'],
        evidence: 'the lookup shows 2 as VOID',
      }),
    })
    await lookup(ops, '1')
    const error = await rejection(captureOf(ops, '2'))
    expect(error).toBeInstanceOf(ShopError)
    expect(error).toMatchObject({ status: 400, outcomeUnknown: false })
  })

  it('proven not applied, but the refusal read is not the one that state gets: a definite ConnectionError, not the stale refusal', async () => {
    const s = await server(() => STALE_REFUSAL)
    const ops = engine(s.url, {
      settleAtOnce: async () => ({
        notApplied: true,
        refusals: ['urn:test:other'],
        evidence: 'the lookup shows 2 as VOID',
      }),
    })
    await lookup(ops, '1')
    const error = await rejection(captureOf(ops, '2'))
    expect(error).toBeInstanceOf(ConnectionError)
    expect(error).toMatchObject({ outcomeUnknown: false, requestSent: true })
    expect((error as Error).message).toMatch(/the lookup shows 2 as VOID, so the call did not act/)
  })

  it('not proven either way, the outcome is unknown, with its reconciliation key and the reason in words', async () => {
    const s = await server(() => STALE_REFUSAL)
    const ops = engine(s.url, { settleAtOnce: async () => undefined })
    await lookup(ops, '1')
    const error = await rejection(captureOf(ops, '2'))
    expect(error).toBeInstanceOf(ConnectionError)
    expect(error).toMatchObject({ outcomeUnknown: true, requestSent: true, reconciliation: { key: 'id', value: '2' } })
    expect((error as Error).message).toMatch(
      /test\.capture: the 400 answer on a kept-alive connection is not believed as this call's: a 400 answer names no subject that binds it to this call \(rule Test 1\)\. It may be an earlier request's second answer, so the connection was closed\./,
    )
  })

  it('a capture that reads a copy naming the earlier subject is not believed either', async () => {
    const s = await server((_request, first) => first)
    const settleAtOnce = vi.fn(async () => undefined)
    const ops = engine(s.url, { settleAtOnce })
    await lookup(ops, '1')
    const error = await rejection(captureOf(ops, '2'))
    expect((error as Error).message).toMatch(/does not name the "2" this call sent in id/)
    expect(settleAtOnce).toHaveBeenCalledTimes(1)
  })

  it('a settle that throws (the lookup failed) leaves the unknown outcome standing', async () => {
    const s = await server(() => STALE_REFUSAL)
    const ops = engine(s.url, {
      settleAtOnce: async () => {
        throw new Error('lookup down')
      },
    })
    await lookup(ops, '1')
    await expect(rejection(captureOf(ops, '2'))).resolves.toMatchObject({ outcomeUnknown: true })
  })

  it("the first answer on a new connection is the call's own: its refusal is believed, nothing settled", async () => {
    const s = await httpServer((req, res) => {
      res.writeHead(req.url?.startsWith('/capture') ? 400 : 200, { 'content-type': 'application/json' })
      res.end(JSON.stringify({ id: req.url?.split('/')[2], error: 'not pending' }))
    })
    const settleAtOnce = vi.fn(async () => undefined)
    const ops = engine(s.url, { settleAtOnce })
    await expect(rejection(captureOf(ops, '1'))).resolves.toMatchObject({ status: 400, outcomeUnknown: false })
    expect(settleAtOnce).not.toHaveBeenCalled()
  })

  it("with the caller's dispatcher, which connection carried an answer is unknown: a bound capture still goes with reset", async () => {
    const s = await server(() => STALE_REFUSAL)
    const dispatcher = new Agent({ connections: 1 })
    onTestFinished(() => dispatcher.close())
    const ops = engine(s.url, {}, { dispatcher })
    await expect(captureOf(ops, '1')).resolves.toMatchObject({ id: '1' })
    await expect(captureOf(ops, '2')).resolves.toMatchObject({ id: '2' })
    expect(s.seen.map((r) => r.connection)).toEqual([1, 2])
  })

  it("on the fetch transport every connection may be a reused one: a capture's refusal is checked by the settle", async () => {
    const s = await server(() => '')
    const settleAtOnce = vi.fn(async () => ({
      notApplied: true as const,
      refusals: ['urn:test:not-pending'],
      evidence: 'shown VOID',
    }))
    const fetch = countingFetch()
    const refusing = (async () =>
      new Response('{"type":"urn:test:not-pending","status":400}', { status: 400 })) as typeof globalThis.fetch
    const ops = engine(s.url, { settleAtOnce }, { fetch: refusing })
    await expect(rejection(captureOf(ops, '1'))).resolves.toMatchObject({ status: 400, outcomeUnknown: false })
    expect(settleAtOnce).toHaveBeenCalledTimes(1)
    // A bound 2xx is believed on fetch too.
    const believing = engine(s.url, { settleAtOnce }, { fetch })
    await expect(captureOf(believing, '2')).resolves.toMatchObject({ id: '2' })
    expect(settleAtOnce).toHaveBeenCalledTimes(1)
  })

  it('a capture whose reused connection fails after it was written (closed idle by the server) is settled at once', async () => {
    const s = await resetSecondServer()
    const settleAtOnce = vi.fn(async () => undefined)
    const ops = engine(s.url, { settleAtOnce })
    await expect(lookup(ops, '1')).resolves.toMatchObject({ id: '1' })
    const error = await rejection(captureOf(ops, '2'))
    expect(error).toBeInstanceOf(ConnectionError)
    expect(error).toMatchObject({ outcomeUnknown: true, requestSent: true })
    expect(settleAtOnce).toHaveBeenCalledTimes(1)
    // Proven by the settle: the call resolves, or fails as not applied.
    const applied = engine(s.url, {
      settleAtOnce: async () => ({ applied: { data: { id: '3', by: 'lookup' }, response: undefined as never } }),
    })
    await lookup(applied, '1')
    await expect(captureOf(applied, '3')).resolves.toEqual({ id: '3', by: 'lookup' })
    const refused = engine(s.url, {
      settleAtOnce: async () => ({ notApplied: true, refusals: [], evidence: 'the lookup shows 4 as VOID' }),
    })
    await lookup(refused, '1')
    const notApplied = await rejection(captureOf(refused, '4'))
    expect(notApplied).toMatchObject({ outcomeUnknown: false, requestSent: true })
    expect((notApplied as Error).message).toMatch(
      /test\.capture: no answer came on its kept-alive connection; the lookup shows 4 as VOID, so the call did not act/,
    )
  })

  it('a connection idle past the limit carries no money-moving call (a new one does); lookups still reuse it', async () => {
    const s = await server(() => '')
    const clock = createTestClock()
    const ops = engine(s.url, {}, { clock })
    await lookup(ops, '1')
    clock.advance(MONEY_IDLE_LIMIT_MS + 1)
    await captureOf(ops, '2')
    await lookup(ops, '3')
    clock.advance(MONEY_IDLE_LIMIT_MS + 1)
    await lookup(ops, '4')
    expect(s.seen.map((r) => r.connection)).toEqual([1, 2, 2, 2])
  })

  it('a socket carries at most SUBJECTS_PER_SOCKET bound money-moving calls, so the record of their subjects stays whole', async () => {
    const s = await server(() => '')
    const ops = engine(s.url)
    for (let i = 0; i < 20; i++) await lookup(ops, String(i)) // lookups are not recorded
    for (let i = 0; i < SUBJECTS_PER_SOCKET + 3; i++) await captureOf(ops, String(i))
    const perConnection = new Map<number, number>()
    for (const r of s.seen) perConnection.set(r.connection, (perConnection.get(r.connection) ?? 0) + 1)
    expect([...perConnection.values()]).toEqual([20 + SUBJECTS_PER_SOCKET, 3])
  }, 30_000)

  it('a bound answer that does not show the call applied is believed unless an earlier request on the socket had its subject', async () => {
    const declined = (request: DoubleAnswerRequest) => ({ ...answerOf(request), result: 'DECLINED' })
    const s = await startDoubleAnswerServer({ answer: declined, copy: () => '', when: 'late' })
    onTestFinished(() => s.close())
    const settleAtOnce = vi.fn(async () => undefined)
    const ops = engine(s.url, { settleAtOnce })
    await lookup(ops, '1')
    // A lookup of 1 came first, not a capture of 1: no stale capture answer can be waiting here.
    await expect(captureOf(ops, '1')).resolves.toMatchObject({ id: '1', result: 'DECLINED' })
    expect(settleAtOnce).not.toHaveBeenCalled()
    // The same capture again on the same socket: its DECLINED could be the first one's copy.
    await expect(rejection(captureOf(ops, '1'))).resolves.toMatchObject({ outcomeUnknown: true })
    expect(settleAtOnce).toHaveBeenCalledTimes(1)
  })

  it('a row cannot reuse connections without a binding and a reconcile rule', () => {
    expect(() =>
      defineOperation({
        name: 'test.bad',
        method: 'POST',
        path: '/x',
        retry: unsentOnly,
        reusesConnection: { applied: () => true, shows: 'anything' },
      }),
    ).toThrow(/test\.bad: reusesConnection needs an answerBinding .* and a reconcile rule/)
  })
})

describe('the kept-alive connections: one request each at a time, at most maxSockets, waiting bounded', () => {
  it('a lookup waiting for the one connection ends at its deadline, never written (safe to send again)', async () => {
    const held: Array<() => void> = []
    const s = await httpServer((_req, res) => {
      held.push(() => res.end('{"id":"1"}'))
    })
    const ops = engine(s.url)
    const first = lookup(ops, '1')
    await vi.waitUntil(() => held.length === 1)
    const error = await rejection(ops.call(status, { path: { id: '2' } }, { timeout: 50 }))
    expect(error).toBeInstanceOf(TimeoutError)
    expect(error).toMatchObject({ phase: 'connect', requestSent: false })
    held[0]?.()
    await expect(first).resolves.toMatchObject({ id: '1' })
    expect(s.requests()).toBe(1)
  })

  it('closing the client lets a lookup already waiting for a connection finish, and refuses later ones unsent', async () => {
    const held: Array<() => void> = []
    const s = await httpServer((req, res) => {
      held.push(() => res.end(JSON.stringify({ id: req.url?.split('/')[2] })))
    })
    const http = makeClient({ maxRetries: 0, maxSockets: 1 })
    const ops = new OperationClient<undefined>({
      http,
      baseUrls: { default: s.url },
      context: undefined,
      journal: undefined,
      answers: problemAnswers(ShopError),
    })
    const first = lookup(ops, '1')
    await vi.waitUntil(() => held.length === 1)
    const waiting = lookup(ops, '2')
    const closing = http.close()
    await expect(rejection(lookup(ops, '3'))).resolves.toMatchObject({ requestSent: false })
    held[0]?.()
    await expect(first).resolves.toMatchObject({ id: '1' })
    await vi.waitUntil(() => held.length === 2)
    held[1]?.()
    await expect(waiting).resolves.toMatchObject({ id: '2' })
    await closing
    expect(s.requests()).toBe(2)
  })
})

/**
 * Answers the first request of each connection, then meets the next one on it with a TCP reset and
 * no answer: a server that closed the idle connection as the request went out, made deterministic.
 */
async function resetSecondServer() {
  const server = createNetServer((socket) => {
    let served = 0
    let buffered = ''
    socket.on('error', () => {})
    socket.on('data', (chunk: Buffer) => {
      buffered += chunk.toString('latin1')
      const end = buffered.indexOf('\r\n\r\n')
      if (end === -1) return
      const [, path = ''] = buffered.slice(0, end).split(' ')
      buffered = ''
      served += 1
      if (served > 1) {
        socket.resetAndDestroy()
        return
      }
      const body = JSON.stringify({ id: path.split('/')[2] })
      socket.write(`HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n${body}`)
    })
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  onTestFinished(() => new Promise<void>((resolve) => server.close(() => resolve())))
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }
}

/** A plain node:http server on loopback, counting requests. */
async function httpServer(handle: (req: IncomingMessage, res: ServerResponse) => void) {
  let requests = 0
  const server = createServer((req, res) => {
    requests++
    req.resume()
    handle(req, res)
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  onTestFinished(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  )
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests: () => requests }
}
