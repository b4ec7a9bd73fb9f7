/**
 * From the attacker's side (found in review): a credit (the Checkout endpoint that
 * refunds a card payment) is reconciled by the status lookup of its order_id. A merchant refunding
 * order X sends the credit under order_id X; when its answer is lost and the credit never reached
 * the gateway, the lookup of X finds the PURCHASE of X, and unless that record happens to carry a
 * type field naming a sale, the credit is reported `applied`: the payer is never refunded and the
 * merchant is told the refund went out.
 */

import type { Intent } from '@paywire/core'
import { expect, it } from 'vitest'
import { TEST_CARDS } from '../src/testing/index.js'
import { orderId, setup } from './helpers.js'

it('a credit under the order_id of the payment it refunds, which never reached the gateway, is not reconciled applied from the purchase record', async () => {
  const ctx = await setup()
  const number = orderId('refund')
  await ctx.gw.checkout.purchase({
    order: { number, amount: '10.00', currency: 'USD', description: 'To be refunded' },
    success_url: 'https://shop.example/ok',
    cancel_url: 'https://shop.example/cancel',
  })
  ctx.simulator.pay(number, { card: TEST_CARDS.number, expiry: TEST_CARDS.success, capture: true })
  // The credit's intent, written an hour ago by a process that died before sending it.
  const credit: Intent = {
    id: `credit-${number}`,
    service: 'card-gateway',
    operation: 'checkout.credit',
    params: { order_id: number, order_amount: '10.00', order_currency: 'USD', order_description: 'Refund' },
    reconciliation: { key: 'order_id', value: number, lookup: `gw.checkout.status({ order_id: "${number}" })` },
    idempotencyKey: undefined,
    createdAt: Date.now() - 3_600_000,
  }
  const result = await ctx.gw.reconcile(credit)
  expect(ctx.simulator.ledger.filter((e) => e.kind === 'credit')).toHaveLength(0)
  expect(`${result.outcome}: ${result.evidence}`).not.toMatch(/^applied/)
})
