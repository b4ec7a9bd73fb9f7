// Long: the attempt loop and its deadline bookkeeping read best in one place; splitting is issue 41.
/**
 * The attempt loop every operation takes: one call's attempts on the transport, each within the
 * call's limits, retried as its policy allows, observed by hooks, ended by a result or one error.
 */

import { ApiPromise, isThenable, type WithResponse } from '../api-promise.js'
import {
  type CallOptions,
  DEFAULT_MAX_RESPONSE_BYTES,
  DEFAULT_MAX_RETRIES,
  DEFAULT_TIMEOUT,
  DEFAULT_TOTAL_TIMEOUT,
  fetchOption,
  type HttpClientConfig,
  socketCap,
} from '../client-options.js'
import { type Clock, systemClock } from '../clock.js'
import {
  ConnectionError,
  markCallEnded,
  markFirstSent,
  PaywireError,
  RequestValidationError,
  TimeoutError,
  UserAbortError,
  type ValidationIssue,
} from '../errors/errors.js'
import { markAccount } from '../journal/account.js'
import { type AttemptFailure, parseRetryAfter } from '../operations/retry.js'
import { backoffOptions, duration, positive } from '../options.js'
import { runtimeTag } from '../runtime.js'
import { emit, type Hooks, type Logger, resolveEnvLogger } from '../telemetry/hooks.js'
import {
  attemptEnded,
  attemptStarted,
  errorClass,
  type OperationMessage,
  operationMessage,
  retryDecided,
  settleOperation,
  traced,
  tracingIfObserved,
} from '../telemetry/telemetry.js'
import type { AttemptBudget, CallRequest } from './attempt-failure.js'
import { attemptBudget, type Backoff, type CallState, nextRetryDelay, untilCallEnds } from './call-limits.js'
import { callHeaderIssues, callHeaders, headerIssues } from './headers.js'
import type { HttpRequest, RawResponse, ResponseHandler } from './request.js'
import { type CallTransport, chooseTransport } from './transport.js'

export type { CallOptions, ClientOptions, HttpClientConfig } from '../client-options.js'
// The per-origin socket cap's default, where its tests read it.
export { DEFAULT_MAX_SOCKETS } from '../client-options.js'
export type { Clock } from '../clock.js'
export { systemClock } from '../clock.js'
export { WINDOW_MARGIN_MS } from './call-limits.js'

/**
 * Sends requests for one client on its transport (`chooseTransport`: undici's pools or `fetch`),
 * applying the per-attempt and total deadlines and the operation's retry policy.
 */
export class HttpClient {
  #transport: CallTransport
  readonly #timeout: number
  readonly #totalTimeout: number
  readonly #maxRetries: number
  /** Backoff tuning, jitter and the client's clock: what a retry decision reads. */
  readonly #backoff: Backoff
  readonly #clock: Clock
  readonly #hooks: Hooks | undefined
  readonly #logger: Logger | undefined
  readonly #service: string
  readonly #account: string | undefined
  readonly #userAgent: string
  /** What is wrong with the `user-agent` header (the caller's `userAgent` is in it), found once. */
  readonly #userAgentIssues: readonly ValidationIssue[]
  /** Whether anyone listens: without hooks or a logger, no event object is built per request. */
  readonly #observed: boolean

  constructor(config: HttpClientConfig) {
    const o = config.options
    this.#timeout = duration('timeout', o.timeout, DEFAULT_TIMEOUT, undefined, true)
    this.#totalTimeout = duration('totalTimeout', o.totalTimeout, DEFAULT_TOTAL_TIMEOUT, undefined, true)
    this.#maxRetries = Math.floor(positive('maxRetries', o.maxRetries, DEFAULT_MAX_RETRIES))
    const maxResponseBytes = positive('maxResponseBytes', o.maxResponseBytes, DEFAULT_MAX_RESPONSE_BYTES)
    this.#clock = o.clock ?? systemClock
    this.#backoff = { options: backoffOptions(o.backoff), random: o.random ?? Math.random, clock: this.#clock }
    this.#hooks = o.hooks
    // Without a logger option, PAYWIRE_LOG may name a console level.
    this.#logger = o.logger ?? resolveEnvLogger()
    this.#observed = o.hooks !== undefined || this.#logger !== undefined
    this.#service = config.packageName
    this.#account = config.account
    const suffix = o.userAgent ? ` ${o.userAgent}` : ''
    this.#userAgent = `paywire-${config.packageName}/${config.packageVersion} ${runtimeTag()}${suffix}`
    this.#userAgentIssues = headerIssues({ 'user-agent': this.#userAgent })
    this.#transport = chooseTransport({
      dispatcher: o.dispatcher,
      fetch: fetchOption(o.fetch, o.dispatcher !== undefined),
      maxSockets: socketCap(o.maxSockets, o.dispatcher !== undefined, o.fetch !== undefined),
      timeout: this.#timeout,
      maxResponseBytes,
      clock: this.#clock,
    })
  }

  /** The client's time source: reconciliation measures the time since a call on it. */
  get clock(): Clock {
    return this.#backoff.clock
  }

  /** The package this client serves (`card-gateway`), as its User-Agent names it. */
  get service(): string {
    return this.#service
  }

  /** The merchant account this client's calls are made for (a fingerprint of its keys), if known. */
  get account(): string | undefined {
    return this.#account
  }

  /** The User-Agent this client sends. */
  get userAgent(): string {
    return this.#userAgent
  }

  /** The client's per-attempt timeout, in ms (`timeout`). */
  get timeout(): number {
    return this.#timeout
  }

  /** The longest a call may run, in ms, from its start to its end (`totalTimeout`). */
  get totalTimeout(): number {
    return this.#totalTimeout
  }

  /**
   * Sends `req`, retrying as its policy allows; resolves with the decoded result. `beforeFirstByte`,
   * the caller's own step that must finish before anything is sent, runs first, inside the call's
   * deadline and signal: when it does not finish in time the call ends with nothing sent, so a step
   * that stalls cannot hold a call past its `totalTimeout` or its abort.
   */
  send<T>(
    req: HttpRequest,
    handler: ResponseHandler<T>,
    call: CallOptions = {},
    beforeFirstByte?: () => Promise<void>,
  ): ApiPromise<T> {
    // paywire:operation, only when someone subscribes: no message is built otherwise.
    const channel = tracingIfObserved('operation')
    if (channel === undefined) return new ApiPromise(this.#run(req, handler, call, beforeFirstByte, undefined))
    const op = operationMessage(req, this.#service)
    return new ApiPromise(
      traced(channel, op, () => this.#run(req, handler, call, beforeFirstByte, op), settleOperation),
    )
  }

  /**
   * Closes the client's own connection pool (a caller-supplied dispatcher is left open). Calls made
   * afterwards fail with a `ConnectionError` that says nothing was sent. Calling it twice is fine.
   */
  close(): Promise<void> {
    return this.#transport.close()
  }

  async #run<T>(
    req: HttpRequest,
    handler: ResponseHandler<T>,
    call: CallOptions,
    beforeFirstByte: (() => Promise<void>) | undefined,
    op: OperationMessage | undefined,
  ): Promise<WithResponse<T>> {
    const timeout = duration('timeout', call.timeout, this.#timeout, req.operation, true)
    const maxRetries = Math.floor(positive('maxRetries', call.maxRetries, this.#maxRetries, req.operation))
    const callStart = this.#clock.now()
    const unsent = { attempts: 0, requestSent: false, mayHaveActed: false }
    if (beforeFirstByte)
      await this.#untilCallEnds(beforeFirstByte(), req, callStart + this.#totalTimeout, call.signal, unsent)
    // The first request of a client loads undici (see undici.ts), within the call's deadline and signal;
    // where it cannot load, the runtime's fetch takes over (transport.ts).
    const loading = this.#transport.loading()
    if (loading) {
      const instead = await this.#untilCallEnds(loading, req, callStart + this.#totalTimeout, call.signal, unsent)
      if (instead) this.#transport = instead
    }
    const state: CallState = {
      deadline: callStart + this.#totalTimeout,
      timeout,
      maxRetries,
      firstArrival: undefined,
      mayHaveActed: false,
    }
    const headers = callHeaders(this.#userAgent, req, call.headers)
    const issues = callHeaderIssues(this.#userAgentIssues, req, call.headers)
    if (issues.length > 0) throw this.#fail(req, new RequestValidationError(req.operation, issues))

    let lastError: PaywireError | undefined
    for (let attempt = 1; ; attempt++) {
      // A copy only once an earlier attempt may have acted: the first attempt sends `req` as it is.
      const request: CallRequest =
        state.mayHaveActed === (req.earlierAttemptMayHaveActed === true)
          ? req
          : { ...req, earlierAttemptMayHaveActed: state.mayHaveActed }
      this.#refuseUnsendable(request, state, attempt, call.signal)
      if (this.#observed) {
        emit(this.#hooks, this.#logger, 'onRequest', {
          operation: req.operation,
          method: req.method,
          url: req.shownUrl ?? req.url,
          attempt,
          headers,
        })
        // The hook ran in the attempt's time and may have aborted or closed: look again.
        this.#refuseUnsendable(request, state, attempt, call.signal)
      }
      // Measured now, right before dispatch: a late backoff timer or a slow hook is charged to the
      // attempt, and an attempt with no time left is never handed to undici (it could still be written).
      const startedAt = this.#clock.now()
      const budget = attemptBudget(req.retry, state, startedAt)
      if (budget.ms <= 0) throw this.#fail(req, lastError ?? this.#expiredError(request, state, attempt, budget), state)
      const tracedAttempt = attemptStarted(op, req, this.#service, attempt)
      const outcome = await this.#transport.attempt({
        request,
        headers,
        attempt,
        budget,
        signal: call.signal,
        priorArrival: state.firstArrival !== undefined,
        sinceCallStart: () => this.#clock.now() - callStart,
        totalTimeoutMs: this.#totalTimeout,
      })
      if (tracedAttempt !== undefined) attemptEnded(tracedAttempt, outcome)
      if ((outcome.ok || outcome.mayHaveArrived) && state.firstArrival === undefined) state.firstArrival = startedAt

      if (outcome.ok) {
        const response = outcome.response
        if (this.#observed) {
          emit(this.#hooks, this.#logger, 'onResponse', {
            operation: req.operation,
            method: req.method,
            url: req.shownUrl ?? req.url,
            attempt,
            status: response.status,
            requestId: response.requestId,
            headers: response.headers,
          })
        }
        // Success is 2xx only: a 1xx leftover, a 3xx (never followed) or a 304 is no answer to act on.
        if (response.status >= 200 && response.status < 300) {
          const data = this.#decode(handler, response, request, state)
          if (!isThenable(data)) return { data, response }
          // The service answered 2xx: an abort or time-out while the schema checks says it may have acted.
          const answered = { attempts: attempt, requestSent: true, mayHaveActed: true }
          const checked = this.#untilCallEnds(data, request, state.deadline, call.signal, answered, state)
          return { data: await checked, response }
        }
        const error = handler.toError(response, request)
        state.mayHaveActed ||= error.outcomeUnknown
        const retryAfter = response.headers['retry-after']
        const retryAfterMs = retryAfter === undefined ? undefined : parseRetryAfter(retryAfter, this.#wallClock())
        const failure: AttemptFailure = { kind: 'status', status: response.status, retryAfterMs }
        const delay = nextRetryDelay(req.retry, failure, attempt, state, this.#backoff)
        if (delay === undefined) throw this.#fail(req, error, state)
        lastError = error
        this.#retrying(req, attempt, delay, `HTTP ${response.status}`, op)
        await this.#sleep(delay, req, state, call.signal)
        continue
      }

      state.mayHaveActed ||= outcome.error.outcomeUnknown
      const delay = outcome.failure && nextRetryDelay(req.retry, outcome.failure, attempt, state, this.#backoff)
      if (delay === undefined) throw this.#fail(req, outcome.error, state)
      lastError = outcome.error
      this.#retrying(req, attempt, delay, outcome.error.message, op, errorClass(outcome.error))
      await this.#sleep(delay, req, state, call.signal)
    }
  }

  /** Throws when the next attempt must not be sent: the caller aborted, or the client is closed. */
  #refuseUnsendable(request: CallRequest, state: CallState, attempt: number, signal: AbortSignal | undefined): void {
    const requestSent = state.firstArrival !== undefined
    if (signal?.aborted) {
      throw this.#fail(
        request,
        new UserAbortError({ ...request, requestSent, mayHaveActed: false, cause: signal.reason }),
      )
    }
    if (this.#transport.shut) throw this.#fail(request, this.#closedError(request, attempt, requestSent))
  }

  /** No time was left for the first attempt (a hook outlasted the total deadline): nothing is sent. */
  #expiredError(request: CallRequest, state: CallState, attempt: number, budget: AttemptBudget): TimeoutError {
    return new TimeoutError({
      ...request,
      attempts: attempt - 1,
      phase: budget.phase ?? 'total',
      timeoutMs: budget.phase === 'window' ? 0 : this.#totalTimeout,
      elapsedMs: this.#clock.now() - (state.deadline - this.#totalTimeout),
      attempt,
      requestSent: state.firstArrival !== undefined,
      mayHaveActed: false,
    })
  }

  #wallClock(): number {
    return this.#clock.date?.() ?? Date.now()
  }

  #closedError(req: CallRequest, attempt: number, priorArrival: boolean): ConnectionError {
    return new ConnectionError({
      ...req,
      attempts: attempt - 1,
      requestSent: priorArrival,
      mayHaveActed: false,
      message: `${req.operation}: the client is closed (close() was called, or its dispatcher was closed or destroyed); attempt ${attempt} was not sent.`,
    })
  }

  /**
   * `work` done outside any attempt, bounded by the call (`untilCallEnds`): past its deadline or on
   * its abort the call ends with that error, saying what had been sent.
   */
  #untilCallEnds<T>(
    work: PromiseLike<T>,
    req: HttpRequest,
    deadline: number,
    signal: AbortSignal | undefined,
    sent: { readonly attempts: number; readonly requestSent: boolean; readonly mayHaveActed: boolean },
    state?: CallState,
  ): Promise<T> {
    return untilCallEnds(work, deadline, this.#clock, signal, (why) => {
      const ended = { ...req, ...sent }
      const error =
        why === 'total'
          ? new TimeoutError({
              ...ended,
              phase: 'total',
              timeoutMs: this.#totalTimeout,
              // The deadline is the call's start plus the total budget.
              elapsedMs: this.#clock.now() - (deadline - this.#totalTimeout),
            })
          : new UserAbortError({ ...ended, cause: signal?.reason })
      return this.#fail(req, error, state)
    })
  }

  /** A 2xx the service package cannot read is an error like any other: observers hear of it. */
  #decode<T>(handler: ResponseHandler<T>, response: RawResponse, req: HttpRequest, state: CallState): T | Promise<T> {
    const fail = (error: unknown): never => {
      throw error instanceof PaywireError ? this.#fail(req, error, state) : error
    }
    try {
      const data = handler.decode(response, req)
      return isThenable(data) ? Promise.resolve(data).catch(fail) : data
    } catch (error) {
      return fail(error)
    }
  }

  /** `reason` is for hooks and logs; `safeReason` (no message text) for diagnostics_channel. */
  #retrying(
    req: HttpRequest,
    attempt: number,
    delayMs: number,
    reason: string,
    op: OperationMessage | undefined,
    safeReason = reason,
  ): void {
    retryDecided(op, req, this.#service, attempt, delayMs, safeReason)
    emit(this.#hooks, this.#logger, 'onRetry', {
      operation: req.operation,
      method: req.method,
      url: req.shownUrl ?? req.url,
      attempt,
      delayMs,
      reason,
    })
  }

  #fail(req: HttpRequest, error: PaywireError, state?: CallState): PaywireError {
    // Reconciliation counts the settle delay from here, on this client's monotonic clock, and
    // settles the error only with a client of the same account.
    if (error.outcomeUnknown) markCallEnded(error, this.#clock)
    // A resend inside a dedup window must arrive within the window from the first attempt that
    // could have reached the service, not from this error.
    if (state?.firstArrival !== undefined) markFirstSent(error, { clock: this.#clock, at: state.firstArrival })
    if (this.#account !== undefined) markAccount(error, this.#account)
    emit(this.#hooks, this.#logger, 'onError', {
      operation: req.operation,
      method: req.method,
      url: req.shownUrl ?? req.url,
      error,
    })
    return error
  }

  /** Backoff; an abort during it sends nothing, so only earlier attempts decide what the error says. */
  async #sleep(ms: number, req: HttpRequest, state: CallState, signal: AbortSignal | undefined): Promise<void> {
    try {
      await this.#clock.sleep(ms, signal)
    } catch (cause) {
      const abort = new UserAbortError({
        ...req,
        earlierAttemptMayHaveActed: state.mayHaveActed,
        requestSent: state.firstArrival !== undefined,
        mayHaveActed: false,
        cause,
      })
      throw this.#fail(req, abort)
    }
  }
}
