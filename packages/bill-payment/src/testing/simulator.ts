/**
 * A stateful bill payment service for tests: a catalog that can be enabled and disabled, payments
 * with `Idempotency-Key` replay, transactions listed/fetched/filtered, two-header auth, injectable
 * faults and a ledger of executed payments. Its request fields, filter keys, statuses and error
 * problems are the simulator's own choices: the service publishes none of them. Its answers have
 * the shapes of the package's result types (`Product`, `Transaction` and lists of them; rule IDs of
 * https://github.com/paywire/paywire/blob/main/docs/bill-payment-rules.md: Platform 11–12).
 */

import { type Clock, systemClock } from '@paywire/core'
import { type FailNextOptions, FaultQueue, faultAnswer, type InjectedFault } from '@paywire/core/testing'
import { HttpResponse, http, type RequestHandler } from 'msw'
import { DEFAULT_PRODUCTS, SIMULATOR_CLIENT_ID, SIMULATOR_CLIENT_SECRET, type SimulatorProduct } from './fixtures.js'

const PROBLEM_BASE = 'https://paywire.dev/problems/bill-payment/'

/** A transaction as the simulator stores and returns it. */
export interface SimulatorTransaction {
  readonly transReference: string
  readonly productId: string
  readonly amount: number
  readonly currency: string
  readonly customerReference: string | undefined
  /** The simulator settles every accepted payment at once. */
  readonly status: 'SUCCESSFUL'
  /** ISO 8601. */
  readonly createdAt: string
  readonly idempotencyKey: string | undefined
  /** Any other fields the request carried, kept as sent. */
  readonly [extra: string]: unknown
}

/** One payment the simulator executed (a replayed key adds nothing here). */
export interface LedgerEntry {
  readonly transReference: string
  readonly idempotencyKey: string | undefined
  readonly productId: string
  readonly amount: number
  readonly executedAt: string
}

/** A problem body the simulator answers with (RFC 9457). */
export interface SimulatorProblem {
  readonly type?: string
  readonly title?: string
  readonly status?: number
  readonly detail?: string
  readonly [extension: string]: unknown
}

export interface BillPaymentSimulatorOptions {
  readonly clientId?: string
  readonly clientSecret?: string
  /** Starting catalog; default `DEFAULT_PRODUCTS`. */
  readonly products?: readonly Readonly<SimulatorProduct>[]
  /** Time: `createdAt` reads `clock.date()` (ms since the epoch). Default core's `systemClock`; tests pass `createTestClock()`. */
  readonly clock?: Clock
}

/** Filter keys the simulator understands, on `POST /api/transactions/all` and as `GET /api/transactions` query. */
export const SIMULATOR_FILTER_KEYS = ['productId', 'status', 'customerReference', 'from', 'to'] as const

interface KeyRecord {
  readonly bodyText: string
  readonly transaction: SimulatorTransaction
}

function problem(status: number, slug: string, title: string, detail: string, extra: Record<string, unknown> = {}) {
  return HttpResponse.json(
    { type: PROBLEM_BASE + slug, title, status, detail, ...extra },
    { status, headers: { 'content-type': 'application/problem+json' } },
  )
}

function validation(errors: Record<string, string[]>) {
  return problem(400, 'validation', 'One or more validation errors occurred.', 'See errors.', { errors })
}

async function readJson(request: Request): Promise<{ ok: true; value: unknown; text: string } | { ok: false }> {
  const text = await request.text()
  try {
    return { ok: true, value: JSON.parse(text), text }
  } catch {
    return { ok: false }
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** Stable text of a JSON value with sorted keys, to tell "same body" from "different body". */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`
  if (isRecord(value)) {
    const keys = Object.keys(value).sort()
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonical(value[k])}`).join(',')}}`
  }
  return JSON.stringify(value)
}

/**
 * The simulated service. `simulator.handlers` are msw handlers (serve them with `startMockServer`, or
 * use `startBillPaymentSimulator()`); the state is public to read: `products`, `transactions`, `ledger`.
 */
export class BillPaymentSimulator {
  readonly clientId: string
  readonly clientSecret: string
  /** msw handlers for the eight endpoints; paths start with `*\/` so any host and port match. */
  readonly handlers: readonly RequestHandler[]
  readonly #initialProducts: readonly Readonly<SimulatorProduct>[]
  readonly #clock: Clock
  #products = new Map<string, SimulatorProduct>()
  #transactions: SimulatorTransaction[] = []
  #ledger: LedgerEntry[] = []
  #keys = new Map<string, KeyRecord>()
  readonly #faults = new FaultQueue()
  #counter = 0

  constructor(options: BillPaymentSimulatorOptions = {}) {
    this.clientId = options.clientId ?? SIMULATOR_CLIENT_ID
    this.clientSecret = options.clientSecret ?? SIMULATOR_CLIENT_SECRET
    this.#initialProducts = options.products ?? DEFAULT_PRODUCTS
    this.#clock = options.clock ?? systemClock
    this.reset()
    this.handlers = this.#buildHandlers()
  }

  /** The catalog now (copies). */
  get products(): readonly SimulatorProduct[] {
    return [...this.#products.values()].map((p) => ({ ...p }))
  }

  /** Every transaction, oldest first. */
  get transactions(): readonly SimulatorTransaction[] {
    return [...this.#transactions]
  }

  /** Every payment executed, oldest first: a replayed `Idempotency-Key` adds no entry. */
  get ledger(): readonly LedgerEntry[] {
    return [...this.#ledger]
  }

  /** One product by id, or `undefined`. */
  product(id: string): SimulatorProduct | undefined {
    const found = this.#products.get(id)
    return found ? { ...found } : undefined
  }

  /** Adds or replaces a product. */
  setProduct(product: SimulatorProduct): void {
    this.#products.set(product.id, { ...product })
  }

  /**
   * The next `count` requests (to `path` or below it, default any), before the auth check, are
   * answered with `status` (default 503) and a ProblemDetails naming it, or `body`. With
   * `{ when: 'after' }` the request is acted on first and only its answer is replaced.
   */
  failNext(options: FailNextOptions = {}): void {
    this.#faults.add(options)
  }

  /** Back to the starting catalog, no transactions, no faults. */
  reset(): void {
    this.#products = new Map(this.#initialProducts.map((p) => [p.id, { ...p }]))
    this.#transactions = []
    this.#ledger = []
    this.#keys.clear()
    this.#faults.clear()
    this.#counter = 0
  }

  #authorized(request: Request): boolean {
    return (
      request.headers.get('x-service-internal-client-id') === this.clientId &&
      request.headers.get('x-service-client-secret') === this.clientSecret
    )
  }

  #faultAnswer(fault: InjectedFault): Response {
    return faultAnswer(fault, 503, (status) => ({
      body: {
        type: `${PROBLEM_BASE}injected-fault`,
        title: 'Injected fault',
        status,
        detail: `The simulator was told to answer ${status}.`,
      },
      contentType: 'application/problem+json',
    }))
  }

  /** Faults first, then auth, then the endpoint; an `after` fault replaces the endpoint's answer. */
  #guard(handle: (request: Request, params: Record<string, string>) => Promise<Response>) {
    return async ({
      request,
      params,
    }: {
      request: Request
      params: Record<string, string | readonly string[] | undefined>
    }) => {
      const fault = this.#faults.take(new URL(request.url).pathname)
      if (fault && fault.when === 'before') return this.#faultAnswer(fault)
      if (!this.#authorized(request)) {
        return problem(
          401,
          'unauthorized',
          'Unauthorized',
          'Missing or invalid client credentials (X-Service-Internal-Client-Id, X-Service-Client-Secret).',
        )
      }
      const flat: Record<string, string> = {}
      for (const [k, v] of Object.entries(params)) if (typeof v === 'string') flat[k] = decodeURIComponent(v)
      const answer = await handle(request, flat)
      return fault ? this.#faultAnswer(fault) : answer
    }
  }

  #buildHandlers(): RequestHandler[] {
    return [
      // Listed before `{id}` so the literal path wins.
      http.get(
        '*/api/catalog/get-all-products',
        this.#guard(async () => HttpResponse.json(this.products)),
      ),
      http.get(
        '*/api/catalog/:id',
        this.#guard(async (_request, params) => {
          const found = this.product(params.id ?? '')
          if (!found)
            return problem(404, 'product-not-found', 'Product not found', `No product with id "${params.id}".`)
          return HttpResponse.json(found)
        }),
      ),
      http.post(
        '*/api/catalog/enable-product',
        this.#guard((request) => this.#toggle(request, true)),
      ),
      http.post(
        '*/api/catalog/disable-product',
        this.#guard((request) => this.#toggle(request, false)),
      ),
      http.get(
        '*/api/transactions',
        this.#guard(async (request) => {
          const query = new URL(request.url).searchParams
          const filter: Record<string, unknown> = {}
          for (const [k, v] of query) filter[k] = v
          return this.#filtered(filter)
        }),
      ),
      http.post(
        '*/api/transactions/all',
        this.#guard((request) => this.#filter(request)),
      ),
      http.post(
        '*/api/transactions',
        this.#guard((request) => this.#execute(request)),
      ),
      http.get(
        '*/api/transactions/:transReference',
        this.#guard(async (_request, params) => {
          const found = this.#transactions.find((t) => t.transReference === params.transReference)
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

  /** Simulator's own body: `{ productId }` (or `{ id }`); answers the product as it now is. */
  async #toggle(request: Request, enabled: boolean): Promise<Response> {
    const body = await readJson(request)
    if (!body.ok || !isRecord(body.value)) return validation({ body: ['A JSON object is required.'] })
    const id = body.value.productId ?? body.value.id
    if (typeof id !== 'string' || id === '') return validation({ productId: ['The productId field is required.'] })
    const product = this.#products.get(id)
    if (!product) return problem(404, 'product-not-found', 'Product not found', `No product with id "${id}".`)
    product.enabled = enabled
    return HttpResponse.json({ ...product })
  }

  /**
   * Simulator's own rules: `productId` (string) and `amount` (number > 0) are required; an unknown
   * product answers 404, a disabled one 409, an amount outside the product's range 422. A known
   * `Idempotency-Key` replays the original transaction (header `Idempotent-Replayed: true`), or
   * answers 422 when the body differs from the first use of the key.
   */
  async #execute(request: Request): Promise<Response> {
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

    const product = this.#products.get(productId)
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

  async #filter(request: Request): Promise<Response> {
    const body = await readJson(request)
    if (!body.ok || !isRecord(body.value)) return validation({ body: ['A JSON object is required.'] })
    return this.#filtered(body.value)
  }

  /** Simulator's own filter keys (`SIMULATOR_FILTER_KEYS`); `from`/`to` are inclusive ISO 8601 bounds on `createdAt`. */
  #filtered(filter: Record<string, unknown>): Response {
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
