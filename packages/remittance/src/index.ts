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
export type { TransferUpdate } from './follow.js'
export type { RemittanceReconciled } from './reconcile.js'
export type {
  Beneficiaries,
  BeneficiariesCreateParams,
  BeneficiariesUpdateParams,
  BeneficiaryFields,
} from './resources/beneficiaries.js'
export type { Lookup, LookupNameEnquiryParams, LookupRatesParams } from './resources/lookup.js'
export type {
  Transactions,
  TransactionsBankTransferParams,
  TransactionsCashCollectionParams,
  TransactionsMobileTransferParams,
} from './resources/transactions.js'
export type {
  Bank,
  BankAccount,
  BeneficiariesCreateResult,
  BeneficiariesGetByPosIdResult,
  BeneficiariesGetByTelephoneResult,
  BeneficiariesSearchResult,
  BeneficiariesUpdateResult,
  Beneficiary,
  CollectionPoint,
  Confirmation,
  DeliveryBank,
  DeliveryBankBranch,
  DestinationCountry,
  LookupBanksResult,
  LookupCollectionPointsResult,
  LookupDeliveryBankBranchesResult,
  LookupDeliveryBanksResult,
  LookupDestinationCountriesResult,
  LookupMobileOperatorCreditTypesResult,
  LookupMobileOperatorsResult,
  LookupNameEnquiryLookupResult,
  LookupNameEnquiryResult,
  LookupRatesResult,
  LookupTransactionStatusResult,
  MobileOperator,
  MobileOperatorCreditType,
  RateQuote,
  TransactionStatus,
  TransactionsBankTransferResult,
  TransactionsCashCollectionResult,
  TransactionsConfirmResult,
  TransactionsMobileTransferResult,
  Transfer,
} from './results.js'
export type {
  JsonValue,
  LookupQuery,
  RemittanceResult,
  TransactionCommonFields,
  TransactionFeesRequest,
} from './schemas.js'
export { BENEFICIARY_FIELDS } from './schemas.js'
