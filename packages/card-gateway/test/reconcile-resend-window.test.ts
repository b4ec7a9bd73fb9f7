/**
 * The resend advice of a lost purchase, from the attacker's side: the gateway dedups an identical
 * purchase for 15 s from when it received the first one, so the advice "send it again before X"
 * must count from when the request was sent, not from when the call gave up. With a 30 s timeout
 * the former advice offered a whole 15 s window that had closed before the error was even raised.
 */

import { once } from 'node:events'
import { createServer, type IncomingMessage } from 'node:http'
import type { AddressInfo } from 'node:net'
import { systemClock } from '@paywire/core'
import { expect, it, onTestFinished } from 'vitest'
import { CardGateway, type PaywireError } from '../src/index.js'
import { orderId, setup } from './helpers.js'

async function bodyOf(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = []
  for await (const chunk of req) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks)
}

it('a purchase whose answer was lost 20 s after it was sent: the 15 s window has passed, whatever the time since the error', async () => {
  const ctx = await setup()
  // A clock that runs with real time, plus what the test adds: the wait between send and give-up.
  let offset = 0
  const clock = { now: () => performance.now() + offset, date: () => Date.now() + offset, sleep: systemClock.sleep }
  // Forwards every request to the gateway; the purchase's answer is lost, 20 s after it was sent.
  let first = true
  const proxy = createServer((req, res) => {
    void bodyOf(req).then(async (body) => {
      const lost = first
      first = false
      const answer = await fetch(`${ctx.url}${req.url}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      })
      if (lost) {
        offset += 20_000
        return
      }
      res.writeHead(answer.status, { 'content-type': 'application/json' }).end(await answer.text())
    })
  })
  proxy.listen(0, '127.0.0.1')
  await once(proxy, 'listening')
  onTestFinished(async () => {
    proxy.closeAllConnections()
    await new Promise((resolve) => proxy.close(resolve))
  })
  const url = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`
  const gw = new CardGateway({
    ...ctx.clientOptions,
    checkoutUrl: url,
    s2sUrl: url,
    clock,
    timeout: 500,
    maxRetries: 0,
  })
  onTestFinished(() => gw.close())
  const number = orderId('resend')
  const error = (await gw.checkout
    .purchase({
      order: { number, amount: '10.00', currency: 'USD', description: 'Test order' },
      success_url: 'https://shop.example/ok',
      cancel_url: 'https://shop.example/cancel',
    })
    .catch((e: unknown) => e)) as PaywireError
  expect(error.outcomeUnknown).toBe(true)
  // Looked up right after the error.
  const result = await gw.reconcile(error)
  expect(result.outcome).toBe('applied')
  expect(result.next).toMatch(/the 15 s dedup window in which an identical resend answers the same session has passed/)
})
