/**
 * A crash between sending a capture and reading its answer, and the restart that settles it: a child
 * process captures with the intent journal on Redis and is killed (SIGKILL) once the gateway has
 * booked the capture; the next process finds the open intent and `reconcileAll()` proves it applied,
 * with one lookup and no second capture.
 *
 * Run: npx tsx examples/redis/crash-and-reconcile.ts
 * Env: PAYWIRE_REDIS_URL (else a throwaway redis-server when installed; else skipped); the card gateway is the local simulator
 */
import { spawn } from 'node:child_process'
import { createServer, type IncomingMessage } from 'node:http'
import type { AddressInfo } from 'node:net'
import { fileURLToPath } from 'node:url'
import { CardGateway, type CardGatewayOptions } from '@paywire/card-gateway'
import { startCardGatewaySimulator, TEST_CARDS } from '@paywire/card-gateway/testing'
import { type RedisClient, RedisIntentStore } from '@paywire/redis'
import { createClient } from 'redis'
import { expectThat, runIfMain, show } from '../shared/run.js'
import { NO_REDIS, redisConnection } from './shared.js'

/** The process that crashes: captures through the journal, and never gets the answer. */
async function child([url, keyPrefix, options, trans_id]: string[]): Promise<void> {
  const client = createClient({ url })
  await client.connect()
  const gw = new CardGateway({
    ...(JSON.parse(options as string) as CardGatewayOptions),
    // node-redis's full client type is wider than the commands the store declares it uses.
    journal: new RedisIntentStore({ client: client as unknown as RedisClient, keyPrefix: keyPrefix as string }),
  })
  await gw.s2s.capture({ trans_id: trans_id as string })
}

async function bodyOf(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = []
  for await (const chunk of req) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks)
}

export async function main(): Promise<void> {
  const redis = await redisConnection()
  if (!redis) return show(NO_REDIS)
  const sim = await startCardGatewaySimulator()
  // The path to the gateway: it delivers the request and loses the answer until the crash is over,
  // then works again for the restarted process.
  let networkBack = false
  const proxy = createServer((req, res) => {
    void bodyOf(req).then(async (body) => {
      const answer = await fetch(`${sim.url}${req.url}`, {
        method: 'POST',
        headers: { 'content-type': String(req.headers['content-type']) },
        body,
      })
      if (!networkBack) return
      res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' })
      res.end(await answer.text())
    })
  })
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve))
  const proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`
  const keyPrefix = `crash-example-${Date.now()}:`
  // The merchant's configuration, the same in the crashed process and in the restart.
  const gw = new CardGateway({
    ...sim.clientOptions,
    s2sUrl: proxyUrl,
    journal: new RedisIntentStore({ client: await redis.connect(), keyPrefix }),
  })
  try {
    await gw.checkout.purchase({
      order: { number: 'order-crash', amount: '25.00', currency: 'USD', description: 'Espresso machine' },
      success_url: 'https://shop.example/ok',
      cancel_url: 'https://shop.example/cancel',
    })
    const { trans_id } = sim.simulator.pay('order-crash', { card: TEST_CARDS.number, expiry: TEST_CARDS.success })

    const options = JSON.stringify({ ...sim.clientOptions, s2sUrl: proxyUrl })
    const crashing = spawn(
      process.execPath,
      ['--import', 'tsx', fileURLToPath(import.meta.url), '--child', redis.url, keyPrefix, options, trans_id],
      { stdio: 'ignore' },
    )
    const captured = () => sim.simulator.ledger.filter((e) => e.kind === 'capture').length
    const deadline = Date.now() + 20_000
    while (captured() === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20))
    crashing.kill('SIGKILL')
    await new Promise((resolve) => crashing.once('exit', resolve))
    show('the gateway booked the capture; the process was killed before the answer →', { captures: captured() })

    // The restart: the same journal and configuration, a new process; the network is back.
    networkBack = true
    const open = await gw.pendingIntents()
    show(
      'pendingIntents() →',
      open.map((i) => `${i.operation} ${i.reconciliation?.key}=${i.reconciliation?.value}`),
    )
    const settled = await gw.reconcileAll()
    show(
      'reconcileAll() →',
      settled.map(({ intent, result }) => `${intent.operation}: ${result.outcome} (${result.evidence})`),
    )
    expectThat(
      settled.length === 1 && settled[0]?.result.outcome === 'applied' && captured() === 1,
      'the crashed capture is found and proven applied, and nothing is captured twice',
    )
    expectThat((await gw.pendingIntents()).length === 0, 'no intent left open')
  } finally {
    proxy.closeAllConnections()
    proxy.close()
    await gw.close()
    await sim.close()
    await redis.close()
  }
}

if (process.argv.includes('--child')) await child(process.argv.slice(process.argv.indexOf('--child') + 1))
else runIfMain(import.meta.url, main)
