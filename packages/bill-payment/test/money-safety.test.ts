/**
 * Money safety at the bill payment service, from the attacker's side: a redirect or a 5xx answer to
 * `execute` must not read as success and must say the payment may have been made, with its key.
 */

import { type FaultBehaviour, faults, startFaultServer } from '@paywire/core/testing'
import { describe, expect, it, onTestFinished } from 'vitest'
import { BillPayment, BillPaymentError } from '../src/index.js'

async function faultBills(behaviour: FaultBehaviour) {
  const server = await startFaultServer(behaviour)
  const bills = new BillPayment({ baseUrl: server.url, clientId: 'id', clientSecret: 'secret' })
  onTestFinished(async () => {
    await bills.close()
    await server.close()
  })
  return { bills, server }
}

const body = { productId: 'EDSA-PREPAID', amount: 100, customerReference: 'METER-9' }

describe('a 3xx is never success, never followed, never retried', () => {
  it('a 302 to execute is unexpected_redirect, outcome unknown, Idempotency-Key carried', async () => {
    const elsewhere = await startFaultServer(faults.json(200, { transReference: 'T1' }))
    onTestFinished(() => elsewhere.close())
    const { bills, server } = await faultBills(
      faults.json(302, { transReference: 'T1', status: 'SUCCESS' }, { location: elsewhere.url }),
    )
    const error = await bills.transactions.execute(body, { idempotencyKey: 'pay-302' }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(BillPaymentError)
    expect(error).toMatchObject({
      status: 302,
      reason: 'unexpected_redirect',
      outcomeUnknown: true,
      idempotencyKey: 'pay-302',
      reconciliation: { key: 'Idempotency-Key', value: 'pay-302' },
    })
    expect(server.requests).toHaveLength(1)
    expect(elsewhere.requests).toHaveLength(0)
  })

  it('a 304 to a catalog read is an error, not an empty success', async () => {
    const { bills } = await faultBills(faults.text(304, '', 'text/plain'))
    const error = await bills.catalog.list().catch((e: unknown) => e)
    expect(error).toMatchObject({ status: 304, reason: 'unexpected_redirect', outcomeUnknown: false })
  })
})

describe('5xx after execute was sent is an unknown outcome', () => {
  it('a 503 after the payment executed says to reconcile and how', async () => {
    const { bills } = await faultBills(faults.json(503, { title: 'Unavailable' }))
    const error = (await bills.transactions
      .execute(body, { idempotencyKey: 'pay-503' })
      .catch((e: unknown) => e)) as BillPaymentError
    expect(error).toMatchObject({ status: 503, outcomeUnknown: true, reconciliation: { value: 'pay-503' } })
    expect(error.message).toContain('Outcome unknown')
    expect(error.message).toContain('bills.transactions.list()')
    expect(error.message).toContain('Idempotency-Key "pay-503"')
  })

  it('a 409 refusal is a known outcome', async () => {
    const { bills } = await faultBills(faults.json(409, { title: 'Conflict' }))
    const error = await bills.transactions.execute(body).catch((e: unknown) => e)
    expect(error).toMatchObject({ status: 409, outcomeUnknown: false })
  })
})
