/**
 * Observability without leaks: hooks and a logger see known-safe headers only, and a request's path
 * template, never its values; silent by default.
 */

import { ApiError, formatMs, type PaywireError } from '../errors/errors.js'
import { shownHeaders } from '../secret.js'
import { telemetryCode, telemetryWord } from './telemetry.js'

interface EventBase {
  readonly operation: string
  readonly method: string
  readonly url: string
}

export interface RequestEvent extends EventBase {
  readonly attempt: number
  /** Request headers: only those known safe in clear (`SHOWN_HEADERS`), every other one `[redacted]`. */
  readonly headers: Readonly<Record<string, string>>
}

export interface ResponseEvent extends EventBase {
  readonly attempt: number
  readonly status: number
  readonly requestId: string | undefined
  /** Response headers: only those known safe in clear (`SHOWN_HEADERS`), every other one `[redacted]`. */
  readonly headers: Readonly<Record<string, string>>
}

export interface RetryEvent extends EventBase {
  /** The attempt that failed (1-based). */
  readonly attempt: number
  readonly delayMs: number
  readonly reason: string
}

export interface ErrorEvent extends EventBase {
  readonly error: PaywireError
}

/** Called synchronously on each event; an exception thrown by a hook is swallowed, never the call's fate. */
export interface Hooks {
  onRequest?(event: RequestEvent): void
  onResponse?(event: ResponseEvent): void
  onRetry?(event: RetryEvent): void
  onError?(event: ErrorEvent): void
}

/**
 * Anything with `debug` and `warn`, such as `console` or a pino logger. How it is called: a
 * pino-style logger (one with a `child()` method and a `levels.values` table, as pino and its child
 * loggers have) gets the event object first and the message second, `warn(data, message)`, so pino
 * keeps the data as JSON fields; any other logger (console, winston, your own) gets the message
 * first, `warn(message, data)`.
 */
export interface Logger {
  debug(message: string, data?: unknown): void
  warn(message: string, data?: unknown): void
}

/** The values `PAYWIRE_LOG` accepts, lowest level first. */
export const PAYWIRE_LOG_LEVELS = ['debug', 'info', 'warn', 'off'] as const

let warnedFor: string | undefined

/**
 * The console logger `PAYWIRE_LOG` asks for, used when a client has no `logger` option: `debug`
 * logs every request and response as well as every retry and error; `info` and `warn` log retries
 * and errors (paywire writes no line at info level); unset, empty or `off` logs nothing. Any other
 * value logs nothing and warns once on the console, naming the variable and the values it accepts:
 * a typo in an environment variable must not stop a payment service.
 */
export function resolveEnvLogger(value: string | undefined = process.env.PAYWIRE_LOG): Logger | undefined {
  const level = value?.trim().toLowerCase()
  if (level === undefined || level === '' || level === 'off') return undefined
  if (level === 'debug') return { debug: console.debug, warn: console.warn }
  if (level === 'info' || level === 'warn') return { debug: () => {}, warn: console.warn }
  if (warnedFor !== value) {
    warnedFor = value
    console.warn(
      `paywire: PAYWIRE_LOG is ${JSON.stringify(value)}, which is not a level: use one of ${PAYWIRE_LOG_LEVELS.join(', ')}. Nothing is logged.`,
    )
  }
  return undefined
}

/** Whether `logger` takes the data first (pino): see `Logger`. */
export function isPinoStyle(logger: Logger): boolean {
  const l = logger as { child?: unknown; levels?: { values?: unknown } }
  return typeof l.child === 'function' && typeof l.levels?.values === 'object' && l.levels.values !== null
}

/** Writes one line at `level`: object first for a pino-style logger, message first otherwise. */
export function logLine(logger: Logger, level: 'debug' | 'warn', message: string, data: unknown): void {
  if (isPinoStyle(logger)) (logger[level] as unknown as (data: unknown, message: string) => void)(data, message)
  else logger[level](message, data)
}

type EventOf = {
  onRequest: RequestEvent
  onResponse: ResponseEvent
  onRetry: RetryEvent
  onError: ErrorEvent
}

/** Delivers one event to the hooks and the logger, redacting headers first. */
export function emit<K extends keyof Hooks>(
  hooks: Hooks | undefined,
  logger: Logger | undefined,
  kind: K,
  event: EventOf[K],
): void {
  if (!hooks?.[kind] && !logger) return
  const safe = 'headers' in event ? { ...event, headers: shownHeaders(event.headers) } : event
  try {
    ;(hooks?.[kind] as ((e: EventOf[K]) => void) | undefined)?.(safe as EventOf[K])
  } catch {
    // A broken observer must not change whether a payment call succeeds.
  }
  if (!logger) return
  try {
    // The logger gets the error's summary, not the error: its body, raw body, headers and the
    // service's own text are whatever the service sent, and a log line is no place for them.
    // The query is left out too: a lookup carries account numbers and names there.
    const logged = { ...safe, url: withoutQuery(safe.url) }
    const data = kind === 'onError' ? { ...logged, error: loggedError((safe as ErrorEvent).error) } : logged
    logLine(logger, kind === 'onRetry' || kind === 'onError' ? 'warn' : 'debug', describe(kind, logged), data)
  } catch {
    // Same as hooks: logging never decides an outcome.
  }
}

function describe(kind: keyof Hooks, event: EventOf[keyof Hooks]): string {
  const head = `paywire ${event.operation} ${event.method} ${event.url}`
  switch (kind) {
    case 'onRequest':
      return `${head} attempt ${(event as RequestEvent).attempt}`
    case 'onResponse':
      return `${head} -> ${(event as ResponseEvent).status}`
    case 'onRetry':
      return `${head} retry in ${formatMs((event as RetryEvent).delayMs)} ms: ${(event as RetryEvent).reason}`
    case 'onError':
      return `${head} failed: ${errorText((event as ErrorEvent).error)}`
  }
}

/**
 * What a log line says about an error built from a service's answer: its class, reason, code and
 * status, never the answer's own text (a service can echo a card number, a token or payer data in
 * its error message). The error itself, with the whole answer, is what the call rejects with. Other
 * errors (time-outs, connection failures, refused input) are paywire's own text, logged as is.
 */
function errorText(error: PaywireError): string {
  if (!(error instanceof ApiError)) return error.message
  const e = loggedError(error)
  const reason = e.reason === undefined ? '' : ` ${e.reason}`
  const code = e.code === undefined ? '' : `error_code ${e.code}, `
  const unknown = error.outcomeUnknown ? ', the outcome is unknown: reconcile before repeating it' : ''
  return `${error.name}${reason} (${code}HTTP ${error.status})${unknown}; the answer's text is on the error, not in logs`
}

/** `url` for a log line: its query (lookup parameters, payer data) replaced by `?…`. */
function withoutQuery(url: string): string {
  const at = url.search(/[?#]/)
  return at === -1 ? url : `${url.slice(0, at)}?…`
}

/** The fields of an error a logger receives: names, codes and flags only. */
function loggedError(error: PaywireError): {
  name: string
  reason: string | undefined
  code: string | undefined
  status: number | undefined
  outcomeUnknown: boolean
  message: string | undefined
} {
  const e = error as unknown as { reason?: unknown; code?: unknown; status?: unknown }
  return {
    name: error.name,
    reason: telemetryWord(e.reason),
    code: telemetryCode(e.code),
    status: typeof e.status === 'number' ? e.status : undefined,
    outcomeUnknown: error.outcomeUnknown,
    message: error instanceof ApiError ? undefined : error.message,
  }
}
