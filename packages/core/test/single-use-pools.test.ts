/**
 * The pools for calls on a connection of their own (single-use.ts), from a loopback server's side:
 * one undici Pool per origin for the client's life, a new connection per request (`reset`), and
 * nothing sent once they are closed, not even to an origin they have not seen before.
 */

import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { Pool } from 'undici'
import { afterEach, describe, expect, it } from 'vitest'
import { SingleUsePools } from '../src/transport/single-use.js'

const servers: Server[] = []

afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections()
    await new Promise<void>((resolve) => server.close(() => resolve()))
  }
})

/** A server answering `ok`, counting its connections and requests. */
async function counting(): Promise<{ origin: string; connections: () => number; requests: () => number }> {
  let connections = 0
  let requests = 0
  const server = createServer((req, res) => {
    requests++
    req.resume()
    res.end('ok')
  })
  server.on('connection', () => connections++)
  servers.push(server)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return { origin: `http://127.0.0.1:${port}`, connections: () => connections, requests: () => requests }
}

/** Sends one request with `reset` (a connection of its own) and settles with its status or error. */
function send(pools: SingleUsePools, origin: string): Promise<{ status?: number; error?: Error }> {
  return new Promise((resolve) => {
    let status: number | undefined
    pools.dispatch(
      { origin, path: '/pay', method: 'POST', body: '{}', reset: true },
      {
        onRequestStart() {},
        onResponseStart(_controller, statusCode) {
          status = statusCode
        },
        onResponseData() {},
        onResponseEnd() {
          resolve({ status })
        },
        onResponseError(_controller, error) {
          resolve({ error })
        },
      },
    )
  })
}

/** Pools made by a factory that counts them. */
function countedPools(): { pools: SingleUsePools; made: string[] } {
  const made: string[] = []
  const pools = new SingleUsePools((origin) => {
    made.push(origin)
    return new Pool(origin, { connections: 4, pipelining: 0 })
  })
  return { pools, made }
}

describe('single-use pools: one Pool per origin, a connection per request', () => {
  it('six payments one after another: one Pool, six connections (not a Pool and a Client per payment)', async () => {
    const gateway = await counting()
    const { pools, made } = countedPools()
    for (let n = 0; n < 6; n++) expect(await send(pools, gateway.origin)).toEqual({ status: 200 })
    expect(made).toEqual([gateway.origin])
    expect(gateway.connections()).toBe(6)
    await pools.close()
  })

  it('two origins: a Pool each', async () => {
    const [a, b] = [await counting(), await counting()]
    const { pools, made } = countedPools()
    for (const origin of [a.origin, b.origin, a.origin, b.origin])
      expect(await send(pools, origin)).toEqual({ status: 200 })
    expect(made).toEqual([a.origin, b.origin])
    expect([a.requests(), b.requests()]).toEqual([2, 2])
    await pools.close()
  })

  it('once closed, nothing is sent: neither to an origin seen before nor to a new one', async () => {
    const [seen, unseen] = [await counting(), await counting()]
    const { pools } = countedPools()
    await send(pools, seen.origin)
    await pools.close()
    for (const origin of [seen.origin, unseen.origin]) {
      const { error } = await send(pools, origin)
      // undici refuses a closed pool's call before writing it (closed, or destroyed once closing ended).
      expect(error).toMatchObject({ code: expect.stringMatching(/^UND_ERR_(?:CLOSED|DESTROYED)$/) })
    }
    expect([seen.requests(), unseen.connections()]).toEqual([1, 0])
  })
})
