import { HttpResponse, http } from 'msw'
import { describe, expect, expectTypeOf, it } from 'vitest'
import { z } from 'zod'
import {
  BillPaymentError,
  type CatalogListResult,
  type Product,
  type Transaction,
  type TransactionsExecuteResult,
} from '../src/index.js'
import { PRODUCT_KINDS } from '../src/resources/catalog.js'
import { TRANSACTION_KINDS } from '../src/resources/transactions.js'
import { rejection, type Setup, setup } from './fixtures/setup.js'

let env: Setup

/** The field names a result type declares (its kinds object lists exactly those, checked by the compiler). */
const fieldsOf = (kinds: object) => Object.keys(kinds).sort()
const membersOf = (value: unknown) => Object.keys(value as object).sort()

describe('typed results: the simulator answers every field the result types name, through the real client', () => {
  it('pay a bill: the transReference of the payment reads it back, with no cast', async () => {
    env = await setup()
    const products = await env.bills.catalog.list()
    expectTypeOf(products).toEqualTypeOf<CatalogListResult>()
    const enabled = products?.filter((product) => product.enabled === true) ?? []
    const product = enabled.find((candidate) => candidate.category === 'electricity')
    if (product?.id == null) throw new Error('the simulator lists an electricity product')

    const payment = await env.bills.transactions.execute({
      productId: product.id,
      amount: 50,
      customerReference: 'M-1',
    })
    expectTypeOf(payment).toEqualTypeOf<TransactionsExecuteResult>()
    expectTypeOf(payment?.transReference).toEqualTypeOf<string | number | null | undefined>()
    if (payment?.transReference == null) throw new Error('the simulator answers the reference')

    const again = await env.bills.transactions.get(payment.transReference)
    expect(again).toEqual(payment)
    expect(again?.status).toBe('SUCCESSFUL')
    expect(again?.amount).toBe(50)
    expect(again?.currency).toBe(product.currency)
  })

  it('catalog.list, get, enable and disable answer products with every typed field', async () => {
    env = await setup()
    const list = await env.bills.catalog.list()
    expect(list).toHaveLength(4)
    const answers: [string, unknown][] = [
      ...(list ?? []).map((item): [string, unknown] => ['catalog.list', item]),
      ['catalog.get', await env.bills.catalog.get('EDSA-PREPAID')],
      ['catalog.disable', await env.bills.catalog.disable({ productId: 'EDSA-PREPAID' })],
      ['catalog.enable', await env.bills.catalog.enable({ productId: 'EDSA-PREPAID' })],
    ]
    for (const [operation, value] of answers) {
      expect(membersOf(value), operation).toEqual(expect.arrayContaining(fieldsOf(PRODUCT_KINDS)))
    }
  })

  it('transactions.execute, get, list and filter answer transactions with every typed field', async () => {
    env = await setup()
    const paid = await env.bills.transactions.execute(
      { productId: 'AIRTIME-ORANGE', amount: 5, customerReference: '+23276000111' },
      { idempotencyKey: 'order-5' },
    )
    const answers: [string, unknown][] = [
      ['transactions.execute', paid],
      ['transactions.get', await env.bills.transactions.get(String(paid?.transReference))],
      ...((await env.bills.transactions.list()) ?? []).map((item): [string, unknown] => ['transactions.list', item]),
      ...((await env.bills.transactions.filter({ productId: 'AIRTIME-ORANGE' })) ?? []).map(
        (item): [string, unknown] => ['transactions.filter', item],
      ),
    ]
    expect(answers).toHaveLength(4)
    for (const [operation, value] of answers) {
      expect(membersOf(value), operation).toEqual(expect.arrayContaining(fieldsOf(TRANSACTION_KINDS)))
    }
    expect(paid?.idempotencyKey).toBe('order-5')
  })

  it('members the SDK does not know of are kept, typed unknown', async () => {
    env = await setup()
    const paid = await env.bills.transactions.execute({ productId: 'AIRTIME-ORANGE', amount: 5, channel: 'USSD' })
    expectTypeOf(paid?.['channel']).toEqualTypeOf<unknown>()
    expect(paid?.['channel']).toBe('USSD')
  })
})

describe('typed results: the decoders check what the types promise', () => {
  it('numbers for identifiers and amounts, strings for dates, and nulls are accepted', async () => {
    env = await setup()
    const answer = { transReference: 99, productId: 7, amount: '50.00', createdAt: 1767225600000, status: null }
    env.server.use(http.get('*/api/transactions/:transReference', () => HttpResponse.json(answer)))
    const transaction: Transaction | undefined = await env.bills.transactions.get(99)
    expect(transaction).toEqual(answer)
    expect(env.server.requests.at(-1)?.url).toBe('/api/transactions/99')
  })

  it('a product whose enabled flag is a string is unreadable, named by its field', async () => {
    env = await setup()
    env.server.use(http.get('*/api/catalog/:id', () => HttpResponse.json({ id: 'EDSA-PREPAID', enabled: 'yes' })))
    const error = (await rejection(env.bills.catalog.get('EDSA-PREPAID'))) as BillPaymentError
    expect(error).toBeInstanceOf(BillPaymentError)
    expect(error.reason).toBe('unreadable_response')
    expect(error.message).toBe(
      'catalog.get: the success answer (HTTP 200) could not be read: enabled is a string, not a boolean; pass a schema to accept another shape.',
    )
    const Loose = z.looseObject({ id: z.string(), enabled: z.string() })
    const read = await env.bills.catalog.get('EDSA-PREPAID', { schema: Loose })
    expect(read.enabled).toBe('yes')
  })

  it('a transaction list answered as an envelope is unreadable without a schema, and read with one', async () => {
    env = await setup()
    const envelope = { items: [{ transReference: 'BP1' }], total: 1 }
    env.server.use(http.post('*/api/transactions/all', () => HttpResponse.json(envelope)))
    const error = (await rejection(env.bills.transactions.filter({}))) as BillPaymentError
    expect(error.reason).toBe('unreadable_response')
    expect(error.message).toContain('a JSON array (or no body) was expected, not an object; pass a schema')
    const read = await env.bills.transactions.filter({}, { schema: z.object({ total: z.number() }).loose() })
    expect(read.total).toBe(1)
  })

  it('a payment answer with an array for its amount is unreadable, and the payment an unknown outcome', async () => {
    env = await setup()
    env.server.use(http.post('*/api/transactions', () => HttpResponse.json({ transReference: 'BP1', amount: [50] })))
    const error = (await rejection(
      env.bills.transactions.execute({ productId: 'EDSA-PREPAID', amount: 50 }, { idempotencyKey: 'k-arr' }),
    )) as BillPaymentError
    expect(error.reason).toBe('unreadable_response')
    expect(error.message).toContain('amount is an array, not a string or number')
    expect(error.outcomeUnknown).toBe(true)
    expect(error.idempotencyKey).toBe('k-arr')
  })

  it('empty answers stay undefined: a 200 without a body, and a JSON null', async () => {
    env = await setup()
    env.server.use(http.post('*/api/catalog/enable-product', () => new HttpResponse(null, { status: 200 })))
    expect(await env.bills.catalog.enable({ productId: 'EDSA-PREPAID' })).toBeUndefined()
    env.server.use(http.get('*/api/catalog/get-all-products', () => HttpResponse.json(null)))
    expect(await env.bills.catalog.list()).toBeUndefined()
  })

  it('z.json() keeps the former any-JSON result', async () => {
    env = await setup()
    env.server.use(http.get('*/api/catalog/get-all-products', () => HttpResponse.json({ products: 4 })))
    const raw = await env.bills.catalog.list({ schema: z.json().optional() })
    expect(raw).toEqual({ products: 4 })
    const typed: readonly Product[] | undefined = await env.bills.catalog.list().catch(() => undefined)
    expect(typed).toBeUndefined()
  })
})
