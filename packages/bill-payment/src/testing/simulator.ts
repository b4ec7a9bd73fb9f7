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
import { DEFAULT_PRODUCTS, SIMULATOR_CREDENTIALS, type SimulatorProduct } from './fixtures.js'
import { isRecord, PROBLEM_BASE, problem, readJson, validation } from './problems.js'
import { billOperationOf, FAULT_OPERATIONS, strictErrors } from './strict.js'
import { type BillPaymentLedgerEntry, SimulatedTransactions, type SimulatorTransaction } from './transactions.js'

export type { SimulatorProblem } from './problems.js'
export type { BillPaymentLedgerEntry, LedgerEntry, SimulatorTransaction } from './transactions.js'
export { SIMULATOR_FILTER_KEYS } from './transactions.js'

export interface BillPaymentSimulatorOptions {
  readonly clientId?: string
  readonly clientSecret?: string
  /** Starting catalog; default `DEFAULT_PRODUCTS`. */
  readonly products?: readonly Readonly<SimulatorProduct>[]
  /** Time: `createdAt` reads `clock.date()` (ms since the epoch). Default core's `systemClock`; tests pass `createTestClock()`. */
  readonly clock?: Clock
  /**
   * `true` turns off the strict checks: by default a body the SDK's own rules refuse is answered with
   * a 400 validation problem naming the field, as the live service would, before anything is done.
   */
  readonly lenient?: boolean
}

/**
 * The simulated service. `simulator.handlers` are msw handlers (serve them with `startMockServer`, or
 * use `startBillPaymentSimulator()`); the state is public to read: `products`, `transactions`, `ledger`.
 */
export class BillPaymentSimulator {
  readonly clientId: string
  readonly clientSecret: string
  /** msw handlers, one per endpoint; paths start with `*\/` so any host and port match. */
  readonly handlers: readonly RequestHandler[]
  readonly #initialProducts: readonly Readonly<SimulatorProduct>[]
  #products = new Map<string, SimulatorProduct>()
  readonly #transactions: SimulatedTransactions
  readonly #faults = new FaultQueue({ operations: FAULT_OPERATIONS })
  readonly #lenient: boolean

  constructor(options: BillPaymentSimulatorOptions = {}) {
    this.#lenient = options.lenient ?? false
    this.clientId = options.clientId ?? SIMULATOR_CREDENTIALS.clientId
    this.clientSecret = options.clientSecret ?? SIMULATOR_CREDENTIALS.clientSecret
    this.#initialProducts = options.products ?? DEFAULT_PRODUCTS
    this.#transactions = new SimulatedTransactions(options.clock ?? systemClock)
    this.reset()
    this.handlers = this.#buildHandlers()
  }

  /** The catalog now (copies). */
  get products(): readonly SimulatorProduct[] {
    return [...this.#products.values()].map((p) => ({ ...p }))
  }

  /** Every transaction, oldest first. */
  get transactions(): readonly SimulatorTransaction[] {
    return this.#transactions.all
  }

  /** Every payment executed, oldest first: a replayed `Idempotency-Key` adds no entry. */
  get ledger(): readonly BillPaymentLedgerEntry[] {
    return this.#transactions.ledger
  }

  /** Moves a transaction to `status` (`PENDING`, `REVERSED`…: the service publishes no states); throws when none has the reference. */
  setStatus(transReference: string, status: string): void {
    if (!this.#transactions.setStatus(transReference, status)) {
      throw new Error(`simulator: no transaction ${transReference}`)
    }
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
   * `{ when: 'after' }` the request is acted on first and only its answer is replaced. `operation`
   * (`'transactions.execute'`, the name the SDK's errors use) narrows it to those requests (a list on
   * the same path is left alone); an unknown one throws a `RangeError` naming the known ones.
   */
  failNext(options: FailNextOptions = {}): void {
    this.#faults.add(options)
  }

  /** Back to the starting catalog, no transactions, no faults. */
  reset(): void {
    this.#products = new Map(this.#initialProducts.map((p) => [p.id, { ...p }]))
    this.#transactions.reset()
    this.#faults.clear()
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
      const pathname = new URL(request.url).pathname
      const operation = billOperationOf(request.method, pathname)
      const fault = this.#faults.take({ pathname, operation })
      if (fault && fault.when === 'before') return this.#faultAnswer(fault)
      const answer = await this.#answer(request, params, operation, handle)
      // A fault taken 'after' replaces whatever was answered, a refusal included (as on the other
      // simulators): taken, it is always seen.
      return fault ? this.#faultAnswer(fault) : answer
    }
  }

  /** The credentials check, the strict checks (unless lenient), then the route. */
  async #answer(
    request: Request,
    params: Record<string, string | readonly string[] | undefined>,
    operation: string | undefined,
    handle: (request: Request, params: Record<string, string>) => Promise<Response>,
  ): Promise<Response> {
    if (!this.#authorized(request)) {
      return problem(
        401,
        'unauthorized',
        'Unauthorized',
        'Missing or invalid client credentials (X-Service-Internal-Client-Id, X-Service-Client-Secret).',
      )
    }
    const refused = this.#lenient ? undefined : await this.#strict(request, operation)
    if (refused) return refused
    const flat: Record<string, string> = {}
    for (const [k, v] of Object.entries(params)) if (typeof v === 'string') flat[k] = decodeURIComponent(v)
    return handle(request, flat)
  }

  /** The SDK's own body checks for the operation (a body that is not JSON is left to the endpoint). */
  async #strict(request: Request, operation: string | undefined): Promise<Response | undefined> {
    if (request.method === 'GET') return undefined
    const body = await readJson(request.clone())
    if (!body.ok) return undefined
    const errors = strictErrors(operation, body.value)
    return Object.keys(errors).length > 0 ? validation(errors) : undefined
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
          return this.#transactions.filtered(filter)
        }),
      ),
      http.post(
        '*/api/transactions/all',
        this.#guard((request) => this.#transactions.filter(request)),
      ),
      http.post(
        '*/api/transactions',
        this.#guard((request) => this.#transactions.execute(request, this.#products)),
      ),
      http.get(
        '*/api/transactions/:transReference',
        this.#guard(async (_request, params) => {
          const found = this.#transactions.find(params.transReference)
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
}
