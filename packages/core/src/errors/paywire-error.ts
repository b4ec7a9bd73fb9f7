/** The root of the error tree: `PaywireError`, its cross-build brand, and when each error's call ended. */

import { type Clock, type MonotonicMark, markNow, systemClock } from '../clock.js'

const BRAND_PREFIX = '@paywire/error:'

/**
 * Marks a class so `instanceof` holds even when a program loads both the ESM and the CJS build
 * (two copies of the class): the brand is a registered symbol, shared across module copies.
 */
export function brandErrorClass(cls: abstract new (...args: never[]) => Error, brand: string): void {
  const symbol = Symbol.for(BRAND_PREFIX + brand)
  Object.defineProperty(cls.prototype, symbol, { value: true, enumerable: false })
  Object.defineProperty(cls, Symbol.hasInstance, {
    value(this: unknown, value: unknown): boolean {
      return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[symbol] === true
    },
  })
}

/**
 * The business key an unknown outcome is reconciled with, and the safe lookup that reads it
 * (docs/errors.md, "Outcome unknown").
 */
export interface Reconciliation {
  /** Wire name of the key: `order_id`, `trans_id`, `agentTransactionRef`, `Idempotency-Key`… */
  readonly key: string
  readonly value: string
  /** The lookup that tells whether the operation acted, as a call you can run. */
  readonly lookup: string
}

/** What every error of a call knows about the call's effect on the service. */
export interface PaywireErrorOptions {
  readonly cause?: unknown
  readonly outcomeUnknown?: boolean
  readonly reconciliation?: Reconciliation | undefined
  readonly idempotencyKey?: string | undefined
  /** Whether the call's request may have reached the service. Default: `outcomeUnknown`. */
  readonly requestSent?: boolean
}

/** Base of everything the SDK throws. */
export class PaywireError extends Error {
  override name = 'PaywireError'
  /**
   * True when the call may have moved money and nobody knows whether it did: an operation that is
   * not safe to repeat reached the service (or may have) and no definite answer came back. Do not
   * repeat it blindly: reconcile first with `reconciliation.lookup`.
   */
  readonly outcomeUnknown: boolean
  /** The key and lookup to reconcile this call with, when the operation has one. */
  readonly reconciliation: Reconciliation | undefined
  /**
   * The idempotency key every attempt of the call carried (bill payment's `Idempotency-Key`,
   * remittance's `agentTransactionRef`): look the call up by it before anything else. Sending the
   * call again with it is safe only where the service is known to deduplicate it
   * (docs/reconciliation.md).
   */
  readonly idempotencyKey: string | undefined
  /**
   * Whether the call's request may have reached the service: `false` when provably nothing was sent
   * (refused input, a journal that could not record the call, a connection refused), `true` once
   * any attempt may have arrived (every `ApiError`: the service answered). On every `PaywireError`,
   * so `catch (error) { if (error instanceof PaywireError && error.requestSent) … }` type-checks;
   * an error that is not about a call (a callback refusal, a store failure) says `false`.
   */
  readonly requestSent: boolean
  /**
   * Wall-clock time the error was raised (ms since the epoch), for people and logs. Reconciliation
   * does not measure on it: it counts the time since the call on the client's monotonic clock, so a
   * wall-clock step cannot end the settle delay early (docs/reconciliation.md).
   */
  readonly occurredAt: number = Date.now()
  /**
   * The id of the intent the journal wrote for this call, when it wrote one (a money-moving call of
   * a client with a `journal`). Open when the outcome is unknown, or with `keepIntentOpen: true`:
   * close it with your own write of what you recorded, or leave it to `reconcileAll()`. Set by the
   * journal step, only on the errors of journaled calls.
   */
  declare readonly intentId?: string

  constructor(message: string, options: PaywireErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause })
    callEnded.set(this, markNow(systemClock))
    this.outcomeUnknown = options.outcomeUnknown ?? false
    this.reconciliation = options.reconciliation
    this.idempotencyKey = options.idempotencyKey
    this.requestSent = options.requestSent ?? this.outcomeUnknown
  }
}
brandErrorClass(PaywireError, 'PaywireError')

/** When each error's call ended, on a monotonic clock: kept beside the error, never serialized. */
const callEnded = new WeakMap<PaywireError, MonotonicMark>()

/**
 * Records that `error`'s call ended now on `clock` (the client's clock, when the transport raises
 * it). Every error is first marked on the system clock when it is built.
 */
export function markCallEnded(error: PaywireError, clock: Clock): void {
  callEnded.set(error, markNow(clock))
}

/** When `error`'s call ended, on a monotonic clock. */
export function callEndedMark(error: PaywireError): MonotonicMark {
  return callEnded.get(error) ?? markNow(systemClock)
}

/** When each error's call first sent an attempt that could have reached the service, on a monotonic clock. */
const firstSent = new WeakMap<PaywireError, MonotonicMark>()

/** Records when `error`'s call first sent an attempt that could have arrived (the transport does). */
export function markFirstSent(error: PaywireError, mark: MonotonicMark): void {
  firstSent.set(error, mark)
}

/**
 * When `error`'s call first sent an attempt that could have reached the service, if it did: a dedup
 * window that a resend must arrive in runs from there, not from when the call ended.
 */
export function firstSentMark(error: PaywireError): MonotonicMark | undefined {
  return firstSent.get(error)
}
