/**
 * Card gateway callbacks on plain node:http with the inbox, `gw.callbacks.handler()`: it reads the raw
 * body, verifies it over the exact received bytes (rule Events 2), records the event, answers OK at
 * once, drops repeated deliveries and runs onEvent from the record once per event (a shared store,
 * PostgreSQL or Redis, makes that hold across instances and across a crash).
 *
 * Run: npx tsx examples/card-gateway/callback-server.ts
 * Env: PAYWIRE_CARD_* (see purchase-and-status.ts; else a local simulator signs a test callback)
 */
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { CardGateway, isFinal, MemoryClaimStore } from '@paywire/card-gateway'
import { cardGatewayConnection } from '../shared/connect.js'
import { expectThat, runIfMain, show } from '../shared/run.js'

export async function main(): Promise<void> {
  const connection = await cardGatewayConnection()
  const gw = new CardGateway(connection.options)
  let runs = 0
  const handler = gw.callbacks.handler({
    // One process that may lose what a crash interrupts (it warns so). In production: PostgresClaimStore
    // (@paywire/postgres) or RedisClaimStore (@paywire/redis), shared by every instance.
    store: new MemoryClaimStore(),
    onEvent: (event) => {
      runs++
      show(`onEvent: ${event.type}/${event.status} for payment ${event.id}; final: ${isFinal(event)}`)
    },
  })
  const server = createServer(handler.node)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/callbacks/card`
  show('listening for callbacks on', url)

  try {
    if (connection.simulator) {
      // Stand-in for the gateway: deliver a signed callback, a repeat of it, and a tampered copy.
      const body = connection.simulator.signCallback({
        id: 'pay-1',
        order_number: 'order-1001',
        order_amount: '49.90',
        order_currency: 'USD',
        order_description: 'Coffee grinder',
        order_status: 'settled',
        type: 'sale',
        status: 'success',
      })
      const post = (payload: string) =>
        fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: payload,
        }).then((r) => r.status)
      expectThat((await post(body)) === 200, 'a correctly signed callback is accepted')
      expectThat((await post(body)) === 200, 'a repeated delivery is acknowledged once more: it is recorded')
      expectThat((await post(body.replace('49.90', '4990.00'))) === 400, 'a tampered callback is rejected')
      await handler.drain()
      show('onEvent runs for 3 deliveries →', runs)
      expectThat(runs === 1, 'onEvent ran once: the repeat was dropped, the tampered copy refused')
    } else {
      show('configure this URL (made public) in the gateway admin panel; press Ctrl+C to stop')
      await new Promise(() => {})
    }
  } finally {
    server.close()
    await handler.close() // stops the recovery interval, waits for runs in progress
    await gw.close()
    await connection.close()
  }
}

runIfMain(import.meta.url, main)
