/** `@paywire/remittance`: typed client of the cross-border remittance service. */

// The core symbols this package uses, re-exported: one import covers calls, errors, secrets, the store
// of the journal, and the payment follower with its store and dead letters (the same in each service
// package); and, as this service answers errors as ProblemDetails (RFC 9457), the names its errors
// rest on. It verifies no signatures: core's SignatureVerificationError is the card gateway's.
export type {
  AnswerSchema,
  CallOptions,
  ClaimStore,
  ClientOptions,
  FailedFollow,
  FollowAttention,
  FollowContext,
  Follower,
  FollowOptions,
  FollowSource,
  FollowUpdate,
  Intent,
  IntentOutcome,
  IntentReconciled,
  IntentStore,
  OperationOptions,
  ProblemDetails,
  ProblemReason,
  RawRequestInput,
  Reconciled,
  Reconciliation,
  RequestInput,
  ResponseSchema,
  ResultOf,
  TrackAnswer,
  WithResponse,
} from '@paywire/core'
export {
  ApiError,
  ApiPromise,
  ConnectionError,
  DeadLetterError,
  MemoryClaimStore,
  MemoryIntentStore,
  PaywireError,
  ProblemDetailsError,
  RequestValidationError,
  ResponseTooLargeError,
  Secret,
  TimeoutError,
  UserAbortError,
} from '@paywire/core'
export type { RemittanceOptions, RemittancePlatformDefaults } from './client.js'
export { Remittance } from './client.js'
export { RemittanceError } from './errors.js'
export type { JsonValue, LookupQuery, RemittanceResult } from './fields.js'
export type { TransferUpdate } from './follow.js'
export type { RemittanceReconciled } from './reconcile.js'
export type {
  Beneficiaries,
  BeneficiariesCreateParams,
  BeneficiariesCreateResult,
  BeneficiariesGetByPosIdResult,
  BeneficiariesGetByTelephoneResult,
  BeneficiariesSearchResult,
  BeneficiariesUpdateParams,
  BeneficiariesUpdateResult,
  Beneficiary,
  BeneficiaryFields,
} from './resources/beneficiaries.js'
export { BENEFICIARY_FIELDS } from './resources/beneficiaries.js'
export type {
  Bank,
  BankAccount,
  CollectionPoint,
  DeliveryBank,
  DeliveryBankBranch,
  DestinationCountry,
  Lookup,
  LookupBanksResult,
  LookupCollectionPointsResult,
  LookupDeliveryBankBranchesResult,
  LookupDeliveryBanksResult,
  LookupDestinationCountriesResult,
  LookupMobileOperatorCreditTypesResult,
  LookupMobileOperatorsResult,
  LookupNameEnquiryLookupResult,
  LookupNameEnquiryParams,
  LookupNameEnquiryResult,
  LookupRatesParams,
  LookupRatesResult,
  LookupTransactionStatusResult,
  MobileOperator,
  MobileOperatorCreditType,
  RateQuote,
  TransactionFeesRequest,
  TransactionStatus,
} from './resources/lookup.js'
export type {
  Confirmation,
  TransactionCommonFields,
  Transactions,
  TransactionsBankTransferParams,
  TransactionsBankTransferResult,
  TransactionsCashCollectionParams,
  TransactionsCashCollectionResult,
  TransactionsConfirmResult,
  TransactionsMobileTransferParams,
  TransactionsMobileTransferResult,
  Transfer,
} from './resources/transactions.js'
