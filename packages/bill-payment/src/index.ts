/** `@paywire/bill-payment`: typed client of the bill payment service (catalog, transactions). */

export type { CallOptions, ClientOptions, ProblemDetails, RawRequestInput } from '@paywire/core'
// Re-exported so callers can catch every error class from one import.
export {
  ApiError,
  ApiPromise,
  ConnectionError,
  PaywireError,
  RequestValidationError,
  ResponseTooLargeError,
  TimeoutError,
  UserAbortError,
} from '@paywire/core'
export { CatalogResource, catalogOperations } from './catalog.js'
export type { BillPaymentOptions } from './client.js'
export { BillPayment } from './client.js'
export type { BillPaymentErrorReason } from './errors.js'
export { BillPaymentError } from './errors.js'
export type { BillPaymentCallOptions, OperationRow, ResultKind, WithoutSchema, WithSchema } from './operation.js'
export { CLIENT_ID_HEADER, CLIENT_SECRET_HEADER, IDEMPOTENCY_KEY_HEADER } from './operation.js'
export type {
  CatalogDisableParams,
  CatalogDisableResult,
  CatalogEnableParams,
  CatalogEnableResult,
  CatalogGetResult,
  CatalogListResult,
  ClientProfileRequest,
  ClientState,
  ExecutePaymentRequest,
  JsonValue,
  OpenRecord,
  Product,
  Transaction,
  TransactionFilter,
  TransactionsExecuteParams,
  TransactionsFilterParams,
  TransactionsFilterResult,
  TransactionsGetResult,
  TransactionsListParams,
  TransactionsListResult,
} from './schemas.js'
export type { TransactionsExecuteCallOptions } from './transactions.js'
export { TransactionsResource, transactionsOperations } from './transactions.js'
