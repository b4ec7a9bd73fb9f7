/** `@paywire/card-gateway`: Checkout (JSON) and the S2S CARD actions, signing, typed errors, callbacks. */

// The core symbols this package uses, re-exported: one import covers calls, errors, secrets, the store
// of the journal, and the payment follower with its store and dead letters (the same in each service
// package); and, as it verifies signed callbacks, SignatureVerificationError. It answers no
// ProblemDetails, so it does not re-export core's ProblemDetailsError: its errors are CardGatewayError.
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
  RawRequestInput,
  Reconciled,
  Reconciliation,
  RequestInput,
  ResponseSchema,
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
  RequestValidationError,
  ResponseTooLargeError,
  Secret,
  SignatureVerificationError,
  TimeoutError,
  UserAbortError,
} from '@paywire/core'
export { type AmountForm, type FormatAmountOptions, formatAmount } from './amount.js'
export type { Callbacks } from './callbacks/callbacks.js'
export type { CallbackEvent, CallbackOptions, CallbackStatus, CallbackType } from './callbacks/event.js'
export { CHECKOUT_CALLBACK_FIELDS, dedupeKey, isFinal, isRefundEvent, isStuckChallenge } from './callbacks/event.js'
export type {
  CallbackAnswerStatus,
  CallbackContext,
  CallbackDeliveryOptions,
  CallbackHandlerOptions,
  CallbackRefusal,
  CallbackResponse,
  FailedCallback,
  FieldEncryption,
  NodeRequestLike,
  NodeResponseLike,
} from './callbacks/handler.js'
export { CallbackHandler } from './callbacks/handler.js'
export { MAX_CALLBACK_DEPTH, MAX_CALLBACK_FIELDS } from './callbacks/limits.js'
export { CALLBACK_STORED_FIELDS, orderOf } from './callbacks/record.js'
export type { CardGatewayOptions, CardGatewayPlatformDefaults, CardGatewayRawRequest } from './client.js'
export { CardGateway } from './client.js'
export { type CardGatewayOperation, SIGNED_OPERATIONS } from './endpoints.js'
export type { CardGatewayErrorDetail, CardGatewayErrorReason, NotFoundEntity } from './errors.js'
export { CardGatewayError } from './errors.js'
export type { CheckoutPaymentStatus, S2sResultValue, S2sStatus } from './fields.js'
export type { CardReconciled } from './reconcile.js'
export type {
  Checkout,
  CheckoutBillingAddress,
  CheckoutCreditParams,
  CheckoutCreditResult,
  CheckoutCustomer,
  CheckoutOrder,
  CheckoutPurchaseParams,
  CheckoutPurchaseResult,
  CheckoutStatusOrder,
  CheckoutStatusParams,
  CheckoutStatusResult,
} from './resources/checkout.js'
export { DEDUP_WINDOW_MS } from './resources/checkout.js'
export type { Delivery, PaymentState } from './resources/payment-state.js'
export { foldPayment } from './resources/payment-state.js'
export type { CardFollowOptions, CardPaymentUpdate } from './resources/payments.js'
export { Payments } from './resources/payments.js'
export type {
  S2s,
  S2sActionName,
  S2sCaptureIfPendingResult,
  S2sCaptureParams,
  S2sCreateScheduleParams,
  S2sCreditVoidParams,
  S2sDeleteScheduleParams,
  S2sGetTransStatusByOrderParams,
  S2sGetTransStatusParams,
  S2sIntervalUnit,
  S2sRecurringSaleParams,
  S2sUpdateScheduleParams,
  S2sVoidParams,
} from './resources/s2s.js'
export type {
  S2sActionResult,
  S2sCaptureResult,
  S2sCreateScheduleResult,
  S2sCreditVoidResult,
  S2sDeleteScheduleResult,
  S2sGetTransStatusByOrderResult,
  S2sGetTransStatusResult,
  S2sRecurringSaleResult,
  S2sUpdateScheduleResult,
  S2sVoidResult,
} from './resources/s2s-action.js'
export type {
  PayerCard,
  PayerLookup,
  PayerRef,
  SignatureFunction,
  SignatureFunctionInput,
  SignatureOption,
  SignaturePreset,
  StrrevExplanation,
  StrrevFormula,
  StrrevParts,
} from './signing/presets.js'
export { SIGNATURE_PRESETS, strrevFormulaOf, strrevSignature } from './signing/presets.js'
export type {
  DigestName,
  SignatureExplanation,
  SignatureInput,
  SignedOperation,
  SignOptions,
  UppercaseMode,
} from './signing/signature.js'
export { asciiUpper, explainSignature, sign } from './signing/signature.js'
