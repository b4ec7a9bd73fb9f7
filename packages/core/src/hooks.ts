/** Observability without leaks: hooks and a logger see redacted headers only; silent by default. */

import type { PaywireError } from './errors.js'
import { redactHeaders } from './secret.js'

interface EventBase {
  readonly operation: string
  readonly method: string
  readonly url: string
}

export interface RequestEvent extends EventBase {
  readonly attempt: number
  /** Request headers with credential headers redacted. */
  readonly headers: Readonly<Record<string, string>>
}

export interface ResponseEvent extends EventBase {
  readonly attempt: number
  readonly status: number
  readonly requestId: string | undefined
  /** Response headers with credential headers redacted. */
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

/** Anything with `debug` and `warn`, such as `console` or a pino logger. */
export interface Logger {
  debug(message: string, data?: unknown): void
  warn(message: string, data?: unknown): void
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
  credentialHeaders?: readonly string[],
): void {
  if (!hooks?.[kind] && !logger) return
  const safe = 'headers' in event ? { ...event, headers: redactHeaders(event.headers, credentialHeaders) } : event
  try {
    ;(hooks?.[kind] as ((e: EventOf[K]) => void) | undefined)?.(safe as EventOf[K])
  } catch {
    // A broken observer must not change whether a payment call succeeds.
  }
  if (!logger) return
  try {
    if (kind === 'onRetry' || kind === 'onError') logger.warn(describe(kind, safe), safe)
    else logger.debug(describe(kind, safe), safe)
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
      return `${head} retry in ${(event as RetryEvent).delayMs} ms: ${(event as RetryEvent).reason}`
    case 'onError':
      return `${head} failed: ${(event as ErrorEvent).error.message}`
  }
}
