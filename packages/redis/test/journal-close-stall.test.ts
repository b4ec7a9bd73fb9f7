/**
 * From the attacker's side (found in review): the journal's close after an ANSWERED
 * money-moving call is bounded by nothing either. The gateway captured and answered; Redis stalls
 * before the close: the merchant's `capture()` never resolves, though the money moved. A merchant
 * whose own request times out retries its checkout and sends the charge again.
 */

import { once } from 'node:events'
import { createServer as createHttpServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { CardGateway } from '@paywire/card-gateway'
import { createClient } from 'redis'
import { expect, it } from 'vitest'
import { type RedisClient, RedisIntentStore } from '../src/index.js'
import { describeWithRedis } from './redis-server.js'
import { startStallProxy } from './stall-proxy.js'

describeWithRedis('an answered capture whose journal close stalls', (server) => {
  it('resolves by its totalTimeout with the answer, even while the journal close never answers', async () => {
    const proxy = await startStallProxy(server().port)
    const client = createClient({ url: proxy.url })
    client.on('error', () => {})
    await client.connect()
    // The gateway: captures, and at that moment Redis stalls; then it answers success.
    const gateway = createHttpServer((req, res) => {
      req.resume()
      req.on('end', () => {
        proxy.stall()
        res.writeHead(200, { 'content-type': 'application/json' })
        res.end(
          JSON.stringify({ action: 'CAPTURE', result: 'SUCCESS', status: 'SETTLED', trans_id: 'trans-close-stall' }),
        )
      })
    })
    gateway.listen(0, '127.0.0.1')
    await once(gateway, 'listening')
    const url = `http://127.0.0.1:${(gateway.address() as AddressInfo).port}`
    const gw = new CardGateway({
      checkoutUrl: url,
      s2sUrl: url,
      merchantKey: 'merchant',
      clientKey: 'client',
      password: 'password',
      journal: new RedisIntentStore({
        client: client as unknown as RedisClient,
        keyPrefix: `close-stall-${Date.now()}:`,
      }),
      timeout: 500,
      totalTimeout: 1_000,
    })
    const call = gw.s2s.capture({ trans_id: 'trans-close-stall' }).then(
      (result) => result,
      (error: unknown) => error,
    )
    const NEVER = 'no end: the answered capture hangs on the journal close'
    let timer: NodeJS.Timeout | undefined
    const ended = await Promise.race([
      call,
      new Promise<string>((resolve) => {
        timer = setTimeout(() => resolve(NEVER), 5_000)
      }),
    ])
    clearTimeout(timer)
    try {
      expect(ended).toMatchObject({ trans_id: 'trans-close-stall' })
    } finally {
      client.destroy()
      gateway.closeAllConnections()
      await new Promise((resolve) => gateway.close(resolve))
      await proxy.close()
    }
  }, 15_000)
})
