import { createTestClock, faults, refusedUrl, startFaultServer } from '@paywire/core/testing'
import { describe, expect, it, onTestFinished } from 'vitest'
import { BillPayment, BillPaymentError, ConnectionError } from '../src/index.js'
import { rejection, type Setup, setup } from './fixtures/setup.js'

let env: Setup

const body = { productId: 'EDSA-PREPAID', amount: 100, customerReference: 'METER-9' }
const keysSeen = (e: Setup) => e.server.requests.map((r) => r.headers['idempotency-key'])

describe('Idempotency-Key on transactions.execute', () => {
  it('a repeated key returns the original transaction, and the ledger shows one execution', async () => {
    env = await setup()
    const first = await env.bills.transactions.execute(body, { idempotencyKey: 'pay-1' })
    const again = await env.bills.transactions.execute(body, { idempotencyKey: 'pay-1' }).withResponse()
    expect(again.data).toEqual(first)
    expect(again.response.idempotencyKey).toBe('pay-1')
    expect(again.response.headers['idempotent-replayed']).toBe('true')
    expect(env.simulator.ledger).toHaveLength(1)
    expect(env.simulator.ledger[0]?.idempotencyKey).toBe('pay-1')
  })

  it('is not retried after a 503 by default (the request was sent), and the error carries the key', async () => {
    env = await setup()
    env.simulator.failNext({ status: 503 })
    const error = (await rejection(env.bills.transactions.execute(body))) as BillPaymentError
    expect(error).toBeInstanceOf(BillPaymentError)
    expect(error.status).toBe(503)
    expect(error.requestSent).toBe(true)
    expect(error.idempotencyKey).toBe(keysSeen(env)[0])
    expect(env.server.requests).toHaveLength(1)
  })

  it('opt-in retryWithSameKey: retried after a 503 with the same key; the server saw it twice, one payment', async () => {
    env = await setup()
    env.simulator.failNext({ status: 503 })
    const result = await env.bills.transactions.execute(body, { retryWithSameKey: true }).withResponse()
    expect(result.response.attempts).toBe(2)
    const keys = keysSeen(env)
    expect(keys).toHaveLength(2)
    expect(result.response.idempotencyKey).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    )
    expect(keys).toEqual([result.response.idempotencyKey, result.response.idempotencyKey])
    expect(env.simulator.ledger).toHaveLength(1)
  })

  it('opt-in retry after an answer lost once the payment went through replays it: still one payment', async () => {
    env = await setup()
    env.simulator.failNext({ status: 502, when: 'after' })
    const { data: transaction, response } = await env.bills.transactions
      .execute(body, { retryWithSameKey: true })
      .withResponse()
    expect(keysSeen(env)).toEqual([response.idempotencyKey, response.idempotencyKey])
    expect(env.simulator.ledger).toHaveLength(1)
    expect(transaction).toMatchObject({ transReference: env.simulator.ledger[0]?.transReference })
  })

  it('a caller can retry an ambiguous payment by hand with the key from the error', async () => {
    env = await setup()
    env.simulator.failNext({ status: 504, when: 'after' })
    const error = await rejection(env.bills.transactions.execute(body))
    const key = (error as BillPaymentError).idempotencyKey
    expect(key).toBe(keysSeen(env)[0])
    const retried = await env.bills.transactions.execute(body, { idempotencyKey: key }).withResponse()
    expect(retried.response.idempotencyKey).toBe(key)
    expect(env.simulator.ledger).toHaveLength(1)
  })

  it('is not retried after the connection dropped once the request was sent: 1 request, ConnectionError with the key', async () => {
    const server = await startFaultServer(faults.resetBeforeAnswer())
    onTestFinished(() => server.close())
    const bills = new BillPayment({
      baseUrl: server.url,
      clientId: 'id',
      clientSecret: 'secret',
      clock: createTestClock(),
    })
    onTestFinished(() => bills.close())
    const error = (await rejection(bills.transactions.execute(body))) as ConnectionError
    expect(error).toBeInstanceOf(ConnectionError)
    expect(error).not.toBeInstanceOf(BillPaymentError)
    expect(error.requestSent).toBe(true)
    expect(error.attempts).toBe(1)
    expect(server.requests).toHaveLength(1)
    expect(error.idempotencyKey).toBe(server.requests[0]?.headers['idempotency-key'])
    // set at construction by core, not attached afterwards
    expect(Object.getOwnPropertyDescriptor(error, 'idempotencyKey')).toMatchObject({ enumerable: true })
  })

  it('opt-in: retried after the connection dropped, with the same key on every attempt', async () => {
    const server = await startFaultServer(faults.resetBeforeAnswer())
    onTestFinished(() => server.close())
    const bills = new BillPayment({
      baseUrl: server.url,
      clientId: 'id',
      clientSecret: 'secret',
      clock: createTestClock(),
      maxRetries: 2,
    })
    onTestFinished(() => bills.close())
    const error = (await rejection(
      bills.transactions.execute(body, { retryWithSameKey: true, idempotencyKey: 'k-1' }),
    )) as ConnectionError
    expect(error.attempts).toBe(3)
    expect((error as BillPaymentError).idempotencyKey).toBe('k-1')
    expect(server.requests.map((r) => r.headers['idempotency-key'])).toEqual(['k-1', 'k-1', 'k-1'])
  })

  it('is retried by default when the request provably never left (connection refused), with the same key', async () => {
    const url = await refusedUrl()
    const attempts: number[] = []
    const bills = new BillPayment({
      baseUrl: url,
      clientId: 'id',
      clientSecret: 'secret',
      clock: createTestClock(),
      hooks: { onRequest: (event) => attempts.push(event.attempt) },
    })
    onTestFinished(() => bills.close())
    const error = (await rejection(bills.transactions.execute(body))) as ConnectionError
    expect(error.requestSent).toBe(false)
    expect(attempts).toEqual([1, 2, 3])
    expect((error as BillPaymentError).idempotencyKey).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    )
  })

  it('a 2xx that cannot be read still reports the key (the payment may have gone through)', async () => {
    const server = await startFaultServer(faults.truncatedJson())
    onTestFinished(() => server.close())
    const bills = new BillPayment({ baseUrl: server.url, clientId: 'id', clientSecret: 'secret' })
    onTestFinished(() => bills.close())
    const error = (await rejection(bills.transactions.execute(body, { idempotencyKey: 'k-2' }))) as BillPaymentError
    expect(error.reason).toBe('unreadable_response')
    expect(error.status).toBe(200)
    expect(error.idempotencyKey).toBe('k-2')
    expect(error).toMatchObject({ outcomeUnknown: true, reconciliation: { key: 'Idempotency-Key', value: 'k-2' } })
    expect(error.message).toContain('Idempotency-Key "k-2"')
  })

  it('a refused body sends nothing, so it carries no key to repeat with', async () => {
    env = await setup()
    const error = await rejection(env.bills.transactions.execute({ amount: Number.NaN }))
    expect(error).toMatchObject({ name: 'RequestValidationError', requestSent: false, idempotencyKey: undefined })
    expect(env.server.requests).toHaveLength(0)
  })
})

describe('Idempotency-Key on the other calls', () => {
  it('every call accepts idempotencyKey and sends it as the Idempotency-Key header', async () => {
    env = await setup()
    const b = env.bills
    await b.catalog.list({ idempotencyKey: 'k-list' })
    await b.catalog.get('EDSA-PREPAID', { idempotencyKey: 'k-get' })
    await b.catalog.enable({ productId: 'EDSA-PREPAID' }, { idempotencyKey: 'k-enable' })
    await b.catalog.disable({ productId: 'AIRTIME-ORANGE' }, { idempotencyKey: 'k-disable' })
    await b.transactions.list(undefined, { idempotencyKey: 'k-tlist' })
    await b.transactions.filter({}, { idempotencyKey: 'k-filter' })
    const transaction = await b.transactions.execute(body, { idempotencyKey: 'k-exec' })
    await b.transactions.get((transaction as { transReference: string }).transReference, { idempotencyKey: 'k-tget' })
    expect(keysSeen(env)).toEqual([
      'k-list',
      'k-get',
      'k-enable',
      'k-disable',
      'k-tlist',
      'k-filter',
      'k-exec',
      'k-tget',
    ])
  })

  it('reads are sent without a key unless one is given', async () => {
    env = await setup()
    await env.bills.catalog.list()
    expect(keysSeen(env)).toEqual([undefined])
  })

  it('errors of a keyed read carry the key too', async () => {
    env = await setup()
    const error = (await rejection(env.bills.catalog.get('NOPE', { idempotencyKey: 'k-404' }))) as BillPaymentError
    expect(error.idempotencyKey).toBe('k-404')
  })
})
