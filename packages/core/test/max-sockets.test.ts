/** The client's own pools never open more sockets to one origin than `maxSockets` (default 16). */

import { once } from 'node:events'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { Agent } from 'undici'
import { describe, expect, it, onTestFinished } from 'vitest'
import { RequestValidationError } from '../src/index.js'
import { DEFAULT_MAX_SOCKETS } from '../src/transport/http-client.js'
import { get, jsonHandler, makeClient } from './helpers.js'

/** A server that holds every request until `release()`, counting the sockets opened to it. */
async function holdingServer(): Promise<{ url: string; sockets: () => number; held: () => number; release(): void }> {
  let sockets = 0
  const waiting: Array<() => void> = []
  let released = false
  const server: Server = createServer((req, res) => {
    const answer = () => {
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end('{"ok":true}')
    }
    req.resume()
    if (released) answer()
    else waiting.push(answer)
  })
  server.on('connection', () => {
    sockets += 1
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  onTestFinished(
    () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      }),
  )
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/x`,
    sockets: () => sockets,
    held: () => waiting.length,
    release() {
      released = true
      for (const answer of waiting.splice(0)) answer()
    },
  }
}

async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setImmediate(resolve))
}

describe("maxSockets: the per-origin socket cap of the client's own pools", () => {
  it('40 calls in flight with maxSockets 4: the server sees 4 sockets, and every call completes', async () => {
    const s = await holdingServer()
    const client = makeClient({ maxSockets: 4, maxRetries: 0 })
    onTestFinished(() => client.close())
    const calls = Array.from({ length: 40 }, () => client.send(get(s.url), jsonHandler))
    await until(() => s.held() === 4)
    expect(s.sockets()).toBe(4)
    s.release()
    expect(await Promise.all(calls)).toHaveLength(40)
    expect(s.sockets()).toBe(4)
  })

  it('by default 16: 100 calls held at once open 16 sockets', async () => {
    expect(DEFAULT_MAX_SOCKETS).toBe(16)
    const s = await holdingServer()
    const client = makeClient({ maxRetries: 0 })
    onTestFinished(() => client.close())
    const calls = Array.from({ length: 100 }, () => client.send(get(s.url), jsonHandler))
    await until(() => s.held() === 16)
    expect(s.sockets()).toBe(16)
    s.release()
    await Promise.all(calls)
    expect(s.sockets()).toBe(16)
  })

  it('16 callers each sending the next call as soon as its answer comes: 16 sockets, with the cap and without', async () => {
    // The client lends a kept-alive connection again as soon as its answer is read (kept-connections.ts),
    // so an immediate next call finds it free: undici's own pool kept it busy one event-loop turn
    // longer and opened another socket, which only the cap held at 16.
    const callers = async (client: ReturnType<typeof makeClient>, url: string) => {
      const caller = async () => {
        for (let i = 0; i < 20; i++) await client.send(get(url), jsonHandler)
      }
      await Promise.all(Array.from({ length: 16 }, caller))
    }
    const capped = await holdingServer()
    capped.release()
    const client = makeClient({ maxRetries: 0 })
    onTestFinished(() => client.close())
    await callers(client, capped.url)
    expect(capped.sockets()).toBe(16)

    const uncapped = await holdingServer()
    uncapped.release()
    const wide = makeClient({ maxRetries: 0, maxSockets: 1_000 })
    onTestFinished(() => wide.close())
    await callers(wide, uncapped.url)
    expect(uncapped.sockets()).toBe(16)
  })

  it.each([0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY])(
    'maxSockets %s is refused, naming the option',
    (value) => {
      expect(() => makeClient({ maxSockets: value })).toThrow(RequestValidationError)
      expect(() => makeClient({ maxSockets: value })).toThrow(/maxSockets: must be a whole number >= 1/)
    },
  )

  it('with your own dispatcher it is refused: the cap belongs to that dispatcher', () => {
    const dispatcher = new Agent()
    onTestFinished(() => dispatcher.close())
    expect(() => makeClient({ dispatcher, maxSockets: 8 })).toThrow(
      /maxSockets: applies to the client's own pools only: with `dispatcher`, set that dispatcher's `connections` instead/,
    )
  })
})
