/** The one request path every operation takes: send on undici, time out, retry per policy, classify. */

import { EventEmitter } from 'node:events'
import { Agent, type Dispatcher, request } from 'undici'
import { ApiPromise, type WithResponse } from './api-promise.js'
import {
  type ApiError,
  ConnectionError,
  PaywireError,
  RequestValidationError,
  type ResponseInfo,
  ResponseTooLargeError,
  TimeoutError,
  type TimeoutPhase,
  UserAbortError,
  type ValidationIssue,
} from './errors.js'
import { emit, type Hooks, type Logger } from './hooks.js'
import {
  type AttemptFailure,
  type BackoffOptions,
  DEFAULT_BACKOFF,
  parseRetryAfter,
  policyAllowsRetry,
  type RetryPolicy,
  retryDelay,
} from './retry.js'

/** Time source and sleeper; tests inject a fake so no test waits on a real backoff. */
export interface Clock {
  now(): number
  sleep(ms: number, signal?: AbortSignal): Promise<void>
}

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise<void>((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason)
      const onAbort = () => {
        clearTimeout(timer)
        reject(signal?.reason)
      }
      const timer = setTimeout(() => {
        signal?.removeEventListener('abort', onAbort)
        resolve()
      }, ms)
      signal?.addEventListener('abort', onAbort, { once: true })
    }),
}

/** Options every paywire client accepts (ARCHITECTURE section 3). */
export interface ClientOptions {
  /** Time limit of one attempt in ms. Default 30 000. */
  timeout?: number
  /** Time limit of the whole call, retries and backoff included, in ms. Default 120 000. */
  totalTimeout?: number
  /** Retries after the first attempt, where the operation's policy allows them. Default 2. */
  maxRetries?: number
  /** Largest response body read, in bytes. Default 10 MiB. */
  maxResponseBytes?: number
  /** An undici Dispatcher (proxy agent, custom pool, MockAgent). Default: one keep-alive Agent per client. */
  dispatcher?: Dispatcher
  /** Observers of each request, response, retry and error; every header value they see is redacted. */
  hooks?: Hooks
  /** Receives one line per event (debug) and per retry or error (warn), redacted. Silent by default. */
  logger?: Logger
  /** Appended to the `User-Agent` header, e.g. `my-shop/1.4`. */
  userAgent?: string
  /** Backoff tuning: `baseDelayMs` 250, `maxDelayMs` 5 000, `maxRetryAfterMs` 60 000. */
  backoff?: Partial<BackoffOptions>
  /** Injectable time source (tests). */
  clock?: Clock
  /** Injectable randomness in [0, 1) for backoff jitter (tests). */
  random?: () => number
}

/** Options of a single call. */
export interface CallOptions {
  /** Aborts the call; it then rejects with `UserAbortError`. */
  signal?: AbortSignal
  /** Overrides the client's per-attempt timeout for this call. */
  timeout?: number
  /** Overrides the client's `maxRetries` for this call. */
  maxRetries?: number
  /** Extra headers for this call. */
  headers?: Record<string, string>
}

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'

/** A request ready for the wire: body already encoded (and, for the card gateway, signed). */
export interface HttpRequest {
  /** Operation name for errors and hooks, e.g. `s2s.capture`. */
  readonly operation: string
  readonly method: HttpMethod
  /** Absolute URL, path variables already encoded. */
  readonly url: string
  readonly headers?: Readonly<Record<string, string>>
  readonly body?: { readonly contentType: string; readonly text: string }
  readonly retry: RetryPolicy
}

/** An answer as the service package sees it before turning it into a result or an error. */
export interface RawResponse extends ResponseInfo {
  /** The body parsed as JSON, or `undefined` when it is empty or not JSON. */
  readonly json: unknown
}

/** How a service turns answers into results: `decode` for 2xx, `toError` for everything else. */
export interface ResponseHandler<T> {
  decode(response: RawResponse, request: HttpRequest): T
  toError(response: RawResponse, request: HttpRequest): ApiError
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
const REQUEST_ID_HEADERS = ['x-request-id', 'request-id', 'x-correlation-id', 'x-amzn-requestid']

/** Error codes raised before a single byte of the request reached the peer. */
const UNSENT_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EAI_NONAME',
  'EAI_FAIL',
  'ENETUNREACH',
  'EHOSTUNREACH',
  'EADDRNOTAVAIL',
  'UND_ERR_CONNECT_TIMEOUT',
  // undici refused the request's own arguments before writing anything.
  'UND_ERR_INVALID_ARG',
])

function errorCode(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined
  const e = error as { code?: unknown; errors?: unknown[]; cause?: unknown }
  if (typeof e.code === 'string') return e.code
  if (Array.isArray(e.errors) && e.errors.length > 0) return errorCode(e.errors[0])
  return e.cause === undefined ? undefined : errorCode(e.cause)
}

function positive(name: string, value: number | undefined, fallback: number, operation = 'client'): number {
  if (value === undefined) return fallback
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
    throw new RequestValidationError(operation, [{ path: name, message: 'must be a finite number >= 0' }])
  }
  return value
}

const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/
// Visible Latin-1 and tabs: what HTTP/1.1 carries as field values without reinterpretation.
const HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/

/**
 * Header problems undici would only report once the request is under way; found here, they are
 * a `RequestValidationError` and nothing is sent. Values are never quoted: some are credentials.
 */
function headerIssues(headers: Readonly<Record<string, string>>): ValidationIssue[] {
  const issues: ValidationIssue[] = []
  for (const [name, value] of Object.entries(headers)) {
    if (!HEADER_NAME.test(name)) issues.push({ path: `headers.${name}`, message: 'is not a valid header name' })
    else if (typeof value !== 'string' || !HEADER_VALUE.test(value)) {
      issues.push({
        path: `headers.${name}`,
        message: 'value must be a string of visible Latin-1 characters (no line breaks or control characters)',
      })
    }
  }
  return issues
}

type AttemptOutcome =
  | { readonly ok: true; readonly response: RawResponse }
  | { readonly ok: false; readonly error: PaywireError; readonly failure: AttemptFailure | undefined }

/**
 * Sends requests for one client. Owns the keep-alive Agent (unless the caller supplied a
 * dispatcher), applies the per-attempt and total deadlines and the operation's retry policy.
 */
export class HttpClient {
  readonly #dispatcher: Dispatcher
  readonly #ownsDispatcher: boolean
  readonly #timeout: number
  readonly #totalTimeout: number
  readonly #maxRetries: number
  readonly #maxResponseBytes: number
  readonly #backoff: BackoffOptions
  readonly #clock: Clock
  readonly #random: () => number
  readonly #hooks: Hooks | undefined
  readonly #logger: Logger | undefined
  readonly #userAgent: string
  /** Whether anyone listens: without hooks or a logger, no event object is built per request. */
  readonly #observed: boolean

  constructor(config: HttpClientConfig) {
    const o = config.options
    this.#timeout = positive('timeout', o.timeout, DEFAULT_TIMEOUT)
    this.#totalTimeout = positive('totalTimeout', o.totalTimeout, DEFAULT_TOTAL_TIMEOUT)
    this.#maxRetries = Math.floor(positive('maxRetries', o.maxRetries, DEFAULT_MAX_RETRIES))
    this.#maxResponseBytes = positive('maxResponseBytes', o.maxResponseBytes, DEFAULT_MAX_RESPONSE_BYTES)
    this.#backoff = { ...DEFAULT_BACKOFF, ...o.backoff }
    this.#clock = o.clock ?? systemClock
    this.#random = o.random ?? Math.random
    this.#hooks = o.hooks
    this.#logger = o.logger
    this.#observed = o.hooks !== undefined || o.logger !== undefined
    const suffix = o.userAgent ? ` ${o.userAgent}` : ''
    this.#userAgent = `paywire-${config.packageName}/${config.packageVersion} node/${process.versions.node}${suffix}`
    this.#ownsDispatcher = o.dispatcher === undefined
    this.#dispatcher =
      o.dispatcher ??
      new Agent({
        keepAliveTimeout: 4_000,
        // Our own per-attempt timer is the only deadline: undici's must never fire first.
        headersTimeout: 0,
        bodyTimeout: 0,
        connect: { timeout: Math.min(10_000, Math.max(1, this.#timeout)) },
      })
  }

  /** The User-Agent this client sends. */
  get userAgent(): string {
    return this.#userAgent
  }

  /** Sends `req`, retrying as its policy allows; resolves with the decoded result. */
  send<T>(req: HttpRequest, handler: ResponseHandler<T>, call: CallOptions = {}): ApiPromise<T> {
    return new ApiPromise(this.#run(req, handler, call))
  }

  /** Closes the client's own connection pool (a caller-supplied dispatcher is left open). */
  async close(): Promise<void> {
    if (this.#ownsDispatcher) await this.#dispatcher.close()
  }

  async #run<T>(req: HttpRequest, handler: ResponseHandler<T>, call: CallOptions): Promise<WithResponse<T>> {
    const timeout = positive('timeout', call.timeout, this.#timeout, req.operation)
    const maxRetries = Math.floor(positive('maxRetries', call.maxRetries, this.#maxRetries, req.operation))
    const started = this.#clock.now()
    const deadline = started + this.#totalTimeout
    const headers: Record<string, string> = {
      'user-agent': this.#userAgent,
      accept: 'application/json',
      ...req.headers,
      ...call.headers,
    }
    if (req.body) headers['content-type'] = req.body.contentType
    const issues = headerIssues(headers)
    if (issues.length > 0) throw this.#fail(req, new RequestValidationError(req.operation, issues))

    for (let attempt = 1; ; attempt++) {
      if (call.signal?.aborted) throw new UserAbortError(req.operation, attempt > 1, call.signal.reason)
      const remaining = deadline - this.#clock.now()
      const attemptTimeout = Math.min(timeout, remaining)
      const phaseOnTimeout: TimeoutPhase | undefined = remaining < timeout ? 'total' : undefined
      if (this.#observed) {
        emit(this.#hooks, this.#logger, 'onRequest', {
          operation: req.operation,
          method: req.method,
          url: req.url,
          attempt,
          headers,
        })
      }
      const outcome = await this.#attempt(req, headers, attempt, attemptTimeout, phaseOnTimeout, call.signal)

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
        if (response.status < 400) return { data: this.#decode(handler, response, req), response }
        const retryAfterMs = parseRetryAfter(response.headers['retry-after'], this.#clock.now())
        const failure: AttemptFailure = { kind: 'status', status: response.status, retryAfterMs }
        const delay = this.#retryDelay(req.retry, failure, attempt, maxRetries, started, deadline)
        if (delay === undefined) throw this.#fail(req, handler.toError(response, req))
        this.#retrying(req, attempt, delay, `HTTP ${response.status}`)
        await this.#sleep(delay, req.operation, call.signal)
        continue
      }

      const delay =
        outcome.failure && this.#retryDelay(req.retry, outcome.failure, attempt, maxRetries, started, deadline)
      if (delay === undefined) throw this.#fail(req, outcome.error)
      this.#retrying(req, attempt, delay, outcome.error.message)
      await this.#sleep(delay, req.operation, call.signal)
    }
  }

  /** Early returns, one rule each: the policy, the retry budget, the window, the deadline. */
  #retryDelay(
    policy: RetryPolicy,
    failure: AttemptFailure,
    attempt: number,
    maxRetries: number,
    started: number,
    deadline: number,
  ): number | undefined {
    if (attempt > maxRetries) return undefined
    if (!policyAllowsRetry(policy, failure)) return undefined
    const delay = retryDelay(attempt, failure, this.#backoff, this.#random)
    if (delay === undefined) return undefined
    const resumeAt = this.#clock.now() + delay
    if (resumeAt >= deadline) return undefined
    // Outside the dedup window a repeat is a new payment attempt, not a replay (card spec, Limits 1).
    if (policy.kind === 'window' && !(failure.kind === 'connection' && !failure.requestSent)) {
      if (resumeAt - started >= policy.windowMs) return undefined
    }
    return delay
  }

  /** A 2xx the service package cannot read is an error like any other: observers hear of it. */
  #decode<T>(handler: ResponseHandler<T>, response: RawResponse, req: HttpRequest): T {
    try {
      return handler.decode(response, req)
    } catch (error) {
      throw error instanceof PaywireError ? this.#fail(req, error) : error
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
    emit(this.#hooks, this.#logger, 'onError', { operation: req.operation, method: req.method, url: req.url, error })
    return error
  }

  async #sleep(ms: number, operation: string, signal: AbortSignal | undefined): Promise<void> {
    try {
      await this.#clock.sleep(ms, signal)
    } catch (cause) {
      throw new UserAbortError(operation, true, cause)
    }
  }

  async #attempt(
    req: HttpRequest,
    headers: Record<string, string>,
    attempt: number,
    timeoutMs: number,
    deadlinePhase: TimeoutPhase | undefined,
    userSignal: AbortSignal | undefined,
  ): Promise<AttemptOutcome> {
    // undici accepts an EventEmitter as `signal`; it costs far less per request than an
    // AbortController (bench: about 29 µs of client CPU per call on Node 20).
    const abort = new EventEmitter()
    let abortedBy: 'timeout' | 'user' | undefined
    let phase: TimeoutPhase = 'headers'
    const timer = setTimeout(() => {
      abortedBy = 'timeout'
      abort.emit('abort')
    }, timeoutMs)
    const onUserAbort = () => {
      abortedBy ??= 'user'
      abort.emit('abort')
    }
    userSignal?.addEventListener('abort', onUserAbort, { once: true })
    const info = { operation: req.operation, method: req.method, url: req.url, attempts: attempt }

    try {
      const res = await request(req.url, {
        method: req.method,
        headers,
        body: req.body?.text,
        dispatcher: this.#dispatcher,
        signal: abort,
        headersTimeout: timeoutMs + 1_000,
        bodyTimeout: timeoutMs + 1_000,
      })
      phase = 'body'
      const responseHeaders = flattenHeaders(res.headers)
      const rawBody = await this.#readBody(res.body, responseHeaders, res.statusCode, info)
      const response: RawResponse = {
        status: res.statusCode,
        headers: responseHeaders,
        requestId: requestIdOf(responseHeaders),
        rawBody,
        attempts: attempt,
        json: parseJson(rawBody),
      }
      return { ok: true, response }
    } catch (error) {
      if (error instanceof PaywireError) return { ok: false, error, failure: undefined }
      const code = errorCode(error)
      const requestSent = !UNSENT_CODES.has(code ?? '')
      if (abortedBy === 'user') {
        return {
          ok: false,
          error: new UserAbortError(req.operation, requestSent, userSignal?.reason),
          failure: undefined,
        }
      }
      if (abortedBy === 'timeout' || code === 'UND_ERR_CONNECT_TIMEOUT') {
        const timeoutPhase = code === 'UND_ERR_CONNECT_TIMEOUT' ? 'connect' : (deadlinePhase ?? phase)
        const timeoutError = new TimeoutError({ ...info, phase: timeoutPhase, timeoutMs, requestSent, cause: error })
        return { ok: false, error: timeoutError, failure: { kind: 'connection', requestSent } }
      }
      const detail = error instanceof Error ? error.message : String(error)
      const advice = requestSent
        ? 'The request may have been processed: reconcile before repeating it.'
        : 'The request was not sent.'
      const connectionError = new ConnectionError({
        ...info,
        requestSent,
        cause: error,
        message: `${req.operation}: connection failed (${code ?? detail}). ${advice}`,
      })
      return { ok: false, error: connectionError, failure: { kind: 'connection', requestSent } }
    } finally {
      clearTimeout(timer)
      userSignal?.removeEventListener('abort', onUserAbort)
    }
  }

  async #readBody(
    body: Dispatcher.ResponseData['body'],
    headers: Record<string, string>,
    status: number,
    info: { operation: string; method: string; url: string; attempts: number },
  ): Promise<string> {
    const limit = this.#maxResponseBytes
    const declared = Number(headers['content-length'])
    const tooLarge = () => {
      body.destroy()
      return new ResponseTooLargeError({ ...info, limitBytes: limit, status })
    }
    if (Number.isFinite(declared) && declared > limit) throw tooLarge()
    // undici holds the body to its declared length, so a declared size within the limit is safe to read whole.
    if (Number.isFinite(declared)) return body.text()
    const chunks: Buffer[] = []
    let size = 0
    for await (const chunk of body) {
      size += (chunk as Buffer).length
      if (size > limit) throw tooLarge()
      chunks.push(chunk as Buffer)
    }
    return chunks.length === 1 ? (chunks[0] as Buffer).toString('utf8') : Buffer.concat(chunks).toString('utf8')
  }
}

function requestIdOf(headers: Readonly<Record<string, string>>): string | undefined {
  for (const name of REQUEST_ID_HEADERS) if (headers[name] !== undefined) return headers[name]
  return undefined
}

function flattenHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const flat: Record<string, string> = {}
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) flat[name] = Array.isArray(value) ? value.join(', ') : value
  }
  return flat
}

function parseJson(text: string): unknown {
  const first = text.trimStart()[0]
  if (first !== '{' && first !== '[' && first !== '"') return undefined
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}
