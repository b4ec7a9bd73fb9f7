/**
 * What a payment's own connection costs over TLS, from the gateway's side: a TLS server on loopback
 * counts the handshakes a merchant process makes, how many resumed a session, and how many sockets
 * were open at once. A money-moving call opens a connection of its own (a stale answer on a reused
 * one could be read as its own), so each payment is a handshake: it must be an abbreviated one, and
 * the client's socket cap must hold while sockets close. A stalled handshake ends by the call's
 * deadline and gives its slot back.
 *
 * The merchant runs in a process of its own started with NODE_EXTRA_CA_CERTS (Node reads it at start
 * only), naming the test certificate in tests/support/tls: a self-signed certificate for 127.0.0.1,
 * made for these tests and trusted nowhere else.
 */

import { once } from 'node:events'
import { readFileSync } from 'node:fs'
import { createServer as createHttpsServer, type Server } from 'node:https'
import { type AddressInfo, createServer as createNetServer, type Socket } from 'node:net'
import { dirname, join } from 'node:path'
import type { TLSSocket } from 'node:tls'
import { fileURLToPath } from 'node:url'
import { ConnectionError, TimeoutError } from '@paywire/core'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { type FixturePackage, killFixtures, TEST_CERT, TEST_KEY } from '../../../tests/support/fixture-process.js'
import { CardGateway } from '../src/index.js'
import { listenOnLoopback, runPayingMerchant } from './paying-merchant.js'

const here = dirname(fileURLToPath(import.meta.url))
const CERT = TEST_CERT
// undici stays outside the bundle, as in a merchant's node_modules: bundled into ESM, its own
// require() calls fail and the client would send with the runtime's fetch instead.
const fixtures: FixturePackage = { packageDir: join(here, '..'), external: ['undici'] }

const PURCHASE_ANSWER = Buffer.from(JSON.stringify({ redirect_url: 'https://pay.example/s/1' }))
const STATUS_ANSWER = Buffer.from(
  JSON.stringify({
    action: 'GET_TRANS_STATUS',
    result: 'SUCCESS',
    status: 'SETTLED',
    order_id: 'o-1',
    trans_id: 't-1',
  }),
)

/** What the gateway saw since the last `take()`. */
interface Seen {
  handshakes: number
  resumed: number
  /** The most sockets open at one time. */
  mostOpen: number
}

let server: Server
let url: string
let open = 0
let seen: Seen = { handshakes: 0, resumed: 0, mostOpen: 0 }

function take(): Seen {
  const was = seen
  seen = { handshakes: 0, resumed: 0, mostOpen: open }
  return was
}

beforeAll(async () => {
  server = createHttpsServer({ key: readFileSync(TEST_KEY), cert: readFileSync(CERT), keepAlive: true }, (req, res) => {
    const body = req.url === '/post' ? STATUS_ANSWER : PURCHASE_ANSWER
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length })
      res.end(body)
    })
    req.resume()
  })
  server.keepAliveTimeout = 65_000
  server.on('secureConnection', (socket: TLSSocket) => {
    seen.handshakes++
    if (socket.isSessionReused()) seen.resumed++
    open++
    seen.mostOpen = Math.max(seen.mostOpen, open)
    socket.once('close', () => open--)
  })
  url = await listenOnLoopback(server, 'https')
})

afterAll(async () => {
  server.closeAllConnections()
  await new Promise<void>((resolve) => server.close(() => resolve()))
})

afterEach(() => killFixtures())

/** Runs the merchant process to its end over TLS, trusting the test certificate. */
async function merchant(
  kind: 'purchase' | 'status',
  inflight: number,
  total: number,
  maxSockets: number,
): Promise<{ answered: number; failures: string[] }> {
  const { answered, failures } = await runPayingMerchant(
    fixtures,
    { url, kind, inflight, total, maxSockets },
    { NODE_EXTRA_CA_CERTS: CERT },
  )
  return { answered, failures }
}

describe('payments over TLS: a connection of its own each, resumed and capped', () => {
  it.each([
    [1, 60],
    [16, 200],
  ])(
    '%i payments in flight: every handshake after the first ones resumes the session (%i payments)',
    async (inflight, total) => {
      take()
      const run = await merchant('purchase', inflight, total, 16)
      expect(run).toEqual({ answered: total, failures: [] })
      const gateway = take()
      // One connection per payment, as the policy says; only the first wave (one per socket opened
      // before any session existed) is a full handshake.
      expect(gateway.handshakes).toBe(total)
      expect(gateway.resumed).toBeGreaterThanOrEqual(total - inflight)
    },
  )

  it('64 payments in flight with maxSockets 4: never more than 4 sockets open at the gateway, while each closes', async () => {
    take()
    const run = await merchant('purchase', 64, 256, 4)
    expect(run).toEqual({ answered: 256, failures: [] })
    const gateway = take()
    expect(gateway.handshakes).toBe(256)
    expect(gateway.mostOpen).toBeLessThanOrEqual(4)
    expect(gateway.resumed).toBeGreaterThanOrEqual(256 - 4)
  })

  it('lookups keep their kept-alive connections: 200 lookups at 16 in flight open at most 16', async () => {
    take()
    const run = await merchant('status', 16, 200, 16)
    expect(run).toEqual({ answered: 200, failures: [] })
    const gateway = take()
    expect(gateway.handshakes).toBeLessThanOrEqual(16)
    expect(gateway.mostOpen).toBeLessThanOrEqual(16)
  })
})

/** A gateway on `host` presenting the test certificate (which names 127.0.0.1 and localhost only); counts what reached it. */
async function gatewayOn(host: string): Promise<{ url: string; requests: () => number; close: () => Promise<void> }> {
  let requests = 0
  const gateway = createHttpsServer({ key: readFileSync(TEST_KEY), cert: readFileSync(CERT) }, (req, res) => {
    requests++
    req.resume()
    res.writeHead(200, { 'content-type': 'application/json' }).end(STATUS_ANSWER)
  })
  await new Promise<void>((resolve) => gateway.listen(0, host, resolve))
  const { port } = gateway.address() as AddressInfo
  return {
    url: `https://${host}:${port}`,
    requests: () => requests,
    close: async () => {
      gateway.closeAllConnections()
      await new Promise<void>((resolve) => gateway.close(() => resolve()))
    },
  }
}

describe("the gateway's certificate is checked on every connection, though one TLS context is shared", () => {
  it('a process that does not trust the certificate sends nothing: each call fails unsent, as a connection error', async () => {
    const gateway = await gatewayOn('127.0.0.1')
    // This test process does not trust the test certificate (no NODE_EXTRA_CA_CERTS here).
    const gw = new CardGateway({
      checkoutUrl: gateway.url,
      s2sUrl: gateway.url,
      merchantKey: 'tls-merchant',
      clientKey: 'tls-client',
      password: 'tls-password',
      maxRetries: 0,
    })
    try {
      const calls = [
        () => gw.s2s.getTransStatus({ trans_id: 't-1' }),
        () =>
          gw.checkout.purchase({
            order: { number: 'untrusted-1', amount: '1.00', currency: 'USD', description: 'Untrusted' },
            success_url: 'https://shop.example/ok',
            cancel_url: 'https://shop.example/cancel',
          }),
        () => gw.s2s.getTransStatus({ trans_id: 't-1' }),
      ]
      for (const call of calls) {
        const error = await call().catch((caught: unknown) => caught)
        expect(error).toBeInstanceOf(ConnectionError)
        expect(error).toMatchObject({ requestSent: false, outcomeUnknown: false })
        expect(String((error as Error).message)).toMatch(
          /connection failed \(DEPTH_ZERO_SELF_SIGNED_CERT\)\. The request was not sent/,
        )
      }
      expect(gateway.requests()).toBe(0)
    } finally {
      await gw.close()
      await gateway.close()
    }
  })

  it('one client, two origins: after paying a trusted one, a certificate that does not name the other is refused there', async () => {
    // The same server's certificate, served on 127.0.0.2, which it does not name: the one shared
    // context and the session kept for 127.0.0.1 must not carry trust over to it.
    const elsewhere = await gatewayOn('127.0.0.2')
    try {
      take()
      const run = await runPayingMerchant(
        fixtures,
        { url, s2sUrl: elsewhere.url, kind: 'alternate', inflight: 1, total: 6, maxSockets: 4 },
        { NODE_EXTRA_CA_CERTS: CERT },
      )
      // Purchases at 127.0.0.1 are answered (resumed after the first), lookups at 127.0.0.2 refused unsent.
      expect(run).toMatchObject({ answered: 3, failed: 3 })
      for (const failure of run.failures) {
        expect(failure).toMatch(
          /^ConnectionError .* requestSent=false: .*connection failed \(ERR_TLS_CERT_ALTNAME_INVALID\)/,
        )
      }
      expect(elsewhere.requests()).toBe(0)
      const gateway = take()
      expect(gateway.handshakes).toBe(3)
      expect(gateway.resumed).toBe(2)
    } finally {
      await elsewhere.close()
    }
  })
})

describe('a gateway that never finishes the TLS handshake', () => {
  it('ends each payment by its deadline as not sent, and closes the stalled socket', async () => {
    const stalled = new Set<Socket>()
    // Reads the ClientHello and answers nothing; reading is what lets it see the client's close.
    const silent = createNetServer((socket) => {
      stalled.add(socket)
      socket.on('error', () => {})
      socket.resume()
    })
    const stalledUrl = await listenOnLoopback(silent, 'https')
    const gw = new CardGateway({
      checkoutUrl: stalledUrl,
      s2sUrl: stalledUrl,
      merchantKey: 'tls-merchant',
      clientKey: 'tls-client',
      password: 'tls-password',
      maxSockets: 1,
      timeout: 300,
      maxRetries: 0,
    })
    try {
      for (const n of [1, 2]) {
        const error = await gw.checkout
          .purchase({
            order: { number: `stalled-${n}`, amount: '1.00', currency: 'USD', description: 'Stalled' },
            success_url: 'https://shop.example/ok',
            cancel_url: 'https://shop.example/cancel',
          })
          .catch((caught: unknown) => caught)
        expect(error).toBeInstanceOf(TimeoutError)
        expect(error).toMatchObject({ phase: 'connect', requestSent: false, outcomeUnknown: false })
      }
      // The stalled sockets are the client's to close: each is destroyed at its connect timeout, so
      // its slot comes back (a call queued behind a connecting socket fails with it, unsent).
      await Promise.all([...stalled].map((socket) => (socket.closed ? undefined : once(socket, 'close'))))
      expect(stalled.size).toBeGreaterThanOrEqual(1)
    } finally {
      await gw.close()
      for (const socket of stalled) socket.destroy()
      await new Promise<void>((resolve) => silent.close(() => resolve()))
    }
  })
})
