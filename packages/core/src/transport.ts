/**
 * The undici side of a call: the client's own pools (or the caller's dispatcher), one attempt
 * dispatched on them within its deadline, and its body read within the size cap.
 */

import type { Dispatcher } from 'undici'
import { parseJson, rawResponse } from './answer-shape.js'
import { isThenable } from './api-promise.js'
import { type AttemptOutcome, type AttemptPlan, classifyFailure, interimStatusOf } from './attempt-failure.js'
import { createConnector, TlsSessions } from './connector.js'
import { DeadlineList } from './deadlines.js'
import { PaywireError, ResponseTooLargeError, type TimeoutPhase } from './errors.js'
import { type CallTransport, FetchTransport } from './fetch-transport.js'
import { flattenHeaders } from './headers.js'
import type { HttpRequest } from './request.js'
import { type AttemptHandler, loadTransport, splitUrl, type Transport } from './undici.js'

export type { CallTransport } from './fetch-transport.js'

/** What the transport takes from the client's options, checked. */
export interface TransportConfig {
  /** The caller's dispatcher, if one was given. */
  readonly dispatcher: Dispatcher | undefined
  /** Per-origin socket cap of each of the client's own Agents. */
  readonly maxSockets: number
  /** The client's per-attempt timeout: the own Agents' connect timeout is bounded by it. */
  readonly timeout: number
  readonly maxResponseBytes: number
  /** The caller's `fetch`, if one was given: attempts go through it instead of undici. */
  readonly fetch?: typeof fetch | undefined
}

/**
 * The transport a client sends with: the fetch transport with the caller's `fetch`; undici with the
 * caller's `dispatcher`; otherwise undici on Node (the runtime it is written for) and the runtime's
 * own `fetch` elsewhere (Bun, Deno, Workers), or on Node when undici cannot be loaded. Which runtime
 * this is is read from globals, so nothing is loaded to find out.
 */
export function chooseTransport(config: TransportConfig): CallTransport {
  if (config.fetch) return new FetchTransport(config.fetch, config.maxResponseBytes)
  if (config.dispatcher || isNode() || typeof globalThis.fetch !== 'function') return new UndiciTransport(config)
  return new FetchTransport(globalThis.fetch, config.maxResponseBytes)
}

interface RuntimeGlobals {
  process?: { versions?: Record<string, string | undefined> }
  Bun?: unknown
  Deno?: unknown
  navigator?: { userAgent?: string }
}

/** Node itself: not Bun or Deno, which also answer to `process.versions.node`. */
function isNode(): boolean {
  const g = globalThis as RuntimeGlobals
  const versions = g.process?.versions
  return typeof versions?.node === 'string' && versions.bun === undefined && g.Bun === undefined && g.Deno === undefined
}

/**
 * The runtime as the User-Agent names it: `node/22.12.0`, `bun/1.4.5`, `deno/2.9.6`, `workers`, or
 * `unknown-runtime`. Read from globals that every runtime may lack (Workers has no `process.versions`).
 */
export function runtimeTag(): string {
  const g = globalThis as RuntimeGlobals
  const versions = g.process?.versions
  if (versions?.bun) return `bun/${versions.bun}`
  if (versions?.deno) return `deno/${versions.deno}`
  if (typeof versions?.node === 'string' && g.Bun === undefined && g.Deno === undefined) return `node/${versions.node}`
  if (g.navigator?.userAgent === 'Cloudflare-Workers') return 'workers'
  return 'unknown-runtime'
}

/**
 * Sends attempts for one client on undici. Owns its two pools (unless the caller supplied a
 * dispatcher); undici itself is loaded by the first call (`load`).
 */
export class UndiciTransport implements CallTransport {
  /** The caller's dispatcher, if one was given. */
  readonly #givenDispatcher: Dispatcher | undefined
  /** The client's own keep-alive Agent for calls safe to repeat, made on first use (undici loads then, undici.ts). */
  #ownAgent: Dispatcher | undefined
  /** The client's own Agent for money-moving calls: one request per connection (see `#dispatcher`). */
  #singleUseAgent: Dispatcher | undefined
  readonly #maxSockets: number
  /** Each origin's last TLS session, resumed by the next connection of either Agent (connector.ts). */
  readonly #tlsSessions = new TlsSessions()
  readonly #timeout: number
  readonly #maxResponseBytes: number
  /** undici's Agent and request, once the first request has loaded them. */
  #undici: Transport | undefined
  /** Per-attempt deadlines, one timer for all of them (deadlines.ts); real monotonic time, like the timers they replace. */
  readonly #deadlines = new DeadlineList()
  #closed = false
  /** The one closing of the pool: a second `close()` waits for the same one. */
  #closing: Promise<void> | undefined

  constructor(config: TransportConfig) {
    this.#givenDispatcher = config.dispatcher
    this.#maxSockets = config.maxSockets
    this.#timeout = config.timeout
    this.#maxResponseBytes = config.maxResponseBytes
  }

  /** Whether attempts go through the caller's dispatcher rather than the client's own Agents. */
  get givenDispatcher(): boolean {
    return this.#givenDispatcher !== undefined
  }

  /**
   * Loads undici for the first call (undici.ts): `undefined` once this transport holds it, else the
   * load in progress, which the caller bounds by its call's deadline and signal. When undici cannot
   * be loaded and the client has its own pools (no `dispatcher`), it resolves with the runtime's
   * `fetch` transport, which the client uses from then on.
   */
  loading(): Promise<CallTransport | undefined> | undefined {
    if (this.#undici !== undefined) return undefined
    const loading = loadTransport()
    if (!isThenable(loading)) {
      this.#undici = loading
      return undefined
    }
    return Promise.resolve(loading).then(
      (undici) => {
        this.#undici = undici
        return undefined
      },
      (error: unknown) => {
        if (this.#givenDispatcher || typeof globalThis.fetch !== 'function') throw error
        warnFetchInstead(error)
        return new FetchTransport(globalThis.fetch, this.#maxResponseBytes)
      },
    )
  }

  /** Whether a request handed to the dispatcher now would be refused before anything is written. */
  get shut(): boolean {
    const d = (this.#givenDispatcher ?? this.#ownAgent) as { closed?: unknown; destroyed?: unknown } | undefined
    return this.#closed || d?.closed === true || d?.destroyed === true
  }

  /** Closes the client's own pools (a caller-supplied dispatcher is left open); a second call waits for the same close. */
  close(): Promise<void> {
    this.#closed = true
    this.#closing ??= Promise.all([this.#ownAgent?.close(), this.#singleUseAgent?.close()]).then(() => undefined)
    return this.#closing
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
      // Sessions resumed across both Agents, sockets capped per Agent until they close (connector.ts).
      connect: createConnector({
        modules: transport.sockets,
        sessions: this.#tlsSessions,
        maxSockets: this.#maxSockets,
        timeoutMs: Math.min(10_000, Math.max(1, this.#timeout)),
      }),
    })
  }

  /** One attempt, dispatched within its budget: the answer, or what its failure means (attempt-failure.ts). */
  async attempt(plan: AttemptPlan): Promise<AttemptOutcome> {
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
      const transport = this.#undici as Transport
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
      responseHeaders = flattenHeaders(res.headers, req.credentialHeaders)
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

let warnedFetchInstead = false

/**
 * Said once per process, as a Node warning (shown by default): undici did not load, so calls go
 * through the runtime's `fetch`, which cannot give a money-moving call a connection of its own (only
 * the answer's echo check remains). Seen when a bundler puts undici inside an ESM bundle, where its
 * `require()` of Node's modules fails.
 */
function warnFetchInstead(error: unknown): void {
  if (warnedFetchInstead) return
  warnedFetchInstead = true
  const why = error instanceof Error ? error.message : String(error)
  const text = `paywire: undici could not be loaded (${why}), so this process sends with the runtime's fetch: a money-moving call no longer gets a connection of its own, and a stale answer left on a reused connection is caught only when it names another subject. If you bundle your code, keep undici outside the bundle (esbuild: --external:undici; webpack: externals).`
  const runtime = (globalThis as { process?: { emitWarning?: (text: string, options: object) => void } }).process
  runtime?.emitWarning?.(text, { code: 'PAYWIRE_FETCH_INSTEAD_OF_UNDICI' })
}
