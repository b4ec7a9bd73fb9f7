/**
 * Reconciling a bill payment whose answer was lost: applied only when the transactions list shows
 * the payment sent with the call's Idempotency-Key; the payment is never sent again by reconcile.
 */

import { MemoryIntentStore, type PaywireError } from '@paywire/core'
import { describe, expect, it } from 'vitest'
import { rejection, setup } from './fixtures/setup.js'

describe('bills.reconcile', () => {
  it('a payment whose answer was lost is applied, found by its Idempotency-Key; the reconcile closes its intent', async () => {
    const journal = new MemoryIntentStore()
    const env = await setup({ journal })
    env.simulator.failNext({ path: '/api/transactions', when: 'after' })
    const error = (await rejection(
      env.bills.transactions.execute({ productId: 'AIRTIME-ORANGE', amount: 5 }, { idempotencyKey: 'pay-lost-1' }),
    )) as PaywireError
    expect(error.outcomeUnknown).toBe(true)
    const before = env.lines().length
    const result = await env.bills.reconcile(error)
    expect(result).toMatchObject({ outcome: 'applied', state: { idempotencyKey: 'pay-lost-1' } })
    expect(env.lines().slice(before)).toEqual(['GET /api/transactions'])
    expect(env.simulator.ledger).toHaveLength(1)
    expect(await env.bills.pendingIntents()).toEqual([])
    expect(await env.bills.reconcileAll()).toEqual([])
  })

  it('a payment not in the list is still_unknown, with the safe way to settle it', async () => {
    const env = await setup()
    env.simulator.failNext({ path: '/api/transactions', status: 503 })
    const error = (await rejection(
      env.bills.transactions.execute({ productId: 'AIRTIME-ORANGE', amount: 5 }, { idempotencyKey: 'pay-never-1' }),
    )) as PaywireError
    const result = await env.bills.reconcile(error)
    expect(result.outcome).toBe('still_unknown')
    expect(result.next).toMatch(/look the payment up before anything else/)
    expect(result.next).not.toMatch(/retryWithSameKey/)
    expect(env.simulator.ledger).toHaveLength(0)
  })
})
