/** `@paywire/remittance`: typed client of the cross-border remittance service. */

export type { ProblemDetails } from '@paywire/core'
// Re-exported so callers catch every error without importing @paywire/core themselves.
export {
  ApiError,
  ConnectionError,
  PaywireError,
  RequestValidationError,
  ResponseTooLargeError,
  Secret,
  TimeoutError,
  UserAbortError,
} from '@paywire/core'
export { Beneficiaries, beneficiaryOperations } from './beneficiaries.js'
export type { RemittanceOptions, RemittancePlatformDefaults } from './client.js'
export { Remittance } from './client.js'
export type { RemittanceErrorReason } from './errors.js'
export { RemittanceError } from './errors.js'
export { Lookup, lookupOperations } from './lookup.js'
export type { OperationRow, RemittanceCallOptions, ResultOf, ResultSchema } from './operation.js'
export type {
  BeneficiariesCreateParams,
  BeneficiariesUpdateParams,
  BeneficiaryFields,
  JsonValue,
  LookupNameEnquiryParams,
  LookupQuery,
  LookupRatesParams,
  RemittanceResult,
  TransactionCommonFields,
  TransactionFeesRequest,
  TransactionsBankTransferParams,
  TransactionsCashCollectionParams,
  TransactionsMobileTransferParams,
} from './schemas.js'
export { BENEFICIARY_FIELDS } from './schemas.js'
export { Transactions, transactionOperations } from './transactions.js'
