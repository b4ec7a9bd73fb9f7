/**
 * Transactions operations (rules Endpoints 5–8): one row per endpoint, which is also its method; the
 * transaction record they answer; and `follow()`'s options. The service documents no record fields
 * and no response body (rules Resources 4, Endpoints 10), so a result type names the fields the SDK
 * expects (rules Platform 11–12: assumptions, and what the package's simulator answers) as optional
 * members, plus an open record for the rest; a field's JSON kind follows rule Platform 10, and the
 * decoders check those kinds on arrival (rule Platform 9).
 */

import {
  type ApiPromise,
  type Follower,
  type FollowOptions,
  type FollowUpdate,
  type OperationOptions,
  type Query,
  RequestValidationError,
  type ResponseSchema,
} from '@paywire/core'
import {
  bindAnswer,
  defineOperation,
  type FieldKinds,
  type Following,
  listAnswer,
  type OperationClient,
  reconcileRule,
  recordAnswer,
  resource,
  safe,
  unsentOnly,
} from '@paywire/core/engine'
import { IDEMPOTENCY, jsonObject, type TransactionsExecuteParams, type TransactionsFilterParams } from '../fields.js'

/** A payment transaction, addressed by `transReference` (rules Resources 2, Platform 12). */
export interface Transaction {
  /** The transaction's reference: pass it to `transactions.get` (rule Resources 2). */
  readonly transReference?: string | number | null
  /** The product paid (`Product.id`). */
  readonly productId?: string | number | null
  /** The amount paid, in `currency`. */
  readonly amount?: string | number | null
  /** The currency of `amount`, ISO 4217. */
  readonly currency?: string | null
  /** Your reference of the bill (a meter, an account, a phone number), as sent. */
  readonly customerReference?: string | number | null
  /** The transaction's state, e.g. `SUCCESSFUL` (rule States: the service publishes no states). */
  readonly status?: string | number | null
  /** When the payment was made: an ISO 8601 date-time, or a number of milliseconds since 1970. */
  readonly createdAt?: string | number | null
  /** The `Idempotency-Key` the payment was sent with (rule Platform 5). */
  readonly idempotencyKey?: string | null
  /** Members the SDK does not know of, as the service sent them (the payment request's other fields, say). */
  readonly [field: string]: unknown
}

export const TRANSACTION_KINDS: FieldKinds<Transaction> = {
  transReference: 'string or number',
  productId: 'string or number',
  amount: 'string or number',
  currency: 'string',
  customerReference: 'string or number',
  status: 'string or number',
  createdAt: 'string or number',
  idempotencyKey: 'string',
}

/** A confirmed change of a bill payment's state, in the service's words (`SUCCESSFUL`). */
export type BillPaymentUpdate = FollowUpdate<Transaction>

/** The options of `bills.transactions.follow()`. */
export interface BillFollowOptions extends FollowOptions<BillPaymentUpdate> {
  /**
   * The states (compared without regard to case) a payment leaves no more: the service publishes
   * none (rule States), so name your provider's. Default `DEFAULT_FINAL_BILL_STATES`.
   */
  finalStates?: readonly string[]
}

/** The usual words of a settled or failed payment; any other state is one a payment can leave. */
export const DEFAULT_FINAL_BILL_STATES: readonly string[] = [
  'SUCCESSFUL',
  'SUCCESS',
  'COMPLETED',
  'FAILED',
  'DECLINED',
  'REJECTED',
  'CANCELLED',
  'REVERSED',
  'REFUNDED',
]

/** The finals as the follower compares them (upper case), checked. */
function checkFinalStates(given: unknown): ReadonlySet<string> {
  if (given === undefined) return new Set(DEFAULT_FINAL_BILL_STATES)
  if (!Array.isArray(given) || given.length === 0 || given.some((s) => typeof s !== 'string' || s.trim() === '')) {
    throw new RequestValidationError(
      'transactions.follow',
      [{ path: 'finalStates', message: 'must be a non-empty list of state names' }],
      'options',
    )
  }
  return new Set(given.map((s: string) => s.toUpperCase()))
}

const transaction = recordAnswer<Transaction>(TRANSACTION_KINDS)
const transactions = listAnswer<Transaction>(TRANSACTION_KINDS)

/**
 * The Transactions endpoints, one row each; each row is also the `bills.transactions` method of
 * its name. Reads and the filter are `safe` to retry. `execute` is `unsent-only`: the service does
 * not publish what it does with an `Idempotency-Key` (rule Endpoints 9), so a repeat after the
 * request left could pay twice unless the caller opts in (`retryWithSameKey`, rule Platform 6). It
 * generates a key (rule Platform 5).
 */
export const TRANSACTIONS = {
  list: defineOperation({
    name: 'transactions.list',
    method: 'GET',
    path: '/api/transactions',
    query: true,
    retry: safe,
    idempotency: IDEMPOTENCY,
    decode: transactions,
  }),
  execute: defineOperation({
    name: 'transactions.execute',
    method: 'POST',
    path: '/api/transactions',
    params: jsonObject('body'),
    retry: unsentOnly,
    idempotency: { ...IDEMPOTENCY, generate: true },
    reconcile: reconcileRule([IDEMPOTENCY.header], ({ idempotencyKey: key }) =>
      key === undefined
        ? undefined
        : {
            key: IDEMPOTENCY.header,
            value: key,
            lookup: `bills.transactions.list() or bills.transactions.filter(...) for the payment sent with Idempotency-Key ${JSON.stringify(key)}`,
          },
    ),
    // A payment's answer naming the key it was paid with must name this call's (rules Platform 12,
    // 13); one naming none is taken: no success body is published, so absence proves nothing.
    answerBinding: bindAnswer('action', { idempotencyKey: ['idempotencyKey'], rule: 'Platform 13' }),
    decode: transaction,
  }),
  get: defineOperation({
    name: 'transactions.get',
    method: 'GET',
    path: '/api/transactions/{transReference}',
    retry: safe,
    idempotency: IDEMPOTENCY,
    // No answer body is published (rule Endpoints 10): the binding rests on Platform 12, an
    // assumption that the record carries its transReference (what the simulator answers).
    answerBinding: bindAnswer('lookup', { path: { transReference: ['transReference'] }, rule: 'Platform 13' }),
    // An empty answer names no reference and is refused by the binding before this decoder runs.
    decode: (value, reject): Transaction => transaction(value, reject) ?? reject('holds no record'),
  }),
  filter: defineOperation({
    name: 'transactions.filter',
    method: 'POST',
    path: '/api/transactions/all',
    params: jsonObject('filter'),
    retry: safe,
    idempotency: IDEMPOTENCY,
    decode: transactions,
  }),
}

/**
 * `bills.transactions`: execute payments and read them back, one method per endpoint, and `follow`.
 * Reads and the filter are safe to repeat; `execute` is not retried once sent unless the caller opts
 * in. Every endpoint's method also takes a `schema` in its options, which checks the answer and types
 * the result with it.
 */
export interface Transactions {
  /** `GET /api/transactions`: lists transactions; `query` is passed through as given (rules Endpoints 10, Platform 12). */
  list(query?: Query, options?: OperationOptions): ApiPromise<readonly Transaction[] | undefined>
  list<T>(query: Query | undefined, options: OperationOptions<ResponseSchema<T>>): ApiPromise<T>
  /**
   * `POST /api/transactions`: executes a payment (body `ExecutePaymentRequest`) and resolves with the
   * service's `Transaction` (rule Platform 12). Sends `Idempotency-Key` (`idempotencyKey`, or a
   * generated UUID) on every attempt; read it from `.withResponse()` (`response.idempotencyKey`) or
   * from any error of the call (`error.idempotencyKey`). An unknown outcome is settled with
   * `bills.reconcile(error)` (lookups); sending it again with the same key is safe only where the
   * service's dedup of the key is known (`serviceDedupsIdempotencyKey`).
   */
  execute(params: TransactionsExecuteParams, options?: OperationOptions): ApiPromise<Transaction | undefined>
  execute<T>(params: TransactionsExecuteParams, options: OperationOptions<ResponseSchema<T>>): ApiPromise<T>
  /**
   * `GET /api/transactions/{transReference}`: one transaction by reference, URL-encoded (rules
   * Resources 2, Platform 12). Believed only when the record names the reference asked for (rule
   * Platform 13): another record, or none, rejects with `unbound_response`.
   */
  get(transReference: string | number, options?: OperationOptions): ApiPromise<Transaction>
  get<T>(transReference: string | number, options: OperationOptions<ResponseSchema<T>>): ApiPromise<T>
  /** `POST /api/transactions/all`: filters all transactions (body `TransactionFilter`, fields not published; rule Platform 12). */
  filter(params: TransactionsFilterParams, options?: OperationOptions): ApiPromise<readonly Transaction[] | undefined>
  filter<T>(params: TransactionsFilterParams, options: OperationOptions<ResponseSchema<T>>): ApiPromise<T>
  /**
   * Follows every payment this client executes (also one whose answer was lost, once the journal's
   * reconciliation finds it), and any you `track(transReference)`, until each is in one of
   * `finalStates`. `onUpdate` receives one forward-only stream of states confirmed by
   * `transactions.get`; `onAttention` a payment stuck. Lookups stay within `lookupsPerSecond`. Call
   * `stop()` on shutdown.
   */
  follow(options: BillFollowOptions): Follower<Transaction>
}

/** `Transactions` made from the rows of `TRANSACTIONS` (which must match it: see `resource`), plus `follow`. */
export class TransactionsResource
  extends resource<unknown, typeof TRANSACTIONS, Transactions>(TRANSACTIONS)
  implements Transactions
{
  readonly #following: ((finals: ReadonlySet<string>) => Following<Transaction>) | undefined

  /** @internal `following` builds the client's follow setup for a set of final states. */
  constructor(ops: OperationClient<unknown>, following?: (finals: ReadonlySet<string>) => Following<Transaction>) {
    super(ops)
    this.#following = following
  }

  follow(options: BillFollowOptions): Follower<Transaction> {
    if (this.#following === undefined) throw new TypeError('transactions.follow must be called on bills.transactions')
    return this.#following(checkFinalStates(options?.finalStates)).follow(options)
  }
}

/** @deprecated Use `readonly Transaction[] | undefined`, which the method's signature names; this per-method alias goes in 1.0. */
export type TransactionsListResult = readonly Transaction[] | undefined
/** @deprecated Use `Transaction | undefined`, which the method's signature names; this per-method alias goes in 1.0. */
export type TransactionsExecuteResult = Transaction | undefined
/** @deprecated Use `Transaction`, which the method's signature names; this per-method alias goes in 1.0. */
export type TransactionsGetResult = Transaction
/** @deprecated Use `readonly Transaction[] | undefined`, which the method's signature names; this per-method alias goes in 1.0. */
export type TransactionsFilterResult = readonly Transaction[] | undefined
