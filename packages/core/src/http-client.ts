/** The one request path every operation takes: send on undici, time out, retry per policy, classify. */

import type { Dispatcher } from 'undici'
import { ApiPromise, isThenable, type WithResponse } from './api-promise.js'
import {
  type AttemptBudget,
  type AttemptOutcome,
  type AttemptPlan,
  type CallRequest,
  classifyFailure,
  interimStatusOf,
} from './attempt-failure.js'
import { type Clock, systemClock } from './clock.js'
import { DeadlineList } from './deadlines.js'
import {
  ConnectionError,
  markCallEnded,
  PaywireError,
  RequestValidationError,
  ResponseTooLargeError,
  TimeoutError,
  type TimeoutPhase,
  UserAbortError,
  type ValidationIssue,
} from './errors.js'
import { flattenHeaders, headerIssues, managedHeaderIssues, requestIdOf } from './headers.js'
import { emit, type Hooks, type Logger } from './hooks.js'
import { backoffOptions, duration, positive } from './options.js'
import type { HttpRequest, RawResponse, ResponseHandler } from './request.js'
import {
  type AttemptFailure,
  type BackoffOptions,
  parseRetryAfter,
  policyAllowsRetry,
  type RetryPolicy,
  retryDelay,
} from './retry.js'
import type { IntentStore } from './stores.js'
import { type AttemptHandler, loadTransport, splitUrl, type Transport } from './undici.js'

export type { Clock } from './clock.js'
export { systemClock } from './clock.js'

/** Options every paywire client accepts. */
export interface ClientOptions {
  /** Time limit of one attempt in ms, at most 2 147 483 647 (Node's timer limit). Default 30 000. */
  timeout?: number
  /** Time limit of the whole call, retries and backoff included, in ms (same limit). Default 120 000. */
  totalTimeout?: number
  /** Retries after the first attempt, where the operation's policy allows them. Default 2. */
  maxRetries?: number
  /** Largest response body read, in bytes. Default 10 MiB. */
  maxResponseBytes?: number
  /**
   * An undici Dispatcher (proxy agent, custom pool, MockAgent). Default: the client's own two pools,
   * keep-alive for calls that are safe to repeat, one connection per call for money-moving calls and
   * the lookups `reconcile` decides on. With your own dispatcher, those ask for their connection to
   * be closed after them (`reset`), but whether they get a fresh one is up to that dispatcher.
   */
  dispatcher?: Dispatcher
  /**
   * Most sockets the client's own pools open to one origin, for lookups and, separately, for
   * money-moving calls (each on a connection of its own, closed after its answer); a call beyond
   * them waits for a free one within its deadline (unsent if the deadline fires first). Default 16.
   * undici keeps a socket one event-loop turn after its answer (in
   * case the server closes it anyway), so a call sent at once opens another: without a cap, up to
   * twice the calls in flight (measured: 32 for 16, 462 for 256). 16 sockets carry about 50 calls/s
   * to a service answering in 300 ms: raise it for more. Not taken with `dispatcher`: set your
   * dispatcher's own `connections`.
   */
  maxSockets?: number
  /** Observers of each request, response, retry and error; every header value they see is redacted. */
  hooks?: Hooks
  /** Receives one line per event (debug) and per retry or error (warn), redacted. Silent by default. */
  logger?: Logger
  /** Appended to the `User-Agent` header, e.g. `my-shop/1.4`. */
  userAgent?: string
  /** Backoff tuning: `baseDelayMs` 250, `maxDelayMs` 5 000, `maxRetryAfterMs` 60 000. */
  backoff?: Partial<BackoffOptions>
  /** Injectable time source (tests); its `now()` must be monotonic. */
  clock?: Clock
  /** Injectable randomness in [0, 1) for backoff jitter (tests). */
  random?: () => number
  /**
   * The intent journal: every money-moving call is written here before it is sent and closed once
   * its outcome is definite, so `reconcileAll()` can settle what a crash or a lost answer left open.
   * Off by default; `MemoryIntentStore` for one process, `@paywire/redis` across restarts.
   */
  journal?: IntentStore
}

/** Options of a single call. */
export interface CallOptions {
  /** Aborts the call; it then rejects with `UserAbortError`. */
  signal?: AbortSignal
  /** Overrides the client's per-attempt timeout for this call. */
  timeout?: number
  /** Overrides the client's `maxRetries` for this call. */
  maxRetries?: number
  /** Extra headers for this call; the ones the SDK sets (credentials, idempotency key) cannot be overridden. */
  headers?: Record<string, string>
}

export interface HttpClientConfig {
  /** Package name without scope, for the User-Agent (`card-gateway`). */
  readonly packageName: string
  readonly packageVersion: string
  readonly options: ClientOptions
}

const DEFAULT_TIMEOUT = 30_000
const DEFAULT_TOTAL_TIMEOUT = 120_000
const DEFAULT_MAX_RETRIES = 2
const DEFAULT_MAX_RESPONSE_BYTES = 10 * 1024 * 1024

/**
 * How much earlier than the service we close a dedup window. Our window starts when the first
 * attempt that may have arrived left this machine, which is already earlier than the service's
 * (it starts on receipt); the margin covers the difference in network latency between that
 * attempt and the retry, and clock-rate drift, with room to spare on any path where 15 s matters.
 */
export const WINDOW_MARGIN_MS = 1_000

/** Where one call stands across its attempts: what the retry decision and the next attempt need. */
interface CallState {
  /** Monotonic time the total deadline ends. */
  readonly deadline: number
  readonly timeout: number
  readonly maxRetries: number
  /** Monotonic start of the first attempt that may have reached the service; a dedup window runs from it. */
  firstArrival: number | undefined
  /** Whether an attempt so far may have acted (arrived and got no answer saying it did not). */
  mayHaveActed: boolean
}

/**
 * Sends requests for one client. Owns its two pools (unless the caller supplied a dispatcher),
 * applies the per-attempt and total deadlines and the operation's retry policy.
 */
export class HttpClient {
  /** The caller's dispatcher, if one was given. */
  readonly #givenDispatcher: Dispatcher | undefined
  /** The client's own keep-alive Agent for calls safe to repeat, made on first use (undici loads then, undici.ts). */
  #ownAgent: Dispatcher | undefined
  /** The client's own Agent for money-moving calls: one request per connection (see `#dispatcher`). */
  #singleUseAgent: Dispatcher | undefined
  readonly #maxSockets: number
  /** undici's Agent and request, once the first request has loaded them. */
  #transport: Transport | undefined
  readonly #timeout: number
  readonly #totalTimeout: number
  readonly #maxRetries: number
  readonly #maxResponseBytes: number
  /** Per-attempt deadlines, one timer for all of them (deadlines.ts); real monotonic time, like the timers they replace. */
  readonly #deadlines = new DeadlineList()
  readonly #backoff: BackoffOptions
  readonly #clock: Clock
  readonly #random: () => number
  readonly #hooks: Hooks | undefined
  readonly #logger: Logger | undefined
  readonly #journal: IntentStore | undefined
  readonly #service: string
  readonly #userAgent: string
  /** What is wrong with the `user-agent` header (the caller's `userAgent` is in it), found once. */
  readonly #userAgentIssues: readonly ValidationIssue[]
  /** Whether anyone listens: without hooks or a logger, no event object is built per request. */
  readonly #observed: boolean
  #closed = false
  /** The one closing of the pool: a second `close()` waits for the same one. */
  #closing: Promise<void> | undefined

  constructor(config: HttpClientConfig) {
    const o = config.options
    this.#timeout = duration('timeout', o.timeout, DEFAULT_TIMEOUT, undefined, true)
    this.#totalTimeout = duration('totalTimeout', o.totalTimeout, DEFAULT_TOTAL_TIMEOUT, undefined, true)
    this.#maxRetries = Math.floor(positive('maxRetries', o.maxRetries, DEFAULT_MAX_RETRIES))
    this.#maxResponseBytes = positive('maxResponseBytes', o.maxResponseBytes, DEFAULT_MAX_RESPONSE_BYTES)
    this.#backoff = backoffOptions(o.backoff)
    this.#clock = o.clock ?? systemClock
    this.#random = o.random ?? Math.random
    this.#hooks = o.hooks
    this.#logger = o.logger
    this.#observed = o.hooks !== undefined || o.logger !== undefined
    this.#journal = checkJournal(o.journal)
    this.#service = config.packageName
    const suffix = o.userAgent ? ` ${o.userAgent}` : ''
    this.#userAgent = `paywire-${config.packageName}/${config.packageVersion} node/${process.versions.node}${suffix}`
    this.#userAgentIssues = headerIssues({ 'user-agent': this.#userAgent })
    this.#givenDispatcher = o.dispatcher
    this.#maxSockets = socketCap(o.maxSockets, o.dispatcher !== undefined)
  }

  /**
   * The dispatcher a call goes through: the caller's, or one of the client's own Agents, made on
   * first use. A money-moving call gets a connection that carried nothing before it and is closed
   * after its answer (`pipelining: 0`, `connection: close`). HTTP/1.1 answers carry nothing that
   * names their request: a server or proxy that answers one request twice leaves a stale answer on a
   * kept-alive connection, and if it arrives after the next request was written there (undici drops
   * a connection that receives bytes while idle, but only before it writes), it reads as that
   * request's answer. A fresh connection has no earlier answer to misread, and a closed one hands
   * its leftovers to nobody. Lookups keep the keep-alive pool, except those reconciliation decides
   * on (`ownConnection`): a stale answer there would settle an unknown outcome wrongly.
   */
  #dispatcher(transport: Transport, ownConnection: boolean): Dispatcher {
    if (this.#givenDispatcher) return this.#givenDispatcher
    if (ownConnection) {
      this.#singleUseAgent ??= this.#newAgent(transport, 0)
      return this.#singleUseAgent
    }
    this.#ownAgent ??= this.#newAgent(transport, 1)
    return this.#ownAgent
  }

  /** One of the client's own Agents: `pipelining` 1 keeps connections alive, 0 uses each for one request. */
  #newAgent(transport: Transport, pipelining: 0 | 1): Dispatcher {
    return new transport.Agent({
      pipelining,
      keepAliveTimeout: 4_000,
      connections: this.#maxSockets,
      // Our own per-attempt deadline is the only one: undici's timers are off.
      headersTimeout: 0,
      bodyTimeout: 0,
      connect: { timeout: Math.min(10_000, Math.max(1, this.#timeout)) },
    })
  }

  /** The client's time source: reconciliation measures the time since a call on it. */
  get clock(): Clock {
    return this.#clock
  }

  /** The intent journal of this client, when one was given. */
  get journal(): IntentStore | undefined {
    return this.#journal
  }

  /** The service this client talks to (`card-gateway`): the journal's namespace. */
  get service(): string {
    return this.#service
  }

  /** The User-Agent this client sends. */
  get userAgent(): string {
    return this.#userAgent
  }

  /** The longest a call may run, in ms, from its start to its end (`totalTimeout`). */
  get totalTimeout(): number {
    return this.#totalTimeout
  }

  /**
   * Sends `req`, retrying as its policy allows; resolves with the decoded result. `beforeSend` (the
   * intent journal's write) runs first, inside the call's deadline and signal: a step that does not
   * finish in time ends the call with nothing sent, so a stalled store cannot hold a call past its
   * `totalTimeout` or its abort.
   */
  send<T>(
    req: HttpRequest,
    handler: ResponseHandler<T>,
    call: CallOptions = {},
    beforeSend?: () => Promise<void>,
  ): ApiPromise<T> {
    return new ApiPromise(this.#run(req, handler, call, beforeSend))
  }

  /**
   * Closes the client's own connection pool (a caller-supplied dispatcher is left open). Calls made
   * afterwards fail with a `ConnectionError` that says nothing was sent. Calling it twice is fine.
   */
  close(): Promise<void> {
    this.#closed = true
    this.#closing ??= Promise.all([this.#ownAgent?.close(), this.#singleUseAgent?.close()]).then(() => undefined)
    return this.#closing
  }

  /** Whether a request handed to the dispatcher now would be refused before anything is written. */
  #dispatcherShut(): boolean {
    const d = (this.#givenDispatcher ?? this.#ownAgent) as { closed?: unknown; destroyed?: unknown } | undefined
    return this.#closed || d?.closed === true || d?.destroyed === true
  }

  async #run<T>(
    req: HttpRequest,
    handler: ResponseHandler<T>,
    call: CallOptions,
    beforeSend: (() => Promise<void>) | undefined,
  ): Promise<WithResponse<T>> {
    const timeout = duration('timeout', call.timeout, this.#timeout, req.operation, true)
    const maxRetries = Math.floor(positive('maxRetries', call.maxRetries, this.#maxRetries, req.operation))
    const callStart = this.#clock.now()
    const unsent = { attempts: 0, requestSent: false, mayHaveActed: false }
    if (beforeSend) await this.#untilCallEnds(beforeSend(), req, callStart + this.#totalTimeout, call.signal, unsent)
    // The first request of a client loads undici (see undici.ts), within the call's deadline and signal.
    if (this.#transport === undefined) {
      const loading = loadTransport()
      this.#transport = isThenable(loading)
        ? await this.#untilCallEnds(loading, req, callStart + this.#totalTimeout, call.signal, unsent)
        : loading
    }
    const state: CallState = {
      deadline: callStart + this.#totalTimeout,
      timeout,
      maxRetries,
      firstArrival: undefined,
      mayHaveActed: false,
    }
    // Copied, not spread (see rawResponse); the request's own headers come last and win.
    const headers: Record<string, string> = { 'user-agent': this.#userAgent, accept: 'application/json' }
    if (call.headers) copyHeaders(headers, call.headers)
    if (req.headers) copyHeaders(headers, req.headers)
    if (req.body) headers['content-type'] = req.body.contentType
    const issues = this.#headerIssues(req, call.headers)
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
          url: req.url,
          attempt,
          headers,
        })
        // The hook ran in the attempt's time and may have aborted or closed: look again.
        this.#refuseUnsendable(request, state, attempt, call.signal)
      }
      // Measured now, right before dispatch: a late backoff timer or a slow hook is charged to the
      // attempt, and an attempt with no time left is never handed to undici (it could still be written).
      const startedAt = this.#clock.now()
      const budget = this.#attemptBudget(req, state, startedAt)
      if (budget.ms <= 0) throw this.#fail(req, lastError ?? this.#expiredError(request, state, attempt, budget))
      const outcome = await this.#attempt({
        request,
        headers,
        attempt,
        budget,
        signal: call.signal,
        priorArrival: state.firstArrival !== undefined,
      })
      if ((outcome.ok || outcome.mayHaveArrived) && state.firstArrival === undefined) state.firstArrival = startedAt

      if (outcome.ok) {
        const response = outcome.response
        if (this.#observed) {
          emit(this.#hooks, this.#logger, 'onResponse', {
            operation: req.operation,
            method: req.method,
            url: req.url,
            attempt,
            status: response.status,
            requestId: response.requestId,
            headers: response.headers,
          })
        }
        // Success is 2xx only: a 1xx leftover, a 3xx (never followed) or a 304 is no answer to act on.
        if (response.status >= 200 && response.status < 300) {
          const data = this.#decode(handler, response, request)
          if (!isThenable(data)) return { data, response }
          // The service answered 2xx: an abort or time-out while the schema checks says it may have acted.
          const answered = { attempts: attempt, requestSent: true, mayHaveActed: true }
          return { data: await this.#untilCallEnds(data, request, state.deadline, call.signal, answered), response }
        }
        const error = handler.toError(response, request)
        state.mayHaveActed ||= error.outcomeUnknown
        const retryAfter = response.headers['retry-after']
        const retryAfterMs = retryAfter === undefined ? undefined : parseRetryAfter(retryAfter, this.#wallClock())
        const failure: AttemptFailure = { kind: 'status', status: response.status, retryAfterMs }
        const delay = this.#retryDelay(req, failure, attempt, state)
        if (delay === undefined) throw this.#fail(req, error)
        lastError = error
        this.#retrying(req, attempt, delay, `HTTP ${response.status}`)
        await this.#sleep(delay, req, state, call.signal)
        continue
      }

      state.mayHaveActed ||= outcome.error.outcomeUnknown
      const delay = outcome.failure && this.#retryDelay(req, outcome.failure, attempt, state)
      if (delay === undefined) throw this.#fail(req, outcome.error)
      lastError = outcome.error
      this.#retrying(req, attempt, delay, outcome.error.message)
      await this.#sleep(delay, req, state, call.signal)
    }
  }

  /**
   * The header rules on what can break them: the request's own headers (credentials, a raw
   * request's headers, the idempotency key) and the caller's per-call headers, which may not
   * replace one the SDK sets. The client's fixed `accept` and the body's content type are ours; the
   * `user-agent` (which carries the caller's `userAgent`) was checked once, at construction.
   */
  #headerIssues(req: HttpRequest, callHeaders: Readonly<Record<string, string>> | undefined): ValidationIssue[] {
    const issues = [...this.#userAgentIssues, ...(req.headers ? headerIssues(req.headers) : [])]
    if (callHeaders === undefined) return issues
    const sdkHeaders: Record<string, string> = { ...req.headers }
    for (const name of req.managedHeaders ?? []) sdkHeaders[name] ??= ''
    if (req.body) sdkHeaders['content-type'] = req.body.contentType
    return [...managedHeaderIssues(sdkHeaders, callHeaders), ...issues, ...headerIssues(callHeaders)]
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
    if (this.#dispatcherShut()) throw this.#fail(request, this.#closedError(request, attempt, requestSent))
  }

  /** No time was left for the first attempt (a hook outlasted the total deadline): nothing is sent. */
  #expiredError(request: CallRequest, state: CallState, attempt: number, budget: AttemptBudget): TimeoutError {
    return new TimeoutError({
      ...request,
      attempts: attempt - 1,
      phase: budget.phase ?? 'total',
      timeoutMs: budget.phase === 'window' ? 0 : this.#totalTimeout,
      requestSent: state.firstArrival !== undefined,
      mayHaveActed: false,
    })
  }

  #wallClock(): number {
    return this.#clock.date?.() ?? Date.now()
  }

  /**
   * The next attempt's time limit: the per-attempt timeout, cut by the total deadline and, for a
   * window operation once an earlier attempt may have arrived, by the window's close, so the retry
   * either arrives inside the window or is abandoned before it could arrive outside it.
   */
  #attemptBudget(req: HttpRequest, state: CallState, now: number): AttemptBudget {
    let budget: AttemptBudget = { ms: state.timeout, phase: undefined }
    const remaining = state.deadline - now
    if (remaining < budget.ms) budget = { ms: remaining, phase: 'total' }
    const windowLeft = windowClose(req.retry, state) - now
    if (windowLeft < budget.ms) budget = { ms: windowLeft, phase: 'window' }
    return budget
  }

  /** Early returns, one rule each: the budget of retries, the policy, the backoff, the deadline, the window. */
  #retryDelay(req: HttpRequest, failure: AttemptFailure, attempt: number, state: CallState): number | undefined {
    if (attempt > state.maxRetries) return undefined
    if (!policyAllowsRetry(req.retry, failure)) return undefined
    const delay = retryDelay(attempt, failure, this.#backoff, this.#random)
    if (delay === undefined) return undefined
    const resumeAt = this.#clock.now() + delay
    if (resumeAt >= state.deadline) return undefined
    // Once any attempt may have arrived, a repeat outside the dedup window is a new payment, not a
    // replay (card rule, Limits 1), whatever the latest failure was: the retry must arrive inside.
    if (resumeAt >= windowClose(req.retry, state)) return undefined
    return delay
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
   * `work` done outside any attempt (the first load of undici; a schema checking the answer
   * asynchronously), still bounded by the call: if its total deadline passes or its signal aborts
   * first, the call ends with that error, saying what had been sent.
   */
  async #untilCallEnds<T>(
    work: PromiseLike<T>,
    req: HttpRequest,
    deadline: number,
    signal: AbortSignal | undefined,
    sent: { readonly attempts: number; readonly requestSent: boolean; readonly mayHaveActed: boolean },
  ): Promise<T> {
    const ended = { ...req, ...sent }
    let timer: NodeJS.Timeout | undefined
    let onAbort: (() => void) | undefined
    // A real timer, like the attempts' deadline list: an injected test clock's sleep returns at once.
    const stopped = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(
        () => reject(this.#fail(req, new TimeoutError({ ...ended, phase: 'total', timeoutMs: this.#totalTimeout }))),
        Math.max(0, deadline - this.#clock.now()),
      )
      timer.unref()
      onAbort = () => reject(this.#fail(req, new UserAbortError({ ...ended, cause: signal?.reason })))
      if (signal?.aborted) onAbort()
      else signal?.addEventListener('abort', onAbort, { once: true })
    })
    try {
      return await Promise.race([work, stopped])
    } finally {
      clearTimeout(timer)
      if (onAbort) signal?.removeEventListener('abort', onAbort)
    }
  }

  /** A 2xx the service package cannot read is an error like any other: observers hear of it. */
  #decode<T>(handler: ResponseHandler<T>, response: RawResponse, req: HttpRequest): T | Promise<T> {
    const fail = (error: unknown): never => {
      throw error instanceof PaywireError ? this.#fail(req, error) : error
    }
    try {
      const data = handler.decode(response, req)
      return isThenable(data) ? Promise.resolve(data).catch(fail) : data
    } catch (error) {
      return fail(error)
    }
  }

  #retrying(req: HttpRequest, attempt: number, delayMs: number, reason: string): void {
    emit(this.#hooks, this.#logger, 'onRetry', {
      operation: req.operation,
      method: req.method,
      url: req.url,
      attempt,
      delayMs,
      reason,
    })
  }

  #fail(req: HttpRequest, error: PaywireError): PaywireError {
    // Reconciliation counts the settle delay from here, on this client's monotonic clock.
    if (error.outcomeUnknown) markCallEnded(error, this.#clock)
    emit(this.#hooks, this.#logger, 'onError', { operation: req.operation, method: req.method, url: req.url, error })
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

  async #attempt(plan: AttemptPlan): Promise<AttemptOutcome> {
    const { request: req, headers, attempt, budget, signal: userSignal } = plan
    // One entry in the client's deadline list is both the attempt's time limit and the signal
    // undici listens to: no timer and no EventEmitter per attempt (see deadlines.ts).
    const timeoutMs = budget.ms
    const deadline = this.#deadlines.start(timeoutMs)
    let phase: TimeoutPhase = 'headers'
    let interimStatus: number | undefined
    // The caller's signal is listened to only when there is one: no closure otherwise.
    const onUserAbort = userSignal && (() => deadline.abort('user'))
    if (onUserAbort) userSignal.addEventListener('abort', onUserAbort, { once: true })
    // The answer's status and headers, once they came: a non-2xx status stands even if its body fails.
    let status: number | undefined
    let responseHeaders: Record<string, string> | undefined
    // Knows whether undici began writing the request (undici.ts).
    let handler: AttemptHandler | undefined

    try {
      const transport = this.#transport as Transport
      const { origin, path } = splitUrl(req.url)
      // Every policy but `safe` is for a call whose repeat could act twice: it moves money. It, and a
      // lookup reconciliation decides on, never share a connection with another call (see #dispatcher).
      const ownConnection = req.retry.kind !== 'safe' || req.ownConnection === true
      // A caller's dispatcher may have shorter undici timeouts of its own: they must not fire before
      // ours. The client's own Agent has them off, so it is spared undici's per-request timers.
      const undiciTimeout = this.#givenDispatcher ? timeoutMs + 1_000 : undefined
      // One object literal of one shape every call: undici reads its many options from it, and the
      // same options made by spreading were measured at 6-9 µs more per call (bench stub, this VM).
      const options: Dispatcher.RequestOptions = {
        origin,
        path,
        method: req.method,
        headers,
        body: req.body?.text,
        headersTimeout: undiciTimeout,
        bodyTimeout: undiciTimeout,
        // Never reuse the connection after a money-moving call or a reconciliation lookup (see
        // #dispatcher); a no-op on our own single-use pool.
        reset: ownConnection || undefined,
        onInfo: ({ statusCode }) => {
          interimStatus = statusCode
        },
      }
      const dispatcher = this.#dispatcher(transport, ownConnection)
      const res = await new Promise<Dispatcher.ResponseData>((resolve, reject) => {
        handler = new transport.AttemptHandler(options, deadline, (error, data) =>
          error ? reject(error) : resolve(data),
        )
        if (!deadline.aborted) dispatcher.dispatch(options, handler)
      })
      phase = 'body'
      status = res.statusCode
      responseHeaders = flattenHeaders(res.headers)
      const rawBody = await this.#readBody(res.body, responseHeaders, status, req, attempt)
      return { ok: true, response: rawResponse(status, responseHeaders, rawBody, parseJson(rawBody), attempt, req) }
    } catch (error) {
      if (error instanceof PaywireError) return { ok: false, error, failure: undefined, mayHaveArrived: true }
      // A final status that is not 2xx is the service's answer even when its body never came whole
      // (a 304 declaring a length, a 302 cut mid-body): the status decides, the body is left empty.
      if (status !== undefined && responseHeaders && deadline.abortedBy !== 'user' && (status < 200 || status >= 300)) {
        return { ok: true, response: rawResponse(status, responseHeaders, '', undefined, attempt, req) }
      }
      interimStatus ??= interimStatusOf(error)
      // Only the client's own Agent is known to tell the handler before it writes (undici's contract,
      // which a caller's dispatcher may not keep): with another, an unwritten request is not assumed.
      const written = this.#givenDispatcher || handler === undefined ? undefined : handler.written
      return classifyFailure(error, plan, { abortedBy: deadline.abortedBy, phase, interimStatus, written })
    } finally {
      this.#deadlines.finish(deadline)
      if (onUserAbort) userSignal?.removeEventListener('abort', onUserAbort)
    }
  }

  /**
   * The body as text, within `maxResponseBytes`. Not an async function: a body of declared length
   * (the usual case) is undici's own `text()` promise, with no extra step for the caller to await.
   */
  #readBody(
    body: Dispatcher.ResponseData['body'],
    headers: Record<string, string>,
    status: number,
    req: HttpRequest,
    attempts: number,
  ): Promise<string> {
    const limit = this.#maxResponseBytes
    const declared = Number(headers['content-length'])
    const tooLarge = () => {
      body.destroy()
      return new ResponseTooLargeError({ ...req, attempts, limitBytes: limit, status })
    }
    if (Number.isFinite(declared) && declared > limit) throw tooLarge()
    // undici holds the body to its declared length, so a declared size within the limit is safe to read whole.
    if (Number.isFinite(declared)) return body.text()
    return readWithin(body, limit, tooLarge)
  }
}

/** A body of undeclared length, read chunk by chunk and refused as soon as it passes `limit`. */
async function readWithin(
  body: Dispatcher.ResponseData['body'],
  limit: number,
  tooLarge: () => ResponseTooLargeError,
): Promise<string> {
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of body) {
    size += (chunk as Buffer).length
    if (size > limit) throw tooLarge()
    chunks.push(chunk as Buffer)
  }
  return chunks.length === 1 ? (chunks[0] as Buffer).toString('utf8') : Buffer.concat(chunks).toString('utf8')
}

/**
 * Copies each header of `from` into `to` as an own property, as a spread would: a header named
 * `__proto__` (valid, if odd) is defined, where plain assignment would set the prototype instead.
 */
function copyHeaders(to: Record<string, string>, from: Readonly<Record<string, string>>): void {
  for (const name of Object.keys(from)) {
    const value = from[name] as string
    if (name === '__proto__')
      Object.defineProperty(to, name, { value, enumerable: true, writable: true, configurable: true })
    else to[name] = value
  }
}

/**
 * Every answer in one shape, built as a literal: objects made by spreading were measured to be
 * several times slower for everything that reads them afterwards.
 */
function rawResponse(
  status: number,
  headers: Record<string, string>,
  rawBody: string,
  json: unknown,
  attempts: number,
  req: HttpRequest,
): RawResponse {
  return {
    status,
    headers,
    requestId: requestIdOf(headers),
    attempts,
    idempotencyKey: req.idempotencyKey,
    rawBody,
    json,
  }
}

/** Monotonic time a dedup window closes for the call, with our margin; never for other policies. */
function windowClose(policy: RetryPolicy, state: CallState): number {
  if (policy.kind !== 'window' || state.firstArrival === undefined) return Number.POSITIVE_INFINITY
  return state.firstArrival + policy.windowMs - WINDOW_MARGIN_MS
}

/** JSON whitespace: space, tab, line feed, carriage return. */
const JSON_SPACE = new Set([0x20, 0x09, 0x0a, 0x0d])
const OPEN_BRACE = 0x7b
const OPEN_BRACKET = 0x5b
const QUOTE = 0x22

/** Only an object, array or string is read as JSON (a bare number or word is text); no copy to find out. */
function parseJson(text: string): unknown {
  let i = 0
  while (i < text.length && JSON_SPACE.has(text.charCodeAt(i))) i++
  const first = text.charCodeAt(i)
  if (first !== OPEN_BRACE && first !== OPEN_BRACKET && first !== QUOTE) return undefined
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

/** Default per-origin socket cap of the client's own Agent: sockets stay at or below the calls in flight from 16 up. */
export const DEFAULT_MAX_SOCKETS = 16

/** `maxSockets`: a whole number >= 1, and only for the client's own Agent. */
function socketCap(value: number | undefined, ownDispatcher: boolean): number {
  if (value === undefined) return DEFAULT_MAX_SOCKETS
  const problem =
    !Number.isSafeInteger(value) || value < 1
      ? 'must be a whole number >= 1'
      : ownDispatcher
        ? "applies to the client's own Agent only: with `dispatcher`, set that dispatcher's `connections` instead"
        : undefined
  if (problem === undefined) return value
  throw new RequestValidationError('client', [{ path: 'maxSockets', message: problem }], 'options')
}

/** A journal must be a whole `IntentStore`: a half one would fail only once money is moving. */
function checkJournal(journal: unknown): IntentStore | undefined {
  if (journal === undefined) return undefined
  const store = journal as Partial<Record<keyof IntentStore, unknown>> | null
  if (
    typeof store === 'object' &&
    store !== null &&
    typeof store.open === 'function' &&
    typeof store.close === 'function' &&
    typeof store.openIntents === 'function'
  ) {
    return journal as IntentStore
  }
  throw new RequestValidationError(
    'client',
    [{ path: 'journal', message: 'must be an intent store with open(), close() and openIntents()' }],
    'options',
  )
}
