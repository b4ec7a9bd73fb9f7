/**
 * What a payment's own connection costs over TLS, where production has it. Every money-moving call
 * opens a connection of its own (a stale answer on a reused one could be read as its own), so each
 * payment is a TCP connect and a TLS handshake: this measures that path for real, a Checkout
 * purchase against a loopback HTTPS server, and judges the connection policy on it.
 *
 * The servers run in this (the parent) process, one per contender, and count handshakes, the resumed
 * ones and the most sockets open at once; the merchant runs in a child started with NODE_EXTRA_CA_CERTS naming the test
 * certificate (Node reads it at start only), so its CPU is its own. Contenders, interleaved in rounds
 * with a rotating start, each on its own pool:
 * - **sdk**: `gw.checkout.purchase` (its own connection per payment, `maxSockets` 16);
 * - **undici-reset**: raw `undici.request` with `reset: true` on an Agent with `pipelining: 0` and
 *   undici's own connector: the same connection per payment as the SDK sent before its connector
 *   (the baseline the CPU goal is measured against);
 * - **undici-keepalive**: raw undici on a kept-alive Agent: what a payment would cost if a reused
 *   connection were safe (reference only).
 */

import { readFileSync } from 'node:fs'
import { createServer, type Server } from 'node:https'
import type { TLSSocket } from 'node:tls'
import { fileURLToPath } from 'node:url'
import { answerOf } from './answers.js'
import { firstMessage, forkTs } from './child.js'
import { median } from './measure.js'
import { type Spread, spread } from './throughput.js'

export const TLS_CONTENDERS = ['sdk', 'undici-reset', 'undici-keepalive'] as const
export type TlsContender = (typeof TLS_CONTENDERS)[number]

/** The gateway's count over one window of one contender. */
export interface HandshakeCount {
  readonly handshakes: number
  readonly resumed: number
  readonly mostOpen: number
}

/** One window of one contender, as the child measured it and the server counted it. */
export interface TlsSample extends HandshakeCount {
  /** Calls answered in the counted window. */
  readonly requests: number
  /** Calls answered while the gateway counted (run-in and drain included): what handshakes are per. */
  readonly calls: number
  readonly rps: number
  readonly cpuUsPerRequest: number
}

export interface TlsContenderFigures {
  readonly rps: number
  readonly cpuUsPerRequest: number
  /** Resumed handshakes ÷ handshakes, over every round. */
  readonly resumedShare: number
  /** Handshakes per answered call, over every round. */
  readonly handshakesPerCall: number
  /** The most sockets open at once in any round. */
  readonly mostOpen: number
}

export interface TlsResult {
  readonly concurrency: number
  readonly maxSockets: number
  readonly contenders: Record<TlsContender, TlsContenderFigures>
  /** SDK CPU per payment ÷ undici-reset's, round by round. */
  readonly cpuVsReset: Spread
  /** SDK CPU per payment ÷ undici-keepalive's, round by round. */
  readonly cpuVsKeepAlive: Spread
}

export interface TlsSettings {
  readonly concurrencies: readonly number[]
  readonly rounds: number
  readonly warmupMs: number
  readonly durationMs: number
}

/** The client's request to the child: what to run. */
export interface TlsPlan extends TlsSettings {
  /** Each contender's own gateway. */
  readonly urls: Record<TlsContender, string>
  readonly maxSockets: number
}

/** What the child sends back per round and contender. */
export interface TlsRoundReport {
  readonly concurrency: number
  readonly round: number
  readonly contender: TlsContender
  readonly sample: TlsSample
}

const CERT_DIR = new URL('../tests/support/tls/', import.meta.url)
const MAX_SOCKETS = 16

export async function measureTls(settings: TlsSettings, log: (text: string) => void): Promise<TlsResult[]> {
  // A server per contender: one's idle or closing sockets are never counted as another's.
  const gateways = Object.fromEntries(
    await Promise.all(TLS_CONTENDERS.map(async (name) => [name, await startGateway()] as const)),
  ) as Record<TlsContender, Gateway>
  const child = forkTs(fileURLToPath(new URL('./tls-client.ts', import.meta.url)), [], [], {
    NODE_EXTRA_CA_CERTS: fileURLToPath(new URL('loopback-cert.pem', CERT_DIR)),
  })
  const reports: TlsRoundReport[] = []
  try {
    await firstMessage(child)
    const urls = Object.fromEntries(TLS_CONTENDERS.map((name) => [name, gateways[name].url])) as Record<
      TlsContender,
      string
    >
    const plan: TlsPlan = { ...settings, urls, maxSockets: MAX_SOCKETS }
    await new Promise<void>((resolve, reject) => {
      child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`tls client exited ${code}`))))
      child.on('message', (message: { ask?: TlsContender; report?: TlsRoundReport }) => {
        if (message.ask) {
          child.send({ count: gateways[message.ask].take() })
        } else if (message.report) {
          const { concurrency, round, contender, sample } = message.report
          reports.push(message.report)
          log(
            `  tls @${concurrency} round ${round + 1} ${contender.padEnd(16)} ${sample.rps.toFixed(0)} req/s ` +
              `${sample.cpuUsPerRequest.toFixed(0)} µs/req, ${sample.resumed}/${sample.handshakes} resumed, ` +
              `${sample.mostOpen} open at most`,
          )
        }
      })
      child.send({ plan })
    })
  } finally {
    if (child.exitCode === null) child.kill()
    await Promise.all(TLS_CONTENDERS.map((name) => gateways[name].stop()))
  }
  return settings.concurrencies.map((concurrency) => summarise(concurrency, reports))
}

/** A loopback HTTPS gateway answering like the bench server, counting what its clients open. */
interface Gateway {
  readonly url: string
  /** The count since the last take (the next window starts from here). */
  take(): HandshakeCount
  stop(): Promise<void>
}

async function startGateway(): Promise<Gateway> {
  const counter = { handshakes: 0, resumed: 0, open: 0, mostOpen: 0 }
  const server: Server = createServer(
    {
      key: readFileSync(new URL('loopback-key.pem', CERT_DIR)),
      cert: readFileSync(new URL('loopback-cert.pem', CERT_DIR)),
      keepAlive: true,
    },
    (req, res) => {
      const { status, body } = answerOf(req.method ?? 'GET', req.url ?? '/')
      req.on('end', () => {
        res.writeHead(status, { 'content-type': 'application/json', 'content-length': body.length })
        res.end(body)
      })
      req.resume()
    },
  )
  server.keepAliveTimeout = 65_000
  server.on('secureConnection', (socket: TLSSocket) => {
    counter.handshakes++
    if (socket.isSessionReused()) counter.resumed++
    counter.open++
    counter.mostOpen = Math.max(counter.mostOpen, counter.open)
    socket.once('close', () => counter.open--)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const address = server.address()
  if (address === null || typeof address === 'string') throw new Error('no TCP address')
  return {
    url: `https://127.0.0.1:${address.port}`,
    take() {
      const { handshakes, resumed, mostOpen } = counter
      counter.handshakes = 0
      counter.resumed = 0
      counter.mostOpen = counter.open
      return { handshakes, resumed, mostOpen }
    },
    stop() {
      server.closeAllConnections()
      return new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}

function summarise(concurrency: number, reports: readonly TlsRoundReport[]): TlsResult {
  const at = reports.filter((r) => r.concurrency === concurrency)
  const of = (contender: TlsContender) => at.filter((r) => r.contender === contender).map((r) => r.sample)
  const figures = (contender: TlsContender): TlsContenderFigures => {
    const samples = of(contender)
    const sum = (pick: (s: TlsSample) => number) => samples.reduce((total, s) => total + pick(s), 0)
    return {
      rps: median(samples.map((s) => s.rps)),
      cpuUsPerRequest: median(samples.map((s) => s.cpuUsPerRequest)),
      resumedShare:
        sum((s) => s.resumed) /
        Math.max(
          1,
          sum((s) => s.handshakes),
        ),
      handshakesPerCall:
        sum((s) => s.handshakes) /
        Math.max(
          1,
          sum((s) => s.calls),
        ),
      mostOpen: Math.max(...samples.map((s) => s.mostOpen)),
    }
  }
  const paired = (other: TlsContender) => {
    const sdk = of('sdk')
    const base = of(other)
    return spread(sdk.map((s, round) => s.cpuUsPerRequest / (base[round]?.cpuUsPerRequest ?? Number.NaN)))
  }
  return {
    concurrency,
    maxSockets: MAX_SOCKETS,
    contenders: {
      sdk: figures('sdk'),
      'undici-reset': figures('undici-reset'),
      'undici-keepalive': figures('undici-keepalive'),
    },
    cpuVsReset: paired('undici-reset'),
    cpuVsKeepAlive: paired('undici-keepalive'),
  }
}
