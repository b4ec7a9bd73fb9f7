// Long: one resource: its rows, the public interface they must match, its params schemas and its result types, read together.
/** Transactions (rules Endpoints 17–20): mobile transfer, cash collection, bank transfer and confirm, one row per endpoint. */

import type {
  ApiPromise,
  Follower,
  FollowOptions,
  OperationOptions,
  Reconciliation,
  ResponseSchema,
  ValidationIssue,
} from '@paywire/core'
import type { FieldKinds } from '@paywire/core/engine'
import {
  bindAnswer,
  defineOperation,
  type Following,
  type OperationClient,
  reconcileRule,
  recordAnswer,
  resource,
  type SentRequest,
  unsentOnly,
} from '@paywire/core/engine'
import * as z from '@paywire/core/zod'
import { amount, amountSle, jsonMember, openBodyIssues, type RemittanceRules, text } from '../fields.js'
import type { TransferUpdate } from '../follow.js'
import type { TransactionStatus } from './lookup.js'

// ---- results ---------------------------------------------------------------------------------
// The service documents no success body (rule Endpoints 24): each type names the fields the SDK
// expects (rules Platform 12–18) as optional members, plus an open record for the rest; a field's
// JSON kind follows rule Platform 11 (identifiers, amounts and enumerated values may be strings or
// numbers, any field may be `null`), checked on arrival by the decoder (rule Platform 10). Pass a
// `schema` to check and type an answer of another shape.

/** What a transfer answers (rule Platform 13): the id confirm takes, and the amounts booked. */
export interface Transfer {
  /** The transaction's id: pass it to `transactions.confirm` (rule Platform 2). */
  readonly transactionId?: string | number | null
  /** The idempotency key the transfer was sent with, yours or generated (rule Platform 5). */
  readonly agentTransactionRef?: string | null
  /** The platform's state, `ENTERED` until confirmed (rule Platform 3). */
  readonly status?: string | number | null
  /** `Mobile Transfer`, `Cash Collection` or `Account` (rule Platform 1). */
  readonly transType?: string | number | null
  /** The amount sent, in SLE. */
  readonly amountSLE?: string | number | null
  /** The fees, in SLE. */
  readonly fees?: string | number | null
  /** The currency the beneficiary receives, ISO 4217. */
  readonly destCurrency?: string | null
  /** The amount the beneficiary receives, in `destCurrency`. */
  readonly receivingAmountFX?: string | number | null
  /** Members the SDK does not know of, as the service sent them. */
  readonly [field: string]: unknown
}

export const TRANSFER_KINDS: FieldKinds<Transfer> = {
  transactionId: 'string or number',
  agentTransactionRef: 'string',
  status: 'string or number',
  transType: 'string or number',
  amountSLE: 'string or number',
  fees: 'string or number',
  destCurrency: 'string',
  receivingAmountFX: 'string or number',
}

/** What confirm answers (rule Platform 14): the reference the status lookup takes. */
export interface Confirmation {
  /** The transaction confirmed (rule Platform 2). */
  readonly transactionId?: string | number | null
  /** The reference to pass to `lookup.transactionStatus` (rule Platform 2). */
  readonly referenceNumber?: string | number | null
  /** The platform's state after confirm, e.g. `AGENT_OK` (rule Platform 3). */
  readonly status?: string | number | null
  /** Members the SDK does not know of, as the service sent them. */
  readonly [field: string]: unknown
}

export const CONFIRMATION_KINDS: FieldKinds<Confirmation> = {
  transactionId: 'string or number',
  referenceNumber: 'string or number',
  status: 'string or number',
}

/** @deprecated Use `Transfer | undefined`, which the method's signature names; this per-method alias goes in 1.0. */
export type TransactionsMobileTransferResult = Transfer | undefined
/** @deprecated Use `Transfer | undefined`, which the method's signature names; this per-method alias goes in 1.0. */
export type TransactionsCashCollectionResult = Transfer | undefined
/** @deprecated Use `Transfer | undefined`, which the method's signature names; this per-method alias goes in 1.0. */
export type TransactionsBankTransferResult = Transfer | undefined
/** @deprecated Use `Confirmation | undefined`, which the method's signature names; this per-method alias goes in 1.0. */
export type TransactionsConfirmResult = Confirmation | undefined

// ---- params schemas (the rows build them on their first call) ----------------------------------

/** Fields common to the mobile transfer and cash collection requests: strings, except `amountSLE` and `fees` (rule Resources 3). */
export function transactionShape(rules: RemittanceRules) {
  return {
    /** The remitter sending the money. */
    remitterId: text(),
    /** The beneficiary receiving it (`Beneficiary.beneficiaryId`). */
    beneficiaryId: text(),
    /** The country the money goes to. */
    destinationCountry: text(),
    /** `Account`, `Cash Collection` or `Mobile Transfer` upstream (rule Platform 1). */
    transType: text(),
    /** Why the money is sent. */
    purpose: text(),
    /** Where the remitter's money comes from. */
    sourceOfIncome: text(),
    /** How the remitter pays. */
    paymentMethod: text(),
    /** The amount the remitter deposited, as a string. */
    amountDeposited: text(),
    /** The bank branch the remitter deposited at. */
    bankBranchDeposited: text(),
    /** The service level of the transfer. */
    serviceLevel: text(),
    /** Whether to confirm by SMS. */
    smsConfirmation: text(),
    /** Whether to notify by SMS. */
    smsNotification: text(),
    /** The mobile number SMS messages go to. */
    smsMobile: text(),
    /** The currency sent. */
    sourceCurrency: text(),
    /** The currency the beneficiary receives. */
    destinationCurrency: text(),
    /** `SOURCE` or `DESTINATION` upstream (rule Platform 1); not enforced. */
    amountType: text(),
    /**
     * The idempotency key (rule Platform 5: a reused one is rejected). Filled with a random
     * UUID when omitted, and returned with the result and on every error of the call.
     */
    agentTransactionRef: z.optional(z.string().check(z.minLength(1, 'must not be empty'))),
    /** The beneficiary's reference for the transfer. */
    benefTransRef: text(),
    /** The amount to send, as a string. */
    amountToSend: text(),
    /** Amount in SLE (at most `platformDefaults.sleDecimals` decimals, 2 by default; rule Platform 4). */
    amountSLE: amountSle(rules),
    /** The fees charged, a number. */
    fees: z.optional(amount()),
  }
}

// Written out by scripts/public-types.mjs (edit the rows, then run it) from: z.input<z.ZodObject<ReturnType<typeof transactionShape>>>
/** The fields every transfer shares (rule Resources 3), as their schema declares them. */
export interface TransactionCommonFields {
  /** The remitter sending the money. */
  remitterId?: string | undefined
  /** The beneficiary receiving it (`Beneficiary.beneficiaryId`). */
  beneficiaryId?: string | undefined
  /** The country the money goes to. */
  destinationCountry?: string | undefined
  /** `Account`, `Cash Collection` or `Mobile Transfer` upstream (rule Platform 1). */
  transType?: string | undefined
  /** Why the money is sent. */
  purpose?: string | undefined
  /** Where the remitter's money comes from. */
  sourceOfIncome?: string | undefined
  /** How the remitter pays. */
  paymentMethod?: string | undefined
  /** The amount the remitter deposited, as a string. */
  amountDeposited?: string | undefined
  /** The bank branch the remitter deposited at. */
  bankBranchDeposited?: string | undefined
  /** The service level of the transfer. */
  serviceLevel?: string | undefined
  /** Whether to confirm by SMS. */
  smsConfirmation?: string | undefined
  /** Whether to notify by SMS. */
  smsNotification?: string | undefined
  /** The mobile number SMS messages go to. */
  smsMobile?: string | undefined
  /** The currency sent. */
  sourceCurrency?: string | undefined
  /** The currency the beneficiary receives. */
  destinationCurrency?: string | undefined
  /** `SOURCE` or `DESTINATION` upstream (rule Platform 1); not enforced. */
  amountType?: string | undefined
  /**
   * The idempotency key (rule Platform 5: a reused one is rejected). Filled with a random
   * UUID when omitted, and returned with the result and on every error of the call.
   */
  agentTransactionRef?: string | undefined
  /** The beneficiary's reference for the transfer. */
  benefTransRef?: string | undefined
  /** The amount to send, as a string. */
  amountToSend?: string | undefined
  /** Amount in SLE (at most `platformDefaults.sleDecimals` decimals, 2 by default; rule Platform 4). */
  amountSLE?: number | undefined
  /** The fees charged, a number. */
  fees?: number | undefined
}

/** `POST /api/transactions/mobile-transfer`: the common fields and the mobile money account (rule Resources 4). */
export function mobileTransferSchema(rules: RemittanceRules) {
  return z.strictObject({
    ...transactionShape(rules),
    /** The beneficiary's mobile money number. */
    beneficiaryMobileTransferNumber: text(),
    /** The mobile network (`remit.lookup.mobileOperators`). */
    beneficiaryMobileTransferNetworkId: text(),
    /** The network's credit type (`remit.lookup.mobileOperatorCreditTypes`). */
    beneficiaryMobileTransferNetworkCreditTypeId: text(),
  })
}

/** `POST /api/transactions/cash-collection`: the common fields and where the cash is collected (rule Resources 5). */
export function cashCollectionSchema(rules: RemittanceRules) {
  return z.strictObject({
    ...transactionShape(rules),
    /** Where the beneficiary collects the cash (`remit.lookup.collectionPoints`). */
    collectionPointId: text(),
    /** The PIN the beneficiary collects with; never logged by the SDK (bodies are not logged). */
    collectionPin: text(),
  })
}

/**
 * The bank transfer (BankTransferTransactionRequest, fields not published: rule Resources 8). The
 * common transaction fields are typed when present (a guess: every transfer shares them, and
 * `agentTransactionRef` is needed for reconciliation); every other member passes through as JSON.
 */
export function bankTransferSchema(rules: RemittanceRules) {
  return z.catchall(z.object(transactionShape(rules)), jsonMember())
}

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
function transferRow<const Path extends string, S extends z.ZodMiniType>(
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
  mobileTransfer: transferRow('mobileTransfer', '/api/transactions/mobile-transfer', mobileTransferSchema),
  cashCollection: transferRow('cashCollection', '/api/transactions/cash-collection', cashCollectionSchema),
  bankTransfer: transferRow('bankTransfer', '/api/transactions/bank-transfer', bankTransferSchema, openBodyIssues),
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
 * `remit.transactions`: transfers (mobile, cash collection, bank) and confirm, one method per
 * endpoint, and `follow`. Each transfer sends an `agentTransactionRef` (the caller's, or a new UUID:
 * it is the transfer's idempotency key, rule Platform 5, though the service does not publish that it
 * refuses a reused one) and resolves with the service's answer: `transactionId` for confirm (rule
 * Platform 13). The key is `response.idempotencyKey` of `.withResponse()` and `idempotencyKey` of
 * every error, so an unknown outcome is reconciled with `lookup.transactionStatus`. None is retried
 * once sent: a repeat could move money twice. Every endpoint's method also takes a `schema` in its
 * options, which checks the answer and types the result with it.
 */
export interface Transactions {
  /** `POST /api/transactions/mobile-transfer` (rules Resources 3–4): resolves with the `Transfer` (rule Platform 13). */
  mobileTransfer(params: TransactionsMobileTransferParams, options?: OperationOptions): ApiPromise<Transfer | undefined>
  mobileTransfer<T>(
    params: TransactionsMobileTransferParams,
    options: OperationOptions<ResponseSchema<T>>,
  ): ApiPromise<T>
  /** `POST /api/transactions/cash-collection` (rules Resources 3, 5): resolves with the `Transfer` (rule Platform 13). */
  cashCollection(params: TransactionsCashCollectionParams, options?: OperationOptions): ApiPromise<Transfer | undefined>
  cashCollection<T>(
    params: TransactionsCashCollectionParams,
    options: OperationOptions<ResponseSchema<T>>,
  ): ApiPromise<T>
  /**
   * `POST /api/transactions/bank-transfer` (method assumed, rule Platform 7; BankTransferTransactionRequest
   * fields not published, rule Resources 8): resolves with the `Transfer` (rule Platform 13).
   */
  bankTransfer(params: TransactionsBankTransferParams, options?: OperationOptions): ApiPromise<Transfer | undefined>
  bankTransfer<T>(params: TransactionsBankTransferParams, options: OperationOptions<ResponseSchema<T>>): ApiPromise<T>
  /**
   * `POST /api/transactions/confirm/{transactionId}` (method assumed, rule Platform 7): commits the
   * transaction a transfer created (`Transfer.transactionId`) and resolves with the `referenceNumber`
   * for the status lookup (rules Platform 2, 14).
   */
  confirm(transactionId: string | number, options?: OperationOptions): ApiPromise<Confirmation | undefined>
  confirm<T>(transactionId: string | number, options: OperationOptions<ResponseSchema<T>>): ApiPromise<T>
  /**
   * Follows every transfer this client confirms (also when confirm's answer is lost), the transfers
   * of the journal's open intents once reconciliation shows them applied, and any you
   * `track(referenceNumber)`, until each is final (`PROCESSED`, `ABORTED`, `ERROR`, `DELETED`, rule
   * Platform 3). `onUpdate` receives one forward-only stream of states confirmed by the status
   * lookup; `onAttention` a transfer stuck. Lookups stay within `lookupsPerSecond`. Call `stop()` on
   * shutdown.
   */
  follow(options: FollowOptions<TransferUpdate>): Follower<TransactionStatus>
}

/** `Transactions` made from the rows of `TRANSACTIONS` (which must match it: see `resource`), plus `follow`. */
export class TransactionsResource
  extends resource<RemittanceRules, typeof TRANSACTIONS, Transactions>(TRANSACTIONS)
  implements Transactions
{
  readonly #following: Following<TransactionStatus> | undefined

  /** @internal */
  constructor(ops: OperationClient<RemittanceRules>, following?: Following<TransactionStatus>) {
    super(ops)
    this.#following = following
  }

  follow(options: FollowOptions<TransferUpdate>): Follower<TransactionStatus> {
    if (this.#following === undefined) throw new TypeError('transactions.follow must be called on remit.transactions')
    return this.#following.follow(options)
  }
}

// Written out by scripts/public-types.mjs (edit the rows, then run it) from: EndpointParams<typeof TRANSACTIONS.mobileTransfer>
/** Body of `POST /api/transactions/mobile-transfer` (rules Resources 3–4). */
export interface TransactionsMobileTransferParams extends TransactionCommonFields {
  /** The beneficiary's mobile money number. */
  beneficiaryMobileTransferNumber?: string | undefined
  /** The mobile network (`remit.lookup.mobileOperators`). */
  beneficiaryMobileTransferNetworkId?: string | undefined
  /** The network's credit type (`remit.lookup.mobileOperatorCreditTypes`). */
  beneficiaryMobileTransferNetworkCreditTypeId?: string | undefined
}

// Written out by scripts/public-types.mjs (edit the rows, then run it) from: EndpointParams<typeof TRANSACTIONS.cashCollection>
/** Body of `POST /api/transactions/cash-collection` (rules Resources 3, 5). */
export interface TransactionsCashCollectionParams extends TransactionCommonFields {
  /** Where the beneficiary collects the cash (`remit.lookup.collectionPoints`). */
  collectionPointId?: string | undefined
  /** The PIN the beneficiary collects with; never logged by the SDK (bodies are not logged). */
  collectionPin?: string | undefined
}

// Written out by scripts/public-types.mjs (edit the rows, then run it) from: EndpointParams<typeof TRANSACTIONS.bankTransfer>
/**
 * Body of the bank transfer (BankTransferTransactionRequest, fields not published: rule Resources 8):
 * the common transaction fields typed when present, every other member passed through as JSON.
 */
export interface TransactionsBankTransferParams extends TransactionCommonFields {
  [key: string]: unknown
}
