/**
 * From the attacker's side (found in review): a key kind the client uses for SOME operation is not
 * enough; it must be the one the intent's operation is keyed by. An
 * intent edited by hand (or written by another version) that says `s2s.capture` keyed by
 * `order_id` is looked up as a trans_id with the order's number, finds nothing, and a capture that
 * went through is reported `not_applied` (and closed by reconcileAll()).
 */

import { type Intent, MemoryIntentStore } from '@paywire/core'
import { expect, it } from 'vitest'
import { TEST_CARDS } from '../src/testing/index.js'
import { orderId, setup } from './helpers.js'

it('an s2s.capture intent keyed by order_id (a kind capture is never keyed by) is refused, not looked up as a trans_id', async () => {
  const journal = new MemoryIntentStore()
  const ctx = await setup({ client: { journal } })
  const number = orderId('edited')
  await ctx.gw.checkout.purchase({
    order: { number, amount: '10.00', currency: 'USD', description: 'Edited intent' },
    success_url: 'https://shop.example/ok',
    cancel_url: 'https://shop.example/cancel',
  })
  const { trans_id } = ctx.simulator.pay(number, { card: TEST_CARDS.number, expiry: TEST_CARDS.success })
  await ctx.gw.s2s.capture({ trans_id }) // applied: the payment is SETTLED
  const edited: Intent = {
    id: 'edited-1',
    service: 'card-gateway',
    operation: 's2s.capture',
    params: { trans_id },
    reconciliation: { key: 'order_id', value: number, lookup: 'GET_TRANS_STATUS' },
    idempotencyKey: undefined,
    createdAt: Date.now() - 3_600_000,
  }
  const outcome = await ctx.gw.reconcile(edited).then(
    (result) => result.outcome,
    (error: unknown) => (error instanceof Error ? error.name : String(error)),
  )
  // Refused (RequestValidationError), never "not applied" for a capture the gateway settled.
  expect(outcome).toBe('RequestValidationError')
})
