/** What the engine hands the transport and gets back: a request ready for the wire, its answer, and how to read it. */

import type { ApiError, Reconciliation, ResponseInfo } from '../errors/errors.js'
import type { RetryPolicy } from '../operations/retry.js'

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'

/** A request ready for the wire: body already encoded (and, for the card gateway, signed). */
export interface HttpRequest {
  /** Operation name for errors and hooks, e.g. `s2s.capture`. */
  readonly operation: string
  readonly method: HttpMethod
  /** Absolute URL, path variables already encoded. */
  readonly url: string
  /** The base URL `url` is below (the client's, with its path): what a journal intent records as its target. */
  readonly base?: string | undefined
  /**
   * The URL as hooks and logs show it: the base URL and the path template (`/beneficiaries/telephone/{telephone}`),
   * never the values in the path or the query (a payer's telephone, an account number).
   */
  readonly shownUrl?: string | undefined
  readonly headers?: Readonly<Record<string, string>>
  readonly body?: { readonly contentType: string; readonly text: string }
  readonly retry: RetryPolicy
  /** The business key and lookup to reconcile an unknown outcome with; every error of the call carries it. */
  readonly reconciliation?: Reconciliation | undefined
  /** Set by the transport on the request a handler sees once an earlier attempt may have acted. */
  readonly earlierAttemptMayHaveActed?: boolean | undefined
  /**
   * The idempotency key the request carries (in a header or a body field the service reads), the
   * same on every attempt; it goes on the response info and on every error of the call.
   */
  readonly idempotencyKey?: string | undefined
  /**
   * The headers this request's credentials travel in (the service's own names, from the client's
   * credentials): their values are redacted wherever headers are shown, like `authorization`.
   */
  readonly credentialHeaders?: readonly string[] | undefined
  /** Headers the SDK owns for this operation even when this call does not send them (an idempotency header). */
  readonly managedHeaders?: readonly string[] | undefined
  /**
   * @internal Sends a lookup on a connection of its own, like a money-moving call (see
   * `HttpClient#dispatcher`): set by the engine on the lookups reconciliation decides on, so no
   * stale answer left on a kept-alive connection is read as theirs. Not a merchant option.
   */
  readonly ownConnection?: boolean | undefined
  /**
   * @internal A money-moving call whose row binds its answer (`Operation.reusesConnection`): it may go
   * on a kept-alive connection of the client's own, where only an answer `answerCheck` accepts is believed.
   */
  readonly reusesConnection?: true | undefined
  /**
   * @internal Why an answer that came on a connection which carried an earlier answer is not
   * believed as this request's (`undefined`: it is). Set on requests whose row binds its answer; a
   * transport that cannot tell which connection carried an answer treats every one as reused.
   */
  readonly answerCheck?: ((status: number, json: unknown, repeated: boolean) => string | undefined) | undefined
  /**
   * @internal What a bound money-moving request is about, for the answer check: its operation and
   * the values its binding names. `repeated` tells the check an earlier request on the same socket
   * had the same one (a request without one reads as repeated).
   */
  readonly subject?: string | undefined
}

/** An answer as the service package sees it before turning it into a result or an error. */
export interface RawResponse extends ResponseInfo {
  /** The body parsed as JSON, or `undefined` when it is empty or not JSON. */
  readonly json: unknown
}

/** How a service turns answers into results: `decode` for 2xx, `toError` for everything else. */
export interface ResponseHandler<T> {
  /** A promise only where the caller's schema checks asynchronously. */
  decode(response: RawResponse, request: HttpRequest): T | Promise<T>
  toError(response: RawResponse, request: HttpRequest): ApiError
}
