/**
 * Telemetry through `node:diagnostics_channel`: what an operation, each attempt, a retry, the intent
 * journal, a callback claim, a callback and a reconciliation run did, published to whoever subscribes
 * (`@paywire/otel`, your own subscriber). Nothing is built when nobody listens: every publisher asks
 * `hasSubscribers` first. A message carries an allow-list of fields only (names, counts, statuses,
 * error classes, the reconciliation key), never a body, a header, a URL path or query, or a secret.
 */

import type { Channel, TracingChannel } from 'node:diagnostics_channel'
import { builtinModule } from '../builtins.js'
import type { HttpRequest } from '../transport/request.js'

/** The channel names paywire publishes on: a contract with subscribers. */
export const PAYWIRE_CHANNELS = {
  /** TracingChannel: one money call or lookup, from its first step to its result or error. */
  operation: 'paywire:operation',
  /** TracingChannel: one HTTP attempt of an operation. */
  attempt: 'paywire:attempt',
  /** TracingChannel: one callback delivery handled by the card's callback inbox. */
  callback: 'paywire:callback',
  /** TracingChannel: one `reconcileAll()` run, and each intent it settles inside it. */
  reconcile: 'paywire:reconcile',
  /** Channel: a retry was decided, with its delay and reason. */
  retry: 'paywire:retry',
  /** Channel: an intent was written to or closed in the journal. */
  intent: 'paywire:intent',
  /** Channel: the callback inbox recorded, took, renewed, completed or released an event, or recovered due ones. */
  claim: 'paywire:claim',
} as const

/** How an operation or attempt ended, as a subscriber reads it once it has ended. */
export interface EndedFields {
  /** The HTTP status of the last answer, when there was one. */
  status: number | undefined
  /** The class of the error the call failed with (`TimeoutError`, `CardGatewayError`), `undefined` on a result. */
  errorType: string | undefined
  /** The error's code or reason (`ERROR`, `timeout`), when it has one. */
  errorCode: string | undefined
  /** Whether the service may have acted although the call failed (reconcile it). */
  outcomeUnknown: boolean
}

/** `paywire:operation` message: one call, published on start and filled in as it ends. */
export interface OperationMessage extends EndedFields {
  /** The operation's name: `s2s.sale`, `transactions.create`. */
  readonly operation: string
  /** The service package: `card-gateway`. */
  readonly service: string
  readonly method: string
  /** Host of the request URL (no path, no query). */
  readonly serverAddress: string
  readonly serverPort: number
  /** The reconciliation key's kind and value (`order_id`, your order id), when the call has one. */
  readonly reconciliation: { readonly kind: string; readonly value: string } | undefined
  /** Attempts sent so far. */
  attempts: number
  /** Retries so far (`attempts - 1` once the call ended after sending). */
  retryCount: number
  /** The answer's own word for how it went (`SUCCESS`, `DECLINED`), from its `result` or `status` field. */
  result: string | undefined
}

/** `paywire:attempt` message: one HTTP attempt of an operation. */
export interface AttemptMessage extends EndedFields {
  /** The operation this attempt belongs to (the same object its subscribers saw), when it was traced. */
  readonly parent: OperationMessage | undefined
  readonly operation: string
  readonly service: string
  readonly method: string
  readonly serverAddress: string
  readonly serverPort: number
  /** 1 for the first attempt. */
  readonly attempt: number
}

/** `paywire:retry` message: a retry decided after a failed attempt. */
export interface RetryMessage {
  readonly parent: OperationMessage | undefined
  readonly operation: string
  readonly service: string
  /** The attempt that failed (1-based). */
  readonly attempt: number
  /** The pause before the next attempt, in ms. */
  readonly delayMs: number
  /** Why: `HTTP 503`, or the error class of the failure (`ConnectionError`). */
  readonly reason: string
}

/** `paywire:intent` message: the intent journal wrote or closed an intent. */
export interface IntentMessage {
  readonly action: 'open' | 'close'
  readonly service: string
  readonly operation: string
  /** The intent's random id. */
  readonly intentId: string
  /** For `close`: what the call's outcome proved. */
  readonly outcome: 'applied' | 'not_applied' | undefined
  /** Whether the store acknowledged it. */
  readonly ok: boolean
  /** The class of the store's error when it did not. */
  readonly errorType: string | undefined
}

/** `paywire:claim` message: the callback inbox and its claim store. */
export interface ClaimMessage {
  readonly action: 'record' | 'take' | 'renew' | 'complete' | 'release' | 'recover'
  readonly service: string
  /**
   * What the store answered: for `record` `taken`, `recorded`, `known`, `done` or `held`; for `take`
   * `taken`, `dead` or `none`; for `renew` `held` or `lost`; for `complete` and `release` `true` or
   * `false`; for `recover` how many events it took. `undefined` when the store failed.
   */
  readonly state: string | undefined
  readonly ok: boolean
  readonly errorType: string | undefined
}

/** `paywire:callback` message: one callback delivery, filled in as it is answered. */
export interface CallbackMessage {
  readonly service: string
  /** The HTTP status answered to the gateway (200, 400, 503). */
  status: number | undefined
  /** The answer's word: `OK`, `in_progress`, `store_unavailable`, or the verification failure reason. */
  answer: string | undefined
  /** The event's type or action (`SALE`), once verified. */
  eventType: string | undefined
  /** The event's status (`SETTLED`), once verified. */
  eventStatus: string | undefined
  /**
   * What the inbox made of the delivery: `recorded` (now or before: 200), `done` (ran already: 200),
   * `held` (a former version's claim holds it: 503), `unavailable` (the store could not record it: 503).
   */
  claim: string | undefined
  /** The class of the error `handle` threw, if it threw. */
  errorType: string | undefined
}

/** `paywire:reconcile` message: a `reconcileAll()` run (`kind: 'all'`) or one intent settled in it. */
export interface ReconcileMessage {
  readonly kind: 'all' | 'intent'
  readonly service: string
  /** For an intent: the run it belongs to. */
  readonly parent: ReconcileMessage | undefined
  /** For an intent: its operation. */
  readonly operation: string | undefined
  /** For an intent: its reconciliation key's kind and value. */
  readonly reconciliation: { readonly kind: string; readonly value: string } | undefined
  /** For an intent: `applied`, `not_applied`, `still_unknown`, `not_reconcilable`. */
  outcome: string | undefined
  /** For an intent: whether this run closed it in the journal. */
  closed: boolean | undefined
  /** For a run: how many open intents it looked at. */
  intents: number | undefined
  /** The class of the error the run failed with, if it failed. */
  errorType: string | undefined
}

type Diagnostics = typeof import('node:diagnostics_channel')
type Name = keyof typeof PAYWIRE_CHANNELS
type Tracing = 'operation' | 'attempt' | 'callback' | 'reconcile'

let loaded: Diagnostics | null | undefined
const tracing = new Map<Tracing, TracingChannel<object, object>>()
const points = new Map<Exclude<Name, Tracing>, Channel>()

/**
 * `node:diagnostics_channel`, loaded on first use through `process.getBuiltinModule`: importing
 * core loads nothing, and a runtime without it simply has no telemetry.
 */
function diagnostics(): Diagnostics | null {
  if (loaded === undefined) loaded = (builtinModule<Diagnostics>('node:diagnostics_channel') as Diagnostics) ?? null
  return loaded
}

/** The TracingChannel `name` when someone subscribes to it, else `undefined` (nothing to build). */
export function tracingIfObserved(name: Tracing): TracingChannel<object, object> | undefined {
  let channel = tracing.get(name)
  if (channel === undefined) {
    const dc = diagnostics()
    if (dc === null) return undefined
    channel = dc.tracingChannel(PAYWIRE_CHANNELS[name])
    tracing.set(name, channel)
  }
  return channel.hasSubscribers ? channel : undefined
}

/** The point channel `name` when someone subscribes to it, else `undefined`. */
export function channelIfObserved(name: Exclude<Name, Tracing>): Channel | undefined {
  let channel = points.get(name)
  if (channel === undefined) {
    const dc = diagnostics()
    if (dc === null) return undefined
    channel = dc.channel(PAYWIRE_CHANNELS[name])
    points.set(name, channel)
  }
  return channel.hasSubscribers ? channel : undefined
}

/**
 * Runs `run` as one traced unit of `channel`: `start` and `end` around its synchronous part, then
 * `error` (on a rejection), `asyncStart` and `asyncEnd` once it settles, the message filled in by
 * `settle` first. Unlike `tracePromise`, the result or error is never put on the message: only
 * `settle`'s allow-listed fields are.
 */
export function traced<M extends object, T>(
  channel: TracingChannel<object, object>,
  message: M,
  run: () => Promise<T>,
  settle: (message: M, result: { ok: true; value: T } | { ok: false; error: unknown }) => void,
): Promise<T> {
  const fail = (error: unknown): never => {
    quietly(() => settle(message, { ok: false, error }))
    channel.error.publish(message)
    channel.asyncStart.publish(message)
    channel.asyncEnd.publish(message)
    throw error
  }
  channel.start.publish(message)
  let pending: Promise<T>
  try {
    pending = run()
  } catch (error) {
    channel.end.publish(message)
    return Promise.reject(error).catch(fail)
  }
  channel.end.publish(message)
  return pending.then((value) => {
    quietly(() => settle(message, { ok: true, value }))
    channel.asyncStart.publish(message)
    channel.asyncEnd.publish(message)
    return value
  }, fail)
}

function quietly(work: () => void): void {
  try {
    work()
  } catch {
    // Telemetry never decides a call's outcome.
  }
}

/** Host and port per origin, parsed once (a client calls one or two); at most 64 kept, as raw calls may name any. */
const servers = new Map<string, { serverAddress: string; serverPort: number }>()

/** Host and port of `url`, nothing else of it. */
function server(url: string): { serverAddress: string; serverPort: number } {
  const pathStart = url.indexOf('/', url.indexOf('//') + 2)
  const origin = pathStart === -1 ? url : url.slice(0, pathStart)
  let found = servers.get(origin)
  if (found === undefined) {
    const u = URL.canParse(url) ? new URL(url) : undefined
    const port = u?.port ? Number(u.port) : u?.protocol === 'https:' ? 443 : u ? 80 : 0
    found = { serverAddress: u?.hostname ?? '', serverPort: port }
    if (servers.size >= 64) servers.clear()
    servers.set(origin, found)
  }
  return found
}

/** The operation message of `req` (called only when someone subscribes). */
export function operationMessage(req: HttpRequest, service: string): OperationMessage {
  const r = req.reconciliation
  return {
    operation: req.operation,
    service,
    method: req.method,
    ...server(req.url),
    reconciliation: r === undefined ? undefined : { kind: r.key, value: r.value },
    attempts: 0,
    retryCount: 0,
    status: undefined,
    result: undefined,
    errorType: undefined,
    errorCode: undefined,
    outcomeUnknown: false,
  }
}

const WORD = /^[A-Za-z][A-Za-z0-9_-]{0,31}$/
const DIGIT = /[0-9]/g
/** Most digits a published word or code may hold: a gateway code has 6, a card number 12 or more, a phone 7 or more. */
const MAX_DIGITS = 6

/**
 * `value` when it may be published as a word copied from an answer (`SUCCESS`, `DECLINED`,
 * `card_token_invalid`), else `undefined`. The rule: a string of at most 32 characters, a letter
 * first, then letters, digits, `_` or `-`, with at most 6 digits in all. A hostile or broken service
 * controls these fields: the rule keeps a card number, a phone number, a long text or a line break
 * it put there out of every channel message.
 */
export function telemetryWord(value: unknown): string | undefined {
  return typeof value === 'string' && WORD.test(value) && (value.match(DIGIT)?.length ?? 0) <= MAX_DIGITS
    ? value
    : undefined
}

/** A code copied from an answer, as published: a word (see `telemetryWord`) or a whole number of at most 6 digits. */
export function telemetryCode(value: unknown): string | undefined {
  if (typeof value === 'number')
    return Number.isSafeInteger(value) && Math.abs(value) < 10 ** MAX_DIGITS ? String(value) : undefined
  return telemetryWord(value)
}

/** Fills the ended fields from an error: its class, code or reason, status and whether it may have acted. */
export function fillError(target: EndedFields, error: unknown): void {
  const e = error as { name?: unknown; code?: unknown; reason?: unknown; status?: unknown; outcomeUnknown?: unknown }
  target.errorType = error instanceof Error ? error.constructor.name || String(e.name) : typeof error
  const code = e?.code ?? e?.reason
  target.errorCode = telemetryCode(code)
  if (typeof e?.status === 'number') target.status = e.status
  target.outcomeUnknown = e?.outcomeUnknown === true
}

/** Fills an operation's result: the last status and the answer's `result` or `status` word. */
export function settleOperation(
  op: OperationMessage,
  outcome: { ok: true; value: { data: unknown; response: { status: number } } } | { ok: false; error: unknown },
): void {
  if (!outcome.ok) {
    fillError(op, outcome.error)
    return
  }
  op.status = outcome.value.response.status
  const data = outcome.value.data as { result?: unknown; status?: unknown } | null
  if (typeof data === 'object' && data !== null) {
    op.result = telemetryWord(typeof data.result === 'string' ? data.result : data.status)
  }
}

/** Publishes the start of attempt `attempt` (when someone subscribes) and returns its message. */
export function attemptStarted(
  op: OperationMessage | undefined,
  req: HttpRequest,
  service: string,
  attempt: number,
): AttemptMessage | undefined {
  if (op !== undefined) op.attempts = attempt
  const channel = tracingIfObserved('attempt')
  if (channel === undefined) return undefined
  const message: AttemptMessage = {
    parent: op,
    operation: req.operation,
    service,
    method: req.method,
    ...(op ? { serverAddress: op.serverAddress, serverPort: op.serverPort } : server(req.url)),
    attempt,
    status: undefined,
    errorType: undefined,
    errorCode: undefined,
    outcomeUnknown: false,
  }
  channel.start.publish(message)
  channel.end.publish(message)
  return message
}

/** Publishes how attempt `message` ended: an answer (its status) or a failure (its error). */
export function attemptEnded(
  message: AttemptMessage,
  outcome: { ok: true; response: { status: number } } | { ok: false; error: unknown; mayHaveArrived?: boolean },
): void {
  const channel = tracingIfObserved('attempt')
  if (outcome.ok) message.status = outcome.response.status
  else {
    quietly(() => fillError(message, outcome.error))
    message.outcomeUnknown = message.outcomeUnknown || outcome.mayHaveArrived === true
  }
  if (channel === undefined) return
  if (!outcome.ok) channel.error.publish(message)
  channel.asyncStart.publish(message)
  channel.asyncEnd.publish(message)
}

/** Publishes a retry decision on `paywire:retry` (when someone subscribes). */
export function retryDecided(
  op: OperationMessage | undefined,
  req: HttpRequest,
  service: string,
  attempt: number,
  delayMs: number,
  reason: string,
): void {
  if (op !== undefined) op.retryCount += 1
  const channel = channelIfObserved('retry')
  if (channel === undefined) return
  const message: RetryMessage = { parent: op, operation: req.operation, service, attempt, delayMs, reason }
  channel.publish(message)
}

/** The error class of `error` for a message: its constructor's name, never its message. */
export function errorClass(error: unknown): string {
  return error instanceof Error ? error.constructor.name || error.name : typeof error
}
