/**
 * The undici side of a call: the client's own pools (or the caller's dispatcher), one attempt
 * dispatched on them within its deadline, and its body read within the size cap.
 */

import type { Dispatcher } from 'undici'
import { isThenable } from '../api-promise.js'
import { type Clock, systemClock } from '../clock.js'
import { PaywireError, ResponseTooLargeError } from '../errors/errors.js'
import { parseJson, rawResponse } from '../operations/answer-shape.js'
import { isRetryableStatus } from '../operations/retry.js'
import { isNode, warnFetchInstead } from '../runtime.js'
import { RecentAddresses } from './addresses.js'
import {
  type AttemptOutcome,
  type AttemptPlan,
  classifyFailure,
  failedOnReusedConnection,
  interimStatusOf,
  unbelieved,
} from './attempt-failure.js'
import { AttemptHandler, BodyTooLarge } from './attempt-handler.js'
import { ClientTls, createConnector, hostOf, tellingProtocol } from './connector.js'
import { DeadlineList } from './deadlines.js'
import { type Answer, cutAnswer, type Exchange, resetExchange } from './exchange.js'
import { type CallTransport, FetchTransport } from './fetch-transport.js'
import { flattenHeaders } from './headers.js'
import { KeptConnections, type Loan, MONEY_IDLE_LIMIT_MS } from './kept-connections.js'
import type { HttpRequest, RawResponse } from './request.js'
import { SingleUsePools } from './single-use.js'
import { loadTransport, splitUrl, type Transport } from './undici.js'

export type { CallTransport } from './fetch-transport.js'

/** What the transport takes from the client's options, checked. */
export interface TransportConfig {
  /** The caller's dispatcher, if one was given. */
  readonly dispatcher: Dispatcher | undefined
  /** Per-origin socket cap of each of the client's own pools. */
  readonly maxSockets: number
  /** The client's per-attempt timeout: the own pools' connect timeout is bounded by it. */
  readonly timeout: number
  readonly maxResponseBytes: number
  /** The caller's `fetch`, if one was given: attempts go through it instead of undici. */
  readonly fetch?: typeof fetch | undefined
  /** The client's monotonic clock: how long a kept-alive connection has been idle. Default: the system's. */
  readonly clock?: Clock | undefined
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

/** What both of the client's own pools share besides the connector: keep-alive time, undici's timers off. */
const POOL_TIMERS = {
  keepAliveTimeout: 4_000,
  // Our own per-attempt deadline is the only one: undici's timers are off.
  headersTimeout: 0,
  bodyTimeout: 0,
} as const

/**
 * Sends attempts for one client on undici. Owns its two pools (unless the caller supplied a
 * dispatcher); undici itself is loaded by the first call (`load`).
 */
export class UndiciTransport implements CallTransport {
  /** The caller's dispatcher, if one was given. */
  readonly #givenDispatcher: Dispatcher | undefined
  /** The client's own kept-alive connections, made on first use (undici loads then, undici.ts). */
  #keptConnections: KeptConnections | undefined
  /** The client's own pools for calls on a connection of their own (single-use.ts). */
  #singleUsePools: SingleUsePools | undefined
  /** When the current single-use pools were made (monotonic), and the connector every generation shares. */
  #singleUseSince = 0
  #singleUseConnect: ReturnType<typeof createConnector> | undefined
  /** Older single-use pools still closing (`#singleUse`): `close()` waits for them too. */
  readonly #retiring = new Set<Promise<void>>()
  /**
   * Hosts a connection of this client spoke HTTP/2 to. undici's HTTP/2 client shows no interim (1xx)
   * answer, so a failure there may have followed one unseen, as on fetch (`interimHidden`).
   */
  readonly #http2Hosts = new Set<string>()
  readonly #noteProtocol = (http2: boolean, host: string): void => {
    if (http2) this.#http2Hosts.add(host)
  }
  readonly #maxSockets: number
  /** One TLS context, and each origin's last session, resumed by the next connection of either pool (connector.ts). */
  readonly #tls = new ClientTls()
  /** The host names this client's connections looked up lately, shared by both pools (addresses.ts). */
  readonly #addresses: RecentAddresses
  readonly #timeout: number
  readonly #maxResponseBytes: number
  readonly #clock: Clock
  /** undici's Pool and Client, once the first request has loaded them. */
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
    this.#clock = config.clock ?? systemClock
    this.#addresses = new RecentAddresses(this.#clock)
  }

  /** Whether attempts go through the caller's dispatcher rather than the client's own pools. */
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
    const d = this.#givenDispatcher as { closed?: unknown; destroyed?: unknown } | undefined
    return this.#closed || d?.closed === true || d?.destroyed === true
  }

  /** Closes the client's own pools (a caller-supplied dispatcher is left open); a second call waits for the same close. */
  close(): Promise<void> {
    this.#closed = true
    this.#closing ??= Promise.all([
      this.#keptConnections?.close(),
      this.#singleUsePools?.close(),
      ...this.#retiring,
    ]).then(() => undefined)
    return this.#closing
  }

  /**
   * The client's own pools for calls on a connection of their own: on HTTP/1.1 one request per
   * connection, closed after its answer. On HTTP/2 undici keeps the connection (it ignores `reset`)
   * and the next such call reuses it, one at a time: its answer comes on its own stream, so that is
   * as safe as a new connection, without the handshake, for `MONEY_IDLE_LIMIT_MS` (then new pools).
   */
  #singleUse(transport: Transport): SingleUsePools {
    // On HTTP/2 a connection outlives its call and undici has no idle timer there: pools older
    // than the money idle limit get no further call (they close once their calls end), so a payment
    // never meets a gateway closing an idle connection (GOAWAY as it arrives: an unknown outcome).
    // undici's `clientTtl` reads `Date.now()` and, once it retired a client, opened one per call.
    // On HTTP/1.1 no connection outlives its call, so the pools are kept (renewing them would build
    // a Pool per payment again, single-use.ts). A closed client's pools refuse the call unsent: none
    // are made after close().
    const now = this.#clock.now()
    const pools = this.#singleUsePools
    if (pools?.carriedHttp2 && !this.#closed && now - this.#singleUseSince > MONEY_IDLE_LIMIT_MS) {
      const closing: Promise<void> = pools.close().then(
        () => void this.#retiring.delete(closing),
        () => void this.#retiring.delete(closing),
      )
      this.#retiring.add(closing)
      this.#singleUsePools = undefined
    }
    if (this.#singleUsePools === undefined) {
      // One connector for every generation: a retired pool's sockets count against the cap until closed.
      this.#singleUseConnect ??= this.#connector(transport)
      const shared = this.#singleUseConnect
      const next: SingleUsePools = new SingleUsePools(
        (origin) =>
          new transport.Pool(origin, {
            ...POOL_TIMERS,
            // This generation's connections, told apart: only pools that carried HTTP/2 are renewed by age.
            connect: tellingProtocol(shared, (http2, host) => {
              this.#noteProtocol(http2, host)
              if (http2) next.noteHttp2()
            }),
            connections: this.#maxSockets,
            pipelining: 0,
          }),
      )
      this.#singleUsePools = next
      if (this.#closed) void this.#singleUsePools.close()
      this.#singleUseSince = now
    }
    return this.#singleUsePools
  }

  /** The client's kept-alive connections, lent one request at a time (kept-connections.ts). */
  #kept(transport: Transport): KeptConnections {
    if (this.#keptConnections === undefined) {
      // One connector for all of them: its cap counts every socket of an origin until it closes.
      const shared = this.#connector(transport)
      this.#keptConnections = new KeptConnections(
        (origin, connected) =>
          new transport.Client(origin, {
            ...POOL_TIMERS,
            connect: tellingProtocol(shared, (http2, host) => {
              connected(http2)
              this.#noteProtocol(http2, host)
            }),
            pipelining: 1,
          }),
        this.#maxSockets,
        this.#clock,
      )
    }
    return this.#keptConnections
  }

  /** A connector for one of the client's pools: one TLS context and sessions resumed across both, sockets capped until they close (connector.ts). */
  #connector(transport: Transport): ReturnType<typeof createConnector> {
    return createConnector({
      modules: transport.sockets,
      shared: this.#tls,
      addresses: this.#addresses,
      maxSockets: this.#maxSockets,
      timeoutMs: Math.min(10_000, Math.max(1, this.#timeout)),
    })
  }

  /** One attempt, dispatched within its budget: the answer, or what its failure means (attempt-failure.ts). */
  async attempt(plan: AttemptPlan): Promise<AttemptOutcome> {
    const { request: req, headers, attempt, budget, signal: userSignal } = plan
    // One entry in the client's deadline list is both the attempt's time limit and the signal
    // undici listens to: no timer and no EventEmitter per attempt (see deadlines.ts).
    const timeoutMs = budget.ms
    const deadline = this.#deadlines.start(timeoutMs)
    // The caller's signal is listened to only when there is one: no closure otherwise.
    const onUserAbort = userSignal && (() => deadline.abort('user'))
    if (onUserAbort) userSignal.addEventListener('abort', onUserAbort, { once: true })
    const exchange: Exchange = { phase: 'headers', interimStatus: undefined, status: undefined, headers: undefined }
    let handler: AttemptHandler | undefined
    let loan: Loan | undefined

    try {
      const transport = this.#undici as Transport
      const { origin, path } = splitUrl(req.url)
      const own = this.#onOwnConnection(req)
      // A caller's dispatcher may have shorter undici timeouts of its own: they must not fire before
      // ours. The client's own pools have them off, so it is spared undici's per-request timers.
      const undiciTimeout = this.#givenDispatcher ? timeoutMs + 1_000 : undefined
      // One object literal of one shape every call: undici reads its many options from it, and the
      // same options made by spreading cost several µs more per call (bench/stub.ts).
      const options: Dispatcher.DispatchOptions = {
        origin,
        path,
        method: req.method,
        headers,
        body: req.body?.text,
        headersTimeout: undiciTimeout,
        bodyTimeout: undiciTimeout,
        // Never reuse the connection after a money-moving call or a reconciliation lookup (see
        // #onOwnConnection); a no-op on our own single-use pool.
        reset: own || undefined,
      }
      const settings = {
        subject: req.subject,
        maxBytes: this.#maxResponseBytes,
        onInterim: (statusCode: number) => {
          exchange.interimStatus = statusCode
        },
      }
      // The handler knows whether undici began writing the request (attempt-handler.ts); an aborted
      // attempt fails at once, unwritten, even while it waits for a kept-alive connection.
      const send = (target: Pick<Dispatcher, 'dispatch'> | undefined): AttemptHandler => {
        const h = new AttemptHandler(options, deadline, settings)
        handler = h
        if (h.failed) return h
        if (target) target.dispatch(options, h)
        // A kept-alive connection, started on as soon as one is free (kept-connections.ts).
        else this.#kept(transport).lend(origin, h, req.reusesConnection ? MONEY_IDLE_LIMIT_MS : undefined)
        return h
      }
      // A non-2xx whose body never came whole is still an answer, and doubted like any other.
      const exchangeOn = (target: Pick<Dispatcher, 'dispatch'> | undefined) =>
        this.#exchange(send(target), exchange, req, attempt).catch((error: unknown) =>
          cutAnswer(error, exchange, deadline.abortedBy),
        )
      let answer = await exchangeOn(this.#givenDispatcher ?? (own ? this.#singleUse(transport) : undefined))
      loan = handler?.loan
      if (loan) {
        // On a connection that carried an answer before, only an answer bound to this request is
        // believed: anything else may be a stale second answer to an earlier request, with this
        // request's own answer still to come on that connection, which is closed so that answer
        // reaches nobody (docs/reliability.md, "Keep-alive where the answer is bound").
        const doubt = loan.reused ? req.answerCheck?.(answer.status, answer.json, loan.repeated) : undefined
        if (doubt === undefined) loan.giveBack()
        else {
          // Its own answer may still be on its way there: the connection goes, so it reaches nobody.
          loan.discard()
          if (req.retry.kind !== 'safe') return unbelieved(plan, doubt, responseOf(answer, attempt, req), true)
          // A lookup is safe to ask again: on a connection of its own, whose answer is its own. A
          // "try again" status is left to its retry policy, whoever it was meant for.
          if (!isRetryableStatus(answer.status)) {
            resetExchange(exchange)
            answer = await exchangeOn(this.#singleUse(transport))
          }
        }
      }
      return {
        ok: true,
        response: rawResponse(answer.status, answer.headers, answer.rawBody, answer.json, attempt, req),
      }
    } catch (error) {
      // A connection that failed mid-call carries nothing for the next one.
      loan ??= handler?.loan
      loan?.discard()
      // On a reused connection, a bound money-moving call's failure may be the connection's, not
      // the call's (the service closed it idle as the request went out): the engine settles it at once.
      const doubted = loan?.reused === true && req.reusesConnection === true
      if (error instanceof PaywireError) return { ok: false, error, failure: undefined, mayHaveArrived: true }
      const interimStatus = exchange.interimStatus ?? interimStatusOf(error)
      // Only the client's own pools are known to tell the handler before they write (undici's
      // contract, which a caller's dispatcher may not keep): with another, an unwritten request is
      // not assumed. On our own pools a request never handed to undici (it waited for a connection) was not written.
      const written = this.#givenDispatcher ? undefined : handler === undefined ? false : handler.written
      const outcome = classifyFailure(error, plan, {
        abortedBy: deadline.abortedBy,
        phase: exchange.phase,
        interimStatus,
        written,
        interimHidden: this.#http2Hosts.size > 0 && this.#http2Hosts.has(hostOf(req.url)),
      })
      if (doubted && !outcome.ok && outcome.mayHaveArrived && deadline.abortedBy !== 'user') {
        failedOnReusedConnection(outcome.error)
      }
      return outcome
    } finally {
      this.#deadlines.finish(deadline)
      if (onUserAbort) userSignal?.removeEventListener('abort', onUserAbort)
    }
  }

  /**
   * Whether `req` goes on a connection of its own, closed after it. Every policy but `safe` is for
   * a call whose repeat could act twice: it moves money, and never shares a connection with another
   * call, unless its row binds its answer (`reusesConnection`) and the connection is one of ours,
   * where an answer that is not bound is never believed (`attempt`). A lookup reconciliation
   * decides on never shares one either (`ownConnection`). With the caller's dispatcher, which
   * connection carried an answer cannot be known: every money-moving call is sent with `reset`.
   * Over HTTP/2 (connector.ts) "a connection of its own" is a stream of its own: `#singleUse`.
   */
  #onOwnConnection(req: HttpRequest): boolean {
    if (req.ownConnection === true) return true
    if (req.retry.kind === 'safe') return false
    return this.#givenDispatcher !== undefined || req.reusesConnection !== true
  }

  /** One request on its way: its answer's status, headers and body, read within `maxResponseBytes`. */
  async #exchange(handler: AttemptHandler, exchange: Exchange, req: HttpRequest, attempts: number): Promise<Answer> {
    const { statusCode: status, headers: raw } = await handler.head
    exchange.phase = 'body'
    exchange.status = status
    const headers = flattenHeaders(raw, req.credentialHeaders)
    exchange.headers = headers
    const limitBytes = this.#maxResponseBytes
    const tooLarge = () => new ResponseTooLargeError({ ...req, attempts, limitBytes, status })
    // A declared length past the cap is refused before a byte of it is read.
    if (Number(headers['content-length']) > limitBytes) {
      handler.abort(new BodyTooLarge(`the body declares more than ${limitBytes} bytes`))
      throw tooLarge()
    }
    const rawBody = await handler.text().catch((error: unknown) => {
      throw error instanceof BodyTooLarge ? tooLarge() : error
    })
    return { status, headers, rawBody, json: parseJson(rawBody) }
  }
}

/** An answer read whole, as the engine reads it. */
function responseOf(answer: Answer, attempt: number, req: HttpRequest): RawResponse {
  return rawResponse(answer.status, answer.headers, answer.rawBody, answer.json, attempt, req)
}
