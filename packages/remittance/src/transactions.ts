/** Transactions: mobile transfer, cash collection, bank transfer and confirm (rules Endpoints 17–20). */

import {
  type AnswerSchema,
  type ApiPromise,
  defineOperation,
  type OperationClient,
  type OperationOptions,
  type Reconciliation,
  type ResultOf,
  reconcileRule,
  recordAnswer,
  type SentRequest,
  unsentOnly,
} from '@paywire/core'
import {
  CONFIRMATION_KINDS,
  type Confirmation,
  TRANSFER_KINDS,
  type TransactionsBankTransferResult,
  type TransactionsCashCollectionResult,
  type TransactionsConfirmResult,
  type TransactionsMobileTransferResult,
  type Transfer,
} from './results.js'
import type {
  SleBodySchemas,
  TransactionsBankTransferParams,
  TransactionsCashCollectionParams,
  TransactionsMobileTransferParams,
} from './schemas.js'

/**
 * A transfer whose outcome is unknown is looked up, never resent: whether the service refuses a
 * reused `agentTransactionRef` is not published (rule Platform 5), so a resend could move money twice.
 */
const transferReconciliation = reconcileRule(
  ['agentTransactionRef'],
  ({ idempotencyKey: ref }: SentRequest): Reconciliation | undefined => {
    if (ref === undefined) return undefined
    return {
      key: 'agentTransactionRef',
      value: ref,
      lookup: `remit.lookup.transactionStatus(${JSON.stringify(ref)}) for agentTransactionRef ${JSON.stringify(ref)} (remit.reconcile(error) runs it; the lookup is published by referenceNumber only, so not finding it proves nothing)`,
    }
  },
)

/** The transfer's idempotency key is its `agentTransactionRef` (the caller's, or a new UUID). */
const AGENT_TRANSACTION_REF = { bodyField: 'agentTransactionRef', generate: true } as const

const transfer = recordAnswer<Transfer>(TRANSFER_KINDS)

/**
 * One row per endpoint. All `unsent-only`: a repeat could move money twice, so they are retried
 * only when the request provably never left. Bank transfer and confirm use POST: the service does
 * not publish their method (rules Endpoints 22, Platform 7; `remit.request` covers another).
 */
export const transactionOperations = {
  mobileTransfer: defineOperation({
    name: 'transactions.mobileTransfer',
    method: 'POST',
    path: '/api/transactions/mobile-transfer',
    params: (bodies: SleBodySchemas) => bodies.mobileTransfer,
    retry: unsentOnly,
    idempotency: AGENT_TRANSACTION_REF,
    reconcile: transferReconciliation,
    decode: transfer,
  }),
  cashCollection: defineOperation({
    name: 'transactions.cashCollection',
    method: 'POST',
    path: '/api/transactions/cash-collection',
    params: (bodies: SleBodySchemas) => bodies.cashCollection,
    retry: unsentOnly,
    idempotency: AGENT_TRANSACTION_REF,
    reconcile: transferReconciliation,
    decode: transfer,
  }),
  bankTransfer: defineOperation({
    name: 'transactions.bankTransfer',
    method: 'POST',
    path: '/api/transactions/bank-transfer',
    params: (bodies: SleBodySchemas) => bodies.bankTransfer,
    retry: unsentOnly,
    idempotency: AGENT_TRANSACTION_REF,
    reconcile: transferReconciliation,
    decode: transfer,
  }),
  confirm: defineOperation({
    name: 'transactions.confirm',
    method: 'POST',
    path: '/api/transactions/confirm/{transactionId}',
    retry: unsentOnly,
    reconcile: reconcileRule(['transactionId'], ({ path }) => ({
      key: 'transactionId',
      value: String(path['transactionId']),
      lookup: 'remit.lookup.transactionStatus(referenceNumber) with the reference of this transaction',
    })),
    decode: recordAnswer<Confirmation>(CONFIRMATION_KINDS),
  }),
}

/**
 * `remit.transactions`. Each transfer sends an `agentTransactionRef` (the caller's, or a new UUID: it
 * is the transfer's idempotency key, rule Platform 5, though the service does not publish that it
 * refuses a reused one) and
 * resolves with the service's answer: `transactionId` for confirm (rule Platform 13). The key is
 * `response.idempotencyKey` of `.withResponse()` and `idempotencyKey` of every error, so an
 * unknown outcome is reconciled with `lookup.transactionStatus`.
 */
export class Transactions {
  readonly #ops: OperationClient<SleBodySchemas>

  /** @internal */
  constructor(ops: OperationClient<SleBodySchemas>) {
    this.#ops = ops
  }

  /** `POST /api/transactions/mobile-transfer` (rules Resources 3–4): resolves with the `Transfer` (rule Platform 13). */
  mobileTransfer<S extends AnswerSchema | undefined = undefined>(
    body: TransactionsMobileTransferParams,
    options?: OperationOptions<S>,
  ): ApiPromise<ResultOf<S, TransactionsMobileTransferResult>> {
    return this.#ops.call(transactionOperations.mobileTransfer, { body }, options)
  }

  /** `POST /api/transactions/cash-collection` (rules Resources 3, 5): resolves with the `Transfer` (rule Platform 13). */
  cashCollection<S extends AnswerSchema | undefined = undefined>(
    body: TransactionsCashCollectionParams,
    options?: OperationOptions<S>,
  ): ApiPromise<ResultOf<S, TransactionsCashCollectionResult>> {
    return this.#ops.call(transactionOperations.cashCollection, { body }, options)
  }

  /**
   * `POST /api/transactions/bank-transfer` (method assumed, rule Platform 7; BankTransferTransactionRequest
   * fields not published, rule Resources 8): resolves with the `Transfer` (rule Platform 13).
   */
  bankTransfer<S extends AnswerSchema | undefined = undefined>(
    body: TransactionsBankTransferParams,
    options?: OperationOptions<S>,
  ): ApiPromise<ResultOf<S, TransactionsBankTransferResult>> {
    return this.#ops.call(transactionOperations.bankTransfer, { body }, options)
  }

  /**
   * `POST /api/transactions/confirm/{transactionId}` (method assumed, rule Platform 7): commits the
   * transaction a transfer created (`Transfer.transactionId`) and resolves with the `referenceNumber`
   * for the status lookup (rules Platform 2, 14).
   */
  confirm<S extends AnswerSchema | undefined = undefined>(
    transactionId: string | number,
    options?: OperationOptions<S>,
  ): ApiPromise<ResultOf<S, TransactionsConfirmResult>> {
    return this.#ops.call(transactionOperations.confirm, { path: { transactionId } }, options)
  }
}
