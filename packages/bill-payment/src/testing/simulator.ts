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
import type { RequestHandler } from 'msw'
import { catalogRoutes, SimulatedCatalog } from './catalog.js'
import { DEFAULT_PRODUCTS, SIMULATOR_CREDENTIALS, type SimulatorProduct } from './fixtures.js'
import { PROBLEM_BASE, problem, readJson, validation } from './problems.js'
import type { RouteAnswer, RouteInput } from './routing.js'
import { billOperationOf, FAULT_OPERATIONS, strictErrors } from './strict.js'
import {
  type BillPaymentLedgerEntry,
  SimulatedTransactions,
  type SimulatorTransaction,
  transactionRoutes,
} from './transactions.js'

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
  readonly #catalog = new SimulatedCatalog()
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
    const guard = (answer: RouteAnswer) => this.#guard(answer)
    this.handlers = [
      ...catalogRoutes(guard, this.#catalog),
      ...transactionRoutes(guard, this.#transactions, this.#catalog),
    ]
  }

  /** The catalog now (copies). */
  get products(): readonly SimulatorProduct[] {
    return this.#catalog.all
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
    return this.#catalog.get(id)
  }

  /** Adds or replaces a product. */
  setProduct(product: SimulatorProduct): void {
    this.#catalog.set(product)
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
    this.#catalog.reset(this.#initialProducts)
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
  #guard(handle: RouteAnswer) {
    return async ({ request, params }: RouteInput) => {
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
    params: RouteInput['params'],
    operation: string | undefined,
    handle: RouteAnswer,
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
}
