/**
 * The merchant side of bench/tls.ts, in a process of its own started with NODE_EXTRA_CA_CERTS: each
 * contender pays under fixed concurrency, interleaved in rounds with a rotating start, and each window
 * is reported with its gateway's count of handshakes (asked of the parent before and after it).
 */

import { CardGateway } from '@paywire/card-gateway'
import { Agent, request } from 'undici'
import { interleave, measureLoad } from './measure.js'
import { CREDENTIALS, checkoutPurchase, PURCHASE_PARAMS } from './requests.js'
import type { HandshakeCount, TlsContender, TlsPlan, TlsRoundReport } from './tls.js'

const CONTENDERS: readonly TlsContender[] = ['sdk', 'undici-reset', 'undici-keepalive']

/** The gateway's count since the last ask (the parent restarts it on each ask). */
function count(contender: TlsContender): Promise<HandshakeCount> {
  return new Promise((resolve) => {
    process.once('message', (message: { count: HandshakeCount }) => resolve(message.count))
    process.send?.({ ask: contender })
  })
}

/** A raw undici purchase: the same wire request, its JSON read, a non-2xx refused. */
function rawPurchase(url: string, dispatcher: Agent, reset: boolean): () => Promise<unknown> {
  return async () => {
    const req = checkoutPurchase(url)
    const res = await request(req.url, { method: req.method, headers: req.headers, body: req.body, dispatcher, reset })
    const text = await res.body.text()
    if (res.statusCode < 200 || res.statusCode >= 300) throw new Error(`HTTP ${res.statusCode}`)
    return JSON.parse(text)
  }
}

async function run(plan: TlsPlan): Promise<void> {
  const { merchantKey, clientKey, password } = CREDENTIALS
  for (const concurrency of plan.concurrencies) {
    const gw = new CardGateway({
      checkoutUrl: plan.urls.sdk,
      s2sUrl: plan.urls.sdk,
      merchantKey,
      clientKey,
      password,
      maxSockets: plan.maxSockets,
      timeout: 30_000,
    })
    const perPayment = new Agent({ pipelining: 0, connections: plan.maxSockets, keepAliveTimeout: 4_000 })
    const keptAlive = new Agent({ connections: plan.maxSockets, keepAliveTimeout: 4_000 })
    const calls: Record<TlsContender, () => Promise<unknown>> = {
      sdk: () => gw.checkout.purchase(PURCHASE_PARAMS),
      'undici-reset': rawPurchase(plan.urls['undici-reset'], perPayment, true),
      'undici-keepalive': rawPurchase(plan.urls['undici-keepalive'], keptAlive, false),
    }
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
    await gw.close()
    await perPayment.close()
    await keptAlive.close()
  }
}

process.once('message', (message: { plan: TlsPlan }) => {
  run(message.plan).then(
    () => process.exit(0),
    (error: unknown) => {
      console.error(error)
      process.exit(1)
    },
  )
})
process.send?.({ ready: true })
