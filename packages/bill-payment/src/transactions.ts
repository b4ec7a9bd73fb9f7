/** Transactions operations (spec "Endpoints", group Transactions): one row per endpoint, one line per method. */

import {
  type AnswerSchema,
  type ApiPromise,
  defineOperation,
  jsonAnswer,
  type OperationClient,
  type OperationOptions,
  type ResultOf,
  safe,
  unsentOnly,
} from '@paywire/core'
import {
  entityOrEmpty,
  IDEMPOTENCY,
  jsonObject,
  type Transaction,
  type TransactionsExecuteParams,
  type TransactionsFilterParams,
  type TransactionsFilterResult,
  type TransactionsGetResult,
  type TransactionsListParams,
  type TransactionsListResult,
} from './schemas.js'

/**
 * The four Transactions endpoints. Reads and the filter are `safe` to retry. `execute` is
 * `unsent-only`: the service's `Idempotency-Key` behaviour is not shown, so a repeat after the
 * request left could pay twice unless the caller opts in (`retryWithSameKey`). It generates a key.
 */
const operations = {
  list: defineOperation({
    name: 'transactions.list',
    method: 'GET',
    path: '/api/transactions',
    query: true,
    retry: safe,
    idempotency: IDEMPOTENCY,
    decode: jsonAnswer<TransactionsListResult>,
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
    decode: entityOrEmpty<Transaction>,
  }),
  get: defineOperation({
    name: 'transactions.get',
    method: 'GET',
    path: '/api/transactions/{transReference}',
    retry: safe,
    idempotency: IDEMPOTENCY,
    decode: entityOrEmpty<NonNullable<TransactionsGetResult>>,
  }),
  filter: defineOperation({
    name: 'transactions.filter',
    method: 'POST',
    path: '/api/transactions/all',
    params: jsonObject('filter'),
    retry: safe,
    idempotency: IDEMPOTENCY,
    decode: jsonAnswer<TransactionsFilterResult>,
  }),
}

/** `bills.transactions`: execute payments and read them back. */
export class Transactions {
  readonly #ops: OperationClient<unknown>

  /** @internal */
  constructor(ops: OperationClient<unknown>) {
    this.#ops = ops
  }

  /** `GET /api/transactions`: lists transactions; `query` is passed through as given (the spec shows no parameters). */
  list<S extends AnswerSchema | undefined = undefined>(
    query?: TransactionsListParams,
    options?: OperationOptions<S>,
  ): ApiPromise<ResultOf<S, TransactionsListResult>> {
    return this.#ops.call(operations.list, { query }, options)
  }

  /**
   * `POST /api/transactions`: executes a payment (body `ExecutePaymentRequest`) and resolves with the
   * service's transaction. Sends `Idempotency-Key` (`idempotencyKey`, or a generated UUID) on every
   * attempt; read it from `.withResponse()` (`response.idempotencyKey`) or from any error of the call
   * (`error.idempotencyKey`) to repeat an unknown outcome with the same key.
   */
  execute<S extends AnswerSchema | undefined = undefined>(
    body: TransactionsExecuteParams,
    options?: OperationOptions<S>,
  ): ApiPromise<ResultOf<S, Transaction | undefined>> {
    return this.#ops.call(operations.execute, { body }, options)
  }

  /** `GET /api/transactions/{transReference}`: one transaction by reference (URL-encoded). */
  get<S extends AnswerSchema | undefined = undefined>(
    transReference: string,
    options?: OperationOptions<S>,
  ): ApiPromise<ResultOf<S, TransactionsGetResult>> {
    return this.#ops.call(operations.get, { path: { transReference } }, options)
  }

  /** `POST /api/transactions/all`: filters all transactions (body `TransactionFilter`, fields not shown). */
  filter<S extends AnswerSchema | undefined = undefined>(
    filter: TransactionsFilterParams,
    options?: OperationOptions<S>,
  ): ApiPromise<ResultOf<S, TransactionsFilterResult>> {
    return this.#ops.call(operations.filter, { body: filter }, options)
  }
}
