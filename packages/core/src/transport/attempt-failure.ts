/** What a failed attempt means: was it sent, did the service start to answer, how to say it. */

import {
  ConnectionError,
  type PaywireError,
  TimeoutError,
  type TimeoutPhase,
  UserAbortError,
} from '../errors/errors.js'
import type { AttemptFailure } from '../operations/retry.js'
import type { HttpRequest, RawResponse } from './request.js'

/** Error codes raised before a single byte of the request reached the peer. */
export const UNSENT_CODES = new Set([
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
  // The dispatcher was closed before this request was handed to it: dispatch refuses at once.
  'UND_ERR_CLOSED',
  // undici refused a feature the request asked for (such as an `Expect` header) before writing.
  'UND_ERR_NOT_SUPPORTED',
])

export function errorCode(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined
  const e = error as { code?: unknown; errors?: unknown[]; cause?: unknown }
  if (typeof e.code === 'string') return e.code
  if (Array.isArray(e.errors) && e.errors.length > 0) return errorCode(e.errors[0])
  return e.cause === undefined ? undefined : errorCode(e.cause)
}

/**
 * The interim status undici reports only by dropping the socket: its HTTP/1.1 client destroys the
 * connection on a `100 Continue` it did not ask for ("bad response"; it never sends
 * `Expect: 100-continue`, upstream nodejs/undici#197, wontfix) and on a `101 Switching Protocols`
 * nobody asked for ("bad upgrade"). Either way the request had been sent whole.
 */
export function interimStatusOf(error: unknown): number | undefined {
  if (!(error instanceof Error) || errorCode(error) !== 'UND_ERR_SOCKET') return undefined
  if (error.message === 'bad response') return 100
  if (error.message === 'bad upgrade') return 101
  return undefined
}

/** The cause of a failed connection in words. */
export function describeConnectionFailure(
  error: unknown,
  code: string | undefined,
  interimStatus: number | undefined,
): string {
  if (interimStatus === 100) {
    return 'connection failed: the server sent an interim 100 Continue nobody asked for and undici dropped the connection before the final answer'
  }
  if (interimStatus === 101) {
    return 'connection failed: the server switched protocols (101) without being asked and undici dropped the connection'
  }
  if (interimStatus !== undefined) {
    return `connection failed after an interim ${interimStatus} answer, before the final answer (${code ?? 'no code'})`
  }
  const detail = error instanceof Error ? error.message : String(error)
  return `connection failed (${code ?? detail})`
}

export type AttemptOutcome =
  | { readonly ok: true; readonly response: RawResponse }
  | {
      readonly ok: false
      readonly error: PaywireError
      readonly failure: AttemptFailure | undefined
      /** Whether this attempt may have reached the service. */
      readonly mayHaveArrived: boolean
    }

/** How long the next attempt may take, and which limit cut it below the per-attempt timeout. */
export interface AttemptBudget {
  readonly ms: number
  readonly phase: TimeoutPhase | undefined
}

/**
 * The request as every error and handler of the call sees it, with what earlier attempts may have
 * done (`earlierAttemptMayHaveActed`; absent reads as false, as on a first attempt).
 */
export type CallRequest = HttpRequest

/** One attempt as planned: the request, its headers, its number, its time, and what came before. */
export interface AttemptPlan {
  readonly request: CallRequest
  readonly headers: Record<string, string>
  readonly attempt: number
  readonly budget: AttemptBudget
  /** The caller's signal, when given. */
  readonly signal: AbortSignal | undefined
  /** Whether an earlier attempt of the call may have reached the service. */
  readonly priorArrival: boolean
  /** Monotonic ms since the call began (its first attempt, backoffs and all): what a timeout reports. */
  readonly sinceCallStart: () => number
  /** The call's total limit (`totalTimeout`): what a timeout in the total phase reports as its limit. */
  readonly totalTimeoutMs: number
}

/** How a thrown attempt ended: who aborted it, in which phase, and any interim (1xx) status seen. */
export interface AttemptEnd {
  readonly abortedBy: 'timeout' | 'user' | undefined
  readonly phase: TimeoutPhase
  readonly interimStatus: number | undefined
  /**
   * Whether undici began writing the request: `false` when it provably never did (the call waited
   * for a free socket or was still connecting), `undefined` when the dispatcher cannot tell us.
   */
  readonly written: boolean | undefined
  /**
   * Whether the transport cannot see interim (1xx) answers (`fetch` hides them): a failure before
   * the final status, once the request may have arrived, might then follow one unseen, and is
   * treated as if it did (the service may have started on it).
   */
  readonly interimHidden?: boolean
}

/** The failure the retry policy judges: an interim answer (seen, or possibly unseen) or a connection failure. */
function failureOf(how: AttemptEnd, mayHaveArrived: boolean): AttemptFailure {
  if (how.interimStatus !== undefined) return { kind: 'interim', status: how.interimStatus }
  // fetch hides 1xx answers: before the final status, one may have come (status unknown, 0).
  if (how.interimHidden === true && mayHaveArrived && how.phase === 'headers') return { kind: 'interim', status: 0 }
  return { kind: 'connection', requestSent: mayHaveArrived }
}

/** What a thrown attempt means, as a pure function: one early return per kind of failure. */
export function classifyFailure(error: unknown, plan: AttemptPlan, how: AttemptEnd): AttemptOutcome {
  const { budget, signal: userSignal, priorArrival } = plan
  const info = { ...plan.request, attempts: plan.attempt }
  const code = errorCode(error)
  // A request never written cannot have arrived, whatever ended it (a deadline or abort while it
  // waited for a socket, a failed connect or TLS handshake); otherwise only the known codes say so.
  const mayHaveArrived = how.written !== false && !UNSENT_CODES.has(code ?? '')
  const sent = { requestSent: mayHaveArrived || priorArrival, mayHaveActed: mayHaveArrived }
  // An interim answer means the service has the request: only a repeat it recognises is harmless.
  const failure = failureOf(how, mayHaveArrived)
  if (how.abortedBy === 'user') {
    const abortError = new UserAbortError({ ...info, ...sent, cause: userSignal?.reason })
    return { ok: false, error: abortError, failure: undefined, mayHaveArrived }
  }
  if (how.abortedBy === 'timeout' || code === 'UND_ERR_CONNECT_TIMEOUT') {
    // Waiting for a socket (a free one under the cap, or a new one connecting) is the connect phase.
    const waited = how.written === false ? 'connect' : how.phase
    const phase = code === 'UND_ERR_CONNECT_TIMEOUT' ? 'connect' : (budget.phase ?? waited)
    const timeoutError = new TimeoutError({
      ...info,
      ...sent,
      phase,
      // The total deadline is the call's limit, not the remainder this attempt was given: "after 19 ms
      // the whole call" would contradict the elapsed figure beside it.
      timeoutMs: phase === 'total' ? plan.totalTimeoutMs : budget.ms,
      elapsedMs: plan.sinceCallStart(),
      cause: error,
    })
    return { ok: false, error: timeoutError, failure, mayHaveArrived }
  }
  const connectionError = new ConnectionError({
    ...info,
    ...sent,
    cause: error,
    message: `${info.operation}: ${describeConnectionFailure(error, code, how.interimStatus)}.${
      priorArrival && !mayHaveArrived ? ' An earlier attempt may have reached the service.' : ''
    }`,
  })
  return { ok: false, error: connectionError, failure, mayHaveArrived }
}

/**
 * The failure of a money-moving call whose answer, on a connection that carried an earlier one, is
 * not bound to it: the request was written, so it may have acted, and its own answer is lost with
 * the connection. An unknown outcome, settled by the operation's lookup (the engine does it at once).
 */
export function unbelieved(plan: AttemptPlan, doubt: string, answer: RawResponse, closed: boolean): AttemptOutcome {
  const { status } = answer
  const where = closed ? 'on a kept-alive connection' : 'on a connection the runtime may have reused (fetch)'
  const error = new ConnectionError({
    ...plan.request,
    attempts: plan.attempt,
    requestSent: true,
    cause: new UnboundOnReusedConnection(doubt),
    message: `${plan.request.operation}: the ${status} answer ${where} is not believed as this call's: ${doubt}. It may be an earlier request's second answer${closed ? ', so the connection was closed' : ''}.`,
  })
  doubtful.set(error, answer)
  return { ok: false, error, failure: { kind: 'connection', requestSent: true }, mayHaveArrived: true }
}

/**
 * The errors of bound money-moving calls (`reusesConnection`) that met a reused connection's doubt:
 * an answer not believed (kept here, read again only once the state is proven), or a failure of the
 * reused connection after the request was written (`undefined`: no answer came, as when the service
 * closed the idle connection as the request went out). The engine settles each at once.
 */
const doubtful = new WeakMap<PaywireError, RawResponse | undefined>()

/** Marks `error` as the failure of a bound money-moving call on a reused connection (no answer came). */
export function failedOnReusedConnection(error: PaywireError): void {
  doubtful.set(error, undefined)
}

/** Whether `error` is one the engine settles at once, and the answer not believed, if one came. */
export function reusedConnectionDoubt(error: unknown): { readonly answer: RawResponse | undefined } | undefined {
  if (!(error instanceof Error) || !doubtful.has(error as PaywireError)) return undefined
  return { answer: doubtful.get(error as PaywireError) }
}

/**
 * The cause of the `ConnectionError` of a money-moving call whose answer on a reused connection was
 * not believed (`reusesConnection` rows): the engine settles such a call at once by its lookup.
 */
export class UnboundOnReusedConnection extends Error {
  override name = 'UnboundOnReusedConnection'
}
