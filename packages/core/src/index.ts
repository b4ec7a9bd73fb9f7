/**
 * `@paywire/core`: what a merchant's code names — the error tree, the client and call options, the
 * stores of the intent journal and the callback inbox, secrets. The service packages re-export what
 * their users need of it; the engine they are built on is `@paywire/core/engine`.
 */

export type { AnswerSchema } from './answer-schema.js'
export type { WithResponse } from './api-promise.js'
export { ApiPromise } from './api-promise.js'
export type { OperationOptions, RequestInput, ResultOf } from './call-input.js'
export type { Query, QueryValue } from './encode.js'
export type {
  ApiErrorInit,
  ConnectionErrorInit,
  PaywireErrorOptions,
  Reconciliation,
  RequestInfo,
  ResponseInfo,
  SignatureErrorReason,
  TimeoutErrorInit,
  TimeoutPhase,
  UserAbortErrorInit,
  ValidationIssue,
  ValidationStage,
} from './errors.js'
export {
  ApiError,
  ConnectionError,
  PaywireError,
  RequestValidationError,
  ResponseTooLargeError,
  SignatureVerificationError,
  TimeoutError,
  UserAbortError,
} from './errors.js'
export type { Follower } from './follow/follower.js'
export type {
  FailedFollow,
  FollowAttention,
  FollowContext,
  FollowOptions,
  FollowSource,
  FollowUpdate,
  TrackAnswer,
} from './follow/types.js'
export type { ErrorEvent, Hooks, Logger, RequestEvent, ResponseEvent, RetryEvent } from './hooks.js'
export type { CallOptions, ClientOptions, Clock } from './http-client.js'
export { systemClock, WINDOW_MARGIN_MS } from './http-client.js'
export { DeadLetterError } from './inbox/dead-letter.js'
export { MemoryClaimStore } from './inbox/memory-store.js'
export type {
  ClaimStore,
  Lease,
  NewEvent,
  RecordAnswer,
  ReleaseOptions,
  StoredEvent,
  StoredEventState,
  TakenEvent,
} from './inbox/store.js'
export type { JsonValue } from './json-check.js'
export type { ServiceDedupOptions } from './options.js'
export type { ProblemDetails } from './problem-details.js'
export type { ProblemDetailsErrorInit, ProblemReason } from './problem-error.js'
export { ProblemDetailsError } from './problem-error.js'
export type { RawRequestInput } from './raw.js'
export type { IntentReconciled, Reconciled, ReconciledOutcome, ReconcileOptions } from './reconcile.js'
export { DEFAULT_SETTLE_AFTER_MS } from './reconcile.js'
export type { RawResponse } from './request.js'
export type { BackoffOptions } from './retry.js'
export { DEFAULT_BACKOFF } from './retry.js'
export { redactHeaders, Secret } from './secret.js'
// The base every service client extends: its public methods (request, reconcileAll, close…) are each client's.
export { ServiceClient } from './service-client.js'
export type { Intent, IntentOutcome, IntentStore } from './stores.js'
export { MemoryIntentStore } from './stores.js'
export type {
  AttemptMessage,
  CallbackMessage,
  ClaimMessage,
  EndedFields,
  IntentMessage,
  OperationMessage,
  ReconcileMessage,
  RetryMessage,
} from './telemetry.js'
export { PAYWIRE_CHANNELS } from './telemetry.js'
// Encodes caller data as one path segment of a raw `request()` path.
export { pathSegment } from './url.js'
