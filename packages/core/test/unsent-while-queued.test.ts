/**
 * `requestSent` says whether the request may have reached the service. A call whose deadline fires
 * while it waits for a socket (queued behind the `maxSockets` cap, or still connecting) was never
 * written: it must say so, so it is safe to retry and not reported as maybe-acted (issue 26, item 16).
 */

import { once } from 'node:events'
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http'
import { type AddressInfo, createServer as createNetServer, type Socket } from 'node:net'
import { TimeoutError, UserAbortError } from '@paywire/core'
import { unsentOnly } from '@paywire/core/engine'
import { Agent } from 'undici'
import { describe, expect, it, onTestFinished } from 'vitest'
import { get, jsonHandler, makeClient, post, rejection } from './helpers.js'

/** An HTTP server that holds every request until `release()`; it counts what it received. */
async function holdingServer() {
  const held: ServerResponse[] = []
  const received: IncomingMessage[] = []
  const waiters: Array<() => void> = []
  let released = false
  const answer = (res: ServerResponse) => {
    res.writeHead(200, { 'content-type': 'application/json' })
    res.end(`{"n":${received.length}}`)
  }
  const server = createHttpServer((req: IncomingMessage, res: ServerResponse) => {
    req.resume()
    received.push(req)
    if (released) answer(res)
    else held.push(res)
    for (const wake of waiters.splice(0)) wake()
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  onTestFinished(
    () =>
      new Promise<void>((resolve) => {
        released = true
        for (const res of held.splice(0)) res.destroy()
        server.close(() => resolve())
        server.closeAllConnections()
      }),
  )
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/pay`,
    received: () => received.length,
    /** Resolves once the server has `n` requests. */
    async untilReceived(n: number) {
      while (received.length < n) await new Promise<void>((resolve) => waiters.push(resolve))
    },
    release() {
      released = true
      for (const res of held.splice(0)) answer(res)
    },
  }
}

function client(options: Parameters<typeof makeClient>[0]) {
  const c = makeClient({ maxRetries: 0, ...options })
  // Not awaited: the pool's close waits for calls the server still holds, which its own cleanup ends.
  onTestFinished(() => {
    void c.close()
  })
  return c
}

describe('a deadline that fires before the request was written reports it unsent', () => {
  it.each([
    ['a money-moving call (single-use pool)', (url: string) => post(url, { retry: unsentOnly })],
    ['a lookup (keep-alive pool)', (url: string) => get(url)],
  ])(
    '%s queued behind maxSockets 1: requestSent false, outcome known, phase connect, ended at its deadline',
    async (_name, call) => {
      const s = await holdingServer()
      const c = client({ maxSockets: 1 })
      const first = c.send(call(s.url), jsonHandler)
      await s.untilReceived(1)
      // The only socket is busy with the held call: this one waits in the pool and its deadline fires there.
      const error = await rejection(c.send(call(s.url), jsonHandler, { timeout: 50 }))
      expect(error).toBeInstanceOf(TimeoutError)
      expect(error).toMatchObject({ requestSent: false, outcomeUnknown: false, phase: 'connect', attempts: 1 })
      expect((error as Error).message).toMatch(/The request was not sent\./)
      // It ended while the first call is still held: it did not wait for the socket to come free.
      expect(s.received()).toBe(1)
      s.release()
      await expect(first).resolves.toEqual({ n: 1 })
      // And it is never written later, when the socket comes free.
      await expect(c.send(call(s.url), jsonHandler)).resolves.toEqual({ n: 2 })
      expect(s.received()).toBe(2)
    },
    5_000,
  )

  it('written, then timed out waiting for the answer: requestSent true, outcome unknown', async () => {
    const s = await holdingServer()
    const error = await rejection(client({ timeout: 200 }).send(post(s.url, { retry: unsentOnly }), jsonHandler))
    expect(error).toMatchObject({ name: 'TimeoutError', requestSent: true, outcomeUnknown: true, phase: 'headers' })
    await s.untilReceived(1)
    s.release()
  }, 5_000)

  it('a queued unsent-only call is retried as the retry table allows for a request that never left', async () => {
    const s = await holdingServer()
    const c = client({ maxSockets: 1, maxRetries: 1, random: () => 0, hooks: { onRetry: () => s.release() } })
    const first = c.send(post(s.url, { retry: unsentOnly }), jsonHandler)
    await s.untilReceived(1)
    const { data, response } = await c
      .send(post(s.url, { retry: unsentOnly }), jsonHandler, { timeout: 50 })
      .withResponse()
    expect(response.attempts).toBe(2)
    expect(data).toEqual({ n: 2 })
    await first
    expect(s.received()).toBe(2)
  }, 5_000)

  it("the caller's abort while queued: UserAbortError with requestSent false, at once", async () => {
    const s = await holdingServer()
    const c = client({ maxSockets: 1 })
    const first = c.send(post(s.url, { retry: unsentOnly }), jsonHandler)
    await s.untilReceived(1)
    const controller = new AbortController()
    const queued = rejection(c.send(post(s.url, { retry: unsentOnly }), jsonHandler, { signal: controller.signal }))
    setImmediate(() => controller.abort())
    const error = await queued
    expect(error).toBeInstanceOf(UserAbortError)
    expect(error).toMatchObject({ requestSent: false, outcomeUnknown: false })
    expect(s.received()).toBe(1)
    s.release()
    await first
  }, 5_000)

  it('still connecting (a TLS handshake the server never answers): requestSent false, at the deadline', async () => {
    // A TCP server that accepts and then says nothing: the TLS handshake never completes, so no
    // request byte is ever written. The client's connect timeout (10 s) is far longer than the call's.
    const sockets: Socket[] = []
    const server = createNetServer((socket) => {
      sockets.push(socket)
      socket.on('error', () => {})
    })
    server.listen(0, '127.0.0.1')
    await once(server, 'listening')
    onTestFinished(
      () =>
        new Promise<void>((resolve) => {
          for (const socket of sockets) socket.destroy()
          server.close(() => resolve())
        }),
    )
    const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}/pay`
    // A deadline of 1 s, not less: on a loaded machine a shorter one could fire before the server
    // has even accepted the connection (still loading undici), which is not the case under test.
    const error = await rejection(
      client({ timeout: 30_000 }).send(post(url, { retry: unsentOnly }), jsonHandler, { timeout: 1_000 }),
    )
    expect(error).toMatchObject({ name: 'TimeoutError', requestSent: false, outcomeUnknown: false, phase: 'connect' })
    expect(sockets).toHaveLength(1)
  }, 10_000)

  it('with your own dispatcher the judgement stays conservative (sent), but the call still ends at its deadline', async () => {
    const s = await holdingServer()
    const dispatcher = new Agent({ connections: 1 })
    onTestFinished(() => {
      void dispatcher.destroy()
    })
    const c = client({ dispatcher })
    const first = c.send(post(s.url, { retry: unsentOnly }), jsonHandler)
    await s.untilReceived(1)
    const error = await rejection(c.send(post(s.url, { retry: unsentOnly }), jsonHandler, { timeout: 50 }))
    expect(error).toMatchObject({ name: 'TimeoutError', requestSent: true, outcomeUnknown: true })
    expect(s.received()).toBe(1)
    s.release()
    await first
  }, 5_000)
})
