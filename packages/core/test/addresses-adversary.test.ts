/**
 * The client's recent lookups (addresses.ts) from an attacker's side: a resolver that rotates its
 * answers, answers twice, throws, answers empty or never, or answers after the connection gave up;
 * a cached address that takes TCP and fails the TLS handshake; IPv6-only answers; names that differ
 * only in case or a trailing dot; more host names than are kept; a clock stepped back; a forget
 * while a lookup runs; and through the client, a hung lookup against the call's deadline and
 * `close()`. Real loopback servers only; a `dns` module of the test's own answers the lookups.
 */

import type * as realDns from 'node:dns'
import type { LookupAddress, LookupOptions } from 'node:dns'
import { createRequire } from 'node:module'
import { ConnectionError } from '@paywire/core'
import { unsentOnly } from '@paywire/core/engine'
import { createTestClock } from '@paywire/core/testing'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { ADDRESSES_KEPT_MS, RecentAddresses } from '../src/transport/addresses.js'
import { jsonHandler, makeClient, post } from './helpers.js'
import {
  type AllCallback,
  AS_NET,
  ask,
  at,
  closeAll,
  closeLater,
  connector,
  failure,
  GATEWAY,
  gateway,
  held,
  httpGateway,
  later,
  open,
  type Reply,
  resolver,
  turns,
  until,
} from './lookups.js'

afterEach(async () => {
  await closeAll()
  vi.restoreAllMocks()
})

describe('a resolver that misbehaves', () => {
  it('rotates its answer order: one lookup serves every connection for 10 s, a dead address first costs no new lookup', async () => {
    const server = await gateway()
    // 127.0.0.2 is loopback too, and nothing listens there on the gateway's port: refused at once.
    const { dns, lookups } = resolver((callback, _host, _options, n) =>
      setImmediate(() =>
        callback(null, n % 2 ? [at('127.0.0.2'), at('127.0.0.1')] : [at('127.0.0.1'), at('127.0.0.2')]),
      ),
    )
    const { connect, addresses } = connector(dns)
    // Node tries each address of the list in turn: the refused one first, then the gateway.
    const opened = await Promise.all(Array.from({ length: 4 }, () => open(connect, server.port)))
    for (let i = 0; i < 2; i++) opened.push(await open(connect, server.port))
    expect(opened.map((c) => c.error)).toEqual(Array(6).fill(null))
    // What each of them was answered: the first lookup's list, in its order.
    expect(await ask(addresses.lookup(dns), GATEWAY, AS_NET).first).toEqual([null, [at('127.0.0.2'), at('127.0.0.1')]])
    expect(lookups()).toBe(1)
    expect(await server.accepted(6)).toBe(6)
  })

  it('throws synchronously: every connection waiting on it fails on a later turn, nothing escapes net.connect, nothing is kept', async () => {
    const server = await gateway()
    const { dns, lookups } = resolver((callback, _host, _options, n) => {
      if (n === 1) throw Object.assign(new TypeError('resolver exploded'), { code: 'ERR_RESOLVER' })
      setImmediate(() => callback(null, [at('127.0.0.1')]))
    })
    const { connect, addresses } = connector(dns)
    const lookup = addresses.lookup(dns)
    // Asked as net.connect asks, so a kept failure would answer the connection below.
    const direct = ask(lookup, GATEWAY, AS_NET)
    const joined = ask(lookup, GATEWAY, AS_NET)
    expect(direct.wasSynchronous()).toBe(false)
    expect(((await direct.first)[0] as Error).message).toBe('resolver exploded')
    expect(((await joined.first)[0] as Error).message).toBe('resolver exploded')
    expect(lookups()).toBe(1)
    // Not kept: the next connection asks again and reaches the gateway.
    expect((await open(connect, server.port)).error).toBeNull()
    expect(lookups()).toBe(2)
    expect(await server.accepted(1)).toBe(1)
  })

  it('answers twice: each connection is answered once, the gateway sees at most one connection per attempt and no byte', async () => {
    const server = await gateway()
    const { dns, lookups } = resolver((callback, _host, _options, n) =>
      setImmediate(() => {
        callback(null, [at('127.0.0.1')])
        // A broken resolver answers again: with a failure the first time, with the same list after.
        if (n === 1) callback(failure('EAI_AGAIN'), [])
        else callback(null, [at('127.0.0.1')])
      }),
    )
    const { connect } = connector(dns)
    const together = await Promise.all(Array.from({ length: 3 }, () => open(connect, server.port)))
    // Each ended once (`open` throws on a second answer), on the first answer: connected.
    expect(together.map((c) => c.error)).toEqual([null, null, null])
    // The failure that came second was not kept: the next connection is answered from the first list.
    expect((await open(connect, server.port)).error).toBeNull()
    expect(lookups()).toBe(1)
    expect(await server.accepted(4)).toBe(4)
    expect(server.bytes()).toBe(0)
  })

  // Found by this review, now fixed: a second callback of one lookup reached every connection that
  // joined it, and Node's net then failed each of them (with the second answer's error, or EALREADY
  // when it connected twice), although the first answer was good and was kept. Only the first
  // callback of a lookup is answered now.
  it('answers twice: the connections that shared the lookup connect on its first answer', async () => {
    const server = await gateway()
    const { dns } = resolver((callback) =>
      setImmediate(() => {
        callback(null, [at('127.0.0.1')])
        callback(failure('EAI_AGAIN'), [])
      }),
    )
    const { connect } = connector(dns)
    const together = await Promise.all(Array.from({ length: 3 }, () => open(connect, server.port)))
    expect(together.map((c) => c.error?.code)).toEqual([undefined, undefined, undefined])
    expect(await server.accepted(3)).toBe(3)
  })

  it('answers an empty list: Node is told ENOTFOUND (no crash), nothing is kept, the next connection asks again', async () => {
    const server = await gateway()
    const { dns, lookups } = resolver((callback, _host, _options, n) =>
      setImmediate(() => callback(null, n === 1 ? [] : [at('127.0.0.1')])),
    )
    const { connect } = connector(dns)
    const failed = await Promise.all([open(connect, server.port), open(connect, server.port)])
    expect(failed.map((c) => c.error?.code)).toEqual(['ENOTFOUND', 'ENOTFOUND'])
    expect((await open(connect, server.port)).error).toBeNull()
    expect(lookups()).toBe(2)
    expect(await server.accepted(1)).toBe(1)
  })

  it('answers after the connection gave up: nothing connects to the gateway at the late answer', async () => {
    const server = await gateway()
    const slow = held()
    const { dns, lookups } = resolver(slow.reply)
    const { connect } = connector(dns, { timeoutMs: 100 })
    const timedOut = await Promise.all([open(connect, server.port), open(connect, server.port)])
    expect(timedOut.map((c) => c.error?.code)).toEqual(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_CONNECT_TIMEOUT'])
    expect(lookups()).toBe(1)
    slow.release(null, [at('127.0.0.1')])
    expect(await server.accepted(1)).toBe(0)
  })

  it('is replaced by the application after the first lookup: the replacement answers the next one (read at call time)', async () => {
    const server = await gateway()
    const first = resolver(later(at('127.0.0.2')))
    const module = { lookup: first.dns.lookup } as { lookup: typeof realDns.lookup }
    const { connect, clock } = connector(module as unknown as typeof realDns)
    expect((await open(connect, server.port)).error?.code).toBe('ECONNREFUSED')
    const second = resolver(later(at('127.0.0.1')))
    module.lookup = second.dns.lookup
    clock.advance(ADDRESSES_KEPT_MS)
    expect((await open(connect, server.port)).error).toBeNull()
    expect([first.lookups(), second.lookups()]).toEqual([1, 1])
  })

  it('is read from the module namespace`s default export, where an application replaces it', async () => {
    const stale = resolver(later(at('127.0.0.2')))
    const live = resolver(later(at('127.0.0.1')))
    // `import('node:dns')` is a namespace: its `lookup` is the one it was loaded with, `default` is the module.
    const namespace = { lookup: stale.dns.lookup, default: live.dns } as unknown as typeof realDns
    const lookup = new RecentAddresses(createTestClock()).lookup(namespace)
    expect(await ask(lookup, GATEWAY).first).toEqual([null, [at('127.0.0.1')]])
    expect([stale.lookups(), live.lookups()]).toEqual([0, 1])
  })
})

describe('a cached address that fails', () => {
  it('takes TCP but fails the TLS handshake: it is dropped, the next connection looks up again and reaches the new address', async () => {
    // The old address answers a ClientHello with plain HTTP (a host that moved on to another service).
    const wrong = await gateway('127.0.0.2', 0, (socket) => socket.end('HTTP/1.1 400 Bad Request\r\n\r\n'))
    let fresh: Awaited<ReturnType<typeof gateway>>
    try {
      fresh = await gateway('127.0.0.1', wrong.port)
    } catch {
      return // the port is taken on 127.0.0.1: nothing to learn here
    }
    const { dns, lookups } = resolver((callback, _host, _options, n) =>
      setImmediate(() => callback(null, [at(n === 1 ? '127.0.0.2' : '127.0.0.1')])),
    )
    const { connect } = connector(dns, { timeoutMs: 150 })
    const first = await open(connect, wrong.port, GATEWAY, 'https:')
    expect(first.error).not.toBeNull()
    expect(await wrong.accepted(1)).toBe(1)
    // The new address accepts and stays silent: the handshake times out there, but it got there.
    await open(connect, wrong.port, GATEWAY, 'https:')
    expect(lookups()).toBe(2)
    expect(await fresh.accepted(1)).toBe(1)
    expect(await wrong.accepted(1)).toBe(1)
  })

  it('is forgotten while a new lookup runs: connections still share that one lookup, and all are answered', async () => {
    const slow = held()
    const { dns, lookups } = resolver(slow.reply)
    const addresses = new RecentAddresses(createTestClock())
    const lookup = addresses.lookup(dns)
    const a = ask(lookup, GATEWAY)
    addresses.forget(GATEWAY)
    const b = ask(lookup, GATEWAY)
    addresses.forget(GATEWAY)
    expect(lookups()).toBe(1)
    slow.release(null, [at('127.0.0.1')])
    expect(await a.first).toEqual([null, [at('127.0.0.1')]])
    expect(await b.first).toEqual([null, [at('127.0.0.1')]])
    await turns(2)
    expect([a.calls.length, b.calls.length]).toEqual([1, 1])
  })
})

describe('what is kept, for whom, and for how long', () => {
  it('answers IPv6-only addresses (::1), shared and kept, and a lookup without `all` as (address, 6)', async () => {
    const server = await gateway('::1')
    const { dns, lookups } = resolver(later(at('::1')))
    const { connect, addresses } = connector(dns)
    const opened = await Promise.all(Array.from({ length: 4 }, () => open(connect, server.port)))
    expect(opened.map((c) => c.error)).toEqual([null, null, null, null])
    expect((await open(connect, server.port)).error).toBeNull()
    expect(await ask(addresses.lookup(dns), GATEWAY, { ...AS_NET, all: false }).first).toEqual([null, '::1', 6])
    expect(await server.accepted(5)).toBe(5)
    expect(lookups()).toBe(1)
  })

  it('never answers a lookup for IPv4 from a kept answer of both families, nor joins it to one running for both', async () => {
    const slow = held()
    const { dns, asked } = resolver((callback, hostname, options, n) => {
      if (n === 1) return slow.reply(callback, hostname, options, n)
      setImmediate(() => callback(null, options.family === 4 ? [at('127.0.0.1')] : [at('::1'), at('127.0.0.1')]))
    })
    const lookup = new RecentAddresses(createTestClock()).lookup(dns)
    const both = ask(lookup, GATEWAY)
    const v4 = ask(lookup, GATEWAY, { family: 4, all: true })
    expect(await v4.first).toEqual([null, [at('127.0.0.1')]])
    slow.release(null, [at('::1'), at('127.0.0.1')])
    expect(await both.first).toEqual([null, [at('::1'), at('127.0.0.1')]])
    // Both families kept now: an IPv4 lookup still asks for IPv4, and gets no IPv6 address.
    expect(await ask(lookup, GATEWAY, { family: 4 }).first).toEqual([null, '127.0.0.1', 4])
    expect(asked.map((a) => a.options.family)).toEqual([0, 4, 4])
  })

  it('keys names exactly: a name in other case or with a trailing dot is looked up apart, never answered with another`s addresses', async () => {
    const table: Record<string, string> = {
      [GATEWAY]: '127.0.0.1',
      [GATEWAY.toUpperCase()]: '127.0.0.2',
      [`${GATEWAY}.`]: '127.0.0.3',
    }
    const { dns, asked } = resolver((callback, hostname) =>
      setImmediate(() => callback(null, [at(table[hostname] ?? '127.0.0.9')])),
    )
    const lookup = new RecentAddresses(createTestClock()).lookup(dns)
    for (let round = 0; round < 2; round++)
      for (const [name, address] of Object.entries(table))
        expect(await ask(lookup, name).first).toEqual([null, [at(address)]])
    expect(asked.map((a) => a.hostname)).toEqual(Object.keys(table))
  })

  it('keeps 64 host names: the 65th pushes out the one looked up longest ago, the others stay', async () => {
    const { dns, asked } = resolver(later(at('127.0.0.1')))
    const lookup = new RecentAddresses(createTestClock()).lookup(dns)
    const name = (i: number) => `h${i}.paywire.test`
    for (let i = 1; i <= 65; i++) await ask(lookup, name(i)).first
    expect(asked).toHaveLength(65)
    // h1 went when h65 came: asked again (and that pushes out h2).
    await ask(lookup, name(1)).first
    expect(asked).toHaveLength(66)
    for (let i = 3; i <= 65; i++) await ask(lookup, name(i)).first
    expect(asked).toHaveLength(66)
    await ask(lookup, name(2)).first
    expect(asked.map((a) => a.hostname).slice(64)).toEqual([name(65), name(1), name(2)])
  })

  it('answers a kept list asynchronously (never inside the caller), within the same turn, and a copy the caller may change', async () => {
    const { dns, lookups } = resolver(later(at('127.0.0.1'), at('127.0.0.2')))
    const lookup = new RecentAddresses(createTestClock()).lookup(dns)
    const first = (await ask(lookup, GATEWAY).first)[1] as LookupAddress[]
    first.splice(0) // a caller that consumes the list it was given
    const kept = ask(lookup, GATEWAY)
    expect(kept.wasSynchronous()).toBe(false)
    let turned = false
    setImmediate(() => {
      turned = true
    })
    const answer = await kept.first
    expect(turned).toBe(false) // a microtask, not a lookup's later turn
    expect(answer).toEqual([null, [at('127.0.0.1'), at('127.0.0.2')]])
    expect(lookups()).toBe(1)
  })

  it('stops using a kept answer when the clock is stepped back, and keeps the new one 10 s', async () => {
    const { dns, lookups } = resolver(later(at('127.0.0.1')))
    const clock = createTestClock()
    const lookup = new RecentAddresses(clock).lookup(dns)
    await ask(lookup, GATEWAY).first
    clock.advance(-5_000)
    await ask(lookup, GATEWAY).first
    expect(lookups()).toBe(2)
    clock.advance(ADDRESSES_KEPT_MS - 1)
    await ask(lookup, GATEWAY).first
    expect(lookups()).toBe(2)
    clock.advance(1)
    await ask(lookup, GATEWAY).first
    expect(lookups()).toBe(3)
  })

  it('does not keep a lookup that hung past 10 s when it answers after its replacement: the newer answer stays', async () => {
    const clock = createTestClock()
    const slow = held()
    const { dns, lookups } = resolver((callback, hostname, options, n) => {
      if (n === 1) return slow.reply(callback, hostname, options, n)
      setImmediate(() => callback(null, [at('127.0.0.1')]))
    })
    const lookup = new RecentAddresses(clock).lookup(dns)
    const hung = ask(lookup, GATEWAY)
    clock.advance(ADDRESSES_KEPT_MS)
    expect(await ask(lookup, GATEWAY).first).toEqual([null, [at('127.0.0.1')]])
    slow.release(null, [at('127.0.0.2')])
    // Its own waiter gets its answer; the kept one is the newer lookup's.
    expect(await hung.first).toEqual([null, [at('127.0.0.2')]])
    expect(await ask(lookup, GATEWAY).first).toEqual([null, [at('127.0.0.1')]])
    expect(lookups()).toBe(2)
  })
})

describe('through the client: money calls against a failing or hung lookup', () => {
  /** Routes GATEWAY through `reply` by replacing the live `dns.lookup`, as an application would. */
  function route(reply: Reply) {
    const dnsModule = createRequire(import.meta.url)('node:dns') as typeof realDns
    const original = dnsModule.lookup
    let n = 0
    vi.spyOn(dnsModule, 'lookup').mockImplementation(((hostname: string, options: LookupOptions, callback: unknown) => {
      if (hostname !== GATEWAY) return (original as (...args: unknown[]) => void)(hostname, options, callback)
      reply(callback as AllCallback, hostname, options, ++n)
    }) as unknown as typeof realDns.lookup)
    return { lookups: () => n }
  }

  it('a failed lookup ends the payment unsent (ConnectionError, requestSent false); the next one asks again and is sent once', async () => {
    const server = await httpGateway()
    const routed = route((callback, hostname, _options, n) =>
      setImmediate(() => (n === 1 ? callback(failure('ENOTFOUND', hostname), []) : callback(null, [at('127.0.0.1')]))),
    )
    const client = makeClient({ maxRetries: 0, timeout: 5_000 })
    closeLater(() => client.close())
    const pay = () =>
      client.send(
        post(`http://${GATEWAY}:${server.port}/pay`, { operation: 'test.pay', retry: unsentOnly }),
        jsonHandler,
      )
    const error = await pay().catch((e: unknown) => e)
    expect(error).toBeInstanceOf(ConnectionError)
    expect(error).toMatchObject({ requestSent: false })
    expect(server.requests()).toBe(0)
    await pay()
    expect(server.requests()).toBe(1)
    expect(routed.lookups()).toBe(2)
  })

  it('a failed lookup retried (unsent) is asked again, not answered from a kept failure: the payment is sent exactly once', async () => {
    const server = await httpGateway()
    const routed = route((callback, hostname, _options, n) =>
      setImmediate(() => (n === 1 ? callback(failure('EAI_AGAIN', hostname), []) : callback(null, [at('127.0.0.1')]))),
    )
    // The test clock's sleep returns at once: the retry's backoff costs no real time.
    const client = makeClient({ clock: createTestClock(), random: () => 0, maxRetries: 2, timeout: 5_000 })
    closeLater(() => client.close())
    await client.send(
      post(`http://${GATEWAY}:${server.port}/pay`, { operation: 'test.pay', retry: unsentOnly }),
      jsonHandler,
    )
    expect(routed.lookups()).toBe(2)
    expect(server.requests()).toBe(1)
    expect(server.connections()).toBe(1)
  })

  it("ends every payment by the call's total deadline while the shared lookup hangs, unsent; the late answer sends nothing", async () => {
    const server = await httpGateway()
    const slow = held()
    const routed = route(slow.reply)
    const client = makeClient({ maxRetries: 3, timeout: 10_000, totalTimeout: 200 })
    const pay = () =>
      client.send(
        post(`http://${GATEWAY}:${server.port}/pay`, { operation: 'test.pay', retry: unsentOnly }),
        jsonHandler,
      )
    const started = performance.now()
    const errors = await Promise.all(Array.from({ length: 3 }, () => pay().catch((e: unknown) => e)))
    // Ended by the deadline (200 ms), not by the 10 s connect limit.
    expect(performance.now() - started).toBeLessThan(3_000)
    for (const error of errors) {
      expect(error).toBeInstanceOf(ConnectionError)
      expect(error).toMatchObject({ requestSent: false })
    }
    expect(routed.lookups()).toBe(1)
    slow.release(null, [at('127.0.0.1')])
    await turns(20)
    const closing = client.close()
    await closing
    await turns(10)
    expect(server.requests()).toBe(0)
  })

  it('close() while a lookup is pending returns (no hang), the call ends unsent, and the late answer reaches no gateway', async () => {
    const server = await httpGateway()
    const slow = held()
    route(slow.reply)
    const client = makeClient({ maxRetries: 0, timeout: 300 })
    const payment = client
      .send(post(`http://${GATEWAY}:${server.port}/pay`, { operation: 'test.pay', retry: unsentOnly }), jsonHandler)
      .catch((e: unknown) => e)
    await until(() => slow.held() === 1)
    // close() is graceful: it returns once the pending call has ended, at its connect limit at the latest.
    const started = performance.now()
    await client.close()
    expect(performance.now() - started).toBeLessThan(3_000)
    const error = await payment
    expect(error).toBeInstanceOf(ConnectionError)
    expect(error).toMatchObject({ requestSent: false })
    slow.release(null, [at('127.0.0.1')])
    await turns(20)
    expect(server.connections()).toBe(0)
    expect(server.requests()).toBe(0)
  })
})
