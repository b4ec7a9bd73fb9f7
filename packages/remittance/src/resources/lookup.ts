/** Lookups (rules Endpoints 6–16): rates, name enquiry, reference data and transaction status, one row per endpoint. */

import type { AnswerSchema, ApiPromise, OperationOptions, Query } from '@paywire/core'
import {
  type AnswerDecoder,
  bindAnswer,
  defineOperation,
  listAnswer,
  recordAnswer,
  resource,
  safe,
} from '@paywire/core/engine'
import {
  BANK_ACCOUNT_KINDS,
  BANK_KINDS,
  type Bank,
  type BankAccount,
  COLLECTION_POINT_KINDS,
  type CollectionPoint,
  DELIVERY_BANK_BRANCH_KINDS,
  DELIVERY_BANK_KINDS,
  DESTINATION_COUNTRY_KINDS,
  type DeliveryBank,
  type DeliveryBankBranch,
  type DestinationCountry,
  MOBILE_OPERATOR_CREDIT_TYPE_KINDS,
  MOBILE_OPERATOR_KINDS,
  type MobileOperator,
  type MobileOperatorCreditType,
  RATE_QUOTE_KINDS,
  type RateQuote,
  TRANSACTION_STATUS_KINDS,
  type TransactionStatus,
} from '../results.js'
import { nameEnquirySchema, openBodyIssues, type RemittanceRules, ratesSchema } from '../schemas.js'

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
  rates<T>(params: LookupRatesParams, options: OperationOptions<AnswerSchema<T>>): ApiPromise<T>
  /** `POST /api/lookup/name-enquiry` (NameEnquiryRequest, fields not published): the account's holder (rule Platform 18). */
  nameEnquiry(params: LookupNameEnquiryParams, options?: OperationOptions): ApiPromise<BankAccount | undefined>
  nameEnquiry<T>(params: LookupNameEnquiryParams, options: OperationOptions<AnswerSchema<T>>): ApiPromise<T>
  /** `GET /api/lookup/name-enquiry`: the GET form of the name enquiry, parameters in `query` (rule Platform 18). */
  nameEnquiryLookup(query?: Query, options?: OperationOptions): ApiPromise<BankAccount | undefined>
  nameEnquiryLookup<T>(query: Query | undefined, options: OperationOptions<AnswerSchema<T>>): ApiPromise<T>
  /** `GET /api/lookup/destination-countries` (rule Platform 17). */
  destinationCountries(query?: Query, options?: OperationOptions): ApiPromise<readonly DestinationCountry[] | undefined>
  destinationCountries<T>(query: Query | undefined, options: OperationOptions<AnswerSchema<T>>): ApiPromise<T>
  /** `GET /api/lookup/delivery-bank-branches` (rule Platform 17). */
  deliveryBankBranches(query?: Query, options?: OperationOptions): ApiPromise<readonly DeliveryBankBranch[] | undefined>
  deliveryBankBranches<T>(query: Query | undefined, options: OperationOptions<AnswerSchema<T>>): ApiPromise<T>
  /** `GET /api/lookup/delivery-banks` (rule Platform 17). */
  deliveryBanks(query?: Query, options?: OperationOptions): ApiPromise<readonly DeliveryBank[] | undefined>
  deliveryBanks<T>(query: Query | undefined, options: OperationOptions<AnswerSchema<T>>): ApiPromise<T>
  /** `GET /api/lookup/collection-points` (rule Platform 17). */
  collectionPoints(query?: Query, options?: OperationOptions): ApiPromise<readonly CollectionPoint[] | undefined>
  collectionPoints<T>(query: Query | undefined, options: OperationOptions<AnswerSchema<T>>): ApiPromise<T>
  /** `GET /api/lookup/mobile-operator-credit-types` (rule Platform 17). */
  mobileOperatorCreditTypes(
    query?: Query,
    options?: OperationOptions,
  ): ApiPromise<readonly MobileOperatorCreditType[] | undefined>
  mobileOperatorCreditTypes<T>(query: Query | undefined, options: OperationOptions<AnswerSchema<T>>): ApiPromise<T>
  /** `GET /api/lookup/mobile-operators` (rule Platform 17). */
  mobileOperators(query?: Query, options?: OperationOptions): ApiPromise<readonly MobileOperator[] | undefined>
  mobileOperators<T>(query: Query | undefined, options: OperationOptions<AnswerSchema<T>>): ApiPromise<T>
  /** `GET /api/lookup/banks` (rule Endpoints 15: 502 on an upstream failure, retried; rule Platform 17). */
  banks(query?: Query, options?: OperationOptions): ApiPromise<readonly Bank[] | undefined>
  banks<T>(query: Query | undefined, options: OperationOptions<AnswerSchema<T>>): ApiPromise<T>
  /**
   * `GET /api/lookup/transaction/status/{referenceNumber}`: the reference confirm answered
   * (`Confirmation.referenceNumber`, rule Platform 2). The way to reconcile a transfer whose outcome
   * is unknown (rule Platform 15). Believed only when the record names the reference asked for
   * (rule Platform 19): another record, or none, rejects with `unbound_response`.
   */
  transactionStatus(referenceNumber: string | number, options?: OperationOptions): ApiPromise<TransactionStatus>
  transactionStatus<T>(referenceNumber: string | number, options: OperationOptions<AnswerSchema<T>>): ApiPromise<T>
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
