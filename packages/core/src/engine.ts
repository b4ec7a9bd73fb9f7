/**
 * `@paywire/core/engine`: the operation engine the service packages are built on — rows, resources,
 * the client shell, the transport, retry policies, answer readers and reconciliation. Not for merchant
 * code: its names may change in any minor release; what merchants use is `@paywire/core`.
 */

export { nodeCrypto } from './builtins.js'
export type { CredentialUse } from './credentials.js'
export { readCredentials } from './credentials.js'
export { brandErrorClass, statusMayHaveActed } from './errors/errors.js'
export type { ProblemDetailsErrorInit, ProblemErrorClass, ProblemHints } from './errors/problem-error.js'
export { problemAnswers, problemReason } from './errors/problem-error.js'
export type { CallEffect } from './follow/followers.js'
export { Followers } from './follow/followers.js'
export type { FollowingSetup } from './follow/following.js'
export { Following } from './follow/following.js'
export type { FollowedRef, FollowSpec, Observation } from './follow/types.js'
export type { Acceptance, InboxBackoff, InboxConfig, RunOutcome } from './inbox/config.js'
export type { BatchAnswer, RecordBatchesSetup } from './inbox/record-batches.js'
export { RecordBatches } from './inbox/record-batches.js'
export { Inbox } from './inbox/runner.js'
export { accountFingerprint } from './journal/account.js'
export { decodeIntentRecord, encodeIntentRecord } from './journal/intent-record.js'
export type { JournalOwner, ReconcileSubject, ReconcileSubjectScope } from './journal/reconcile.js'
export { openIntentsOf, ownedOutcome, reconcileJournal, reconcileSubject } from './journal/reconcile.js'
export type { AnswerDecoder, FieldKind, FieldKinds } from './operations/answers.js'
export { listAnswer, recordAnswer } from './operations/answers.js'
export type { OperationInput } from './operations/call-input.js'
export { formBody, jsonBody, withQuery } from './operations/encode.js'
export { jsonObjectIssues } from './operations/json-check.js'
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
} from './operations/operation.js'
export { bindAnswer, defineOperation, jsonAnswer, reconcileRule, retryPolicyOf } from './operations/operation.js'
export type {
  AnswerReader,
  CallListener,
  OperationClientConfig,
  SettledAtOnce,
  SettledCall,
  UnusableAnswer,
} from './operations/operation-client.js'
export { OperationClient } from './operations/operation-client.js'
export { describeProblem, parseProblemDetails } from './operations/problem-details.js'
export { buildRawRequest } from './operations/raw.js'
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
  ServiceExamples,
} from './operations/resource.js'
export { reconcileKeysOf, resource, rowArguments } from './operations/resource.js'
export { checkResponse } from './operations/response-schema.js'
export type { RetryPolicy } from './operations/retry.js'
export { keyed, parseRetryAfter, safe, unsentOnly, withinWindow } from './operations/retry.js'
export type { ServiceClientSetup } from './operations/service-client.js'
export { ServiceClient } from './operations/service-client.js'
export { checkParams, closest, validateParams } from './operations/validate.js'
export { serviceDedupsIdempotencyKey } from './options.js'
export { logLine, resolveEnvLogger } from './telemetry/hooks.js'
export {
  channelIfObserved,
  errorClass,
  fillError,
  telemetryWord,
  traced,
  tracingIfObserved,
} from './telemetry/telemetry.js'
export type { HttpClientConfig } from './transport/http-client.js'
export { HttpClient } from './transport/http-client.js'
export type { HttpMethod, HttpRequest, RawResponse, ResponseHandler } from './transport/request.js'
export { checkBaseUrl, expandPath, pathSegment } from './transport/url.js'
