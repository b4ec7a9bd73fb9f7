/** `@paywire/bill-payment`: typed client of the bill payment service (catalog, transactions). */

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
export type { BillPaymentOptions } from './client.js'
export { BillPayment } from './client.js'
export { BillPaymentError } from './errors.js'
export type {
  CatalogDisableParams,
  CatalogEnableParams,
  ClientProfileRequest,
  ClientState,
  ExecutePaymentRequest,
  JsonValue,
  OpenRecord,
  TransactionFilter,
  TransactionsExecuteParams,
  TransactionsFilterParams,
  TransactionsListParams,
} from './fields.js'
export { CLIENT_ID_HEADER, CLIENT_SECRET_HEADER, IDEMPOTENCY_KEY_HEADER } from './fields.js'
export type { BillPaymentReconciled } from './reconcile.js'
export type {
  Catalog,
  CatalogDisableResult,
  CatalogEnableResult,
  CatalogGetResult,
  CatalogListResult,
  Product,
} from './resources/catalog.js'
export type {
  BillFollowOptions,
  BillPaymentUpdate,
  Transaction,
  Transactions,
  TransactionsExecuteResult,
  TransactionsFilterResult,
  TransactionsGetResult,
  TransactionsListResult,
} from './resources/transactions.js'
export { DEFAULT_FINAL_BILL_STATES } from './resources/transactions.js'
