/**
 * One lookup of the gateway's host name per 10 s, not one per connection (addresses.ts), from the
 * resolver's side and the gateway's: a `dns` module of the test's own answers or withholds each
 * lookup and counts them, and loopback servers count the connections that reach them. Connections
 * that start together share one lookup; its answer is used until 10 s have passed on the client's
 * clock; a connection that fails at the addresses drops them, so the next one follows the gateway
 * to its new address; a failed lookup is not kept, nor one that hangs past 10 s joined. Then the
 * same through the client: payments each on a connection of their own, with one lookup among them.
 */

import type * as realDns from 'node:dns'
import type { LookupAddress } from 'node:dns'
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http'
import { createRequire } from 'node:module'
import * as net from 'node:net'
import * as tls from 'node:tls'
import { unsentOnly } from '@paywire/core/engine'
import { createTestClock } from '@paywire/core/testing'
import type { buildConnector } from 'undici'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { ADDRESSES_KEPT_MS, RecentAddresses } from '../src/transport/addresses.js'
import { ClientTls, createConnector } from '../src/transport/connector.js'
import { jsonHandler, makeClient, post } from './helpers.js'

const GATEWAY = 'gateway.paywire.test'
const closers: Array<() => Promise<void>> = []

afterEach(async () => {
  for (const close of closers.splice(0)) await close()
  vi.restoreAllMocks()
})

/**
 * A loopback TCP server on `host` counting the connections it accepts. `accepted(n)` waits (a few
 * event-loop turns at most) for the count to reach `n`: a client's connect can settle before the
 * server's side has run, so the count is read once it has had the turns to catch up.
 */
async function gateway(
  host = '127.0.0.1',
  port = 0,
): Promise<{ port: number; accepted: (n: number) => Promise<number> }> {
  let accepted = 0
  const sockets = new Set<net.Socket>()
  const server = net.createServer((socket) => {
    accepted++
    sockets.add(socket)
    socket.on('error', () => {})
    socket.resume()
  })
  await new Promise<void>((resolve) => server.listen(port, host, resolve))
  closers.push(
    () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy()
        server.close(() => resolve())
      }),
  )
  const settled = async (n: number) => {
    for (let turn = 0; turn < 50 && accepted < n; turn++) await new Promise((resolve) => setImmediate(resolve))
    // A few turns more, so a connection beyond the expected ones is counted too.
    for (let turn = 0; turn < 5; turn++) await new Promise((resolve) => setImmediate(resolve))
    return accepted
  }
  return { port: (server.address() as net.AddressInfo).port, accepted: settled }
}

/** A port nothing listens on (a server bound it, then closed). */
async function closedPort(): Promise<number> {
  const server = net.createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as net.AddressInfo
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}

type Answer = { addresses: LookupAddress[] } | { error: string } | 'hang'

/** A `dns` module whose lookups are answered from `answers`, in turn (the last one repeats), and counted. */
function resolver(...answers: Answer[]) {
  const asked: Array<{ hostname: string; options: unknown }> = []
  const lookup = (hostname: string, options: unknown, callback: (...args: unknown[]) => void) => {
    asked.push({ hostname, options })
    const answer = answers[Math.min(asked.length, answers.length) - 1] as Answer
    if (answer === 'hang') return
    // Answered on a later turn, as the thread pool answers: connections started meanwhile wait on it.
    setImmediate(() => {
      if ('error' in answer)
        callback(Object.assign(new Error(`getaddrinfo ${answer.error} ${hostname}`), { code: answer.error }))
      else callback(null, answer.addresses)
    })
  }
  return { dns: { lookup } as unknown as typeof realDns, lookups: () => asked.length, asked }
}

const at = (address: string): LookupAddress => ({ address, family: net.isIPv6(address) ? 6 : 4 })

function connector(dns: typeof realDns, clock = createTestClock(), timeoutMs = 2_000) {
  const connect = createConnector({
    modules: { net, tls, dns },
    shared: new ClientTls(),
    addresses: new RecentAddresses(clock),
    maxSockets: 16,
    timeoutMs,
  })
  return { connect, clock }
}

/** One connection to `hostname:port` over plain TCP: its socket (closed at once) or its error. */
function open(connect: buildConnector.connector, port: number, hostname = GATEWAY) {
  return new Promise<{ error: (Error & { code?: string }) | null }>((resolve) => {
    connect({ hostname, host: `${hostname}:${port}`, protocol: 'http:', port: String(port) }, (error, socket) => {
      ;(socket as net.Socket | null)?.destroy()
      resolve({ error })
    })
  })
}

describe('one lookup of a host name, shared and kept for 10 s', () => {
  it('is shared by the connections that start while it runs, and answers the next ones without asking again', async () => {
    const server = await gateway()
    const { dns, lookups } = resolver({ addresses: [at('127.0.0.1')] })
    const { connect } = connector(dns)
    const together = await Promise.all(Array.from({ length: 8 }, () => open(connect, server.port)))
    expect(together.map((c) => c.error)).toEqual(Array(8).fill(null))
    for (let i = 0; i < 8; i++) expect((await open(connect, server.port)).error).toBeNull()
    expect(lookups()).toBe(1)
    expect(await server.accepted(16)).toBe(16)
  })

  it('asks again once 10 s have passed on the client clock, not before', async () => {
    const server = await gateway()
    const { dns, lookups } = resolver({ addresses: [at('127.0.0.1')] })
    const { connect, clock } = connector(dns)
    await open(connect, server.port)
    clock.advance(ADDRESSES_KEPT_MS - 1)
    await open(connect, server.port)
    expect(lookups()).toBe(1)
    clock.advance(1)
    await open(connect, server.port)
    expect(lookups()).toBe(2)
    expect(await server.accepted(3)).toBe(3)
  })

  it('does not look up an address', async () => {
    const server = await gateway()
    const { dns, lookups } = resolver({ error: 'ENOTFOUND' })
    const { connect } = connector(dns)
    expect((await open(connect, server.port, '127.0.0.1')).error).toBeNull()
    expect(lookups()).toBe(0)
  })

  it('keeps each host name apart', async () => {
    const server = await gateway()
    const { dns, asked } = resolver({ addresses: [at('127.0.0.1')] })
    const { connect } = connector(dns)
    await open(connect, server.port, 'a.paywire.test')
    await open(connect, server.port, 'b.paywire.test')
    await open(connect, server.port, 'a.paywire.test')
    expect(asked.map((a) => a.hostname)).toEqual(['a.paywire.test', 'b.paywire.test'])
  })
})

describe('a gateway that moved, a resolver that failed', () => {
  it('drops the addresses a connection was refused at: the next connection looks up again and reaches the new one', async () => {
    const server = await gateway()
    // The gateway's old address (127.0.0.2 is loopback too) no longer takes connections on its port.
    const { dns, lookups } = resolver({ addresses: [at('127.0.0.2')] }, { addresses: [at('127.0.0.1')] })
    const { connect } = connector(dns)
    expect((await open(connect, server.port)).error?.code).toBe('ECONNREFUSED')
    expect((await open(connect, server.port)).error).toBeNull()
    expect(lookups()).toBe(2)
    // Working addresses are kept again.
    expect((await open(connect, server.port)).error).toBeNull()
    expect(lookups()).toBe(2)
    expect(await server.accepted(2)).toBe(2)
  })

  it('drops the addresses a connection timed out at', async () => {
    // A TLS server that accepts and never answers the handshake: the connection times out at its limit.
    const silent = await gateway()
    const { dns, lookups } = resolver({ addresses: [at('127.0.0.1')] })
    const connect = createConnector({
      modules: { net, tls, dns },
      shared: new ClientTls(),
      addresses: new RecentAddresses(createTestClock()),
      maxSockets: 16,
      timeoutMs: 100,
    })
    const handshake = () =>
      new Promise<{ error: (Error & { code?: string }) | null }>((resolve) => {
        const port = String(silent.port)
        connect({ hostname: GATEWAY, host: `${GATEWAY}:${port}`, protocol: 'https:', port }, (error, socket) => {
          ;(socket as net.Socket | null)?.destroy()
          resolve({ error })
        })
      })
    expect((await handshake()).error?.code).toBe('UND_ERR_CONNECT_TIMEOUT')
    expect((await handshake()).error?.code).toBe('UND_ERR_CONNECT_TIMEOUT')
    expect(lookups()).toBe(2)
    expect(await silent.accepted(2)).toBe(2)
  })

  it('does not keep a failed lookup: every connection waiting on it fails with its error, the next asks again', async () => {
    const server = await gateway()
    const { dns, lookups } = resolver({ error: 'EAI_AGAIN' }, { addresses: [at('127.0.0.1')] })
    const { connect } = connector(dns)
    const failed = await Promise.all([open(connect, server.port), open(connect, server.port)])
    expect(failed.map((c) => c.error?.code)).toEqual(['EAI_AGAIN', 'EAI_AGAIN'])
    expect(lookups()).toBe(1)
    expect((await open(connect, server.port)).error).toBeNull()
    expect(lookups()).toBe(2)
    expect(await server.accepted(1)).toBe(1)
  })

  it('does not keep a failed lookup of its own accord (no failed connection needed to drop it)', async () => {
    const { dns, lookups } = resolver({ error: 'ENOTFOUND' }, { addresses: [at('127.0.0.1')] })
    const lookup = new RecentAddresses(createTestClock()).lookup(dns)
    const ask = () => new Promise<unknown[]>((resolve) => lookup(GATEWAY, { all: true }, (...args) => resolve(args)))
    expect(((await ask())[0] as { code?: string }).code).toBe('ENOTFOUND')
    expect(await ask()).toEqual([null, [at('127.0.0.1')]])
    expect(lookups()).toBe(2)
  })

  it('answers an empty list from the resolver as no address (ENOTFOUND), never as an empty list to Node', async () => {
    const { dns } = resolver({ addresses: [] })
    const lookup = new RecentAddresses(createTestClock()).lookup(dns)
    const answer = await new Promise<unknown[]>((resolve) => lookup(GATEWAY, { all: true }, (...args) => resolve(args)))
    expect((answer[0] as { code?: string }).code).toBe('ENOTFOUND')
  })

  it('does not let a lookup that never answers hold connections past 10 s: a later one asks again', async () => {
    const server = await gateway()
    const { dns, lookups } = resolver('hang', { addresses: [at('127.0.0.1')] })
    const { connect, clock } = connector(dns, createTestClock(), 100)
    // The hung lookup's connection ends at its own time limit; one started beside it waits on it too.
    const first = await Promise.all([open(connect, server.port), open(connect, server.port)])
    expect(first.map((c) => c.error?.code)).toEqual(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_CONNECT_TIMEOUT'])
    expect(lookups()).toBe(1)
    clock.advance(ADDRESSES_KEPT_MS)
    expect((await open(connect, server.port)).error).toBeNull()
    expect(lookups()).toBe(2)
  })

  it('answers a lookup for one family from a lookup for that family only', async () => {
    const { dns, asked } = resolver({ addresses: [at('127.0.0.1'), at('::1')] })
    const addresses = new RecentAddresses(createTestClock())
    const lookup = addresses.lookup(dns)
    const ask = (options: { family?: number; all?: boolean }) =>
      new Promise<unknown[]>((resolve) => lookup(GATEWAY, options, (...args) => resolve(args)))
    expect(await ask({ all: true })).toEqual([null, [at('127.0.0.1'), at('::1')]])
    expect(await ask({})).toEqual([null, '127.0.0.1', 4])
    await ask({ family: 6, all: true })
    expect(asked.map((a) => a.options)).toEqual([
      { all: true, family: 0, hints: 0 },
      { all: true, family: 6, hints: 0 },
    ])
  })
})

describe('through the client: payments each on a connection of their own, one lookup among them', () => {
  /** A loopback HTTP gateway answering `{}`, counting connections. */
  async function httpGateway(): Promise<{ port: number; connections: () => number }> {
    let connections = 0
    const server: HttpServer = createHttpServer((req, res) => {
      req.resume()
      req.on('end', () => res.end('{}'))
    })
    server.on('connection', () => connections++)
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    closers.push(
      () =>
        new Promise<void>((resolve) => {
          server.closeAllConnections()
          server.close(() => resolve())
        }),
    )
    return { port: (server.address() as net.AddressInfo).port, connections: () => connections }
  }

  it("uses the application's own dns.lookup, once per 10 s, for a name only it knows", async () => {
    const server = await httpGateway()
    // The application routes the gateway's name to loopback by replacing dns.lookup, as a test would.
    const dnsModule = createRequire(import.meta.url)('node:dns') as typeof realDns
    const original = dnsModule.lookup
    const routed: string[] = []
    vi.spyOn(dnsModule, 'lookup').mockImplementation(((hostname: string, options: object, callback: unknown) => {
      if (hostname !== GATEWAY) return (original as (...args: unknown[]) => void)(hostname, options, callback)
      routed.push(hostname)
      const answer = callback as (error: null, addresses: LookupAddress[]) => void
      setImmediate(() => answer(null, [at('127.0.0.1')]))
    }) as unknown as typeof realDns.lookup)
    const clock = createTestClock()
    const client = makeClient({ clock, maxRetries: 0, timeout: 5_000 })
    closers.push(() => client.close())
    const pay = () =>
      client.send(
        post(`http://${GATEWAY}:${server.port}/pay`, { operation: 'test.pay', retry: unsentOnly }),
        jsonHandler,
      )
    await Promise.all(Array.from({ length: 6 }, pay))
    for (let i = 0; i < 4; i++) await pay()
    expect(server.connections()).toBe(10)
    expect(routed).toHaveLength(1)
    clock.advance(ADDRESSES_KEPT_MS)
    await pay()
    expect(routed).toHaveLength(2)
  })
})
