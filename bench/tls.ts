/**
 * What a payment's connection costs over TLS, where production has it, per connection policy:
 * - **checkout purchase**: a connection of its own per payment (a stale answer on a reused one could
 *   be read as its own): a TCP connect and a TLS handshake each, resumed and capped;
 * - **s2s capture**: a kept-alive connection (its answer is bound and its repeat refused by state):
 *   judged against raw keep-alive undici, with the connection per call it paid before as reference.
 * Both run for real against a loopback HTTPS server. `measureTlsLatency` adds round-trip time with a
 * delaying proxy and compares a capture's latency with raw keep-alive undici's.
 *
 * The gateways are addressed by name (`localhost`), so each contender pays its client's lookups.
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
import type { IncomingMessage, ServerResponse } from 'node:http'
import { createSecureServer, type Http2ServerRequest, type Http2ServerResponse } from 'node:http2'
import { createServer } from 'node:https'
import { type AddressInfo, connect, createServer as createNetServer, type Socket } from 'node:net'
import type { TLSSocket } from 'node:tls'
import { fileURLToPath } from 'node:url'
import { answerOf } from './answers.js'
import { firstMessage, forkTs } from './child.js'
import { median } from './measure.js'
import { type Spread, spread } from './throughput.js'

export const TLS_CONTENDERS = ['sdk', 'undici-reset', 'undici-keepalive'] as const

/**
 * The gateways' host name, as a merchant configures a gateway: by name, so each contender's client
 * looks it up as it would in production (Node, for every connection it opens; the SDK, once per 10 s
 * since issue 39), from `/etc/hosts` here, where production may go to a DNS server. The servers
 * listen on 127.0.0.1; where `localhost` names `::1` first, each connection tries that first, on
 * every side alike. The test certificate names it.
 */
const GATEWAY_HOST = 'localhost'
export type TlsContender = (typeof TLS_CONTENDERS)[number]
/** The payment measured: one on a connection of its own, one kept alive. */
export type TlsOperation = 'checkout purchase' | 's2s capture'
/**
 * What the gateways speak: HTTP/1.1 only, or HTTP/2 offered in the handshake (HTTP/1.1 still
 * served to a client that does not ask for it, such as undici's own connector without `allowH2`).
 */
export type TlsProtocol = 'http/1.1' | 'h2'

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
  readonly operation: TlsOperation
  readonly protocol: TlsProtocol
  readonly concurrency: number
  readonly maxSockets: number
  readonly contenders: Record<TlsContender, TlsContenderFigures>
  /** SDK CPU per payment ÷ undici-reset's, round by round. */
  readonly cpuVsReset: Spread
  /** SDK CPU per payment ÷ undici-keepalive's, round by round. */
  readonly cpuVsKeepAlive: Spread
}

export interface TlsSettings {
  readonly operation: TlsOperation
  readonly protocol: TlsProtocol
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

/** The child's latency run: sequential calls of `operation`, each contender through its own proxy. */
export interface TlsLatencyPlan {
  readonly operation: TlsOperation
  readonly protocol: TlsProtocol
  readonly urls: Record<TlsContender, string>
  readonly calls: number
}

/** One added round-trip time: each contender's median latency, and the SDK's excess over keep-alive in RTTs. */
export interface TlsLatencyResult {
  readonly operation: TlsOperation
  readonly protocol: TlsProtocol
  readonly rttMs: number
  readonly medianMs: Record<TlsContender, number>
  /** (SDK − raw keep-alive undici) ÷ the added RTT: 0 is keep-alive's latency, 2 a new TCP+TLS connection's. */
  readonly sdkExcessRtt: number
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
    await Promise.all(TLS_CONTENDERS.map(async (name) => [name, await startGateway(settings.protocol)] as const)),
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
  return settings.concurrencies.map((concurrency) => summarise(settings, concurrency, reports))
}

/**
 * The latency of one call after another with `rttMs` of round-trip time added by a proxy in front of
 * each contender's gateway (half each way, per chunk, order kept): a new connection pays it for TCP
 * and again for TLS, a kept-alive one only for the request.
 */
export async function measureTlsLatency(
  operation: TlsOperation,
  protocol: TlsProtocol,
  rtts: readonly number[],
  calls: number,
  log: (text: string) => void,
): Promise<TlsLatencyResult[]> {
  const results: TlsLatencyResult[] = []
  for (const rttMs of rtts) {
    const gateways = await Promise.all(TLS_CONTENDERS.map(() => startGateway(protocol)))
    const proxies = await Promise.all(gateways.map((g) => startDelayProxy(g.url, rttMs / 2)))
    const urls = Object.fromEntries(TLS_CONTENDERS.map((name, i) => [name, proxies[i]?.url])) as Record<
      TlsContender,
      string
    >
    const child = forkTs(fileURLToPath(new URL('./tls-client.ts', import.meta.url)), [], [], {
      NODE_EXTRA_CA_CERTS: fileURLToPath(new URL('loopback-cert.pem', CERT_DIR)),
    })
    try {
      await firstMessage(child)
      const plan: TlsLatencyPlan = { operation, protocol, urls, calls }
      const medianMs = await new Promise<Record<TlsContender, number>>((resolve, reject) => {
        child.once('exit', (code) => code !== 0 && reject(new Error(`tls client exited ${code}`)))
        child.on('message', (message: { medians?: Record<TlsContender, number> }) => {
          if (message.medians) resolve(message.medians)
        })
        child.send({ latency: plan })
      })
      const sdkExcessRtt = (medianMs.sdk - medianMs['undici-keepalive']) / rttMs
      log(
        `  ${operation} (${protocol}) +${rttMs} ms RTT: ` +
          TLS_CONTENDERS.map((name) => `${name} ${medianMs[name].toFixed(1)} ms`).join(', ') +
          ` (SDK − keep-alive: ${sdkExcessRtt.toFixed(2)} RTT)`,
      )
      results.push({ operation, protocol, rttMs, medianMs, sdkExcessRtt })
    } finally {
      if (child.exitCode === null) child.kill()
      await Promise.all([...proxies.map((p) => p.stop()), ...gateways.map((g) => g.stop())])
    }
  }
  return results
}

/** A TCP proxy to `target` that holds every chunk `delayMs` in each direction. */
async function startDelayProxy(target: string, delayMs: number): Promise<{ url: string; stop(): Promise<void> }> {
  const { port } = new URL(target)
  const sockets = new Set<Socket>()
  const server = createNetServer((client) => {
    const upstream = connect(Number(port), '127.0.0.1')
    for (const socket of [client, upstream]) {
      // Each chunk forwarded as it comes: Nagle's algorithm here would hold a second small write
      // (HTTP/2 writes a request's HEADERS and DATA frames apart) for the peer's delayed ACK, ~40 ms
      // that no network on the way to a gateway adds.
      socket.setNoDelay(true)
      sockets.add(socket)
      socket.on('error', () => {})
      socket.on('close', () => sockets.delete(socket))
    }
    const relay = (from: Socket, to: Socket) => {
      from.on('data', (chunk: Buffer) => setTimeout(() => to.destroyed || to.write(chunk), delayMs))
      from.on('end', () => setTimeout(() => to.end(), delayMs))
      from.on('close', () => setTimeout(() => to.destroy(), delayMs))
    }
    relay(client, upstream)
    relay(upstream, client)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const address = server.address() as AddressInfo
  return {
    url: `https://${GATEWAY_HOST}:${address.port}`,
    stop: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy()
        server.close(() => resolve())
      }),
  }
}

/** A loopback HTTPS gateway answering like the bench server, counting what its clients open. */
interface Gateway {
  readonly url: string
  /** The count since the last take (the next window starts from here). */
  take(): HandshakeCount
  stop(): Promise<void>
}

async function startGateway(protocol: TlsProtocol): Promise<Gateway> {
  const counter = { handshakes: 0, resumed: 0, open: 0, mostOpen: 0 }
  const key = readFileSync(new URL('loopback-key.pem', CERT_DIR))
  const cert = readFileSync(new URL('loopback-cert.pem', CERT_DIR))
  const answer = (req: IncomingMessage | Http2ServerRequest, res: ServerResponse | Http2ServerResponse) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      const { status, body } = answerOf(req.method ?? 'GET', req.url ?? '/', Buffer.concat(chunks).toString())
      res.writeHead(status, { 'content-type': 'application/json', 'content-length': body.length })
      res.end(body)
    })
  }
  const server =
    protocol === 'h2'
      ? createSecureServer({ key, cert, allowHTTP1: true }, answer)
      : createServer({ key, cert, keepAlive: true }, answer)
  const sockets = new Set<Socket>()
  server.on('connection', (socket: Socket) => {
    sockets.add(socket)
    socket.once('close', () => sockets.delete(socket))
  })
  if ('keepAliveTimeout' in server) server.keepAliveTimeout = 65_000
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
    url: `https://${GATEWAY_HOST}:${address.port}`,
    take() {
      const { handshakes, resumed, mostOpen } = counter
      counter.handshakes = 0
      counter.resumed = 0
      counter.mostOpen = counter.open
      return { handshakes, resumed, mostOpen }
    },
    stop() {
      for (const socket of sockets) socket.destroy()
      return new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}

function summarise(settings: TlsSettings, concurrency: number, reports: readonly TlsRoundReport[]): TlsResult {
  const { operation, protocol } = settings
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
    operation,
    protocol,
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
