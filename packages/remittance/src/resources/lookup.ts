// Long: one resource: its rows, the public interface they must match, its params schemas and its result types, read together.
/** Lookups (rules Endpoints 6–16): rates, name enquiry, reference data and transaction status, one row per endpoint. */

import type { ApiPromise, OperationOptions, Query, ResponseSchema } from '@paywire/core'
import type { FieldKinds } from '@paywire/core/engine'
import {
  type AnswerDecoder,
  bindAnswer,
  defineOperation,
  listAnswer,
  recordAnswer,
  resource,
  safe,
} from '@paywire/core/engine'
import * as z from '@paywire/core/zod'
import { amount, amountSle, jsonMember, openBodyIssues, type RemittanceRules, text } from '../fields.js'

// ---- results ---------------------------------------------------------------------------------
// The service documents no success body (rule Endpoints 24): each type names the fields the SDK
// expects (rules Platform 12–18) as optional members, plus an open record for the rest; a field's
// JSON kind follows rule Platform 11 (identifiers, amounts and enumerated values may be strings or
// numbers, any field may be `null`), checked on arrival by the decoder (rule Platform 10). Pass a
// `schema` to check and type an answer of another shape.

/** A rate quote (rule Platform 16): what the beneficiary receives for an SLE amount, and the fees. */
export interface RateQuote {
  /** The currency sent: `SLE` (rule Platform 4). */
  readonly sourceCurrency?: string | null
  /** The currency the beneficiary receives, ISO 4217 (`GHS`). */
  readonly destCurrency?: string | null
  /** As sent in the request, when it was. */
  readonly destinationCountry?: string | null
  /** As sent in the request, when it was. */
  readonly serviceType?: string | number | null
  /** Which amount the quote started from: `SOURCE` or `DESTINATION` (rule Platform 1). */
  readonly amountType?: string | number | null
  /** Units of `destCurrency` per 1 SLE. */
  readonly rate?: string | number | null
  /** The amount sent, in SLE (at most 2 decimals, rule Platform 4). */
  readonly sendingAmountSLE?: string | number | null
  /** The amount received, in `destCurrency`. */
  readonly receivingAmountFX?: string | number | null
  /** The fees, in SLE. */
  readonly fees?: string | number | null
  /** What the sender pays in SLE: the amount sent plus the fees. */
  readonly totalAmountSLE?: string | number | null
  /** Members the SDK does not know of, as the service sent them. */
  readonly [field: string]: unknown
}

export const RATE_QUOTE_KINDS: FieldKinds<RateQuote> = {
  sourceCurrency: 'string',
  destCurrency: 'string',
  destinationCountry: 'string',
  serviceType: 'string or number',
  amountType: 'string or number',
  rate: 'string or number',
  sendingAmountSLE: 'string or number',
  receivingAmountFX: 'string or number',
  fees: 'string or number',
  totalAmountSLE: 'string or number',
}

/** The account a name enquiry found (rule Platform 18): whose name the bank holds for the number. */
export interface BankAccount {
  /** The bank, as sent. */
  readonly bankCode?: string | number | null
  /** The account number, as sent. */
  readonly accountNumber?: string | number | null
  /** The name the bank holds for the account: show it to the sender before a bank transfer. */
  readonly accountName?: string | null
  /** Members the SDK does not know of, as the service sent them. */
  readonly [field: string]: unknown
}

export const BANK_ACCOUNT_KINDS: FieldKinds<BankAccount> = {
  bankCode: 'string or number',
  accountNumber: 'string or number',
  accountName: 'string',
}

/** A destination country a transfer can go to (rule Platform 17). */
export interface DestinationCountry {
  /** ISO 3166 code (`GH`), as transfers send it in `destinationCountry`. */
  readonly countryCode?: string | null
  /** The country's name. */
  readonly countryName?: string | null
  /** The currency the beneficiary receives there, ISO 4217. */
  readonly currency?: string | null
  /** The transfer types offered there: `Account`, `Cash Collection`, `Mobile Transfer` (rule Platform 1). */
  readonly serviceTypes?: readonly (string | number)[] | null
  /** Members the SDK does not know of, as the service sent them. */
  readonly [field: string]: unknown
}

export const DESTINATION_COUNTRY_KINDS: FieldKinds<DestinationCountry> = {
  countryCode: 'string',
  countryName: 'string',
  currency: 'string',
  serviceTypes: 'list of strings or numbers',
}

/** A bank abroad that receives bank transfers (rule Platform 17). */
export interface DeliveryBank {
  /** The bank's id, as a bank transfer sends it. */
  readonly bankId?: string | number | null
  /** The bank's name. */
  readonly bankName?: string | null
  /** The country of the bank, ISO 3166. */
  readonly countryCode?: string | null
  /** Members the SDK does not know of, as the service sent them. */
  readonly [field: string]: unknown
}

export const DELIVERY_BANK_KINDS: FieldKinds<DeliveryBank> = {
  bankId: 'string or number',
  bankName: 'string',
  countryCode: 'string',
}

/** A branch of a delivery bank (rule Platform 17). */
export interface DeliveryBankBranch {
  /** The branch's id. */
  readonly branchId?: string | number | null
  /** The bank it belongs to (`DeliveryBank.bankId`). */
  readonly bankId?: string | number | null
  /** The branch's name. */
  readonly branchName?: string | null
  /** The town of the branch. */
  readonly city?: string | null
  /** Members the SDK does not know of, as the service sent them. */
  readonly [field: string]: unknown
}

export const DELIVERY_BANK_BRANCH_KINDS: FieldKinds<DeliveryBankBranch> = {
  branchId: 'string or number',
  bankId: 'string or number',
  branchName: 'string',
  city: 'string',
}

/** An agent where a beneficiary collects cash (rule Platform 17). */
export interface CollectionPoint {
  /** Its id, as a cash collection sends it in `collectionPointId` (rule Resources 5). */
  readonly collectionPointId?: string | number | null
  /** The agent's name. */
  readonly name?: string | null
  /** The town of the agent. */
  readonly city?: string | null
  /** The country of the agent, ISO 3166. */
  readonly countryCode?: string | null
  /** Members the SDK does not know of, as the service sent them. */
  readonly [field: string]: unknown
}

export const COLLECTION_POINT_KINDS: FieldKinds<CollectionPoint> = {
  collectionPointId: 'string or number',
  name: 'string',
  city: 'string',
  countryCode: 'string',
}

/** A mobile money operator (rule Platform 17). */
export interface MobileOperator {
  /** Its id, as a mobile transfer sends it in `beneficiaryMobileTransferNetworkId` (rule Resources 4). */
  readonly networkId?: string | number | null
  /** The operator's or wallet's name. */
  readonly name?: string | null
  /** The country of the operator, ISO 3166. */
  readonly countryCode?: string | null
  /** Members the SDK does not know of, as the service sent them. */
  readonly [field: string]: unknown
}

export const MOBILE_OPERATOR_KINDS: FieldKinds<MobileOperator> = {
  networkId: 'string or number',
  name: 'string',
  countryCode: 'string',
}

/** What a mobile transfer credits on an operator: wallet, airtime… (rule Platform 17). */
export interface MobileOperatorCreditType {
  /** Its id, as a mobile transfer sends it in `beneficiaryMobileTransferNetworkCreditTypeId` (rule Resources 4). */
  readonly creditTypeId?: string | number | null
  /** The operator it belongs to (`MobileOperator.networkId`). */
  readonly networkId?: string | number | null
  /** The credit type's name (`Wallet`, `Airtime`). */
  readonly name?: string | null
  /** Members the SDK does not know of, as the service sent them. */
  readonly [field: string]: unknown
}

export const MOBILE_OPERATOR_CREDIT_TYPE_KINDS: FieldKinds<MobileOperatorCreditType> = {
  creditTypeId: 'string or number',
  networkId: 'string or number',
  name: 'string',
}

/** A local bank, as the name enquiry takes it (rule Platform 17). */
export interface Bank {
  /** The bank's code, as a name enquiry sends it. */
  readonly bankCode?: string | number | null
  /** The bank's name. */
  readonly bankName?: string | null
  /** Members the SDK does not know of, as the service sent them. */
  readonly [field: string]: unknown
}

export const BANK_KINDS: FieldKinds<Bank> = { bankCode: 'string or number', bankName: 'string' }

/** The state of a transaction, as the status lookup answers it (rule Platform 15). */
export interface TransactionStatus {
  /** The reference confirm gave; `null` before confirm (rule Platform 2). */
  readonly referenceNumber?: string | number | null
  /** The id the transfer answered (rule Platform 2). */
  readonly transactionId?: string | number | null
  /** The idempotency key the transfer was sent with (rule Platform 5). */
  readonly agentTransactionRef?: string | null
  /** The platform's state: `ENTERED`, `AGENT_OK`, `PROCESSED`, `ABORTED`… (rule Platform 3). */
  readonly status?: string | number | null
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

export const TRANSACTION_STATUS_KINDS: FieldKinds<TransactionStatus> = {
  referenceNumber: 'string or number',
  transactionId: 'string or number',
  agentTransactionRef: 'string',
  status: 'string or number',
  amountSLE: 'string or number',
  fees: 'string or number',
  destCurrency: 'string',
  receivingAmountFX: 'string or number',
}

/** @deprecated Use `RateQuote | undefined`, which the method's signature names; this per-method alias goes in 1.0. */
export type LookupRatesResult = RateQuote | undefined
/** @deprecated Use `BankAccount | undefined`, which the method's signature names; this per-method alias goes in 1.0. */
export type LookupNameEnquiryResult = BankAccount | undefined
/** @deprecated Use `BankAccount | undefined`, which the method's signature names; this per-method alias goes in 1.0. */
export type LookupNameEnquiryLookupResult = BankAccount | undefined
/** @deprecated Use `readonly DestinationCountry[] | undefined`, which the method's signature names; this per-method alias goes in 1.0. */
export type LookupDestinationCountriesResult = readonly DestinationCountry[] | undefined
/** @deprecated Use `readonly DeliveryBank[] | undefined`, which the method's signature names; this per-method alias goes in 1.0. */
export type LookupDeliveryBanksResult = readonly DeliveryBank[] | undefined
/** @deprecated Use `readonly DeliveryBankBranch[] | undefined`, which the method's signature names; this per-method alias goes in 1.0. */
export type LookupDeliveryBankBranchesResult = readonly DeliveryBankBranch[] | undefined
/** @deprecated Use `readonly CollectionPoint[] | undefined`, which the method's signature names; this per-method alias goes in 1.0. */
export type LookupCollectionPointsResult = readonly CollectionPoint[] | undefined
/** @deprecated Use `readonly MobileOperator[] | undefined`, which the method's signature names; this per-method alias goes in 1.0. */
export type LookupMobileOperatorsResult = readonly MobileOperator[] | undefined
/** @deprecated Use `readonly MobileOperatorCreditType[] | undefined`, which the method's signature names; this per-method alias goes in 1.0. */
export type LookupMobileOperatorCreditTypesResult = readonly MobileOperatorCreditType[] | undefined
/** @deprecated Use `readonly Bank[] | undefined`, which the method's signature names; this per-method alias goes in 1.0. */
export type LookupBanksResult = readonly Bank[] | undefined
/** @deprecated Use `TransactionStatus`, which the method's signature names; this per-method alias goes in 1.0. */
export type LookupTransactionStatusResult = TransactionStatus

// ---- params schemas (the rows build them on their first call) ----------------------------------

/** `POST /api/lookup/rates`: `sendingAmountSLE` and `receivingAmountFX` numbers, the rest strings (rule Resources 2). */
export function ratesSchema(rules: RemittanceRules) {
  return z.strictObject({
    /** Amount in SLE (at most `platformDefaults.sleDecimals` decimals, 2 by default; rule Platform 4). */
    sendingAmountSLE: amountSle(rules),
    /** Amount in the destination currency. */
    receivingAmountFX: z.optional(amount()),
    /** `SOURCE` or `DESTINATION` upstream (rule Platform 1); not enforced. */
    amountType: text(),
    /** The currency sent. */
    sourceCurrency: text(),
    /** The country the money goes to. */
    destinationCountry: text(),
    /** The currency the beneficiary receives. */
    destCurrency: text(),
    /** The kind of transfer quoted. */
    serviceType: text(),
  })
}

/** `POST /api/lookup/name-enquiry`: NameEnquiryRequest's fields are not published (rule Resources 8), so any JSON members. */
export function nameEnquirySchema() {
  return z.catchall(z.object({}), jsonMember())
}

/**
 * GetTransactionFeesRequest: the service names this schema but no endpoint uses it, and its fields
 * are not published (rule Resources 8). Exported for `remit.request(...)` if the service documents a
 * fee endpoint later.
 */
export interface TransactionFeesRequest {
  readonly [field: string]: unknown
}

const bankAccount = recordAnswer<BankAccount>(BANK_ACCOUNT_KINDS)
const statusRecord = recordAnswer<TransactionStatus>(TRANSACTION_STATUS_KINDS)

/**
 * A GET lookup with an optional open `query`, sent as given: the service does not publish its
 * parameters (rule Endpoints 21). `safe`: a read, retried on 502 too.
 */
function queryRow<const Path extends string, Result>(method: string, path: Path, decode: AnswerDecoder<Result>) {
  return defineOperation<RemittanceRules, never, Result | undefined, Path, true>({
    name: `lookup.${method}`,
    method: 'GET',
    path,
    query: true,
    retry: safe,
    decode,
  })
}

/**
 * The lookup endpoints, one row each; each row is also the `remit.lookup` method of its name.
 * Every lookup is `safe`: retried on 502 too.
 */
export const LOOKUP = {
  rates: defineOperation({
    name: 'lookup.rates',
    method: 'POST',
    path: '/api/lookup/rates',
    params: ratesSchema,
    retry: safe,
    decode: recordAnswer<RateQuote>(RATE_QUOTE_KINDS),
  }),
  nameEnquiry: defineOperation({
    name: 'lookup.nameEnquiry',
    method: 'POST',
    path: '/api/lookup/name-enquiry',
    params: nameEnquirySchema,
    precheck: openBodyIssues,
    retry: safe,
    decode: bankAccount,
  }),
  nameEnquiryLookup: queryRow('nameEnquiryLookup', '/api/lookup/name-enquiry', bankAccount),
  destinationCountries: queryRow(
    'destinationCountries',
    '/api/lookup/destination-countries',
    listAnswer<DestinationCountry>(DESTINATION_COUNTRY_KINDS),
  ),
  deliveryBankBranches: queryRow(
    'deliveryBankBranches',
    '/api/lookup/delivery-bank-branches',
    listAnswer<DeliveryBankBranch>(DELIVERY_BANK_BRANCH_KINDS),
  ),
  deliveryBanks: queryRow('deliveryBanks', '/api/lookup/delivery-banks', listAnswer<DeliveryBank>(DELIVERY_BANK_KINDS)),
  collectionPoints: queryRow(
    'collectionPoints',
    '/api/lookup/collection-points',
    listAnswer<CollectionPoint>(COLLECTION_POINT_KINDS),
  ),
  mobileOperatorCreditTypes: queryRow(
    'mobileOperatorCreditTypes',
    '/api/lookup/mobile-operator-credit-types',
    listAnswer<MobileOperatorCreditType>(MOBILE_OPERATOR_CREDIT_TYPE_KINDS),
  ),
  mobileOperators: queryRow(
    'mobileOperators',
    '/api/lookup/mobile-operators',
    listAnswer<MobileOperator>(MOBILE_OPERATOR_KINDS),
  ),
  banks: queryRow('banks', '/api/lookup/banks', listAnswer<Bank>(BANK_KINDS)),
  transactionStatus: defineOperation({
    name: 'lookup.transactionStatus',
    method: 'GET',
    path: '/api/lookup/transaction/status/{referenceNumber}',
    retry: safe,
    // The service publishes no status answer (rule Endpoints 24): the binding rests on Platform 15
    // (an assumption: the record carries these three identifiers). Reconciliation looks a transfer
    // up by its agentTransactionRef and a confirm by its transactionId, so any one of the three
    // repeating the value sent binds the record.
    answerBinding: bindAnswer('lookup', {
      path: { referenceNumber: ['referenceNumber', 'transactionId', 'agentTransactionRef'] },
      rule: 'Platform 19',
    }),
    // An empty answer names no reference and is refused by the binding before this decoder runs.
    decode: (value, reject): TransactionStatus => statusRecord(value, reject) ?? reject('holds no record'),
  }),
}

/**
 * `remit.lookup`: rates, name enquiry, reference data, transaction status, one method per endpoint;
 * every lookup is safe to repeat (retried on 502 too). The GET lookups take an optional `query`
 * object, sent as given: the service does not publish their parameters (rule Endpoints 21). Every
 * method also takes a `schema` in its options, which checks the answer and types the result with it.
 */
export interface Lookup {
  /** `POST /api/lookup/rates` (rule Resources 2): a quote of what the beneficiary receives and the fees (rule Platform 16). */
  rates(params: LookupRatesParams, options?: OperationOptions): ApiPromise<RateQuote | undefined>
  rates<T>(params: LookupRatesParams, options: OperationOptions<ResponseSchema<T>>): ApiPromise<T>
  /** `POST /api/lookup/name-enquiry` (NameEnquiryRequest, fields not published): the account's holder (rule Platform 18). */
  nameEnquiry(params: LookupNameEnquiryParams, options?: OperationOptions): ApiPromise<BankAccount | undefined>
  nameEnquiry<T>(params: LookupNameEnquiryParams, options: OperationOptions<ResponseSchema<T>>): ApiPromise<T>
  /** `GET /api/lookup/name-enquiry`: the GET form of the name enquiry, parameters in `query` (rule Platform 18). */
  nameEnquiryLookup(query?: Query, options?: OperationOptions): ApiPromise<BankAccount | undefined>
  nameEnquiryLookup<T>(query: Query | undefined, options: OperationOptions<ResponseSchema<T>>): ApiPromise<T>
  /** `GET /api/lookup/destination-countries` (rule Platform 17). */
  destinationCountries(query?: Query, options?: OperationOptions): ApiPromise<readonly DestinationCountry[] | undefined>
  destinationCountries<T>(query: Query | undefined, options: OperationOptions<ResponseSchema<T>>): ApiPromise<T>
  /** `GET /api/lookup/delivery-bank-branches` (rule Platform 17). */
  deliveryBankBranches(query?: Query, options?: OperationOptions): ApiPromise<readonly DeliveryBankBranch[] | undefined>
  deliveryBankBranches<T>(query: Query | undefined, options: OperationOptions<ResponseSchema<T>>): ApiPromise<T>
  /** `GET /api/lookup/delivery-banks` (rule Platform 17). */
  deliveryBanks(query?: Query, options?: OperationOptions): ApiPromise<readonly DeliveryBank[] | undefined>
  deliveryBanks<T>(query: Query | undefined, options: OperationOptions<ResponseSchema<T>>): ApiPromise<T>
  /** `GET /api/lookup/collection-points` (rule Platform 17). */
  collectionPoints(query?: Query, options?: OperationOptions): ApiPromise<readonly CollectionPoint[] | undefined>
  collectionPoints<T>(query: Query | undefined, options: OperationOptions<ResponseSchema<T>>): ApiPromise<T>
  /** `GET /api/lookup/mobile-operator-credit-types` (rule Platform 17). */
  mobileOperatorCreditTypes(
    query?: Query,
    options?: OperationOptions,
  ): ApiPromise<readonly MobileOperatorCreditType[] | undefined>
  mobileOperatorCreditTypes<T>(query: Query | undefined, options: OperationOptions<ResponseSchema<T>>): ApiPromise<T>
  /** `GET /api/lookup/mobile-operators` (rule Platform 17). */
  mobileOperators(query?: Query, options?: OperationOptions): ApiPromise<readonly MobileOperator[] | undefined>
  mobileOperators<T>(query: Query | undefined, options: OperationOptions<ResponseSchema<T>>): ApiPromise<T>
  /** `GET /api/lookup/banks` (rule Endpoints 15: 502 on an upstream failure, retried; rule Platform 17). */
  banks(query?: Query, options?: OperationOptions): ApiPromise<readonly Bank[] | undefined>
  banks<T>(query: Query | undefined, options: OperationOptions<ResponseSchema<T>>): ApiPromise<T>
  /**
   * `GET /api/lookup/transaction/status/{referenceNumber}`: the reference confirm answered
   * (`Confirmation.referenceNumber`, rule Platform 2). The way to reconcile a transfer whose outcome
   * is unknown (rule Platform 15). Believed only when the record names the reference asked for
   * (rule Platform 19): another record, or none, rejects with `unbound_response`.
   */
  transactionStatus(referenceNumber: string | number, options?: OperationOptions): ApiPromise<TransactionStatus>
  transactionStatus<T>(referenceNumber: string | number, options: OperationOptions<ResponseSchema<T>>): ApiPromise<T>
}

/** `Lookup` made from the rows of `LOOKUP` (which must match it: see `resource`). */
export class LookupResource extends resource<RemittanceRules, typeof LOOKUP, Lookup>(LOOKUP) {}

// Written out by scripts/public-types.mjs (edit the rows, then run it) from: EndpointParams<typeof LOOKUP.rates>
/** Body of `POST /api/lookup/rates` (rule Resources 2). */
export interface LookupRatesParams {
  /** Amount in SLE (at most `platformDefaults.sleDecimals` decimals, 2 by default; rule Platform 4). */
  sendingAmountSLE?: number | undefined
  /** Amount in the destination currency. */
  receivingAmountFX?: number | undefined
  /** `SOURCE` or `DESTINATION` upstream (rule Platform 1); not enforced. */
  amountType?: string | undefined
  /** The currency sent. */
  sourceCurrency?: string | undefined
  /** The country the money goes to. */
  destinationCountry?: string | undefined
  /** The currency the beneficiary receives. */
  destCurrency?: string | undefined
  /** The kind of transfer quoted. */
  serviceType?: string | undefined
}

// Written out by scripts/public-types.mjs (edit the rows, then run it) from: EndpointParams<typeof LOOKUP.nameEnquiry>
/** Body of `POST /api/lookup/name-enquiry`: NameEnquiryRequest's fields are not published (rule Resources 8), so any JSON members. */
export interface LookupNameEnquiryParams {
  [key: string]: unknown
}
