/**
 * Core's answer binding (`bindAnswer` on a row), from the attacker's side: a loopback server answers
 * each call with a record about another subject, through the real `HttpClient` (undici). The engine
 * must refuse it as `unbound_response` before the row's decoder or the caller's schema reads it, for
 * every caller of the row; a lookup's answer naming none is refused too, a money-moving call's is not.
 */

import { MemoryIntentStore, ProblemDetailsError } from '@paywire/core'
import { bindAnswer, defineOperation, OperationClient, problemAnswers, safe, unsentOnly } from '@paywire/core/engine'
import { type FaultBehaviour, faults, rejection, startFaultServer } from '@paywire/core/testing'
import { describe, expect, it, onTestFinished } from 'vitest'
import { z } from 'zod'
import { makeClient } from './helpers.js'

class ShopError extends ProblemDetailsError {
  override name = 'ShopError'
}

let decoded = 0

const rows = {
  /** A lookup whose answer names its reference in any of three identifiers. */
  status: defineOperation({
    name: 'transfers.status',
    method: 'GET',
    path: '/status/{ref}',
    retry: safe,
    answerBinding: bindAnswer('lookup', { path: { ref: ['reference', 'transferId', 'clientRef'] }, rule: 'Shop 1' }),
    decode: (value: unknown) => {
      decoded++
      return value
    },
  }),
  /** A lookup by either of two body fields, one answered nested (`order.number`). */
  payment: defineOperation({
    name: 'payments.status',
    method: 'POST',
    path: '/payments/status',
    params: z.strictObject({ payment_id: z.string().optional(), order_id: z.string().optional() }),
    retry: safe,
    answerBinding: bindAnswer('lookup', {
      wire: { payment_id: ['payment_id'], order_id: ['order.number'] },
      rule: 'Shop 2',
    }),
  }),
  /** A payment: its answer may name the key it was sent with, never another. */
  pay: defineOperation({
    name: 'payments.create',
    method: 'POST',
    path: '/payments',
    params: z.strictObject({ amount: z.string() }),
    retry: unsentOnly,
    idempotency: { header: 'Idempotency-Key', generate: true },
    answerBinding: bindAnswer('action', { idempotencyKey: ['idempotencyKey'], rule: 'Shop 3' }),
  }),
}

async function setup(behaviour: FaultBehaviour, journal?: MemoryIntentStore) {
  const server = await startFaultServer(behaviour)
  onTestFinished(() => server.close())
  const http = makeClient()
  onTestFinished(() => http.close())
  const ops = new OperationClient<unknown>({
    http,
    baseUrls: { default: server.url },
    context: undefined,
    journal,
    answers: problemAnswers(ShopError),
  })
  return { server, ops }
}

async function shopError(promise: PromiseLike<unknown>): Promise<ShopError> {
  const error = await rejection(promise)
  expect(error).toBeInstanceOf(ShopError)
  return error as ShopError
}

const LOOKUP = '(rule Shop 1); act on none of it, and look the subject up again.'

describe('a lookup is believed only when its answer names the subject it asked for', () => {
  it.each([
    ['another subject', { reference: 'R-2', status: 'DONE' }, 'it names reference "R-2", not the "R-1" this call sent'],
    ['a trailing space', { reference: 'R-1 ' }, 'it names reference "R-1 ", not the "R-1" this call sent'],
    ['another case', { reference: 'r-1' }, 'it names reference "r-1", not the "R-1" this call sent'],
    [
      'two other identifiers',
      { reference: 'R-2', transferId: 7 },
      'it names reference "R-2" and transferId 7, not the "R-1" this call sent',
    ],
    [
      'an object in its place',
      { reference: { id: 'R-1' } },
      'it names reference as an object, not the "R-1" this call sent',
    ],
    [
      'no identifier',
      { status: 'DONE', reference: null },
      'it names no reference, transferId or clientRef, so nothing binds it to the "R-1" this call sent',
    ],
    ['an array', [{ reference: 'R-1' }], 'it holds no record, so nothing binds it to the "R-1" this call sent'],
  ])('an answer naming %s: unbound_response, before the decoder reads it', async (_name, body, names) => {
    const { ops } = await setup(faults.json(200, body))
    const before = decoded
    const error = await shopError(ops.call(rows.status, { path: { ref: 'R-1' } }))
    expect(error).toMatchObject({ status: 200, reason: 'unbound_response', outcomeUnknown: false, code: undefined })
    expect(error.message).toBe(
      `transfers.status: the success answer (HTTP 200) is not about this request: ${names} ${LOOKUP}`,
    )
    expect(decoded).toBe(before)
  })

  it('an empty 200 holds no record', async () => {
    const { ops } = await setup(faults.text(200, '', 'application/json'))
    const error = await shopError(ops.call(rows.status, { path: { ref: 'R-1' } }))
    expect(error.message).toMatch(/it holds no record, so nothing binds it to the "R-1" this call sent/)
  })

  it('any one identifier repeating the value exactly binds the answer (a number as its decimal text)', async () => {
    const { ops } = await setup(faults.json(200, { reference: 'R-9', clientRef: 1001 }))
    expect(await ops.call(rows.status, { path: { ref: 1001 } })).toEqual({ reference: 'R-9', clientRef: 1001 })
    expect(await ops.call(rows.status, { path: { ref: '1001' } })).toMatchObject({ clientRef: 1001 })
  })

  it('a body field binds by a nested answer field; only the field sent is checked', async () => {
    const { ops } = await setup(faults.json(200, { payment_id: 'P-2', order: { number: 'O-1' } }))
    expect(await ops.call(rows.payment, { body: { order_id: 'O-1' } })).toMatchObject({ order: { number: 'O-1' } })
    const error = await shopError(ops.call(rows.payment, { body: { payment_id: 'P-1' } }))
    expect(error.message).toMatch(/it names payment_id "P-2", not the "P-1" this call sent \(rule Shop 2\)/)
  })

  it('the caller’s schema does not lift the binding: it checks shape, not subject', async () => {
    const { ops } = await setup(faults.json(200, { reference: 'R-2' }))
    const schema = z.object({ reference: z.string() })
    const error = await shopError(ops.call(rows.status, { path: { ref: 'R-1' } }, { schema }))
    expect(error.reason).toBe('unbound_response')
  })

  it('the raw escape hatch request() has no row, so no binding: the caller checks what it asked for', async () => {
    const { ops } = await setup(faults.json(200, { reference: 'R-2' }))
    expect(await ops.request({ method: 'GET', path: '/status/R-1' })).toEqual({ reference: 'R-2' })
  })

  it('an answer about another subject is not retried: it is no transport fault', async () => {
    const { ops, server } = await setup(faults.json(200, { reference: 'R-2' }))
    await shopError(ops.call(rows.status, { path: { ref: 'R-1' } }))
    expect(server.requests).toHaveLength(1)
  })
})

describe('a money-moving call whose answer names another subject is an unknown outcome', () => {
  it('another key: unbound_response, outcomeUnknown, its reconciliation key; the intent stays open', async () => {
    const journal = new MemoryIntentStore()
    const { ops } = await setup(faults.json(200, { id: 'pay-9', idempotencyKey: 'K-2' }), journal)
    const error = await shopError(ops.call(rows.pay, { body: { amount: '1.00' } }, { idempotencyKey: 'K-1' }))
    expect(error).toMatchObject({
      status: 200,
      reason: 'unbound_response',
      outcomeUnknown: true,
      idempotencyKey: 'K-1',
      reconciliation: { key: 'Idempotency-Key', value: 'K-1' },
    })
    expect(error.message).toMatch(
      /^payments\.create: the success answer \(HTTP 200\) is not about this request: it names idempotencyKey "K-2", not the "K-1" this call sent \(rule Shop 3\); act on none of it\. Outcome unknown: /,
    )
    expect(await journal.openIntents('core-test')).toHaveLength(1)
  })

  it('an answer naming no key, or no record at all, is taken as before', async () => {
    const { ops } = await setup(faults.json(200, { id: 'pay-9' }))
    expect(await ops.call(rows.pay, { body: { amount: '1.00' } }, { idempotencyKey: 'K-1' })).toEqual({ id: 'pay-9' })
    const empty = await setup(faults.text(200, '', 'application/json'))
    expect(await empty.ops.call(rows.pay, { body: { amount: '1.00' } })).toBeUndefined()
  })

  it('the key it was sent with binds it', async () => {
    const { ops } = await setup(faults.json(200, { id: 'pay-9', idempotencyKey: 'K-1' }))
    expect(await ops.call(rows.pay, { body: { amount: '1.00' } }, { idempotencyKey: 'K-1' })).toMatchObject({
      idempotencyKey: 'K-1',
    })
  })
})
