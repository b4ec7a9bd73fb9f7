/**
 * Bound answers at the bill payment service, from the attacker's side (rule Platform 13): a
 * misbehaving service, proxy or cache answers the transaction lookup, or a payment, with the record
 * of another transaction. Through the real undici transport, such an answer is not believed: the
 * lookup fails with `unbound_response`; a payment is an unknown outcome carrying its key.
 */

import { MemoryIntentStore } from '@paywire/core'
import { type FaultBehaviour, faults, rejection, startFaultServer } from '@paywire/core/testing'
import { describe, expect, it, onTestFinished } from 'vitest'
import { BillPayment, BillPaymentError } from '../src/index.js'
import { startBillPaymentSimulator } from '../src/testing/index.js'

async function faultBills(behaviour: FaultBehaviour) {
  const server = await startFaultServer(behaviour)
  const bills = new BillPayment({
    baseUrl: server.url,
    clientId: 'id',
    clientSecret: 'secret',
    journal: new MemoryIntentStore(),
  })
  onTestFinished(async () => {
    await bills.close()
    await server.close()
  })
  return { bills, server }
}

async function billError(promise: PromiseLike<unknown>): Promise<BillPaymentError> {
  const error = await rejection(promise)
  expect(error).toBeInstanceOf(BillPaymentError)
  return error as BillPaymentError
}

const TR2 = { transReference: 'TR-2', productId: 'EDSA-PREPAID', amount: 100, status: 'SUCCESSFUL' }
const LOOKUP_ADVICE = 'act on none of it, and look the subject up again.'

describe('a transaction lookup answer that does not name the reference asked for confirms nothing', () => {
  const cases = [
    { what: 'another transaction', body: TR2, names: 'it names transReference "TR-2", not the "TR-1" this call sent' },
    {
      what: 'the reference with a trailing space',
      body: { ...TR2, transReference: 'TR-1 ' },
      names: 'it names transReference "TR-1 ", not the "TR-1" this call sent',
    },
    {
      what: 'the reference in lower case',
      body: { ...TR2, transReference: 'tr-1' },
      names: 'it names transReference "tr-1", not the "TR-1" this call sent',
    },
    {
      what: 'no reference',
      body: { ...TR2, transReference: null },
      names: 'it names no transReference, so nothing binds it to the "TR-1" this call sent',
    },
  ]

  it.each(cases)('answered with $what: unbound_response, status 200, outcome known', async (c) => {
    const { bills, server } = await faultBills(faults.json(200, c.body))
    const error = await billError(bills.transactions.get('TR-1'))
    expect(error).toMatchObject({ status: 200, code: undefined, reason: 'unbound_response', outcomeUnknown: false })
    expect(error.message).toBe(
      `transactions.get: the success answer (HTTP 200) is not about this request: ${c.names} (rule Platform 13); ${LOOKUP_ADVICE}`,
    )
    expect(server.requests).toHaveLength(1)
  })

  it('an empty 200 holds no record, so it confirms nothing either', async () => {
    const { bills } = await faultBills(faults.text(200, '', 'application/json'))
    const error = await billError(bills.transactions.get('TR-1'))
    expect(error).toMatchObject({ status: 200, reason: 'unbound_response' })
    expect(error.message).toMatch(/it holds no record, so nothing binds it to the "TR-1" this call sent/)
  })

  it('against the simulator, a payment is found by its own reference', async () => {
    const sim = await startBillPaymentSimulator()
    const bills = new BillPayment(sim.clientOptions)
    onTestFinished(async () => {
      await bills.close()
      await sim.close()
    })
    const [product] = (await bills.catalog.list()) ?? []
    const paid = await bills.transactions.execute({
      productId: product?.id,
      amount: Number(product?.minAmount ?? 10),
      customerReference: 'METER-1',
    })
    const found = await bills.transactions.get(String(paid?.transReference))
    expect(found).toMatchObject({ transReference: paid?.transReference })
  })
})

describe('a payment answered for another key is an unknown outcome, never a success', () => {
  const body = { productId: 'EDSA-PREPAID', amount: 100, customerReference: 'METER-9' }

  it('execute answered with the idempotencyKey of another payment: unbound_response, outcomeUnknown, its key', async () => {
    const { bills } = await faultBills(faults.json(200, { ...TR2, idempotencyKey: 'pay-2' }))
    const error = await billError(bills.transactions.execute(body, { idempotencyKey: 'pay-1' }))
    expect(error).toMatchObject({
      status: 200,
      code: undefined,
      reason: 'unbound_response',
      outcomeUnknown: true,
      idempotencyKey: 'pay-1',
      reconciliation: { key: 'Idempotency-Key', value: 'pay-1' },
    })
    expect(error.message).toMatch(
      /^transactions\.execute: the success answer \(HTTP 200\) is not about this request: it names idempotencyKey "pay-2", not the "pay-1" this call sent \(rule Platform 13\); act on none of it\. Outcome unknown: the service may have acted on this transactions\.execute/,
    )
    expect(await bills.pendingIntents()).toMatchObject([{ operation: 'transactions.execute' }])
  })

  it('execute answered with no idempotencyKey is accepted as before (success bodies are not published)', async () => {
    const { bills } = await faultBills(faults.json(200, TR2))
    expect(await bills.transactions.execute(body)).toMatchObject({ transReference: 'TR-2' })
  })
})
