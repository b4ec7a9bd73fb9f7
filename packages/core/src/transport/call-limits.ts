/**
 * The limits of one call across its attempts: its total deadline, a dedup window's close, the time
 * each attempt may take, whether a retry still fits, and work outside any attempt bounded by the call.
 */

import type { Clock } from '../clock.js'
import {
  type AttemptFailure,
  type BackoffOptions,
  policyAllowsRetry,
  type RetryPolicy,
  retryDelay,
} from '../operations/retry.js'
import type { AttemptBudget } from './attempt-failure.js'

/**
 * How much earlier than the service we close a dedup window. Our window starts when the first
 * attempt that may have arrived left this machine, which is already earlier than the service's
 * (it starts on receipt); the margin covers the difference in network latency between that
 * attempt and the retry, and clock-rate drift, with room to spare on any path where 15 s matters.
 */
export const WINDOW_MARGIN_MS = 1_000

/** Where one call stands across its attempts: what the retry decision and the next attempt need. */
export interface CallState {
  /** Monotonic time the total deadline ends. */
  readonly deadline: number
  readonly timeout: number
  readonly maxRetries: number
  /** Monotonic start of the first attempt that may have reached the service; a dedup window runs from it. */
  firstArrival: number | undefined
  /** Whether an attempt so far may have acted (arrived and got no answer saying it did not). */
  mayHaveActed: boolean
}

/** Monotonic time a dedup window closes for the call, with our margin; never for other policies. */
function windowClose(policy: RetryPolicy, state: CallState): number {
  if (policy.kind !== 'window' || state.firstArrival === undefined) return Number.POSITIVE_INFINITY
  return state.firstArrival + policy.windowMs - WINDOW_MARGIN_MS
}

/**
 * The next attempt's time limit: the per-attempt timeout, cut by the total deadline and, for a
 * window operation once an earlier attempt may have arrived, by the window's close, so the retry
 * either arrives inside the window or is abandoned before it could arrive outside it.
 */
export function attemptBudget(policy: RetryPolicy, state: CallState, now: number): AttemptBudget {
  let budget: AttemptBudget = { ms: state.timeout, phase: undefined }
  const remaining = state.deadline - now
  if (remaining < budget.ms) budget = { ms: remaining, phase: 'total' }
  const windowLeft = windowClose(policy, state) - now
  if (windowLeft < budget.ms) budget = { ms: windowLeft, phase: 'window' }
  return budget
}

/** How a client backs off: its tuning, its randomness, its clock. */
export interface Backoff {
  readonly options: BackoffOptions
  readonly random: () => number
  readonly clock: Clock
}

/**
 * The delay before the next attempt, or `undefined` for none. Early returns, one rule each: the
 * budget of retries, the policy, the backoff, the deadline, the window.
 */
export function nextRetryDelay(
  policy: RetryPolicy,
  failure: AttemptFailure,
  attempt: number,
  state: CallState,
  backoff: Backoff,
): number | undefined {
  if (attempt > state.maxRetries) return undefined
  if (!policyAllowsRetry(policy, failure)) return undefined
  const delay = retryDelay(attempt, failure, backoff.options, backoff.random)
  if (delay === undefined) return undefined
  const resumeAt = backoff.clock.now() + delay
  if (resumeAt >= state.deadline) return undefined
  // Once any attempt may have arrived, a repeat outside the dedup window is a new payment, not a
  // replay (card rule, Limits 1), whatever the latest failure was: the retry must arrive inside.
  if (resumeAt >= windowClose(policy, state)) return undefined
  return delay
}

/**
 * `work` done outside any attempt (the first load of undici; a schema checking the answer
 * asynchronously; the engine's step before the first attempt), still bounded by the call: if its
 * total `deadline` passes or its signal aborts first, it rejects with the error `ended` makes for
 * that (`'total'` or `'abort'`), made only then.
 */
export async function untilCallEnds<T>(
  work: PromiseLike<T>,
  deadline: number,
  clock: Clock,
  signal: AbortSignal | undefined,
  ended: (why: 'total' | 'abort') => Error,
): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  let onAbort: (() => void) | undefined
  // A real timer, like the attempts' deadline list: an injected test clock's sleep returns at once.
  const stopped = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(ended('total')), Math.max(0, deadline - clock.now()))
    timer.unref()
    onAbort = () => reject(ended('abort'))
    if (signal?.aborted) onAbort()
    else signal?.addEventListener('abort', onAbort, { once: true })
  })
  try {
    return await Promise.race([work, stopped])
  } finally {
    clearTimeout(timer)
    if (onAbort) signal?.removeEventListener('abort', onAbort)
  }
}
