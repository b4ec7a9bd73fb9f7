/**
 * The intent journal step of the engine: a money-moving call is written to the journal before its
 * first attempt and closed once its outcome is definite, so `reconcileAll()` can settle the rest.
 */

import type { ApiPromise, WithResponse } from '../api-promise.js'
import { nodeCrypto } from '../builtins.js'
import { anchoredDate, type Clock } from '../clock.js'
import { PaywireError, RequestValidationError } from '../errors/errors.js'
import { channelIfObserved, errorClass, type IntentMessage } from '../telemetry/telemetry.js'
import type { HttpClient } from '../transport/http-client.js'
import type { HttpRequest } from '../transport/request.js'
import { forgetIntentMark, markIntentWritten } from './intent-marks.js'
import type { Intent, IntentOutcome, IntentStore } from './stores.js'

/** Publishes a journal step on `paywire:intent` when someone subscribes: ids and names only. */
function intentEvent(
  action: IntentMessage['action'],
  intent: Pick<Intent, 'id' | 'service' | 'operation'>,
  outcome: IntentOutcome | undefined,
  error?: unknown,
): void {
  const channel = channelIfObserved('intent')
  if (channel === undefined) return
  const message: IntentMessage = {
    action,
    service: intent.service,
    operation: intent.operation,
    intentId: intent.id,
    outcome,
    ok: error === undefined,
    errorType: error === undefined ? undefined : errorClass(error),
  }
  channel.publish(message)
}

/**
 * A money-moving call through the intent journal: the intent is durable before anything is sent (a
 * journal that refuses the write refuses the call), closed as `applied` on a result and as
 * `not_applied` on an error that proves the service did not act; an unknown outcome leaves it open
 * for `reconcileAll()`. A failed close leaves it open too: reconciling it later is safe (lookups only).
 * The write runs inside the call's deadline and signal (`send`'s first step): when it does not
 * finish in time the call ends with nothing sent, and a close as `not_applied` is chained onto the
 * pending write, so an intent that lands after the call gave up on it does not stay open for ever
 * (for a lookup that cannot prove absence it would be `still_unknown` for ever). It records
 * `callLimitMs`, so no lookup settles the call as not applied while it may still be on its way.
 * With `keepOpen` (the call's `keepIntentOpen`) a written intent is never closed here: the caller
 * closes it in the transaction that records the result, so the two commit together. The result
 * and the error carry the intent's id.
 */
export async function journaled<T>(
  journal: IntentStore,
  http: HttpClient,
  request: HttpRequest,
  params: unknown,
  send: (open: () => Promise<void>) => ApiPromise<T>,
  keepOpen = false,
): Promise<WithResponse<T>> {
  const clock = http.clock
  const deadline = clock.now() + http.totalTimeout
  const intent: Intent = {
    id: nodeCrypto().randomUUID(),
    service: http.service,
    operation: request.operation,
    params: params === undefined ? null : params,
    reconciliation: request.reconciliation,
    idempotencyKey: request.idempotencyKey,
    // Wall time anchored on the monotonic clock (see anchoredDate): another process can measure the
    // settle delay from it without a wall-clock step of this one moving it.
    createdAt: anchoredDate(clock),
    callLimitMs: http.totalTimeout,
    target: request.base ?? new URL(request.url).origin,
    account: http.account,
  }
  let opened = false
  /** Whether the write landed, once the store answered it: set as soon as `open` starts. */
  let landed: Promise<boolean> | undefined
  const open = async () => {
    markIntentWritten(intent.id, clock)
    // A store that throws instead of rejecting is a rejection like any other.
    const writing = Promise.resolve().then(() => journal.open(intent))
    landed = writing.then(
      () => true,
      () => false,
    )
    try {
      await writing
    } catch (cause) {
      forgetIntentMark(intent.id)
      intentEvent('open', intent, undefined, cause ?? 'failed')
      throw new PaywireError(
        `${request.operation}: the intent journal did not record the call, so nothing was sent (${String(cause)}).`,
        { cause },
      )
    }
    opened = true
    intentEvent('open', intent, undefined)
  }
  let outcome: WithResponse<T>
  try {
    outcome = await send(open).withResponse()
  } catch (error) {
    const definite = error instanceof PaywireError && !error.outcomeUnknown
    if (opened) {
      if (error instanceof PaywireError)
        Object.defineProperty(error, 'intentId', { value: intent.id, enumerable: true })
      if (keepOpen) handedOver(intent)
      else if (definite) await closeBy(deadline, clock, journal, intent, 'not_applied')
    } else if (landed !== undefined) {
      // The call gave up on a write that has not answered (its deadline or abort won): it sent
      // nothing, since nothing is sent before the write lands. Should the write land after all, its
      // intent is closed then (with keepOpen too: the caller, told nothing was written, has no intent
      // to close, and a close of its own could run before the write lands); the caller does not wait.
      void landed.then((wrote) => (wrote ? closeQuietly(journal, intent, 'not_applied') : undefined))
    }
    throw error
  }
  if (keepOpen) handedOver(intent)
  else await closeBy(deadline, clock, journal, intent, 'applied')
  return { ...outcome, intentId: intent.id }
}

/**
 * An intent left open for the caller to close in its own transaction: this process will not see
 * that close, so its mark is dropped now rather than kept for ever. Reconciling it here still
 * measures exactly: its anchored `createdAt` and this client's clock share one anchor.
 */
function handedOver(intent: Intent): void {
  forgetIntentMark(intent.id)
}

/**
 * Closes the intent, waiting no later than the call's deadline: a store that stalls must not keep
 * the caller from an answer the service gave. A close still pending then leaves the intent open,
 * which is safe: `reconcileAll()` settles it by lookup.
 */
async function closeBy(
  deadline: number,
  clock: Clock,
  journal: IntentStore,
  intent: Intent,
  outcome: IntentOutcome,
): Promise<void> {
  let timer: NodeJS.Timeout | undefined
  // A real timer, like the call's own deadline: an injected test clock's sleep returns at once.
  const late = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, Math.max(0, deadline - clock.now()))
    timer.unref()
  })
  try {
    await Promise.race([closeQuietly(journal, intent, outcome), late])
  } finally {
    clearTimeout(timer)
  }
}

async function closeQuietly(journal: IntentStore, intent: Intent, outcome: IntentOutcome): Promise<void> {
  try {
    await journal.close(intent.id, outcome)
    forgetIntentMark(intent.id)
    intentEvent('close', intent, outcome)
  } catch (error) {
    intentEvent('close', intent, outcome, error ?? 'failed')
    // The intent stays open; reconcileAll() settles it with a lookup, which never moves money.
  }
}

/** A journal must be a whole `IntentStore`: a half one would fail only once money is moving. */
export function checkJournal(journal: unknown): IntentStore | undefined {
  if (journal === undefined) return undefined
  const store = journal as Partial<Record<keyof IntentStore, unknown>> | null
  if (
    typeof store === 'object' &&
    store !== null &&
    typeof store.open === 'function' &&
    typeof store.close === 'function' &&
    typeof store.openIntents === 'function'
  ) {
    return journal as IntentStore
  }
  throw new RequestValidationError(
    'client',
    [{ path: 'journal', message: 'must be an intent store with open(), close() and openIntents()' }],
    'options',
  )
}
