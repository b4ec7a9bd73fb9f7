/** Transactions operations (spec "Endpoints", group Transactions): one row per endpoint; the methods are thin. */

import { type ApiPromise, safe, unsentOnly } from '@paywire/core'
import type { z } from 'zod'
import type {
  BillPaymentCallOptions,
  OperationRow,
  Runner,
  RunOptions,
  WithoutSchema,
  WithSchema,
} from './operation.js'
import type {
  Transaction,
  TransactionsExecuteParams,
  TransactionsFilterParams,
  TransactionsFilterResult,
  TransactionsGetResult,
  TransactionsListParams,
  TransactionsListResult,
} from './schemas.js'

/**
 * The four Transactions endpoints. Reads and the filter are `safe` to retry. `execute` is
 * `unsent-only` (ARCHITECTURE section 5): the service's `Idempotency-Key` behaviour is not shown, so a
 * repeat after the request left could pay twice unless the caller opts in (`retryWithSameKey`).
 */
export const transactionsOperations = {
  list: {
    name: 'transactions.list',
    method: 'GET',
    path: '/api/transactions',
    query: true,
    retry: safe,
    result: 'json',
  },
  execute: {
    name: 'transactions.execute',
    method: 'POST',
    path: '/api/transactions',
    bodyParam: 'body',
    retry: unsentOnly,
    result: 'entity',
    generatesKey: true,
  },
  get: {
    name: 'transactions.get',
    method: 'GET',
    path: '/api/transactions/{transReference}',
    pathParam: 'transReference',
    retry: safe,
    result: 'entity',
  },
  filter: {
    name: 'transactions.filter',
    method: 'POST',
    path: '/api/transactions/all',
    bodyParam: 'filter',
    retry: safe,
    result: 'json',
  },
} as const satisfies Record<string, OperationRow>

/** Options of `transactions.execute`. */
export interface TransactionsExecuteCallOptions extends BillPaymentCallOptions {
  /**
   * Opt in to retrying after the request may have arrived (connection lost, timeout, 408, 429, 502,
   * 503, 504), resending the same `Idempotency-Key` on every attempt. Only safe when the service
   * deduplicates on that key for your account; the spec does not show that it does. Default `false`.
   */
  retryWithSameKey?: boolean
}

/** `bills.transactions`: execute payments and read them back. */
export class Transactions {
  readonly #runner: Runner

  /** @internal */
  constructor(runner: Runner) {
    this.#runner = runner
  }

  /** `GET /api/transactions`: lists transactions; `query` is passed through as given (the spec shows no parameters). */
  list<S extends z.ZodType>(
    query: TransactionsListParams | undefined,
    options: BillPaymentCallOptions & WithSchema<S>,
  ): ApiPromise<z.output<S>>
  list<T = TransactionsListResult>(
    query?: TransactionsListParams,
    options?: BillPaymentCallOptions & WithoutSchema,
  ): ApiPromise<T>
  list(query?: TransactionsListParams, options?: RunOptions): ApiPromise<unknown> {
    return this.#runner.run(transactionsOperations.list, { query }, options)
  }

  /**
   * `POST /api/transactions`: executes a payment (body `ExecutePaymentRequest`) and resolves with the
   * service's transaction. Sends `Idempotency-Key` (yours, or a generated UUID) on every attempt; read
   * it from `.withResponse()` (`response.idempotencyKey`) or from any error of the call
   * (`error.idempotencyKey`) to repeat an unknown outcome with the same key.
   */
  execute<S extends z.ZodType>(
    body: TransactionsExecuteParams,
    options: TransactionsExecuteCallOptions & WithSchema<S>,
  ): ApiPromise<z.output<S>>
  execute<T = Transaction | null>(
    body: TransactionsExecuteParams,
    options?: TransactionsExecuteCallOptions & WithoutSchema,
  ): ApiPromise<T>
  execute(body: TransactionsExecuteParams, options?: TransactionsExecuteCallOptions & RunOptions): ApiPromise<unknown> {
    return this.#runner.run(transactionsOperations.execute, { body }, options)
  }

  /** `GET /api/transactions/{transReference}`: one transaction by reference (URL-encoded). */
  get<S extends z.ZodType>(
    transReference: string,
    options: BillPaymentCallOptions & WithSchema<S>,
  ): ApiPromise<z.output<S>>
  get<T = TransactionsGetResult>(
    transReference: string,
    options?: BillPaymentCallOptions & WithoutSchema,
  ): ApiPromise<T>
  get(transReference: string, options?: RunOptions): ApiPromise<unknown> {
    return this.#runner.run(transactionsOperations.get, { pathValue: transReference }, options)
  }

  /** `POST /api/transactions/all`: filters all transactions (body `TransactionFilter`, fields not shown). */
  filter<S extends z.ZodType>(
    filter: TransactionsFilterParams,
    options: BillPaymentCallOptions & WithSchema<S>,
  ): ApiPromise<z.output<S>>
  filter<T = TransactionsFilterResult>(
    filter: TransactionsFilterParams,
    options?: BillPaymentCallOptions & WithoutSchema,
  ): ApiPromise<T>
  filter(filter: TransactionsFilterParams, options?: RunOptions): ApiPromise<unknown> {
    return this.#runner.run(transactionsOperations.filter, { body: filter }, options)
  }
}
