/** `@paywire/core`: the transport, retry policies, error tree and secret handling shared by every paywire SDK. */

export type { AnswerSchema } from './answer-schema.js'
export { checkAnswer } from './answer-schema.js'
export type { AnswerDecoder, FieldKind, FieldKinds } from './answers.js'
export { listAnswer, recordAnswer } from './answers.js'
export type { WithResponse } from './api-promise.js'
export { ApiPromise } from './api-promise.js'
export { nodeCrypto } from './builtins.js'
export type { OperationInput, OperationOptions, RequestInput, ResultOf } from './call-input.js'
export type { CredentialUse } from './credentials.js'
export { readCredentials } from './credentials.js'
export type { Query, QueryValue } from './encode.js'
export { formBody, jsonBody, withQuery } from './encode.js'
export type {
  ApiErrorInit,
  ConnectionErrorInit,
  PaywireErrorOptions,
  Reconciliation,
  RequestInfo,
  ResponseInfo,
  TimeoutErrorInit,
  TimeoutPhase,
  UserAbortErrorInit,
  ValidationIssue,
  ValidationStage,
} from './errors.js'
export {
  ApiError,
  brandErrorClass,
  ConnectionError,
  PaywireError,
  RequestValidationError,
  ResponseTooLargeError,
  SignatureVerificationError,
  statusMayHaveActed,
  TimeoutError,
  UserAbortError,
} from './errors.js'
export type { ErrorEvent, Hooks, Logger, RequestEvent, ResponseEvent, RetryEvent } from './hooks.js'
export type { CallOptions, ClientOptions, Clock, HttpClientConfig } from './http-client.js'
export { HttpClient, systemClock, WINDOW_MARGIN_MS } from './http-client.js'
export { jsonObjectIssues } from './json-check.js'
export type { Idempotency, Operation, ReconcileRule, RejectAnswer, SentRequest } from './operation.js'
export { defineOperation, jsonAnswer, reconcileRule } from './operation.js'
export type { AnswerReader, OperationClientConfig, UnusableAnswer } from './operation-client.js'
export { OperationClient } from './operation-client.js'
export type { ServiceDedupOptions } from './options.js'
export { serviceDedupsIdempotencyKey } from './options.js'
export type { ProblemDetails } from './problem-details.js'
export { describeProblem, parseProblemDetails } from './problem-details.js'
export type { ProblemDetailsErrorInit, ProblemErrorClass, ProblemHints, ProblemReason } from './problem-error.js'
export { ProblemDetailsError, problemAnswers, problemReason } from './problem-error.js'
export type { RawRequestInput } from './raw.js'
export { buildRawRequest } from './raw.js'
export type {
  IntentReconciled,
  Reconciled,
  ReconciledOutcome,
  ReconcileOptions,
  ReconcileSubject,
  ReconcileSubjectScope,
} from './reconcile.js'
export { DEFAULT_SETTLE_AFTER_MS, openIntentsOf, reconcileJournal, reconcileSubject } from './reconcile.js'
export type { HttpMethod, HttpRequest, RawResponse, ResponseHandler } from './request.js'
export type {
  AnyOperation,
  EndpointArgs,
  EndpointExamples,
  EndpointMethod,
  EndpointMethods,
  EndpointParams,
  EndpointResult,
  ResourceClass,
} from './resource.js'
export { reconcileKeysOf, resource } from './resource.js'
export type { BackoffOptions, RetryPolicy } from './retry.js'
export { DEFAULT_BACKOFF, keyed, parseRetryAfter, safe, unsentOnly, withinWindow } from './retry.js'
export { redactHeaders, Secret } from './secret.js'
export type { ServiceClientSetup } from './service-client.js'
export { ServiceClient } from './service-client.js'
export type { ClaimState, ClaimStore, Intent, IntentOutcome, IntentStore } from './stores.js'
export { claimToken, MemoryClaimStore, MemoryIntentStore } from './stores.js'
export { checkBaseUrl, expandPath, pathSegment } from './url.js'
export { checkParams, closest, validateParams } from './validate.js'
