/**
 * The merchant side of bench/tls.ts, in a process of its own started with NODE_EXTRA_CA_CERTS: each
 * contender pays under fixed concurrency, interleaved in rounds with a rotating start, and each window
 * is reported with its gateway's count of handshakes (asked of the parent before and after it). A
 * latency plan instead times calls one after another, through the parent's delaying proxies.
 */

import { CardGateway } from '@paywire/card-gateway'
import { Agent, request } from 'undici'
import { interleave, measureLoad } from './measure.js'
import { CREDENTIALS, checkoutPurchase, PURCHASE_PARAMS, S2S_PARAMS, s2sCapture, type WireRequest } from './requests.js'
import type {
  HandshakeCount,
  TlsContender,
  TlsLatencyPlan,
  TlsOperation,
  TlsPlan,
  TlsProtocol,
  TlsRoundReport,
} from './tls.js'

const CONTENDERS: readonly TlsContender[] = ['sdk', 'undici-reset', 'undici-keepalive']

/** The gateway's count since the last ask (the parent restarts it on each ask). */
function count(contender: TlsContender): Promise<HandshakeCount> {
  return new Promise((resolve) => {
    process.once('message', (message: { count: HandshakeCount }) => resolve(message.count))
    process.send?.({ ask: contender })
  })
}

/** A raw undici payment: the same wire request, its JSON read, a non-2xx refused. */
function rawPayment(build: (url: string) => WireRequest, url: string, dispatcher: Agent, reset: boolean) {
  return async (): Promise<unknown> => {
    const req = build(url)
    const res = await request(req.url, { method: req.method, headers: req.headers, body: req.body, dispatcher, reset })
    const text = await res.body.text()
    if (res.statusCode < 200 || res.statusCode >= 300) throw new Error(`HTTP ${res.statusCode}`)
    return JSON.parse(text)
  }
}

/** Each contender's call of `operation`, on its own gateway and pool; `close` ends them all. */
function contenders(
  operation: TlsOperation,
  protocol: TlsProtocol,
  urls: Record<TlsContender, string>,
  maxSockets: number,
) {
  const { merchantKey, clientKey, password } = CREDENTIALS
  const gw = new CardGateway({
    checkoutUrl: urls.sdk,
    s2sUrl: urls.sdk,
    merchantKey,
    clientKey,
    password,
    maxSockets,
    timeout: 30_000,
  })
  const perPayment = new Agent({ pipelining: 0, connections: maxSockets, keepAliveTimeout: 4_000 })
  // Raw undici kept alive, speaking HTTP/2 where the gateway offers it (`allowH2`).
  const keptAlive = new Agent({ connections: maxSockets, keepAliveTimeout: 4_000, allowH2: protocol === 'h2' })
  const build = operation === 'checkout purchase' ? checkoutPurchase : s2sCapture
  const sdk =
    operation === 'checkout purchase' ? () => gw.checkout.purchase(PURCHASE_PARAMS) : () => gw.s2s.capture(S2S_PARAMS)
  const calls: Record<TlsContender, () => Promise<unknown>> = {
    sdk,
    'undici-reset': rawPayment(build, urls['undici-reset'], perPayment, true),
    'undici-keepalive': rawPayment(build, urls['undici-keepalive'], keptAlive, false),
  }
  const close = () => Promise.all([gw.close(), perPayment.close(), keptAlive.close()])
  return { calls, close }
}

/** Each contender's median latency of one call after another (after a few to warm its connection). */
async function latency(plan: TlsLatencyPlan): Promise<Record<TlsContender, number>> {
  const { calls, close } = contenders(plan.operation, plan.protocol, plan.urls, 16)
  const medians = {} as Record<TlsContender, number>
  for (const name of CONTENDERS) {
    for (let i = 0; i < 3; i++) await calls[name]()
    const times: number[] = []
    for (let i = 0; i < plan.calls; i++) {
      const started = performance.now()
      await calls[name]()
      times.push(performance.now() - started)
    }
    times.sort((a, b) => a - b)
    medians[name] = times[Math.floor(times.length / 2)] as number
  }
  await close()
  return medians
}

async function run(plan: TlsPlan): Promise<void> {
  for (const concurrency of plan.concurrencies) {
    const { calls, close } = contenders(plan.operation, plan.protocol, plan.urls, plan.maxSockets)
    for (const name of CONTENDERS) {
      await measureLoad(calls[name], { concurrency, warmupMs: 0, durationMs: plan.warmupMs })
    }
    await interleave(CONTENDERS, plan.rounds, async (contender, round) => {
      let answered = 0
      const call = calls[contender]
      const counted = async () => {
        await call()
        answered++
      }
      await count(contender)
      const load = await measureLoad(counted, { concurrency, warmupMs: plan.warmupMs, durationMs: plan.durationMs })
      const gateway = await count(contender)
      const report: TlsRoundReport = {
        concurrency,
        round,
        contender,
        sample: {
          requests: load.requests,
          calls: answered,
          rps: load.rps,
          cpuUsPerRequest: load.cpuUsPerRequest,
          ...gateway,
        },
      }
      process.send?.({ report })
      return load
    })
    await close()
  }
}

process.once('message', (message: { plan?: TlsPlan; latency?: TlsLatencyPlan }) => {
  const work = message.latency
    ? latency(message.latency).then((medians) => void process.send?.({ medians }))
    : run(message.plan as TlsPlan)
  work.then(
    () => process.exit(0),
    (error: unknown) => {
      console.error(error)
      process.exit(1)
    },
  )
})
process.send?.({ ready: true })
