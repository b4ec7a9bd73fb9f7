/**
 * A misbehaving server (or proxy) that answers one request twice: the second, stale answer sits on
 * the kept-alive connection and, if it arrives after the next call was written there, reads as that
 * call's answer — a capture that went through reported as a definite "not pending" failure (issue 26,
 * item 18). No answer may ever be taken for a call it does not belong to: not by a money-moving
 * call, and not by a lookup reconciliation decides on (a stale PENDING would settle a capture wrongly).
 */

import { ProblemDetailsError } from '@paywire/core'
import {
  defineOperation,
  keyed,
  OperationClient,
  problemAnswers,
  safe,
  unsentOnly,
  withinWindow,
} from '@paywire/core/engine'
import { rawHttpAnswer, startDoubleAnswerServer } from '@paywire/core/testing'
import { Agent } from 'undici'
import { describe, expect, it, onTestFinished } from 'vitest'
import { get, jsonHandler, makeClient, post } from './helpers.js'

class ShopError extends ProblemDetailsError {}

/** The stale copy: a definite refusal, as the gateway answers a capture of a payment not pending. */
const STALE = rawHttpAnswer(400, 'Bad Request', {
  error: { code: 208003, message: 'capture requested for a payment not in pending status' },
})

/** Answers `{ n }` to the n-th request, and the first on each connection again with STALE. */
async function doubleAnsweringServer(when: 'late' | 'together') {
  const s = await startDoubleAnswerServer({ answer: ({ n }) => ({ n }), copy: () => STALE, when })
  onTestFinished(() => s.close())
  return { url: `${s.url}/s2s`, seen: s.requests }
}

/** One socket per pool: without the cap, a call sent right after an answer opens another socket anyway. */
function client() {
  const c = makeClient({ maxRetries: 0, maxSockets: 1 })
  onTestFinished(() => c.close())
  return c
}

const capture = (url: string) => post(url, { operation: 'test.capture', retry: unsentOnly })

describe('a stale second answer on a kept-alive connection is never taken for another call', () => {
  it('capture, then capture: the second gets its own answer, not the first one\'s stale "not pending"', async () => {
    const s = await doubleAnsweringServer('late')
    const c = client()
    await expect(c.send(capture(s.url), jsonHandler)).resolves.toEqual({ n: 1 })
    await expect(c.send(capture(s.url), jsonHandler)).resolves.toEqual({ n: 2 })
    expect(s.seen.map((r) => r.connection)).toEqual([1, 2])
  })

  it('lookup, then capture: the capture never reads what was left on a lookup connection', async () => {
    const s = await doubleAnsweringServer('late')
    const c = client()
    await expect(c.send(get(s.url), jsonHandler)).resolves.toEqual({ n: 1 })
    await expect(c.send(capture(s.url), jsonHandler)).resolves.toEqual({ n: 2 })
    expect(s.seen[1]).toMatchObject({ method: 'POST', connection: 2 })
  })

  it('capture, then lookup: the capture connection is not reused, so its stale answer reaches nobody', async () => {
    const s = await doubleAnsweringServer('late')
    const c = client()
    await expect(c.send(capture(s.url), jsonHandler)).resolves.toEqual({ n: 1 })
    await expect(c.send(get(s.url), jsonHandler)).resolves.toEqual({ n: 2 })
    expect(s.seen[1]).toMatchObject({ method: 'GET', connection: 2 })
  })

  it.each([
    ['keyed', keyed],
    ['window', withinWindow(15_000)],
  ])('every money-moving policy (%s) is sent on a connection of its own', async (_name, retry) => {
    const s = await doubleAnsweringServer('late')
    const c = client()
    await expect(c.send(post(s.url, { retry }), jsonHandler)).resolves.toEqual({ n: 1 })
    await expect(c.send(post(s.url, { retry }), jsonHandler)).resolves.toEqual({ n: 2 })
    expect(s.seen.map((r) => r.connection)).toEqual([1, 2])
  })

  it('lookups: a stale answer already on the idle connection makes the next lookup use a fresh one', async () => {
    // undici reads an idle kept-alive socket for one event-loop turn before reusing it and drops it
    // on any byte: an answer that came with the first one is caught before the next call is written.
    const s = await doubleAnsweringServer('together')
    const c = client()
    await expect(c.send(get(s.url), jsonHandler)).resolves.toEqual({ n: 1 })
    await expect(c.send(get(s.url), jsonHandler)).resolves.toEqual({ n: 2 })
    expect(s.seen.map((r) => r.connection)).toEqual([1, 2])
  })

  it('a lookup reconciliation decides on (ownConnection) never reads a stale copy of an earlier lookup', async () => {
    // The same question asked twice: on the keep-alive pool the second would read the first's copy.
    const s = await doubleAnsweringServer('late')
    const c = client()
    const lookup = (url: string) => get(url, { ownConnection: true })
    await expect(c.send(lookup(s.url), jsonHandler)).resolves.toEqual({ n: 1 })
    await expect(c.send(lookup(s.url), jsonHandler)).resolves.toEqual({ n: 2 })
    await expect(c.send(get(s.url), jsonHandler)).resolves.toEqual({ n: 3 })
    expect(s.seen.map((r) => r.connection)).toEqual([1, 2, 3])
  })

  it('the engine marks every request of onOwnConnections() ownConnection, and no other', async () => {
    const s = await doubleAnsweringServer('late')
    const c = client()
    const ops = new OperationClient({
      http: c,
      baseUrls: { default: s.url },
      context: undefined,
      journal: undefined,
      answers: problemAnswers(ShopError),
    })
    const row = defineOperation({ name: 'test.lookup', method: 'GET', path: '/status', retry: safe })
    await expect(ops.onOwnConnections().call(row, {})).resolves.toEqual({ n: 1 })
    await expect(ops.onOwnConnections().call(row, {})).resolves.toEqual({ n: 2 })
    await expect(ops.onOwnConnections().request({ method: 'GET', path: '/status' })).resolves.toEqual({ n: 3 })
    expect(s.seen.map((r) => r.connection)).toEqual([1, 2, 3])
    // The plain engine keeps the keep-alive pool for lookups: its second lookup reads the first's
    // stale copy on the same connection, which is why reconciliation never decides on it.
    await expect(ops.call(row, {})).resolves.toEqual({ n: 4 })
    await expect(ops.call(row, {})).rejects.toMatchObject({ status: 400 })
    expect(s.seen.map((r) => r.connection)).toEqual([1, 2, 3, 4, 4])
  })

  it("with your own dispatcher, a reconciliation lookup's connection is closed after it (reset): its stale copy reaches nobody", async () => {
    const s = await doubleAnsweringServer('late')
    const dispatcher = new Agent({ connections: 1 })
    onTestFinished(() => dispatcher.close())
    const c = makeClient({ maxRetries: 0, dispatcher })
    await expect(c.send(get(s.url, { ownConnection: true }), jsonHandler)).resolves.toEqual({ n: 1 })
    await expect(c.send(get(s.url, { ownConnection: true }), jsonHandler)).resolves.toEqual({ n: 2 })
    expect(s.seen.map((r) => r.connection)).toEqual([1, 2])
  })

  it("with your own dispatcher, a money-moving call's connection is closed after it (reset): its stale answer reaches nobody", async () => {
    const s = await doubleAnsweringServer('late')
    const dispatcher = new Agent({ connections: 1 })
    onTestFinished(() => dispatcher.close())
    const c = makeClient({ maxRetries: 0, dispatcher })
    await expect(c.send(capture(s.url), jsonHandler)).resolves.toEqual({ n: 1 })
    await expect(c.send(get(s.url), jsonHandler)).resolves.toEqual({ n: 2 })
    expect(s.seen.map((r) => r.connection)).toEqual([1, 2])
  })
})
