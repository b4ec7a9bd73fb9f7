/**
 * Two instances of your callback endpoint behind one URL, sharing a RedisClaimStore: the gateway
 * delivers the same callback twenty times, concurrently and to both, and `onEvent` runs once (the
 * deliveries that come while it runs are answered 503, and acknowledged once it is done). A tampered
 * copy is refused with 400.
 *
 * Run: npx tsx examples/redis/callback-two-instances.ts
 * Env: PAYWIRE_REDIS_URL (else a throwaway redis-server when installed; else skipped)
 */
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { CardGateway } from '@paywire/card-gateway'
import { signCallback } from '@paywire/card-gateway/testing'
import { RedisClaimStore } from '@paywire/redis'
import { expectThat, runIfMain, show } from '../shared/run.js'
import { NO_REDIS, redisConnection } from './shared.js'

const PASSWORD = 'callback-example-password'

const count = (statuses: number[]) =>
  Object.fromEntries([...new Set(statuses)].map((s) => [s, statuses.filter((t) => t === s).length]))

export async function main(): Promise<void> {
  const redis = await redisConnection()
  if (!redis) return show(NO_REDIS)
  const gw = new CardGateway({
    checkoutUrl: 'https://checkout.example',
    s2sUrl: 'https://s2s.example',
    merchantKey: 'merchant-key',
    clientKey: 'client-key',
    password: PASSWORD,
  })
  const runs: string[] = []
  const keyPrefix = `example-${Date.now()}:` // one namespace for both instances: that is what they share
  const instances = await Promise.all(
    ['instance-a', 'instance-b'].map(async (name) => {
      const handler = gw.callbacks.handler({
        store: new RedisClaimStore({ client: await redis.connect(), keyPrefix }),
        onEvent: (event) => {
          runs.push(`${name}: ${event.type}/${event.status} for ${event.id}`)
        },
      })
      const server = createServer(handler.node)
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
      return { handler, server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/callbacks/card` }
    }),
  )
  try {
    const body = signCallback(
      {
        id: 'pay-77',
        order_number: 'order-77',
        order_amount: '10.00',
        order_currency: 'USD',
        order_description: 'Filters',
        order_status: 'settled',
        type: 'sale',
        status: 'success',
      },
      PASSWORD,
    )
    const deliver = (url: string, payload: string) =>
      fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: payload,
      }).then((r) => r.status)
    const url = (i: number) => (instances[i % 2] as (typeof instances)[number]).url
    const statuses = await Promise.all(Array.from({ length: 20 }, (_, i) => deliver(url(i), body)))
    await Promise.all(instances.map(({ handler }) => handler.drain()))
    // Deliveries that came while the first one ran were answered 503 in_progress: the gateway
    // delivers them again, and now that the event is done they are acknowledged with nothing run.
    const again = await Promise.all(statuses.map((status, i) => (status === 200 ? status : deliver(url(i), body))))
    await Promise.all(instances.map(({ handler }) => handler.drain()))
    show('20 deliveries answered (status → count) →', count(statuses))
    show('the 503s delivered again →', count(again.filter((_, i) => statuses[i] !== 200)))
    show('onEvent runs →', runs)
    expectThat(
      again.every((s) => s === 200) && runs.length === 1,
      'twenty deliveries, one onEvent, across two instances',
    )
    const tampered = await deliver(instances[0]?.url as string, body.replace('10.00', '1000.00'))
    expectThat(tampered === 400, 'a tampered copy is refused')
  } finally {
    for (const { server } of instances) server.close()
    await gw.close()
    await redis.close()
  }
}

runIfMain(import.meta.url, main)
