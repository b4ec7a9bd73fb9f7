/**
 * The bill payment simulator's payments: executing one (with `Idempotency-Key` replay), the
 * transactions it made, the ledger of payments executed, listing and filtering them, their routes,
 * and one example call of each transactions endpoint (the endpoint checklist's).
 */

import type { Clock } from '@paywire/core'
import type { EndpointExamples } from '@paywire/core/engine'
import { HttpResponse, http, type RequestHandler } from 'msw'
import type { TRANSACTIONS } from '../resources/transactions.js'
import type { SimulatedCatalog } from './catalog.js'
import type { SimulatorProduct } from './fixtures.js'
import { canonical, isRecord, problem, readJson, validation } from './problems.js'
import type { ExampleSetup, Guard } from './routing.js'

/** A transaction as the simulator stores and returns it. */
export interface SimulatorTransaction {
  readonly transReference: string
  readonly productId: string
  readonly amount: number
  readonly currency: string
  readonly customerReference: string | undefined
  /** `SUCCESSFUL`: the simulator settles every accepted payment at once, unless `setStatus` moves it. */
  readonly status: string
  /** ISO 8601. */
  readonly createdAt: string
  readonly idempotencyKey: string | undefined
  /** Any other fields the request carried, kept as sent. */
  readonly [extra: string]: unknown
}

/** One payment the simulator executed (a replayed key adds nothing here). */
export interface BillPaymentLedgerEntry {
  readonly transReference: string
  readonly idempotencyKey: string | undefined
  readonly productId: string
  readonly amount: number
  readonly executedAt: string
}

/** @deprecated Use `BillPaymentLedgerEntry` (one name per service, like `BillPaymentError`); this alias goes in 1.0. */
export type LedgerEntry = BillPaymentLedgerEntry

/** Filter keys the simulator understands, on `POST /api/transactions/all` and as `GET /api/transactions` query. */
export const SIMULATOR_FILTER_KEYS = ['productId', 'status', 'customerReference', 'from', 'to'] as const

/** What the first use of an idempotency key made, to replay it or refuse a different body. */
interface KeyRecord {
  readonly bodyText: string
  readonly transaction: SimulatorTransaction
}

/** The transactions side of the simulated service; the simulator's catalog is passed to each payment. */
export class SimulatedTransactions {
  readonly #clock: Clock
  #transactions: SimulatorTransaction[] = []
  #ledger: BillPaymentLedgerEntry[] = []
  readonly #keys = new Map<string, KeyRecord>()
  #counter = 0

  constructor(clock: Clock) {
    this.#clock = clock
  }

  /** Every transaction, oldest first. */
  get all(): readonly SimulatorTransaction[] {
    return [...this.#transactions]
  }

  /** Every payment executed, oldest first: a replayed `Idempotency-Key` adds no entry. */
  get ledger(): readonly BillPaymentLedgerEntry[] {
    return [...this.#ledger]
  }

  /** One transaction by its reference, or `undefined`. */
  find(transReference: string | undefined): SimulatorTransaction | undefined {
    return this.#transactions.find((t) => t.transReference === transReference)
  }

  /** Moves a transaction to `status` (a provider's pending or reversed payment); `false` when none has the reference. */
  setStatus(transReference: string, status: string): boolean {
    const index = this.#transactions.findIndex((t) => t.transReference === transReference)
    const found = this.#transactions[index]
    if (found === undefined) return false
    this.#transactions[index] = { ...found, status }
    return true
  }

  /** No transactions, no ledger, no keys. */
  reset(): void {
    this.#transactions = []
    this.#ledger = []
    this.#keys.clear()
    this.#counter = 0
  }

  /**
   * Simulator's own rules: `productId` (string) and `amount` (number > 0) are required; an unknown
   * product answers 404, a disabled one 409, an amount outside the product's range 422. A known
   * `Idempotency-Key` replays the original transaction (header `Idempotent-Replayed: true`), or
   * answers 422 when the body differs from the first use of the key.
   */
  async execute(request: Request, products: ReadonlyMap<string, SimulatorProduct>): Promise<Response> {
    const key = request.headers.get('idempotency-key') ?? undefined
    const body = await readJson(request)
    if (!body.ok || !isRecord(body.value)) return validation({ body: ['A JSON object is required.'] })
    const fields = body.value

    if (key !== undefined) {
      const seen = this.#keys.get(key)
      if (seen && seen.bodyText !== canonical(fields)) {
        return problem(
          422,
          'idempotency-key-reused',
          'Idempotency-Key reused',
          'This Idempotency-Key was first used with a different request body.',
        )
      }
      if (seen) return HttpResponse.json(seen.transaction, { headers: { 'idempotent-replayed': 'true' } })
    }

    const errors: Record<string, string[]> = {}
    if (typeof fields.productId !== 'string' || fields.productId === '') {
      errors.productId = ['The productId field is required.']
    }
    if (typeof fields.amount !== 'number' || !(fields.amount > 0)) errors.amount = ['The amount must be a number > 0.']
    if (fields.customerReference !== undefined && typeof fields.customerReference !== 'string') {
      errors.customerReference = ['The customerReference must be a string.']
    }
    if (Object.keys(errors).length > 0) return validation(errors)
    const productId = fields.productId as string
    const amount = fields.amount as number

    const product = products.get(productId)
    if (!product) return problem(404, 'product-not-found', 'Product not found', `No product with id "${productId}".`)
    if (!product.enabled) {
      return problem(
        409,
        'product-disabled',
        'Product disabled',
        `Product "${productId}" is disabled; enable it first.`,
      )
    }
    if (amount < product.minAmount || amount > product.maxAmount) {
      return problem(
        422,
        'amount-out-of-range',
        'Amount out of range',
        `Amount must be between ${product.minAmount} and ${product.maxAmount} ${product.currency}.`,
      )
    }

    this.#counter += 1
    const executedAt = new Date(this.#clock.date?.() ?? Date.now()).toISOString()
    const transaction: SimulatorTransaction = {
      ...fields,
      transReference: `BP${String(this.#counter).padStart(8, '0')}`,
      productId,
      amount,
      currency: product.currency,
      customerReference: fields.customerReference as string | undefined,
      status: 'SUCCESSFUL',
      createdAt: executedAt,
      idempotencyKey: key,
    }
    this.#transactions.push(transaction)
    this.#ledger.push({
      transReference: transaction.transReference,
      idempotencyKey: key,
      productId,
      amount,
      executedAt,
    })
    if (key !== undefined) this.#keys.set(key, { bodyText: canonical(fields), transaction })
    return HttpResponse.json(transaction)
  }

  /** `POST /api/transactions/all`: the filter in a JSON body. */
  async filter(request: Request): Promise<Response> {
    const body = await readJson(request)
    if (!body.ok || !isRecord(body.value)) return validation({ body: ['A JSON object is required.'] })
    return this.filtered(body.value)
  }

  /** Simulator's own filter keys (`SIMULATOR_FILTER_KEYS`); `from`/`to` are inclusive ISO 8601 bounds on `createdAt`. */
  filtered(filter: Record<string, unknown>): Response {
    const errors: Record<string, string[]> = {}
    for (const key of Object.keys(filter)) {
      if (!(SIMULATOR_FILTER_KEYS as readonly string[]).includes(key)) {
        errors[key] = [`Unknown filter key; the simulator supports ${SIMULATOR_FILTER_KEYS.join(', ')}.`]
      }
    }
    const bound = (name: 'from' | 'to'): number | undefined => {
      const value = filter[name]
      if (value === undefined) return undefined
      const time = typeof value === 'string' ? Date.parse(value) : Number.NaN
      if (Number.isNaN(time)) errors[name] = ['Must be an ISO 8601 date-time.']
      return time
    }
    const from = bound('from')
    const to = bound('to')
    if (Object.keys(errors).length > 0) return validation(errors)
    const matches = this.#transactions.filter((t) => {
      const at = Date.parse(t.createdAt)
      if (filter.productId !== undefined && t.productId !== filter.productId) return false
      if (filter.status !== undefined && t.status !== filter.status) return false
      if (filter.customerReference !== undefined && t.customerReference !== filter.customerReference) return false
      if (from !== undefined && at < from) return false
      if (to !== undefined && at > to) return false
      return true
    })
    return HttpResponse.json(matches)
  }
}

/** The transactions' routes, each behind `guard`; a payment reads the products of `catalog`. */
export function transactionRoutes(
  guard: Guard,
  transactions: SimulatedTransactions,
  catalog: SimulatedCatalog,
): RequestHandler[] {
  return [
    http.get(
      '*/api/transactions',
      guard(async (request) => {
        const query = new URL(request.url).searchParams
        const filter: Record<string, unknown> = {}
        for (const [k, v] of query) filter[k] = v
        return transactions.filtered(filter)
      }),
    ),
    http.post(
      '*/api/transactions/all',
      guard((request) => transactions.filter(request)),
    ),
    http.post(
      '*/api/transactions',
      guard((request) => transactions.execute(request, catalog.byId)),
    ),
    http.get(
      '*/api/transactions/:transReference',
      guard(async (_request, params) => {
        const found = transactions.find(params.transReference)
        if (!found) {
          return problem(
            404,
            'transaction-not-found',
            'Transaction not found',
            `No transaction with reference "${params.transReference}".`,
          )
        }
        return HttpResponse.json(found)
      }),
    ),
  ]
}

/** A call per transactions row, answered with success by the simulator's default catalog. */
export const TRANSACTION_EXAMPLES: EndpointExamples<typeof TRANSACTIONS, ExampleSetup> = {
  list: () => [{ productId: 'EDSA-PREPAID' }],
  execute: () => [{ productId: 'EDSA-PREPAID', amount: 50, customerReference: 'METER-0001' }],
  get: async ({ client }) => {
    const paid = await client.transactions.execute({ productId: 'EDSA-PREPAID', amount: 25 })
    return [String(paid?.transReference)]
  },
  filter: () => [{ productId: 'EDSA-PREPAID' }],
}
