/** Transactions operations (rules Endpoints 5–8): one row per endpoint, which is also its method. */

import type { AnswerSchema, ApiPromise, Follower, OperationOptions, Query } from '@paywire/core'
import {
  bindAnswer,
  defineOperation,
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
import { type BillFollowOptions, checkFinalStates } from '../follow.js'
import { TRANSACTION_KINDS, type Transaction } from '../results.js'

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
  list<T>(query: Query | undefined, options: OperationOptions<AnswerSchema<T>>): ApiPromise<T>
  /**
   * `POST /api/transactions`: executes a payment (body `ExecutePaymentRequest`) and resolves with the
   * service's `Transaction` (rule Platform 12). Sends `Idempotency-Key` (`idempotencyKey`, or a
   * generated UUID) on every attempt; read it from `.withResponse()` (`response.idempotencyKey`) or
   * from any error of the call (`error.idempotencyKey`). An unknown outcome is settled with
   * `bills.reconcile(error)` (lookups); sending it again with the same key is safe only where the
   * service's dedup of the key is known (`serviceDedupsIdempotencyKey`).
   */
  execute(params: TransactionsExecuteParams, options?: OperationOptions): ApiPromise<Transaction | undefined>
  execute<T>(params: TransactionsExecuteParams, options: OperationOptions<AnswerSchema<T>>): ApiPromise<T>
  /**
   * `GET /api/transactions/{transReference}`: one transaction by reference, URL-encoded (rules
   * Resources 2, Platform 12). Believed only when the record names the reference asked for (rule
   * Platform 13): another record, or none, rejects with `unbound_response`.
   */
  get(transReference: string | number, options?: OperationOptions): ApiPromise<Transaction>
  get<T>(transReference: string | number, options: OperationOptions<AnswerSchema<T>>): ApiPromise<T>
  /** `POST /api/transactions/all`: filters all transactions (body `TransactionFilter`, fields not published; rule Platform 12). */
  filter(params: TransactionsFilterParams, options?: OperationOptions): ApiPromise<readonly Transaction[] | undefined>
  filter<T>(params: TransactionsFilterParams, options: OperationOptions<AnswerSchema<T>>): ApiPromise<T>
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
