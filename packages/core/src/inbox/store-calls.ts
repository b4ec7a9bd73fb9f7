/**
 * How the inbox talks to its store through failures: a store that lacks the interface is refused
 * up front; a record is sent again with its token after a lost reply, within the delivery's
 * deadline; a done mark or a release is sent until acknowledged; a lease is renewed while its run
 * lasts. Every step is published on `paywire:claim` (the action and the store's answer, never data).
 */

import type { Clock } from '../clock.js'
import { PaywireError, RequestValidationError } from '../errors/errors.js'
import { type ClaimMessage, channelIfObserved, errorClass } from '../telemetry/telemetry.js'
import type { ClaimStore, NewEvent, RecordAnswer, StoredEvent } from './store.js'

/** The longest a store step on a caller's path may take (a delivery's record, a payment call's follow). */
export const STORE_STEP_DEADLINE_MS = 5_000
/** A record is sent this many times (one token) before the delivery is answered 503. */
const RECORD_ATTEMPTS = 3
/** The longest a delivery waits for its record: past it, 503 (five callback time-outs block the URL). */
const RECORD_DEADLINE_MS = STORE_STEP_DEADLINE_MS
/** Pauses between attempts at the store: doubling from the first, never above the last. */
const FIRST_PAUSE_MS = 20
const MAX_PAUSE_MS = 1_000

/** What a store must do for the inbox. */
const STORE_METHODS = [
  'record',
  'take',
  'takeDue',
  'renew',
  'complete',
  'release',
  'wake',
  'failedEvents',
  'retry',
  'forget',
  'prune',
] as const

const ANSWERS: ReadonlySet<unknown> = new Set<RecordAnswer>(['taken', 'recorded', 'known', 'done', 'held'])

/** Who is calling, for messages and telemetry. */
export interface Caller {
  readonly service: string
  readonly operation: string
  readonly store: ClaimStore
  readonly clock: Clock
}

/** Publishes an inbox store step on `paywire:claim` when someone subscribes: the action and its answer only. */
export function publishClaim(
  service: string,
  action: ClaimMessage['action'],
  state: string | undefined,
  error?: unknown,
): void {
  const channel = channelIfObserved('claim')
  if (channel === undefined) return
  const message: ClaimMessage = {
    action,
    service,
    state,
    ok: error === undefined,
    errorType: error === undefined ? undefined : errorClass(error),
  }
  channel.publish(message)
}

/** Refuses, by name, a store without every method of the interface (one written for the former claim interface). */
export function checkStore(operation: string, store: unknown): void {
  const missing = STORE_METHODS.filter((name) => typeof (store as Record<string, unknown>)?.[name] !== 'function')
  if (missing.length === 0) return
  throw new RequestValidationError(
    operation,
    [
      {
        path: 'store',
        message: `must be a ClaimStore (MemoryClaimStore, RedisClaimStore, PostgresClaimStore); it lacks ${missing.join(', ')} (a store written for the former claim/complete/release interface cannot record events)`,
      },
    ],
    'options',
  )
}

/**
 * The record, sent again with the same token after a failure (the store recognises its own write),
 * within the delivery's deadline; an answer outside the interface is never believed.
 */
export async function recordWithin(
  caller: Caller,
  event: NewEvent,
  token: string,
  leaseMs: number | undefined,
): Promise<RecordAnswer> {
  const { clock, store, operation } = caller
  const deadline = clock.now() + RECORD_DEADLINE_MS
  for (let attempt = 1; ; attempt++) {
    try {
      const answer = await withDeadline(store.record(event, token, leaseMs), deadline - clock.now())
      if (ANSWERS.has(answer)) return answer
      throw new RequestValidationError(operation, [
        { path: 'store.record', message: `answered ${JSON.stringify(answer)}, not one of ${[...ANSWERS].join(', ')}` },
      ])
    } catch (error) {
      if (attempt >= RECORD_ATTEMPTS || error instanceof RequestValidationError) throw error
      // Another attempt only with time for it: what is thrown then names why the last one failed.
      const left = deadline - clock.now()
      const pause = FIRST_PAUSE_MS * 2 ** (attempt - 1)
      if (left - pause < FIRST_PAUSE_MS) throw error
      await clock.sleep(pause)
    }
  }
}

/**
 * Sends a done mark or a release until the store acknowledges it: the same token makes a repeat
 * harmless, and a mark lost with a dropped connection would let the lease end and another instance
 * run the event again. Tried for two leases (past the first, another instance may take the event,
 * and the store then refuses the late mark by its token); then reported, never silent. `send` is
 * told which attempt it is.
 */
export async function untilAcknowledged<T>(
  caller: Caller & { readonly holdMs: number; report(error: unknown, event: StoredEvent): void },
  event: StoredEvent,
  what: 'complete' | 'release',
  send: (attempt: number) => Promise<T>,
): Promise<{ value: T; attempt: number } | undefined> {
  const { clock } = caller
  const ends = clock.now() + 2 * caller.holdMs
  for (let attempt = 1; ; attempt++) {
    try {
      const value = await send(attempt)
      publishClaim(caller.service, what, String(value))
      return { value, attempt }
    } catch (error) {
      publishClaim(caller.service, what, undefined, error)
      const left = ends - clock.now()
      if (left <= 0 || error instanceof RequestValidationError) {
        const consequence =
          what === 'complete'
            ? 'the event is not marked done, so another instance may run it again once its lease ends'
            : 'the event stays leased until its lease ends; recovery then runs it again'
        caller.report(
          new PaywireError(`${caller.operation}: the store failed ${what} ${attempt} times: ${consequence}`, {
            cause: error,
          }),
          event,
        )
        return undefined
      }
      await clock.sleep(Math.min(FIRST_PAUSE_MS * 2 ** (attempt - 1), MAX_PAUSE_MS, left))
    }
  }
}

/** Renews `token`'s lease every third of it until stopped; a lease lost to another instance is reported once. */
export function renewWhileRunning(
  caller: Caller & { readonly holdMs: number; report(error: unknown, event: StoredEvent): void },
  event: StoredEvent,
  token: string,
): { stop(): void } {
  let lost = false
  const timer = setInterval(
    () => {
      caller.store.renew(event.key, token, caller.holdMs).then(
        (held) => {
          publishClaim(caller.service, 'renew', held ? 'held' : 'lost')
          if (held || lost) return
          lost = true
          caller.report(
            new PaywireError(
              `${caller.operation}: the lease of ${JSON.stringify(event.key)} was lost while its run lasted (the store was unreachable for longer than holdMs); another instance may run it too`,
            ),
            event,
          )
        },
        (error: unknown) => publishClaim(caller.service, 'renew', undefined, error),
      )
    },
    Math.max(1, Math.floor(caller.holdMs / 3)),
  )
  timer.unref?.()
  return { stop: () => clearInterval(timer) }
}

/** Rejects when `promise` has not settled within `ms` (the work itself may still land later). */
export function withDeadline<T>(promise: Promise<T>, ms: number): Promise<T> {
  if (ms <= 0) return Promise.reject(new Error('no time left for the store'))
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the store did not answer within ${Math.round(ms)} ms`)), ms)
    timer.unref?.()
    promise.then(
      (value) => {
        clearTimeout(timer)
        resolve(value)
      },
      (error: unknown) => {
        clearTimeout(timer)
        reject(error)
      },
    )
  })
}
