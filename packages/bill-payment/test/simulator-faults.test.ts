/** `failNext({ operation })` on the bill payment simulator: by the SDK's operation names, not only by path. */

import { describe, expect, it } from 'vitest'
import type { BillPaymentError } from '../src/index.js'
import { SIMULATOR_CREDENTIALS } from '../src/testing/index.js'
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

  it("when: 'after' on a request the strict checks refuse answers the fault, as it does after a payment", async () => {
    const env = await setup()
    env.simulator.failNext({ operation: 'transactions.execute', when: 'after', status: 502 })
    const post = () =>
      fetch(`${env.url}/api/transactions`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'X-Service-Internal-Client-Id': SIMULATOR_CREDENTIALS.clientId,
          'X-Service-Client-Secret': SIMULATOR_CREDENTIALS.clientSecret,
        },
        body: '[]', // the SDK's own check refuses a body that is not a JSON object
      })
    const first = await post()
    await first.body?.cancel()
    expect(first.status).toBe(502)
    const second = await post() // the fault was taken once
    await second.body?.cancel()
    expect(second.status).toBe(400)
    expect(env.simulator.ledger).toEqual([])
  })

  it('an unknown operation, or an action (bill payment has none), is refused naming the known ones', async () => {
    const env = await setup()
    expect(() => env.simulator.failNext({ operation: 'payments.execute' })).toThrow(/transactions\.execute/)
    expect(() => env.simulator.failNext({ action: 'CAPTURE' })).toThrow(RangeError)
  })
})
