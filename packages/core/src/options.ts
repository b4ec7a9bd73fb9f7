/** The numeric options of clients and calls, checked once with a message naming the option. */

import { MAX_TIMER_MS } from './clock.js'
import { RequestValidationError } from './errors/errors.js'
import { type BackoffOptions, DEFAULT_BACKOFF } from './operations/retry.js'

/** A refused option: of the client being constructed when no `operation` is named, else of that call. */
function refuse(name: string, message: string, operation: string | undefined): never {
  throw operation === undefined
    ? new RequestValidationError('client', [{ path: name, message }], 'options')
    : new RequestValidationError(operation, [{ path: name, message }])
}

/** A finite number >= 0, or `fallback` when not given; `operation` names the call (none: client options). */
export function positive(name: string, value: number | undefined, fallback: number, operation?: string): number {
  if (value === undefined) return fallback
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
    return refuse(name, 'must be a finite number >= 0', operation)
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
  operation: string | undefined,
  limit = false,
): number {
  const ms = positive(name, value, fallback, operation)
  if (limit && ms === 0) return refuse(name, 'must be above 0 ms', operation)
  if (ms > MAX_TIMER_MS) {
    return refuse(
      name,
      `must be at most ${MAX_TIMER_MS} ms (about 24.8 days), the longest delay Node's timers honour`,
      operation,
    )
  }
  return ms
}

/** The client's backoff options, each a duration a timer can honour. */
export function backoffOptions(given: Partial<BackoffOptions> | undefined): BackoffOptions {
  const backoff = { ...DEFAULT_BACKOFF, ...given }
  return {
    baseDelayMs: duration('backoff.baseDelayMs', backoff.baseDelayMs, DEFAULT_BACKOFF.baseDelayMs, undefined),
    maxDelayMs: duration('backoff.maxDelayMs', backoff.maxDelayMs, DEFAULT_BACKOFF.maxDelayMs, undefined),
    maxRetryAfterMs: duration(
      'backoff.maxRetryAfterMs',
      backoff.maxRetryAfterMs,
      DEFAULT_BACKOFF.maxRetryAfterMs,
      undefined,
    ),
  }
}

/**
 * The client option of services whose money-moving calls carry an idempotency key: bill payment's
 * `Idempotency-Key` header, remittance's `agentTransactionRef` (the key the SDK's `idempotencyKey`
 * fills). One name for both, because it states one fact about the service: whether it answers a call
 * repeated with the same key without acting again (docs/reconciliation.md).
 */
export interface ServiceDedupOptions {
  /**
   * Set `true` only when you know — from the service's operator, for your account — that the service
   * deduplicates its idempotency key: a call repeated with the same key acts at most once. Neither
   * service publishes that, so the default is `false`: reconciliation and every hint then advise a
   * lookup first and never a resend, since a resend pays twice wherever the service does not
   * deduplicate. With `true`, `reconcile` may advise resending the same call with the same key once
   * its lookup cannot tell. It changes advice only: the SDK never resends by itself.
   */
  readonly serviceDedupsIdempotencyKey?: boolean
}

/** `serviceDedupsIdempotencyKey` of `client`'s options: `true` or `false`, default `false`. */
export function serviceDedupsIdempotencyKey(client: string, options: ServiceDedupOptions): boolean {
  const value = options.serviceDedupsIdempotencyKey
  if (value === undefined) return false
  if (typeof value !== 'boolean') {
    throw new RequestValidationError(
      client,
      [{ path: 'serviceDedupsIdempotencyKey', message: 'must be true or false' }],
      'options',
    )
  }
  return value
}
