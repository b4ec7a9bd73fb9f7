/**
 * S2S CARD callbacks as the platform sends them (rule Platform 17: `action`, `result`, `status`,
 * `order_id`, `trans_id`, `hash`), after CAPTURE, CREDITVOID and RECURRING_SALE. On the seed signature
 * no public source gives their formula (rule Platform 30): from the merchant's side, such a callback
 * is refused until the merchant names the signed fields, and once named, a hash over the trans_id
 * alone authenticates the transaction only, so the inbox confirms the state by a lookup and an
 * attacker's edited replay runs nothing new.
 */

import { describe, expect, it } from 'vitest'
import { type CallbackEvent, CardGateway, SignatureVerificationError } from '../src/index.js'
import { startCardGatewaySimulator, TEST_CARDS } from '../src/testing/index.js'

async function started() {
  const sim = await startCardGatewaySimulator({ s2sCallbackShape: 's2s' })
  const gw = new CardGateway(sim.clientOptions)
  const order = `s2s-${Math.random().toString(36).slice(2, 10)}`
  await gw.checkout.purchase({
    order: { number: order, amount: '10.00', currency: 'USD', description: 'S2S callbacks' },
    success_url: 'https://shop.example/ok',
    cancel_url: 'https://shop.example/cancel',
    recurring_init: true,
  })
  sim.simulator.pay(order, { card: TEST_CARDS.number, expiry: TEST_CARDS.success })
  const trans_id = (await gw.s2s.getTransStatusByOrder({ order_id: order })).trans_id ?? ''
  return {
    sim,
    gw,
    order,
    trans_id,
    close: async () => {
      await gw.close()
      await sim.close()
    },
  }
}

describe('S2S callbacks after S2S actions', () => {
  it('CAPTURE, a partial CREDITVOID and RECURRING_SALE each send the S2S shape, signed over the trans_id', async () => {
    const { sim, gw, order, trans_id, close } = await started()
    try {
      const before = sim.simulator.callbacks.length
      await gw.s2s.capture({ trans_id })
      await gw.s2s.creditVoid({ trans_id, amount: '4.00' })
      const first = sim.simulator.payment(trans_id)
      await gw.s2s.recurringSale({
        order_id: `${order}-r1`,
        order_amount: '3.00',
        order_description: 'Monthly',
        recurring_first_trans_id: trans_id,
        recurring_token: first?.recurring_token ?? '',
      })
      const bodies = sim.simulator.callbacks.slice(before).map((b) => Object.fromEntries(new URLSearchParams(b)))
      expect(bodies.map((b) => [b['action'], b['result'], b['status']])).toEqual([
        ['CAPTURE', 'SUCCESS', 'SETTLED'],
        ['CREDITVOID', 'SUCCESS', 'SETTLED'],
        ['RECURRING_SALE', 'SUCCESS', 'SETTLED'],
      ])
      for (const body of bodies) {
        expect(Object.keys(body)).toEqual(
          expect.arrayContaining(['order_id', 'trans_id', 'amount', 'currency', 'hash']),
        )
        expect(body['type']).toBeUndefined()
      }
      expect(bodies[1]).toMatchObject({ amount: '4.00', creditvoid_date: expect.any(String) })
      expect(bodies[2]?.['recurring_token']).toBe(first?.recurring_token)
    } finally {
      await close()
    }
  })

  it('a client that names no S2S fields refuses them, saying how to find yours (before: refused as missing id, order_number…)', async () => {
    const { sim, gw, trans_id, close } = await started()
    try {
      await gw.s2s.capture({ trans_id })
      const plain = new CardGateway({ ...sim.clientOptions, s2sCallbackFields: undefined })
      const error = (() => {
        try {
          plain.callbacks.verify(sim.simulator.callbacks.at(-1) ?? '')
        } catch (e) {
          return e
        }
      })()
      expect(error).toBeInstanceOf(SignatureVerificationError)
      expect((error as SignatureVerificationError).message).toMatch(/paywire callback capture/)
      expect((error as SignatureVerificationError).message).toMatch(/s2sCallbackFields/)
      await plain.close()
    } finally {
      await close()
    }
  })

  it('named fields verify it as transaction-only; the inbox runs onEvent with the state the lookup confirms', async () => {
    const { sim, gw, trans_id, close } = await started()
    try {
      await gw.s2s.capture({ trans_id })
      const body = sim.simulator.callbacks.at(-1) ?? ''
      expect(gw.callbacks.verify(body).authenticated).toBe('transaction-only')
      const runs: CallbackEvent[] = []
      const handler = gw.callbacks.handler({ onEvent: (e) => void runs.push(e), onError: () => {}, recoverEveryMs: 0 })
      expect((await handler.handle(body)).status).toBe(200)
      // The attacker replays the body with another state: the hash still verifies (it signs the
      // trans_id only), the lookup says SETTLED, and the confirmed key is the one already run.
      const edited = body.replace('status=SETTLED', 'status=REFUND')
      expect((await handler.handle(edited)).status).toBe(200)
      await handler.drain()
      await handler.recover()
      await handler.drain()
      expect(runs.map((e) => [e.action, e.status, e.confirmedBy])).toEqual([['CAPTURE', 'SETTLED', 'lookup']])
      await handler.close()
    } finally {
      await close()
    }
  })
})
