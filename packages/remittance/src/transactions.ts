/** Transactions (rules Endpoints 17–20): mobile transfer, cash collection, bank transfer and confirm, one row per endpoint. */

import type { Follower, FollowOptions, Reconciliation, ValidationIssue } from '@paywire/core'
import {
  bindAnswer,
  defineOperation,
  type EndpointParams,
  type Following,
  type OperationClient,
  reconcileRule,
  recordAnswer,
  resource,
  type SentRequest,
  unsentOnly,
} from '@paywire/core/engine'
import type { z } from 'zod'
import type { TransferUpdate } from './follow.js'
import {
  CONFIRMATION_KINDS,
  type Confirmation,
  TRANSFER_KINDS,
  type TransactionStatus,
  type Transfer,
} from './results.js'
import {
  bankTransferSchema,
  cashCollectionSchema,
  mobileTransferSchema,
  openBodyIssues,
  type RemittanceRules,
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
 * A transfer's answer that names an agentTransactionRef must name the one sent (rule Platform 19;
 * Platform 13 assumes the answer carries it). One naming none is taken: the service publishes no
 * success body, so the field's absence proves nothing.
 */
const TRANSFER_NAMES_ITS_REF = bindAnswer('action', {
  wire: { agentTransactionRef: ['agentTransactionRef'] },
  rule: 'Platform 19',
})

/**
 * A transfer: a POST whose body carries its `agentTransactionRef` (the idempotency key, generated when
 * omitted), `unsent-only`, reconciled by the status lookup, answered with the `Transfer`.
 */
function transferRow<const Path extends string, S extends z.ZodType>(
  method: string,
  path: Path,
  params: (rules: RemittanceRules) => S,
  precheck?: (body: unknown) => readonly ValidationIssue[],
) {
  return defineOperation<RemittanceRules, S, Transfer | undefined, Path>({
    name: `transactions.${method}`,
    method: 'POST',
    path,
    params,
    precheck,
    retry: unsentOnly,
    idempotency: AGENT_TRANSACTION_REF,
    reconcile: transferReconciliation,
    answerBinding: TRANSFER_NAMES_ITS_REF,
    decode: transfer,
  })
}

/**
 * The Transactions endpoints, one row each; each row is also the `remit.transactions` method of
 * its name. All `unsent-only`: a repeat could move money twice, so they are retried only when the
 * request provably never left. Bank transfer and confirm use POST: the service does not publish their
 * method (rules Endpoints 22, Platform 7; `remit.request` covers another).
 */
export const TRANSACTIONS = {
  /** `POST /api/transactions/mobile-transfer` (rules Resources 3–4): resolves with the `Transfer` (rule Platform 13). */
  mobileTransfer: transferRow('mobileTransfer', '/api/transactions/mobile-transfer', mobileTransferSchema),
  /** `POST /api/transactions/cash-collection` (rules Resources 3, 5): resolves with the `Transfer` (rule Platform 13). */
  cashCollection: transferRow('cashCollection', '/api/transactions/cash-collection', cashCollectionSchema),
  /**
   * `POST /api/transactions/bank-transfer` (method assumed, rule Platform 7; BankTransferTransactionRequest
   * fields not published, rule Resources 8): resolves with the `Transfer` (rule Platform 13).
   */
  bankTransfer: transferRow('bankTransfer', '/api/transactions/bank-transfer', bankTransferSchema, openBodyIssues),
  /**
   * `POST /api/transactions/confirm/{transactionId}` (method assumed, rule Platform 7): commits the
   * transaction a transfer created (`Transfer.transactionId`) and resolves with the `referenceNumber`
   * for the status lookup (rules Platform 2, 14).
   */
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
    // A confirm's answer naming a transactionId must name the one confirmed (rules Platform 14, 19).
    answerBinding: bindAnswer('action', { path: { transactionId: ['transactionId'] }, rule: 'Platform 19' }),
    decode: recordAnswer<Confirmation>(CONFIRMATION_KINDS),
  }),
}

/**
 * `remit.transactions`: transfers (mobile, cash collection, bank) and confirm; each method is one row
 * of `TRANSACTIONS`. Each transfer sends an `agentTransactionRef` (the caller's, or a new UUID: it is
 * the transfer's idempotency key, rule Platform 5, though the service does not publish that it
 * refuses a reused one) and resolves with the service's answer: `transactionId` for confirm (rule
 * Platform 13). The key is `response.idempotencyKey` of `.withResponse()` and `idempotencyKey` of
 * every error, so an unknown outcome is reconciled with `lookup.transactionStatus`.
 */
export class Transactions extends resource<RemittanceRules, typeof TRANSACTIONS>(TRANSACTIONS) {
  readonly #following: Following<TransactionStatus> | undefined

  /** @internal */
  constructor(ops: OperationClient<RemittanceRules>, following?: Following<TransactionStatus>) {
    super(ops)
    this.#following = following
  }

  /**
   * Follows every transfer this client confirms (also when confirm's answer is lost), the transfers
   * of the journal's open intents once reconciliation shows them applied, and any you
   * `track(referenceNumber)`, until each is final (`PROCESSED`, `ABORTED`, `ERROR`, `DELETED`, rule
   * Platform 3). `onUpdate` receives one forward-only stream of states confirmed by the status
   * lookup; `onAttention` a transfer stuck. Lookups stay within `lookupsPerSecond`. Call `stop()` on
   * shutdown.
   */
  follow(options: FollowOptions<TransferUpdate>): Follower<TransactionStatus> {
    if (this.#following === undefined) throw new TypeError('transactions.follow must be called on remit.transactions')
    return this.#following.follow(options)
  }
}

/** Body of `POST /api/transactions/mobile-transfer` (rules Resources 3–4). */
export interface TransactionsMobileTransferParams extends EndpointParams<typeof TRANSACTIONS.mobileTransfer> {}

/** Body of `POST /api/transactions/cash-collection` (rules Resources 3, 5). */
export interface TransactionsCashCollectionParams extends EndpointParams<typeof TRANSACTIONS.cashCollection> {}

/**
 * Body of the bank transfer (BankTransferTransactionRequest, fields not published: rule Resources 8):
 * the common transaction fields typed when present, every other member passed through as JSON.
 */
export interface TransactionsBankTransferParams extends EndpointParams<typeof TRANSACTIONS.bankTransfer> {}
