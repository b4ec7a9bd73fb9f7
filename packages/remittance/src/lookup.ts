/** Lookups: rates, name enquiry, reference data and transaction status (spec Endpoints, rows 6–16). */

import {
  type AnswerSchema,
  type ApiPromise,
  defineOperation,
  jsonAnswer,
  type OperationClient,
  type OperationOptions,
  type ResultOf,
  safe,
} from '@paywire/core'
import {
  type LookupNameEnquiryParams,
  type LookupQuery,
  type LookupRatesParams,
  nameEnquirySchema,
  type RemittanceResult,
  type SleBodySchemas,
} from './schemas.js'

/** One row per endpoint. Every lookup is `safe`: retried on 502 too. */
export const lookupOperations = {
  rates: defineOperation({
    name: 'lookup.rates',
    method: 'POST',
    path: '/api/lookup/rates',
    params: (bodies: SleBodySchemas) => bodies.rates,
    retry: safe,
    decode: jsonAnswer<RemittanceResult>,
  }),
  nameEnquiry: defineOperation({
    name: 'lookup.nameEnquiry',
    method: 'POST',
    path: '/api/lookup/name-enquiry',
    params: nameEnquirySchema,
    retry: safe,
    decode: jsonAnswer<RemittanceResult>,
  }),
  nameEnquiryLookup: defineOperation({
    name: 'lookup.nameEnquiryLookup',
    method: 'GET',
    path: '/api/lookup/name-enquiry',
    query: true,
    retry: safe,
    decode: jsonAnswer<RemittanceResult>,
  }),
  destinationCountries: defineOperation({
    name: 'lookup.destinationCountries',
    method: 'GET',
    path: '/api/lookup/destination-countries',
    query: true,
    retry: safe,
    decode: jsonAnswer<RemittanceResult>,
  }),
  deliveryBankBranches: defineOperation({
    name: 'lookup.deliveryBankBranches',
    method: 'GET',
    path: '/api/lookup/delivery-bank-branches',
    query: true,
    retry: safe,
    decode: jsonAnswer<RemittanceResult>,
  }),
  deliveryBanks: defineOperation({
    name: 'lookup.deliveryBanks',
    method: 'GET',
    path: '/api/lookup/delivery-banks',
    query: true,
    retry: safe,
    decode: jsonAnswer<RemittanceResult>,
  }),
  collectionPoints: defineOperation({
    name: 'lookup.collectionPoints',
    method: 'GET',
    path: '/api/lookup/collection-points',
    query: true,
    retry: safe,
    decode: jsonAnswer<RemittanceResult>,
  }),
  mobileOperatorCreditTypes: defineOperation({
    name: 'lookup.mobileOperatorCreditTypes',
    method: 'GET',
    path: '/api/lookup/mobile-operator-credit-types',
    query: true,
    retry: safe,
    decode: jsonAnswer<RemittanceResult>,
  }),
  mobileOperators: defineOperation({
    name: 'lookup.mobileOperators',
    method: 'GET',
    path: '/api/lookup/mobile-operators',
    query: true,
    retry: safe,
    decode: jsonAnswer<RemittanceResult>,
  }),
  banks: defineOperation({
    name: 'lookup.banks',
    method: 'GET',
    path: '/api/lookup/banks',
    query: true,
    retry: safe,
    decode: jsonAnswer<RemittanceResult>,
  }),
  transactionStatus: defineOperation({
    name: 'lookup.transactionStatus',
    method: 'GET',
    path: '/api/lookup/transaction/status/{referenceNumber}',
    retry: safe,
    decode: jsonAnswer<RemittanceResult>,
  }),
}

/**
 * `remit.lookup`: each method is one row of `lookupOperations`. The GET lookups take an optional
 * `query` object, sent as given (spec: their query parameters are not shown).
 */
export class Lookup {
  readonly #ops: OperationClient<SleBodySchemas>

  /** @internal */
  constructor(ops: OperationClient<SleBodySchemas>) {
    this.#ops = ops
  }

  /** `POST /api/lookup/rates` (rate lookup request; 200, body undocumented). */
  rates<S extends AnswerSchema | undefined = undefined>(
    body: LookupRatesParams,
    options?: OperationOptions<S>,
  ): ApiPromise<ResultOf<S, RemittanceResult>> {
    return this.#ops.call(lookupOperations.rates, { body }, options)
  }

  /** `POST /api/lookup/name-enquiry` (NameEnquiryRequest, fields not shown). */
  nameEnquiry<S extends AnswerSchema | undefined = undefined>(
    body: LookupNameEnquiryParams,
    options?: OperationOptions<S>,
  ): ApiPromise<ResultOf<S, RemittanceResult>> {
    return this.#ops.call(lookupOperations.nameEnquiry, { body }, options)
  }

  /** `GET /api/lookup/name-enquiry`: the GET form of the name enquiry, parameters in `query`. */
  nameEnquiryLookup<S extends AnswerSchema | undefined = undefined>(
    query?: LookupQuery,
    options?: OperationOptions<S>,
  ): ApiPromise<ResultOf<S, RemittanceResult>> {
    return this.#ops.call(lookupOperations.nameEnquiryLookup, { query }, options)
  }

  /** `GET /api/lookup/destination-countries`. */
  destinationCountries<S extends AnswerSchema | undefined = undefined>(
    query?: LookupQuery,
    options?: OperationOptions<S>,
  ): ApiPromise<ResultOf<S, RemittanceResult>> {
    return this.#ops.call(lookupOperations.destinationCountries, { query }, options)
  }

  /** `GET /api/lookup/delivery-banks`. */
  deliveryBanks<S extends AnswerSchema | undefined = undefined>(
    query?: LookupQuery,
    options?: OperationOptions<S>,
  ): ApiPromise<ResultOf<S, RemittanceResult>> {
    return this.#ops.call(lookupOperations.deliveryBanks, { query }, options)
  }

  /** `GET /api/lookup/delivery-bank-branches`. */
  deliveryBankBranches<S extends AnswerSchema | undefined = undefined>(
    query?: LookupQuery,
    options?: OperationOptions<S>,
  ): ApiPromise<ResultOf<S, RemittanceResult>> {
    return this.#ops.call(lookupOperations.deliveryBankBranches, { query }, options)
  }

  /** `GET /api/lookup/collection-points`. */
  collectionPoints<S extends AnswerSchema | undefined = undefined>(
    query?: LookupQuery,
    options?: OperationOptions<S>,
  ): ApiPromise<ResultOf<S, RemittanceResult>> {
    return this.#ops.call(lookupOperations.collectionPoints, { query }, options)
  }

  /** `GET /api/lookup/mobile-operators`. */
  mobileOperators<S extends AnswerSchema | undefined = undefined>(
    query?: LookupQuery,
    options?: OperationOptions<S>,
  ): ApiPromise<ResultOf<S, RemittanceResult>> {
    return this.#ops.call(lookupOperations.mobileOperators, { query }, options)
  }

  /** `GET /api/lookup/mobile-operator-credit-types`. */
  mobileOperatorCreditTypes<S extends AnswerSchema | undefined = undefined>(
    query?: LookupQuery,
    options?: OperationOptions<S>,
  ): ApiPromise<ResultOf<S, RemittanceResult>> {
    return this.#ops.call(lookupOperations.mobileOperatorCreditTypes, { query }, options)
  }

  /** `GET /api/lookup/banks` (200, body undocumented; 502 on upstream failure, retried). */
  banks<S extends AnswerSchema | undefined = undefined>(
    query?: LookupQuery,
    options?: OperationOptions<S>,
  ): ApiPromise<ResultOf<S, RemittanceResult>> {
    return this.#ops.call(lookupOperations.banks, { query }, options)
  }

  /**
   * `GET /api/lookup/transaction/status/{referenceNumber}`: the reference confirm yields
   * (PLATFORM_NOTES [guess, strong]). The way to reconcile a transfer whose outcome is unknown.
   */
  transactionStatus<S extends AnswerSchema | undefined = undefined>(
    referenceNumber: string,
    options?: OperationOptions<S>,
  ): ApiPromise<ResultOf<S, RemittanceResult>> {
    return this.#ops.call(lookupOperations.transactionStatus, { path: { referenceNumber } }, options)
  }
}
