/** The numeric options of clients and calls, checked once with a message naming the option. */

import { MAX_TIMER_MS } from './clock.js'
import { RequestValidationError } from './errors.js'
import { type BackoffOptions, DEFAULT_BACKOFF } from './retry.js'

/** A finite number >= 0, or `fallback` when not given. */
export function positive(name: string, value: number | undefined, fallback: number, operation = 'client'): number {
  if (value === undefined) return fallback
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
    throw new RequestValidationError(operation, [{ path: name, message: 'must be a finite number >= 0' }])
  }
  return value
}

/**
 * A duration in ms that ends up in a timer: Node fires a longer one after about 1 ms, so it is refused.
 * A time limit (`timeout`, `totalTimeout`) must also be above 0: a request with no time to be
 * answered could still be written on a kept-alive socket before a 0 ms timer fires.
 */
export function duration(
  name: string,
  value: number | undefined,
  fallback: number,
  operation = 'client',
  limit = false,
): number {
  const ms = positive(name, value, fallback, operation)
  if (limit && ms === 0) {
    throw new RequestValidationError(operation, [{ path: name, message: 'must be above 0 ms' }])
  }
  if (ms > MAX_TIMER_MS) {
    throw new RequestValidationError(operation, [
      {
        path: name,
        message: `must be at most ${MAX_TIMER_MS} ms (about 24.8 days), the longest delay Node's timers honour`,
      },
    ])
  }
  return ms
}

export function backoffOptions(given: Partial<BackoffOptions> | undefined): BackoffOptions {
  const backoff = { ...DEFAULT_BACKOFF, ...given }
  return {
    baseDelayMs: duration('backoff.baseDelayMs', backoff.baseDelayMs, DEFAULT_BACKOFF.baseDelayMs),
    maxDelayMs: duration('backoff.maxDelayMs', backoff.maxDelayMs, DEFAULT_BACKOFF.maxDelayMs),
    maxRetryAfterMs: duration('backoff.maxRetryAfterMs', backoff.maxRetryAfterMs, DEFAULT_BACKOFF.maxRetryAfterMs),
  }
}
