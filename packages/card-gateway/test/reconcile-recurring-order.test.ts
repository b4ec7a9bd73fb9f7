/**
 * From the attacker's side (found in review): a recurring sale is reconciled by
 * GET_TRANS_STATUS_BY_ORDER of its order_id, and any readable record of that order with a status
 * counts as proof. A merchant that charges a subscription under one order_id (last month's charge
 * went through under it) loses this month's charge answer before it reaches the gateway: the lookup
 * finds LAST month's sale and this month's, never made, is reported `applied`. Nothing compares the
 * record with the call (its amount, or its time against the intent's).
 */

import type { Intent } from '@paywire/core'
import { expect, it } from 'vitest'
import { TEST_CARDS } from '../src/testing/index.js'
import { orderId, setup } from './helpers.js'

it("a recurring sale that never reached the gateway is not reconciled applied from an earlier sale's record under the same order_id", async () => {
  const ctx = await setup()
  const first = orderId('sub')
  await ctx.gw.checkout.purchase({
    order: { number: first, amount: '10.00', currency: 'USD', description: 'Subscription' },
    success_url: 'https://shop.example/ok',
    cancel_url: 'https://shop.example/cancel',
    recurring_init: true,
  })
  const paid = ctx.simulator.pay(first, { card: TEST_CARDS.number, expiry: TEST_CARDS.success, capture: true })
  const subscription = orderId('sub-charge')
  // Last month's charge, under the subscription's order_id: made.
  await ctx.gw.s2s.recurringSale({
    order_id: subscription,
    order_amount: '5.00',
    order_description: 'Monthly',
    recurring_first_trans_id: paid.trans_id,
    recurring_token: paid.recurring_token as string,
  })
  const before = ctx.simulator.ledger.length
  // This month's charge, 7.00, under the same order_id: its process died before sending it.
  const thisMonth: Intent = {
    id: `recurring-${subscription}`,
    service: 'card-gateway',
    operation: 's2s.recurringSale',
    params: {
      order_id: subscription,
      order_amount: '7.00',
      order_description: 'Monthly',
      recurring_first_trans_id: paid.trans_id,
      recurring_token: paid.recurring_token,
    },
    reconciliation: {
      key: 'order_id',
      value: subscription,
      lookup: `gw.s2s.getTransStatusByOrder({ order_id: "${subscription}" })`,
    },
    idempotencyKey: undefined,
    createdAt: Date.now(),
  }
  const result = await ctx.gw.reconcile(thisMonth)
  expect(ctx.simulator.ledger.length).toBe(before) // nothing was charged this month
  expect(`${result.outcome}: ${result.evidence}`).not.toMatch(/^applied/)
})
