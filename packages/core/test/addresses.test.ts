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
import { createRequire } from 'node:module'
import * as net from 'node:net'
import * as tls from 'node:tls'
import { unsentOnly } from '@paywire/core/engine'
import { createTestClock } from '@paywire/core/testing'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { ADDRESSES_KEPT_MS, RecentAddresses } from '../src/transport/addresses.js'
import { ClientTls, createConnector } from '../src/transport/connector.js'
import { jsonHandler, makeClient, post } from './helpers.js'
import {
  at,
  closeAll,
  closeLater,
  connector,
  GATEWAY,
  gateway,
  httpGateway,
  inTurn,
  open,
  resolver,
} from './lookups.js'

afterEach(async () => {
  await closeAll()
  vi.restoreAllMocks()
})

describe('one lookup of a host name, shared and kept for 10 s', () => {
  it('is shared by the connections that start while it runs, and answers the next ones without asking again', async () => {
    const server = await gateway()
    const { dns, lookups } = resolver(inTurn({ addresses: [at('127.0.0.1')] }))
    const { connect } = connector(dns)
    const together = await Promise.all(Array.from({ length: 8 }, () => open(connect, server.port)))
    expect(together.map((c) => c.error)).toEqual(Array(8).fill(null))
    for (let i = 0; i < 8; i++) expect((await open(connect, server.port)).error).toBeNull()
    expect(lookups()).toBe(1)
    expect(await server.accepted(16)).toBe(16)
  })

  it('asks again once 10 s have passed on the client clock, not before', async () => {
    const server = await gateway()
    const { dns, lookups } = resolver(inTurn({ addresses: [at('127.0.0.1')] }))
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
    const { dns, lookups } = resolver(inTurn({ error: 'ENOTFOUND' }))
    const { connect } = connector(dns)
    expect((await open(connect, server.port, '127.0.0.1')).error).toBeNull()
    expect(lookups()).toBe(0)
  })

  it('keeps each host name apart', async () => {
    const server = await gateway()
    const { dns, asked } = resolver(inTurn({ addresses: [at('127.0.0.1')] }))
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
    const { dns, lookups } = resolver(inTurn({ addresses: [at('127.0.0.2')] }, { addresses: [at('127.0.0.1')] }))
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
    const { dns, lookups } = resolver(inTurn({ addresses: [at('127.0.0.1')] }))
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
    const { dns, lookups } = resolver(inTurn({ error: 'EAI_AGAIN' }, { addresses: [at('127.0.0.1')] }))
    const { connect } = connector(dns)
    const failed = await Promise.all([open(connect, server.port), open(connect, server.port)])
    expect(failed.map((c) => c.error?.code)).toEqual(['EAI_AGAIN', 'EAI_AGAIN'])
    expect(lookups()).toBe(1)
    expect((await open(connect, server.port)).error).toBeNull()
    expect(lookups()).toBe(2)
    expect(await server.accepted(1)).toBe(1)
  })

  it('does not keep a failed lookup of its own accord (no failed connection needed to drop it)', async () => {
    const { dns, lookups } = resolver(inTurn({ error: 'ENOTFOUND' }, { addresses: [at('127.0.0.1')] }))
    const lookup = new RecentAddresses(createTestClock()).lookup(dns)
    const ask = () => new Promise<unknown[]>((resolve) => lookup(GATEWAY, { all: true }, (...args) => resolve(args)))
    expect(((await ask())[0] as { code?: string }).code).toBe('ENOTFOUND')
    expect(await ask()).toEqual([null, [at('127.0.0.1')]])
    expect(lookups()).toBe(2)
  })

  it('answers an empty list from the resolver as no address (ENOTFOUND), never as an empty list to Node', async () => {
    const { dns } = resolver(inTurn({ addresses: [] }))
    const lookup = new RecentAddresses(createTestClock()).lookup(dns)
    const answer = await new Promise<unknown[]>((resolve) => lookup(GATEWAY, { all: true }, (...args) => resolve(args)))
    expect((answer[0] as { code?: string }).code).toBe('ENOTFOUND')
  })

  it('does not let a lookup that never answers hold connections past 10 s: a later one asks again', async () => {
    const server = await gateway()
    const { dns, lookups } = resolver(inTurn('hang', { addresses: [at('127.0.0.1')] }))
    const { connect, clock } = connector(dns, { timeoutMs: 100 })
    // The hung lookup's connection ends at its own time limit; one started beside it waits on it too.
    const first = await Promise.all([open(connect, server.port), open(connect, server.port)])
    expect(first.map((c) => c.error?.code)).toEqual(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_CONNECT_TIMEOUT'])
    expect(lookups()).toBe(1)
    clock.advance(ADDRESSES_KEPT_MS)
    expect((await open(connect, server.port)).error).toBeNull()
    expect(lookups()).toBe(2)
  })

  it('answers a lookup for one family from a lookup for that family only', async () => {
    const { dns, asked } = resolver(inTurn({ addresses: [at('127.0.0.1'), at('::1')] }))
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
    closeLater(() => client.close())
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
