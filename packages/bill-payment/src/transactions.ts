/** Transactions operations (rules Endpoints 5–8): one row per endpoint, one line per method. */

import {
  type AnswerSchema,
  type ApiPromise,
  defineOperation,
  listAnswer,
  type OperationClient,
  type OperationOptions,
  type ResultOf,
  recordAnswer,
  safe,
  unsentOnly,
} from '@paywire/core'
import {
  TRANSACTION_KINDS,
  type Transaction,
  type TransactionsExecuteResult,
  type TransactionsFilterResult,
  type TransactionsGetResult,
  type TransactionsListResult,
} from './results.js'
import {
  IDEMPOTENCY,
  jsonObject,
  type TransactionsExecuteParams,
  type TransactionsFilterParams,
  type TransactionsListParams,
} from './schemas.js'

const transaction = recordAnswer<Transaction>(TRANSACTION_KINDS)
const transactions = listAnswer<Transaction>(TRANSACTION_KINDS)

/**
 * The four Transactions endpoints. Reads and the filter are `safe` to retry. `execute` is
 * `unsent-only`: the service does not publish what it does with an `Idempotency-Key` (rule
 * Endpoints 9), so a repeat after the request left could pay twice unless the caller opts in
 * (`retryWithSameKey`, rule Platform 6). It generates a key (rule Platform 5).
 */
const operations = {
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
    reconcile: ({ idempotencyKey: key }) =>
      key === undefined
        ? undefined
        : {
            key: IDEMPOTENCY.header,
            value: key,
            lookup: `bills.transactions.list() or bills.transactions.filter(...) for the payment sent with Idempotency-Key ${JSON.stringify(key)}`,
          },
    decode: transaction,
  }),
  get: defineOperation({
    name: 'transactions.get',
    method: 'GET',
    path: '/api/transactions/{transReference}',
    retry: safe,
    idempotency: IDEMPOTENCY,
    decode: transaction,
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

/** `bills.transactions`: execute payments and read them back. */
export class Transactions {
  readonly #ops: OperationClient<unknown>

  /** @internal */
  constructor(ops: OperationClient<unknown>) {
    this.#ops = ops
  }

  /** `GET /api/transactions`: lists transactions; `query` is passed through as given (rules Endpoints 10, Platform 12). */
  list<S extends AnswerSchema | undefined = undefined>(
    query?: TransactionsListParams,
    options?: OperationOptions<S>,
  ): ApiPromise<ResultOf<S, TransactionsListResult>> {
    return this.#ops.call(operations.list, { query }, options)
  }

  /**
   * `POST /api/transactions`: executes a payment (body `ExecutePaymentRequest`) and resolves with the
   * service's `Transaction` (rule Platform 12). Sends `Idempotency-Key` (`idempotencyKey`, or a
   * generated UUID) on every attempt; read it from `.withResponse()` (`response.idempotencyKey`) or
   * from any error of the call (`error.idempotencyKey`). An unknown outcome is settled with
   * `bills.reconcile(error)` (lookups); sending it again with the same key is safe only where the
   * service's dedup of the key is known (`serviceDedupsIdempotencyKey`).
   */
  execute<S extends AnswerSchema | undefined = undefined>(
    body: TransactionsExecuteParams,
    options?: OperationOptions<S>,
  ): ApiPromise<ResultOf<S, TransactionsExecuteResult>> {
    return this.#ops.call(operations.execute, { body }, options)
  }

  /** `GET /api/transactions/{transReference}`: one transaction by reference, URL-encoded (rules Resources 2, Platform 12). */
  get<S extends AnswerSchema | undefined = undefined>(
    transReference: string | number,
    options?: OperationOptions<S>,
  ): ApiPromise<ResultOf<S, TransactionsGetResult>> {
    return this.#ops.call(operations.get, { path: { transReference } }, options)
  }

  /** `POST /api/transactions/all`: filters all transactions (body `TransactionFilter`, fields not published; rule Platform 12). */
  filter<S extends AnswerSchema | undefined = undefined>(
    filter: TransactionsFilterParams,
    options?: OperationOptions<S>,
  ): ApiPromise<ResultOf<S, TransactionsFilterResult>> {
    return this.#ops.call(operations.filter, { body: filter }, options)
  }
}
