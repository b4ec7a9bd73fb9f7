/**
 * The client's own connector (connector.ts) from the server's side: a loopback TCP server counts the
 * connections it gets. A connection waiting for a slot is refused at its time limit without opening
 * anything (after an outage nothing stale is opened ahead of live calls), and a slot passes to the
 * next waiting connection the moment a socket closes.
 */

import * as dns from 'node:dns'
import * as net from 'node:net'
import * as tls from 'node:tls'
import type { buildConnector } from 'undici'
import { afterEach, describe, expect, it } from 'vitest'
import { systemClock } from '../src/clock.js'
import { RecentAddresses } from '../src/transport/addresses.js'
import { ClientTls, createConnector } from '../src/transport/connector.js'

const held = new Set<net.Socket>()
let server: net.Server | undefined

afterEach(async () => {
  for (const socket of held) socket.destroy()
  held.clear()
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()))
  server = undefined
})

async function holdingServer(): Promise<{ port: number; accepted: () => number }> {
  let accepted = 0
  server = net.createServer((socket) => {
    accepted++
    held.add(socket)
    socket.on('error', () => {})
    socket.resume()
  })
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve))
  const address = server.address() as net.AddressInfo
  return { port: address.port, accepted: () => accepted }
}

function connect(
  connector: buildConnector.connector,
  port: number,
): Promise<{ error: (Error & { code?: string }) | null; socket: net.Socket | null }> {
  return new Promise((resolve) => {
    connector({ hostname: '127.0.0.1', host: `127.0.0.1:${port}`, protocol: 'http:', port: String(port) }, (...args) =>
      resolve({ error: args[0], socket: args[1] as net.Socket | null }),
    )
  })
}

describe('the connector: a slot per socket until it closes, a wait within the time limit', () => {
  it('refuses a connection that waited out its limit without opening it, then passes the freed slot on', async () => {
    const gateway = await holdingServer()
    const connector = createConnector({
      modules: { net, tls, dns },
      shared: new ClientTls(),
      addresses: new RecentAddresses(systemClock),
      maxSockets: 1,
      timeoutMs: 150,
    })
    const first = await connect(connector, gateway.port)
    expect(first.error).toBeNull()
    const waited = await connect(connector, gateway.port)
    expect(waited.error?.code).toBe('UND_ERR_CONNECT_TIMEOUT')
    expect(waited.socket).toBeNull()
    // The one that waited opened nothing: the gateway saw the first connection only.
    expect(gateway.accepted()).toBe(1)
    const next = connect(connector, gateway.port)
    first.socket?.destroy()
    const third = await next
    expect(third.error).toBeNull()
    expect(gateway.accepted()).toBe(2)
    third.socket?.destroy()
  })
})

describe("one TLS context per client, as Node's defaults are now", () => {
  it('is made once, and made again (its kept sessions dropped) when the application changes a default', async () => {
    const shared = new ClientTls()
    // As undici.ts loads it: an ES module namespace, whose named exports keep their first values.
    const namespace = await import('node:tls')
    const first = shared.context(namespace)
    expect(shared.context(namespace)).toBe(first)
    shared.keepSession('gateway.example:443', Buffer.from('a session'))
    // Where an application sets it: the module object (`import tls from 'node:tls'`, `require`).
    const live = (namespace as unknown as { default: { DEFAULT_MIN_VERSION: string } }).default
    const was = live.DEFAULT_MIN_VERSION
    live.DEFAULT_MIN_VERSION = 'TLSv1.3'
    try {
      const next = shared.context(namespace)
      expect(next).not.toBe(first)
      expect(shared.session('gateway.example:443')).toBeUndefined()
      expect(shared.context(namespace)).toBe(next)
    } finally {
      live.DEFAULT_MIN_VERSION = was
    }
  })
})
