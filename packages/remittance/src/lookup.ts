/** Lookups: rates, name enquiry, reference data and transaction status (rules Endpoints 6–16). */

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
} from '@paywire/core'
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
  type LookupBanksResult,
  type LookupCollectionPointsResult,
  type LookupDeliveryBankBranchesResult,
  type LookupDeliveryBanksResult,
  type LookupDestinationCountriesResult,
  type LookupMobileOperatorCreditTypesResult,
  type LookupMobileOperatorsResult,
  type LookupNameEnquiryLookupResult,
  type LookupNameEnquiryResult,
  type LookupRatesResult,
  type LookupTransactionStatusResult,
  MOBILE_OPERATOR_CREDIT_TYPE_KINDS,
  MOBILE_OPERATOR_KINDS,
  type MobileOperator,
  type MobileOperatorCreditType,
  RATE_QUOTE_KINDS,
  type RateQuote,
  TRANSACTION_STATUS_KINDS,
  type TransactionStatus,
} from './results.js'
import {
  type LookupNameEnquiryParams,
  type LookupQuery,
  type LookupRatesParams,
  nameEnquirySchema,
  type SleBodySchemas,
} from './schemas.js'

const bankAccount = recordAnswer<BankAccount>(BANK_ACCOUNT_KINDS)

/** One row per endpoint. Every lookup is `safe`: retried on 502 too. */
export const lookupOperations = {
  rates: defineOperation({
    name: 'lookup.rates',
    method: 'POST',
    path: '/api/lookup/rates',
    params: (bodies: SleBodySchemas) => bodies.rates,
    retry: safe,
    decode: recordAnswer<RateQuote>(RATE_QUOTE_KINDS),
  }),
  nameEnquiry: defineOperation({
    name: 'lookup.nameEnquiry',
    method: 'POST',
    path: '/api/lookup/name-enquiry',
    params: nameEnquirySchema,
    retry: safe,
    decode: bankAccount,
  }),
  nameEnquiryLookup: defineOperation({
    name: 'lookup.nameEnquiryLookup',
    method: 'GET',
    path: '/api/lookup/name-enquiry',
    query: true,
    retry: safe,
    decode: bankAccount,
  }),
  destinationCountries: defineOperation({
    name: 'lookup.destinationCountries',
    method: 'GET',
    path: '/api/lookup/destination-countries',
    query: true,
    retry: safe,
    decode: listAnswer<DestinationCountry>(DESTINATION_COUNTRY_KINDS),
  }),
  deliveryBankBranches: defineOperation({
    name: 'lookup.deliveryBankBranches',
    method: 'GET',
    path: '/api/lookup/delivery-bank-branches',
    query: true,
    retry: safe,
    decode: listAnswer<DeliveryBankBranch>(DELIVERY_BANK_BRANCH_KINDS),
  }),
  deliveryBanks: defineOperation({
    name: 'lookup.deliveryBanks',
    method: 'GET',
    path: '/api/lookup/delivery-banks',
    query: true,
    retry: safe,
    decode: listAnswer<DeliveryBank>(DELIVERY_BANK_KINDS),
  }),
  collectionPoints: defineOperation({
    name: 'lookup.collectionPoints',
    method: 'GET',
    path: '/api/lookup/collection-points',
    query: true,
    retry: safe,
    decode: listAnswer<CollectionPoint>(COLLECTION_POINT_KINDS),
  }),
  mobileOperatorCreditTypes: defineOperation({
    name: 'lookup.mobileOperatorCreditTypes',
    method: 'GET',
    path: '/api/lookup/mobile-operator-credit-types',
    query: true,
    retry: safe,
    decode: listAnswer<MobileOperatorCreditType>(MOBILE_OPERATOR_CREDIT_TYPE_KINDS),
  }),
  mobileOperators: defineOperation({
    name: 'lookup.mobileOperators',
    method: 'GET',
    path: '/api/lookup/mobile-operators',
    query: true,
    retry: safe,
    decode: listAnswer<MobileOperator>(MOBILE_OPERATOR_KINDS),
  }),
  banks: defineOperation({
    name: 'lookup.banks',
    method: 'GET',
    path: '/api/lookup/banks',
    query: true,
    retry: safe,
    decode: listAnswer<Bank>(BANK_KINDS),
  }),
  transactionStatus: defineOperation({
    name: 'lookup.transactionStatus',
    method: 'GET',
    path: '/api/lookup/transaction/status/{referenceNumber}',
    retry: safe,
    decode: recordAnswer<TransactionStatus>(TRANSACTION_STATUS_KINDS),
  }),
}

/**
 * `remit.lookup`: each method is one row of `lookupOperations`. The GET lookups take an optional
 * `query` object, sent as given: the service does not publish their parameters (rule Endpoints 21).
 */
export class Lookup {
  readonly #ops: OperationClient<SleBodySchemas>

  /** @internal */
  constructor(ops: OperationClient<SleBodySchemas>) {
    this.#ops = ops
  }

  /** `POST /api/lookup/rates` (rule Resources 2): a quote of what the beneficiary receives and the fees (rule Platform 16). */
  rates<S extends AnswerSchema | undefined = undefined>(
    body: LookupRatesParams,
    options?: OperationOptions<S>,
  ): ApiPromise<ResultOf<S, LookupRatesResult>> {
    return this.#ops.call(lookupOperations.rates, { body }, options)
  }

  /** `POST /api/lookup/name-enquiry` (NameEnquiryRequest, fields not published): the account's holder (rule Platform 18). */
  nameEnquiry<S extends AnswerSchema | undefined = undefined>(
    body: LookupNameEnquiryParams,
    options?: OperationOptions<S>,
  ): ApiPromise<ResultOf<S, LookupNameEnquiryResult>> {
    return this.#ops.call(lookupOperations.nameEnquiry, { body }, options)
  }

  /** `GET /api/lookup/name-enquiry`: the GET form of the name enquiry, parameters in `query` (rule Platform 18). */
  nameEnquiryLookup<S extends AnswerSchema | undefined = undefined>(
    query?: LookupQuery,
    options?: OperationOptions<S>,
  ): ApiPromise<ResultOf<S, LookupNameEnquiryLookupResult>> {
    return this.#ops.call(lookupOperations.nameEnquiryLookup, { query }, options)
  }

  /** `GET /api/lookup/destination-countries` (rule Platform 17). */
  destinationCountries<S extends AnswerSchema | undefined = undefined>(
    query?: LookupQuery,
    options?: OperationOptions<S>,
  ): ApiPromise<ResultOf<S, LookupDestinationCountriesResult>> {
    return this.#ops.call(lookupOperations.destinationCountries, { query }, options)
  }

  /** `GET /api/lookup/delivery-banks` (rule Platform 17). */
  deliveryBanks<S extends AnswerSchema | undefined = undefined>(
    query?: LookupQuery,
    options?: OperationOptions<S>,
  ): ApiPromise<ResultOf<S, LookupDeliveryBanksResult>> {
    return this.#ops.call(lookupOperations.deliveryBanks, { query }, options)
  }

  /** `GET /api/lookup/delivery-bank-branches` (rule Platform 17). */
  deliveryBankBranches<S extends AnswerSchema | undefined = undefined>(
    query?: LookupQuery,
    options?: OperationOptions<S>,
  ): ApiPromise<ResultOf<S, LookupDeliveryBankBranchesResult>> {
    return this.#ops.call(lookupOperations.deliveryBankBranches, { query }, options)
  }

  /** `GET /api/lookup/collection-points` (rule Platform 17). */
  collectionPoints<S extends AnswerSchema | undefined = undefined>(
    query?: LookupQuery,
    options?: OperationOptions<S>,
  ): ApiPromise<ResultOf<S, LookupCollectionPointsResult>> {
    return this.#ops.call(lookupOperations.collectionPoints, { query }, options)
  }

  /** `GET /api/lookup/mobile-operators` (rule Platform 17). */
  mobileOperators<S extends AnswerSchema | undefined = undefined>(
    query?: LookupQuery,
    options?: OperationOptions<S>,
  ): ApiPromise<ResultOf<S, LookupMobileOperatorsResult>> {
    return this.#ops.call(lookupOperations.mobileOperators, { query }, options)
  }

  /** `GET /api/lookup/mobile-operator-credit-types` (rule Platform 17). */
  mobileOperatorCreditTypes<S extends AnswerSchema | undefined = undefined>(
    query?: LookupQuery,
    options?: OperationOptions<S>,
  ): ApiPromise<ResultOf<S, LookupMobileOperatorCreditTypesResult>> {
    return this.#ops.call(lookupOperations.mobileOperatorCreditTypes, { query }, options)
  }

  /** `GET /api/lookup/banks` (rule Endpoints 15: 502 on an upstream failure, retried; rule Platform 17). */
  banks<S extends AnswerSchema | undefined = undefined>(
    query?: LookupQuery,
    options?: OperationOptions<S>,
  ): ApiPromise<ResultOf<S, LookupBanksResult>> {
    return this.#ops.call(lookupOperations.banks, { query }, options)
  }

  /**
   * `GET /api/lookup/transaction/status/{referenceNumber}`: the reference confirm answered
   * (`Confirmation.referenceNumber`, rule Platform 2). The way to reconcile a transfer whose outcome
   * is unknown (rule Platform 15).
   */
  transactionStatus<S extends AnswerSchema | undefined = undefined>(
    referenceNumber: string | number,
    options?: OperationOptions<S>,
  ): ApiPromise<ResultOf<S, LookupTransactionStatusResult>> {
    return this.#ops.call(lookupOperations.transactionStatus, { path: { referenceNumber } }, options)
  }
}
