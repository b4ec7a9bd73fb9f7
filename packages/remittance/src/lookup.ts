/** Lookups (rules Endpoints 6–16): rates, name enquiry, reference data and transaction status, one row per endpoint. */

import {
  type AnswerDecoder,
  bindAnswer,
  defineOperation,
  type EndpointParams,
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
} from './results.js'
import { nameEnquirySchema, openBodyIssues, type RemittanceRules, ratesSchema } from './schemas.js'

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
  /** `POST /api/lookup/rates` (rule Resources 2): a quote of what the beneficiary receives and the fees (rule Platform 16). */
  rates: defineOperation({
    name: 'lookup.rates',
    method: 'POST',
    path: '/api/lookup/rates',
    params: ratesSchema,
    retry: safe,
    decode: recordAnswer<RateQuote>(RATE_QUOTE_KINDS),
  }),
  /** `POST /api/lookup/name-enquiry` (NameEnquiryRequest, fields not published): the account's holder (rule Platform 18). */
  nameEnquiry: defineOperation({
    name: 'lookup.nameEnquiry',
    method: 'POST',
    path: '/api/lookup/name-enquiry',
    params: nameEnquirySchema,
    precheck: openBodyIssues,
    retry: safe,
    decode: bankAccount,
  }),
  /** `GET /api/lookup/name-enquiry`: the GET form of the name enquiry, parameters in `query` (rule Platform 18). */
  nameEnquiryLookup: queryRow('nameEnquiryLookup', '/api/lookup/name-enquiry', bankAccount),
  /** `GET /api/lookup/destination-countries` (rule Platform 17). */
  destinationCountries: queryRow(
    'destinationCountries',
    '/api/lookup/destination-countries',
    listAnswer<DestinationCountry>(DESTINATION_COUNTRY_KINDS),
  ),
  /** `GET /api/lookup/delivery-bank-branches` (rule Platform 17). */
  deliveryBankBranches: queryRow(
    'deliveryBankBranches',
    '/api/lookup/delivery-bank-branches',
    listAnswer<DeliveryBankBranch>(DELIVERY_BANK_BRANCH_KINDS),
  ),
  /** `GET /api/lookup/delivery-banks` (rule Platform 17). */
  deliveryBanks: queryRow('deliveryBanks', '/api/lookup/delivery-banks', listAnswer<DeliveryBank>(DELIVERY_BANK_KINDS)),
  /** `GET /api/lookup/collection-points` (rule Platform 17). */
  collectionPoints: queryRow(
    'collectionPoints',
    '/api/lookup/collection-points',
    listAnswer<CollectionPoint>(COLLECTION_POINT_KINDS),
  ),
  /** `GET /api/lookup/mobile-operator-credit-types` (rule Platform 17). */
  mobileOperatorCreditTypes: queryRow(
    'mobileOperatorCreditTypes',
    '/api/lookup/mobile-operator-credit-types',
    listAnswer<MobileOperatorCreditType>(MOBILE_OPERATOR_CREDIT_TYPE_KINDS),
  ),
  /** `GET /api/lookup/mobile-operators` (rule Platform 17). */
  mobileOperators: queryRow(
    'mobileOperators',
    '/api/lookup/mobile-operators',
    listAnswer<MobileOperator>(MOBILE_OPERATOR_KINDS),
  ),
  /** `GET /api/lookup/banks` (rule Endpoints 15: 502 on an upstream failure, retried; rule Platform 17). */
  banks: queryRow('banks', '/api/lookup/banks', listAnswer<Bank>(BANK_KINDS)),
  /**
   * `GET /api/lookup/transaction/status/{referenceNumber}`: the reference confirm answered
   * (`Confirmation.referenceNumber`, rule Platform 2). The way to reconcile a transfer whose outcome
   * is unknown (rule Platform 15). Believed only when the record names the reference asked for
   * (rule Platform 19): another record, or none, rejects with `unbound_response`.
   */
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
 * `remit.lookup`: rates, name enquiry, reference data, transaction status; each method is one row of
 * `LOOKUP`. The GET lookups take an optional `query` object, sent as given: the service does not
 * publish their parameters (rule Endpoints 21).
 */
export class Lookup extends resource<RemittanceRules, typeof LOOKUP>(LOOKUP) {}

/** Body of `POST /api/lookup/rates` (rule Resources 2). */
export interface LookupRatesParams extends EndpointParams<typeof LOOKUP.rates> {}

/** Body of `POST /api/lookup/name-enquiry`: NameEnquiryRequest's fields are not published (rule Resources 8), so any JSON members. */
export interface LookupNameEnquiryParams extends EndpointParams<typeof LOOKUP.nameEnquiry> {}
