/**
 * `@paywire/core`: what a merchant's code names — the error tree, the client and call options, the
 * stores of the intent journal and the callback inbox, secrets. The service packages re-export what
 * their users need of it; the engine they are built on is `@paywire/core/engine`.
 */

export type { WithResponse } from './api-promise.js'
export { ApiPromise } from './api-promise.js'
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
} from './errors/errors.js'
export {
  ApiError,
  ConnectionError,
  PaywireError,
  RequestValidationError,
  ResponseTooLargeError,
  SignatureVerificationError,
  TimeoutError,
  UserAbortError,
} from './errors/errors.js'
export type { ProblemDetailsErrorInit, ProblemReason } from './errors/problem-error.js'
export { ProblemDetailsError } from './errors/problem-error.js'
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
export type { IntentReconciled, Reconciled, ReconciledOutcome, ReconcileOptions } from './journal/reconcile.js'
export { DEFAULT_SETTLE_AFTER_MS } from './journal/reconcile.js'
export type { Intent, IntentOutcome, IntentStore } from './journal/stores.js'
export { MemoryIntentStore } from './journal/stores.js'

import type { ResponseSchema } from './operations/response-schema.js'

export type { ResponseSchema }
/** @deprecated Since 0.2: `ResponseSchema`, as every name for an HTTP response in the SDK says. */
export type AnswerSchema<T = unknown> = ResponseSchema<T>
export type { OperationOptions, RequestInput, ResultOf } from './operations/call-input.js'
export type { Query, QueryValue } from './operations/encode.js'
export type { JsonValue } from './operations/json-check.js'
export type { ProblemDetails } from './operations/problem-details.js'
export type { RawRequestInput } from './operations/raw.js'
export type { BackoffOptions } from './operations/retry.js'
export { DEFAULT_BACKOFF } from './operations/retry.js'
// The base every service client extends: its public methods (request, reconcileAll, close…) are each client's.
export { ServiceClient } from './operations/service-client.js'
export type { ServiceDedupOptions } from './options.js'
export { redactHeaders, Secret } from './secret.js'
export type { ErrorEvent, Hooks, Logger, RequestEvent, ResponseEvent, RetryEvent } from './telemetry/hooks.js'
export type {
  AttemptMessage,
  CallbackMessage,
  ClaimMessage,
  EndedFields,
  IntentMessage,
  OperationMessage,
  ReconcileMessage,
  RetryMessage,
} from './telemetry/telemetry.js'
export { PAYWIRE_CHANNELS } from './telemetry/telemetry.js'
export type { CallOptions, ClientOptions, Clock } from './transport/http-client.js'
export { systemClock, WINDOW_MARGIN_MS } from './transport/http-client.js'
export type { RawResponse } from './transport/request.js'
// Encodes caller data as one path segment of a raw `request()` path.
export { pathSegment } from './transport/url.js'
