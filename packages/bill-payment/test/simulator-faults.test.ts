/** `failNext({ operation })` on the bill payment simulator: by the SDK's operation names, not only by path. */

import { describe, expect, it } from 'vitest'
import type { BillPaymentError } from '../src/index.js'
import { rejection, setup } from './fixtures/setup.js'

describe('bill payment simulator: failNext by operation', () => {
  it("operation 'transactions.execute' fails the payment and leaves the list on the same path alone", async () => {
    const env = await setup()
    env.simulator.failNext({ operation: 'transactions.execute' })
    await expect(env.bills.transactions.list()).resolves.toEqual([])
    const error = (await rejection(
      env.bills.transactions.execute({ productId: 'EDSA-PREPAID', amount: 10 }),
    )) as BillPaymentError
    expect(error.status).toBe(503)
    expect(env.simulator.ledger).toEqual([])
  })

  it("when: 'after' with an operation pays, then loses the answer", async () => {
    const env = await setup()
    env.simulator.failNext({ operation: 'transactions.execute', when: 'after' })
    const error = (await rejection(
      env.bills.transactions.execute({ productId: 'EDSA-PREPAID', amount: 10 }),
    )) as BillPaymentError
    expect(error.status).toBe(503)
    expect(env.simulator.ledger).toHaveLength(1)
  })

  it('an unknown operation, or an action (bill payment has none), is refused naming the known ones', async () => {
    const env = await setup()
    expect(() => env.simulator.failNext({ operation: 'payments.execute' })).toThrow(/transactions\.execute/)
    expect(() => env.simulator.failNext({ action: 'CAPTURE' })).toThrow(RangeError)
  })
})
