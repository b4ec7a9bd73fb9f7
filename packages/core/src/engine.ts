/**
 * `@paywire/core/engine`: the operation engine the service packages are built on — rows, resources,
 * the client shell, the transport, retry policies, answer readers and reconciliation. Not for merchant
 * code: its names may change in any minor release; what merchants use is `@paywire/core`.
 */

export { accountFingerprint } from './account.js'
export { checkAnswer } from './answer-schema.js'
export type { AnswerDecoder, FieldKind, FieldKinds } from './answers.js'
export { listAnswer, recordAnswer } from './answers.js'
export { nodeCrypto } from './builtins.js'
export type { OperationInput } from './call-input.js'
export type { CredentialUse } from './credentials.js'
export { readCredentials } from './credentials.js'
export { formBody, jsonBody, withQuery } from './encode.js'
export { brandErrorClass, statusMayHaveActed } from './errors.js'
export type { CallEffect } from './follow/followers.js'
export { Followers } from './follow/followers.js'
export type { FollowingSetup } from './follow/following.js'
export { Following } from './follow/following.js'
export type { FollowedRef, FollowSpec, Observation } from './follow/types.js'
export { logLine, resolveEnvLogger } from './hooks.js'
export type { HttpClientConfig } from './http-client.js'
export { HttpClient } from './http-client.js'
export type { Acceptance, InboxBackoff, InboxConfig, RunOutcome } from './inbox/config.js'
export { Inbox } from './inbox/runner.js'
export { decodeIntentRecord, encodeIntentRecord } from './intent-record.js'
export { jsonObjectIssues } from './json-check.js'
export type {
  AnswerBinding,
  AnswerBindingFields,
  AnswerBindingKind,
  Idempotency,
  Operation,
  ReconcileRule,
  RejectAnswer,
  ReusedConnectionRule,
  SentRequest,
} from './operation.js'
export { bindAnswer, defineOperation, jsonAnswer, reconcileRule, retryPolicyOf } from './operation.js'
export type {
  AnswerReader,
  CallListener,
  OperationClientConfig,
  SettledAtOnce,
  SettledCall,
  UnusableAnswer,
} from './operation-client.js'
export { OperationClient } from './operation-client.js'
export { serviceDedupsIdempotencyKey } from './options.js'
export { describeProblem, parseProblemDetails } from './problem-details.js'
export type { ProblemDetailsErrorInit, ProblemErrorClass, ProblemHints } from './problem-error.js'
export { problemAnswers, problemReason } from './problem-error.js'
export { buildRawRequest } from './raw.js'
export type { JournalOwner, ReconcileSubject, ReconcileSubjectScope } from './reconcile.js'
export { openIntentsOf, ownedOutcome, reconcileJournal, reconcileSubject } from './reconcile.js'
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
  RowArgument,
} from './resource.js'
export { reconcileKeysOf, resource, rowArguments } from './resource.js'
export type { RetryPolicy } from './retry.js'
export { keyed, parseRetryAfter, safe, unsentOnly, withinWindow } from './retry.js'
export type { ServiceClientSetup } from './service-client.js'
export { ServiceClient } from './service-client.js'
export {
  channelIfObserved,
  errorClass,
  fillError,
  telemetryWord,
  traced,
  tracingIfObserved,
} from './telemetry.js'
export { checkBaseUrl, expandPath, pathSegment } from './url.js'
export { checkParams, closest, validateParams } from './validate.js'
