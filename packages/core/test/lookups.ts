/**
 * Loopback gateways, a resolver of the test's own and the client's connector, for the tests of the
 * client's recent lookups (addresses.ts): `addresses.test.ts` and `addresses-adversary.test.ts`.
 * Each test file closes what these opened with `closeAll()` after each test.
 */

import type * as realDns from 'node:dns'
import { ADDRCONFIG, type LookupAddress, type LookupOptions } from 'node:dns'
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http'
import * as net from 'node:net'
import * as tls from 'node:tls'
import { createTestClock } from '@paywire/core/testing'
import type { buildConnector } from 'undici'
import { expect } from 'vitest'
import { type Lookup, RecentAddresses } from '../src/transport/addresses.js'
import { ClientTls, createConnector } from '../src/transport/connector.js'

export const GATEWAY = 'gateway.paywire.test'
const closers: Array<() => Promise<void>> = []

/** Registers `close` for `closeAll()` (a client a test made, say). */
export function closeLater(close: () => Promise<void>): void {
  closers.push(close)
}

/** Closes every server the helpers below opened, and what was registered with `closeLater`. */
export async function closeAll(): Promise<void> {
  for (const close of closers.splice(0)) await close()
}

export const turns = async (n: number) => {
  for (let i = 0; i < n; i++) await new Promise((resolve) => setImmediate(resolve))
}

/** Waits until `done()` holds (checked every few ms, 5 s at most): the client loads undici on its first call. */
export async function until(done: () => boolean) {
  for (let i = 0; i < 1_000 && !done(); i++) await new Promise((resolve) => setTimeout(resolve, 5))
  expect(done()).toBe(true)
}

/** A loopback TCP server on `host` counting connections and the bytes they carried; `onSocket` may answer. */
export async function gateway(host = '127.0.0.1', port = 0, onSocket?: (socket: net.Socket) => void) {
  let accepted = 0
  let bytes = 0
  const sockets = new Set<net.Socket>()
  const server = net.createServer((socket) => {
    accepted++
    sockets.add(socket)
    socket.on('error', () => {})
    socket.on('data', (chunk: Buffer) => {
      bytes += chunk.length
    })
    onSocket?.(socket)
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, host, resolve)
  })
  closers.push(
    () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy()
        server.close(() => resolve())
      }),
  )
  const settled = async (n: number) => {
    for (let turn = 0; turn < 50 && accepted < n; turn++) await turns(1)
    await turns(5)
    return accepted
  }
  return { port: (server.address() as net.AddressInfo).port, accepted: settled, bytes: () => bytes }
}

export type AllCallback = (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void
export type Reply = (callback: AllCallback, hostname: string, options: LookupOptions, n: number) => void

/** A `dns` module whose every lookup is answered by `reply` (with the lookup's number, from 1), and counted. */
export function resolver(reply: Reply) {
  const asked: Array<{ hostname: string; options: LookupOptions }> = []
  const lookup = (hostname: string, options: LookupOptions, callback: AllCallback) => {
    asked.push({ hostname, options })
    reply(callback, hostname, options, asked.length)
  }
  return { dns: { lookup } as unknown as typeof realDns, lookups: () => asked.length, asked }
}

/** Answers `addresses` on a later turn, as the thread pool does. */
export const later =
  (...addresses: LookupAddress[]): Reply =>
  (callback) =>
    setImmediate(() => callback(null, addresses))

/** A reply held until the test releases it: `release(error, addresses)` answers every held lookup. */
export function held() {
  const pending: AllCallback[] = []
  const reply: Reply = (callback) => {
    pending.push(callback)
  }
  const release = (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => {
    for (const callback of pending.splice(0)) callback(error, addresses)
  }
  return { reply, release, held: () => pending.length }
}

/** What `net.connect` asks its `lookup` for when no family is given (it adds ADDRCONFIG off Windows). */
export const AS_NET: LookupOptions = { all: true, family: 0, hints: process.platform === 'win32' ? 0 : ADDRCONFIG }

export const at = (address: string): LookupAddress => ({ address, family: net.isIPv6(address) ? 6 : 4 })
export const failure = (code: string, hostname = GATEWAY) =>
  Object.assign(new Error(`getaddrinfo ${code} ${hostname}`), { code }) as NodeJS.ErrnoException

export function connector(
  dns: typeof realDns,
  options: { clock?: ReturnType<typeof createTestClock>; timeoutMs?: number } = {},
) {
  const clock = options.clock ?? createTestClock()
  const addresses = new RecentAddresses(clock)
  const connect = createConnector({
    modules: { net, tls, dns },
    shared: new ClientTls(),
    addresses,
    maxSockets: 64,
    timeoutMs: options.timeoutMs ?? 2_000,
  })
  return { connect, clock, addresses }
}

export type Opened = { error: (Error & { code?: string }) | null }

/** One connection to `hostname:port` (TCP, or TLS for `https:`): its error, or null (the socket is closed at once). */
export function open(connect: buildConnector.connector, port: number, hostname = GATEWAY, protocol = 'http:') {
  return new Promise<Opened>((resolve) => {
    let answers = 0
    connect({ hostname, host: `${hostname}:${port}`, protocol, port: String(port) }, (error, socket) => {
      answers++
      if (answers > 1) throw new Error('a connection was answered twice')
      ;(socket as net.Socket | null)?.destroy()
      resolve({ error })
    })
  })
}

/** Asks `lookup` once: every argument its callback got, and how many times it was called (after a few turns). */
export function ask(lookup: Lookup, hostname: string, options: LookupOptions = { all: true }) {
  const calls: unknown[][] = []
  let synchronous = true
  let wasSynchronous = false
  const first = new Promise<unknown[]>((resolve) => {
    lookup(hostname, options, (...args) => {
      if (synchronous) wasSynchronous = true
      calls.push(args)
      resolve(args)
    })
  })
  synchronous = false
  return { first, calls, wasSynchronous: () => wasSynchronous }
}

/** A loopback HTTP gateway answering `{}`, counting connections and requests. */
export async function httpGateway() {
  let connections = 0
  let requests = 0
  const server: HttpServer = createHttpServer((req, res) => {
    requests++
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
  return {
    port: (server.address() as net.AddressInfo).port,
    connections: () => connections,
    requests: () => requests,
  }
}

/** Answers each lookup with the next of `answers` (the last one repeats), on a later turn. */
export function inTurn(...answers: Array<{ addresses: LookupAddress[] } | { error: string } | 'hang'>): Reply {
  return (callback, hostname, _options, n) => {
    const answer = answers[Math.min(n, answers.length) - 1]
    if (answer === undefined || answer === 'hang') return
    setImmediate(() =>
      'error' in answer ? callback(failure(answer.error, hostname), []) : callback(null, answer.addresses),
    )
  }
}
