/**
 * Two instances of your callback endpoint behind one URL, sharing a RedisClaimStore: the gateway
 * delivers the same callback twenty times, concurrently and to both, every delivery is acknowledged
 * (the event is recorded once) and `onEvent` runs once. Then a callback whose `onEvent` fails on
 * instance A, acknowledged and never delivered again (as the platform does after a 2xx), is run
 * from its record by instance B's recovery. A tampered copy is refused with 400.
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
  let databaseDown = false
  const instances = await Promise.all(
    ['instance-a', 'instance-b'].map(async (name) => {
      const handler = gw.callbacks.handler({
        store: new RedisClaimStore({ client: await redis.connect(), keyPrefix }),
        retryBackoff: { baseDelayMs: 100 }, // a failed run is due again after about 0.1 s (default 1 s)
        onEvent: (event) => {
          if (databaseDown) throw new Error(`${name}: the database is down`)
          runs.push(`${name}: ${event.type}/${event.status} for ${event.id}`)
        },
        onError: (error) => show('onError →', (error as Error).message),
      })
      const server = createServer(handler.node)
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
      return { handler, server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/callbacks/card` }
    }),
  )
  try {
    const fields = {
      id: 'pay-77',
      order_number: 'order-77',
      order_amount: '10.00',
      order_currency: 'USD',
      order_description: 'Filters',
      order_status: 'settled',
      type: 'sale',
      status: 'success',
    }
    const body = signCallback(fields, PASSWORD)
    const deliver = (url: string, payload: string) =>
      fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: payload,
      }).then((r) => r.status)
    const url = (i: number) => (instances[i % 2] as (typeof instances)[number]).url
    const statuses = await Promise.all(Array.from({ length: 20 }, (_, i) => deliver(url(i), body)))
    await Promise.all(instances.map(({ handler }) => handler.drain()))
    // Each delivery finds the event recorded (by itself or the other instance): all acknowledged.
    show('20 deliveries answered (status → count) →', count(statuses))
    show('onEvent runs →', runs)
    expectThat(
      statuses.every((s) => s === 200) && runs.length === 1,
      'twenty deliveries, one onEvent, across two instances',
    )

    // Instance A acknowledges a second payment's callback, and its onEvent fails. The gateway has its
    // 200 and never delivers it again: the record is what runs it, on whichever instance recovers.
    const signedSecond = signCallback({ ...fields, id: 'pay-78', order_number: 'order-78' }, PASSWORD)
    databaseDown = true
    expectThat((await deliver(instances[0]?.url as string, signedSecond)) === 200, 'acknowledged by instance A')
    await instances[0]?.handler.drain()
    databaseDown = false
    await new Promise((resolve) => setTimeout(resolve, 200)) // its retry time comes
    const recovered = await (instances[1] as (typeof instances)[number]).handler.recover()
    show('instance B recovered from the record →', `${recovered} event; onEvent runs: ${runs.join(', ')}`)
    expectThat(runs.at(-1) === 'instance-b: sale/success for pay-78', 'run from the record by the other instance')
    const tampered = await deliver(instances[0]?.url as string, body.replace('10.00', '1000.00'))
    expectThat(tampered === 400, 'a tampered copy is refused')
  } finally {
    for (const { server, handler } of instances) {
      server.close()
      await handler.close()
    }
    await gw.close()
    await redis.close()
  }
}

runIfMain(import.meta.url, main)
