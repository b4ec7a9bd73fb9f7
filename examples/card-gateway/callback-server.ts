/**
 * Card gateway callbacks on plain node:http: read the raw body, verify its signature over the exact
 * received bytes (never a re-parsed object, rule Events 2), drop repeated deliveries, answer 2xx fast.
 *
 * Run: npx tsx examples/card-gateway/callback-server.ts
 * Env: PAYWIRE_CARD_* (see purchase-and-status.ts; else a local simulator signs a test callback)
 */
import { createServer, type IncomingMessage } from 'node:http'
import type { AddressInfo } from 'node:net'
import { CardGateway, dedupeKey, isFinal, SignatureVerificationError } from '@paywire/card-gateway'
import { cardGatewayConnection } from '../shared/connect.js'
import { expectThat, runIfMain, show } from '../shared/run.js'

async function rawBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = []
  for await (const chunk of req) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks)
}

export async function main(): Promise<void> {
  const connection = await cardGatewayConnection()
  const gw = new CardGateway(connection.options)
  const seen = new Set<string>() // use your database in production: deliveries repeat

  const server = createServer(async (req, res) => {
    try {
      const event = gw.callbacks.verify(await rawBody(req))
      if (seen.has(dedupeKey(event))) return res.writeHead(200).end('OK') // already handled
      seen.add(dedupeKey(event))
      show(`callback ${event.type}/${event.status} for payment ${event.id}; final: ${isFinal(event)}`)
      res.writeHead(200, { 'content-type': 'text/plain' }).end('OK')
    } catch (error) {
      if (!(error instanceof SignatureVerificationError)) throw error
      show(`rejected callback: ${error.reason}`)
      res.writeHead(400).end()
    }
  })
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
      expectThat((await post(body)) === 200, 'a repeated delivery is acknowledged once more')
      expectThat((await post(body.replace('49.90', '4990.00'))) === 400, 'a tampered callback is rejected')
    } else {
      show('configure this URL (made public) in the gateway admin panel; press Ctrl+C to stop')
      await new Promise(() => {})
    }
  } finally {
    server.close()
    await gw.close()
    await connection.close()
  }
}

runIfMain(import.meta.url, main)
