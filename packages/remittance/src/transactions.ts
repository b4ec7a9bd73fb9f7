/** Transactions: mobile transfer, cash collection, bank transfer and confirm (spec Endpoints, rows 17–20). */

import { type ApiPromise, unsentOnly } from '@paywire/core'
import type { OperationRow, OperationRunner, RemittanceCallOptions, ResultOf, ResultSchema } from './operation.js'
import {
  bankTransferSchema,
  cashCollectionSchema,
  mobileTransferSchema,
  type TransactionsBankTransferParams,
  type TransactionsCashCollectionParams,
  type TransactionsMobileTransferParams,
} from './schemas.js'

/**
 * One row per endpoint. All `unsent-only` (ARCHITECTURE section 5): a repeat could move money
 * twice, so they are retried only when the request provably never left. Bank transfer and confirm
 * use POST: the spec does not show their method (assumption; `remit.request` covers another).
 */
export const transactionOperations = {
  mobileTransfer: {
    name: 'transactions.mobileTransfer',
    method: 'POST',
    path: '/api/transactions/mobile-transfer',
    body: mobileTransferSchema,
    retry: unsentOnly,
  },
  cashCollection: {
    name: 'transactions.cashCollection',
    method: 'POST',
    path: '/api/transactions/cash-collection',
    body: cashCollectionSchema,
    retry: unsentOnly,
  },
  bankTransfer: {
    name: 'transactions.bankTransfer',
    method: 'POST',
    path: '/api/transactions/bank-transfer',
    body: bankTransferSchema,
    retry: unsentOnly,
  },
  confirm: {
    name: 'transactions.confirm',
    method: 'POST',
    path: '/api/transactions/confirm/{transactionId}',
    retry: unsentOnly,
  },
} as const satisfies Record<string, OperationRow>

/**
 * `remit.transactions`. Each transfer sends an `agentTransactionRef` (the caller's, or a new UUID:
 * the service refuses a reused one, so it is the transfer's idempotency key) and resolves with the
 * service's answer; the key is `response.idempotencyKey` of `.withResponse()` and `idempotencyKey`
 * of every error, so an unknown outcome is reconciled with `lookup.transactionStatus`.
 */
export class Transactions {
  readonly #run: OperationRunner

  /** @internal */
  constructor(run: OperationRunner) {
    this.#run = run
  }

  /** `POST /api/transactions/mobile-transfer`. */
  mobileTransfer<S extends ResultSchema | undefined = undefined>(
    body: TransactionsMobileTransferParams,
    options?: RemittanceCallOptions<S>,
  ): ApiPromise<ResultOf<S>> {
    return this.#run.transfer(transactionOperations.mobileTransfer, body, options)
  }

  /** `POST /api/transactions/cash-collection`. */
  cashCollection<S extends ResultSchema | undefined = undefined>(
    body: TransactionsCashCollectionParams,
    options?: RemittanceCallOptions<S>,
  ): ApiPromise<ResultOf<S>> {
    return this.#run.transfer(transactionOperations.cashCollection, body, options)
  }

  /** `POST /api/transactions/bank-transfer` (method assumed; BankTransferTransactionRequest fields not shown). */
  bankTransfer<S extends ResultSchema | undefined = undefined>(
    body: TransactionsBankTransferParams,
    options?: RemittanceCallOptions<S>,
  ): ApiPromise<ResultOf<S>> {
    return this.#run.transfer(transactionOperations.bankTransfer, body, options)
  }

  /**
   * `POST /api/transactions/confirm/{transactionId}` (method assumed): commits the transaction a
   * transfer created; yields the reference for the status lookup (PLATFORM_NOTES [guess, strong]).
   */
  confirm<S extends ResultSchema | undefined = undefined>(
    transactionId: string,
    options?: RemittanceCallOptions<S>,
  ): ApiPromise<ResultOf<S>> {
    return this.#run.call(transactionOperations.confirm, { pathValue: transactionId }, options)
  }
}
