/** Lookups: rates, name enquiry, reference data and transaction status (spec Endpoints, rows 6–16). */

import { type ApiPromise, safe } from '@paywire/core'
import type { OperationRow, OperationRunner, RemittanceCallOptions, ResultOf, ResultSchema } from './operation.js'
import {
  type LookupNameEnquiryParams,
  type LookupQuery,
  type LookupRatesParams,
  nameEnquirySchema,
  ratesSchema,
} from './schemas.js'

/** One row per endpoint. Every lookup is `safe` (ARCHITECTURE section 5): retried on 502 too. */
export const lookupOperations = {
  rates: { name: 'lookup.rates', method: 'POST', path: '/api/lookup/rates', body: ratesSchema, retry: safe },
  nameEnquiry: {
    name: 'lookup.nameEnquiry',
    method: 'POST',
    path: '/api/lookup/name-enquiry',
    body: nameEnquirySchema,
    retry: safe,
  },
  nameEnquiryLookup: {
    name: 'lookup.nameEnquiryLookup',
    method: 'GET',
    path: '/api/lookup/name-enquiry',
    query: true,
    retry: safe,
  },
  destinationCountries: {
    name: 'lookup.destinationCountries',
    method: 'GET',
    path: '/api/lookup/destination-countries',
    query: true,
    retry: safe,
  },
  deliveryBankBranches: {
    name: 'lookup.deliveryBankBranches',
    method: 'GET',
    path: '/api/lookup/delivery-bank-branches',
    query: true,
    retry: safe,
  },
  deliveryBanks: {
    name: 'lookup.deliveryBanks',
    method: 'GET',
    path: '/api/lookup/delivery-banks',
    query: true,
    retry: safe,
  },
  collectionPoints: {
    name: 'lookup.collectionPoints',
    method: 'GET',
    path: '/api/lookup/collection-points',
    query: true,
    retry: safe,
  },
  mobileOperatorCreditTypes: {
    name: 'lookup.mobileOperatorCreditTypes',
    method: 'GET',
    path: '/api/lookup/mobile-operator-credit-types',
    query: true,
    retry: safe,
  },
  mobileOperators: {
    name: 'lookup.mobileOperators',
    method: 'GET',
    path: '/api/lookup/mobile-operators',
    query: true,
    retry: safe,
  },
  banks: { name: 'lookup.banks', method: 'GET', path: '/api/lookup/banks', query: true, retry: safe },
  transactionStatus: {
    name: 'lookup.transactionStatus',
    method: 'GET',
    path: '/api/lookup/transaction/status/{referenceNumber}',
    retry: safe,
  },
} as const satisfies Record<string, OperationRow>

type Options<S extends ResultSchema | undefined> = RemittanceCallOptions<S>

/**
 * `remit.lookup`: each method is one row of `lookupOperations`. The GET lookups take an optional
 * `query` object, sent as given (spec: their query parameters are not shown).
 */
export class Lookup {
  readonly #run: OperationRunner

  /** @internal */
  constructor(run: OperationRunner) {
    this.#run = run
  }

  /** `POST /api/lookup/rates` (rate lookup request; 200, body undocumented). */
  rates<S extends ResultSchema | undefined = undefined>(
    body: LookupRatesParams,
    options?: Options<S>,
  ): ApiPromise<ResultOf<S>> {
    return this.#run.call(lookupOperations.rates, { body }, options)
  }

  /** `POST /api/lookup/name-enquiry` (NameEnquiryRequest, fields not shown). */
  nameEnquiry<S extends ResultSchema | undefined = undefined>(
    body: LookupNameEnquiryParams,
    options?: Options<S>,
  ): ApiPromise<ResultOf<S>> {
    return this.#run.call(lookupOperations.nameEnquiry, { body }, options)
  }

  /** `GET /api/lookup/name-enquiry`: the GET form of the name enquiry, parameters in `query`. */
  nameEnquiryLookup<S extends ResultSchema | undefined = undefined>(
    query?: LookupQuery,
    options?: Options<S>,
  ): ApiPromise<ResultOf<S>> {
    return this.#run.call(lookupOperations.nameEnquiryLookup, { query }, options)
  }

  /** `GET /api/lookup/destination-countries`. */
  destinationCountries<S extends ResultSchema | undefined = undefined>(
    query?: LookupQuery,
    options?: Options<S>,
  ): ApiPromise<ResultOf<S>> {
    return this.#run.call(lookupOperations.destinationCountries, { query }, options)
  }

  /** `GET /api/lookup/delivery-banks`. */
  deliveryBanks<S extends ResultSchema | undefined = undefined>(
    query?: LookupQuery,
    options?: Options<S>,
  ): ApiPromise<ResultOf<S>> {
    return this.#run.call(lookupOperations.deliveryBanks, { query }, options)
  }

  /** `GET /api/lookup/delivery-bank-branches`. */
  deliveryBankBranches<S extends ResultSchema | undefined = undefined>(
    query?: LookupQuery,
    options?: Options<S>,
  ): ApiPromise<ResultOf<S>> {
    return this.#run.call(lookupOperations.deliveryBankBranches, { query }, options)
  }

  /** `GET /api/lookup/collection-points`. */
  collectionPoints<S extends ResultSchema | undefined = undefined>(
    query?: LookupQuery,
    options?: Options<S>,
  ): ApiPromise<ResultOf<S>> {
    return this.#run.call(lookupOperations.collectionPoints, { query }, options)
  }

  /** `GET /api/lookup/mobile-operators`. */
  mobileOperators<S extends ResultSchema | undefined = undefined>(
    query?: LookupQuery,
    options?: Options<S>,
  ): ApiPromise<ResultOf<S>> {
    return this.#run.call(lookupOperations.mobileOperators, { query }, options)
  }

  /** `GET /api/lookup/mobile-operator-credit-types`. */
  mobileOperatorCreditTypes<S extends ResultSchema | undefined = undefined>(
    query?: LookupQuery,
    options?: Options<S>,
  ): ApiPromise<ResultOf<S>> {
    return this.#run.call(lookupOperations.mobileOperatorCreditTypes, { query }, options)
  }

  /** `GET /api/lookup/banks` (200, body undocumented; 502 on upstream failure, retried). */
  banks<S extends ResultSchema | undefined = undefined>(
    query?: LookupQuery,
    options?: Options<S>,
  ): ApiPromise<ResultOf<S>> {
    return this.#run.call(lookupOperations.banks, { query }, options)
  }

  /**
   * `GET /api/lookup/transaction/status/{referenceNumber}`: the reference confirm yields
   * (PLATFORM_NOTES [guess, strong]). The way to reconcile a transfer whose outcome is unknown.
   */
  transactionStatus<S extends ResultSchema | undefined = undefined>(
    referenceNumber: string,
    options?: Options<S>,
  ): ApiPromise<ResultOf<S>> {
    return this.#run.call(lookupOperations.transactionStatus, { pathValue: referenceNumber }, options)
  }
}
