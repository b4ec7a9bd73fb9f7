/**
 * From the attacker's side (found in review): the settle delay of an intent is counted
 * from when the intent was written, which is when the call STARTED, not when it can no longer
 * arrive. With a per-attempt `timeout` above `settleAfterMs` (both the merchant's to set; nothing
 * ties them), `reconcileAll()` settles a money-moving call that is still in flight as `not_applied`
 * and closes its intent; the call then arrives and acts. The clock is injected; nothing sleeps.
 */

import { once } from 'node:events'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { type Clock, MemoryIntentStore } from '@paywire/core'
import { expect, it, onTestFinished } from 'vitest'
import { CardGateway } from '../src/index.js'
import { SIMULATOR_CREDENTIALS, startCardGatewaySimulator, TEST_CARDS } from '../src/testing/index.js'

async function bodyOf(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = []
  for await (const chunk of req) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks).toString('utf8')
}

/** Monotonic time that moves only when told to (and by sleeps), like a process under load. */
function manualClock(): Clock & { advance(ms: number): void } {
  let mono = 1_000
  return {
    now: () => mono,
    async sleep(ms, signal) {
      if (signal?.aborted) throw signal.reason
      mono += ms
    },
    advance(ms) {
      mono += ms
    },
  }
}

it('reconcileAll() never settles a capture still in flight (within its own timeout) as not_applied', async () => {
  const sim = await startCardGatewaySimulator()
  onTestFinished(() => sim.close())
  // In front of the gateway: every request is forwarded at once, except a CAPTURE, which is held
  // (a slow network path, a queue at the gateway's edge) until `release()`.
  let heldCapture: (() => Promise<void>) | undefined
  const captureArrived = new Promise<void>((resolveArrived) => {
    const edge = createServer((req: IncomingMessage, res: ServerResponse) => {
      void bodyOf(req).then(async (body) => {
        const forward = async () => {
          const answer = await fetch(`${sim.url}${req.url}`, {
            method: req.method ?? 'POST',
            headers: { 'content-type': String(req.headers['content-type']) },
            body: req.method === 'GET' ? undefined : body,
          })
          res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' })
          res.end(await answer.text())
        }
        if (new URLSearchParams(body).get('action') === 'CAPTURE') {
          heldCapture = forward
          resolveArrived()
        } else await forward()
      })
    })
    edge.listen(0, '127.0.0.1')
    onTestFinished(async () => {
      edge.closeAllConnections()
      await new Promise((resolve) => edge.close(resolve))
    })
    void once(edge, 'listening').then(() => {
      edgeUrl = `http://127.0.0.1:${(edge.address() as AddressInfo).port}`
      resolveListening()
    })
  })
  let edgeUrl = ''
  let resolveListening: () => void = () => {}
  await new Promise<void>((resolve) => {
    resolveListening = resolve
  })

  const clock = manualClock()
  const journal = new MemoryIntentStore()
  const gw = new CardGateway({
    checkoutUrl: sim.url,
    s2sUrl: edgeUrl,
    merchantKey: SIMULATOR_CREDENTIALS.merchantKey,
    clientKey: SIMULATOR_CREDENTIALS.clientKey,
    password: SIMULATOR_CREDENTIALS.password,
    environment: 'sandbox',
    journal,
    clock,
    // A slow acquirer: the merchant allows one attempt 5 minutes (any value above settleAfterMs).
    timeout: 300_000,
    totalTimeout: 300_000,
  })
  onTestFinished(() => gw.close())

  const number = `order-inflight-${process.pid}`
  await gw.checkout.purchase({
    order: { number, amount: '10.00', currency: 'USD', description: 'In flight' },
    success_url: 'https://shop.example/ok',
    cancel_url: 'https://shop.example/cancel',
  })
  const { trans_id } = sim.simulator.pay(number, { card: TEST_CARDS.number, expiry: TEST_CARDS.success })

  const capture = gw.s2s.capture({ trans_id })
  await captureArrived
  // 2 min 10 s into the call: still within its 5 min timeout, and its request has not acted yet.
  clock.advance(130_000)
  const settled = await gw.reconcileAll()
  const verdicts = settled.map(({ intent, result }) => `${intent.operation}: ${result.outcome}`)

  // The capture goes through after all.
  await (heldCapture as () => Promise<void>)()
  const captured = await capture
  expect(captured).toMatchObject({ trans_id })
  expect(sim.simulator.ledger.filter((e) => e.kind === 'capture')).toHaveLength(1)

  // What reconcileAll() told the merchant about a call that was still on its way, and then acted:
  expect(verdicts).not.toContain('s2s.capture: not_applied')
})
