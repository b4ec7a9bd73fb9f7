/** `@paywire/bill-payment`: typed client of the bill payment service (catalog, transactions). */

// The core symbols every paywire package re-exports, the same list in each: one import covers calls,
// errors, secrets, the store of the journal, and the payment follower with its store and dead letters; and, as this service answers
// errors as ProblemDetails (RFC 9457), the ProblemDetails names its errors rest on.
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
  SignatureErrorReason,
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
  SignatureVerificationError,
  TimeoutError,
  UserAbortError,
} from '@paywire/core'
export { Catalog } from './catalog.js'
export type { BillPaymentOptions } from './client.js'
export { BillPayment } from './client.js'
export { BillPaymentError } from './errors.js'
export type { BillFollowOptions, BillPaymentUpdate } from './follow.js'
export { DEFAULT_FINAL_BILL_STATES } from './follow.js'
export type { BillPaymentReconciled } from './reconcile.js'
export type {
  CatalogDisableResult,
  CatalogEnableResult,
  CatalogGetResult,
  CatalogListResult,
  Product,
  Transaction,
  TransactionsExecuteResult,
  TransactionsFilterResult,
  TransactionsGetResult,
  TransactionsListResult,
} from './results.js'
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
} from './schemas.js'
export { CLIENT_ID_HEADER, CLIENT_SECRET_HEADER, IDEMPOTENCY_KEY_HEADER } from './schemas.js'
export { Transactions } from './transactions.js'
