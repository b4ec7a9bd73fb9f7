/**
 * Card gateway callbacks in Express: mount `express.raw()` on the callback route so the handler gets
 * the body as a Buffer, exactly as received. A global `express.urlencoded()` would hand you a parsed
 * object, and `gw.callbacks.verify()` refuses those: the signature covers the raw strings.
 *
 * Run: npx tsx examples/card-gateway/callback-express.ts
 * Env: PAYWIRE_CARD_* (see purchase-and-status.ts; else a local simulator signs a test callback)
 */
import type { AddressInfo } from 'node:net'
import { CardGateway, dedupeKey, SignatureVerificationError } from '@paywire/card-gateway'
import express from 'express'
import { cardGatewayConnection } from '../shared/connect.js'
import { expectThat, runIfMain, show } from '../shared/run.js'

export async function main(): Promise<void> {
  const connection = await cardGatewayConnection()
  const gw = new CardGateway(connection.options)
  const seen = new Set<string>()

  const app = express()
  app.post('/callbacks/card', express.raw({ type: '*/*', limit: '64kb' }), (req, res) => {
    try {
      const event = gw.callbacks.verify(req.body as Buffer)
      if (!seen.has(dedupeKey(event))) {
        seen.add(dedupeKey(event))
        show(`express: callback ${event.type}/${event.status} for ${event.order_number}`)
      }
      res.type('text/plain').send('OK')
    } catch (error) {
      if (!(error instanceof SignatureVerificationError)) throw error
      res.status(400).type('text/plain').send(error.reason) // never echo the body or the hash
    }
  })
  const server = app.listen(0, '127.0.0.1')
  await new Promise<void>((resolve) => server.once('listening', () => resolve()))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/callbacks/card`

  try {
    if (connection.simulator) {
      const body = connection.simulator.signCallback({
        id: 'pay-2',
        order_number: 'order-1002',
        order_amount: '10.00',
        order_currency: 'USD',
        order_description: 'Filters',
        order_status: 'settled',
        type: 'sale',
        status: 'success',
      })
      const status = await fetch(url, {
        method: 'POST',
        body,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      }).then((r) => r.status)
      expectThat(status === 200, 'express verifies the raw body')

      // A POST with no body: express.raw leaves req.body as {}, which verify reads as an empty body.
      const empty = await fetch(url, { method: 'POST' })
      expectThat(
        empty.status === 400 && (await empty.text()) === 'empty_body',
        'an empty POST is refused as empty_body, not as a parsed object',
      )
    } else {
      show('listening on', url)
      await new Promise(() => {})
    }
  } finally {
    server.close()
    await gw.close()
    await connection.close()
  }
}

runIfMain(import.meta.url, main)
