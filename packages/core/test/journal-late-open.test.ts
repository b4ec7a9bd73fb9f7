/**
 * From the attacker's side: a journal `open` that loses the race with the call's deadline (or its
 * abort) still lands later. The call was refused with nothing sent, yet its intent stayed open for
 * ever, and for an operation whose lookup cannot prove absence (a remittance transfer, a bill
 * payment, a card credit) `reconcileAll()` kept answering `still_unknown`: nothing could close it.
 * Now the call chains a close onto the pending open: should it land, it is closed as `not_applied`.
 */

import { type Intent, type IntentOutcome, MemoryIntentStore, ProblemDetailsError } from '@paywire/core'
import { defineOperation, OperationClient, problemAnswers, unsentOnly } from '@paywire/core/engine'
import { faults, startFaultServer } from '@paywire/core/testing'
import { expect, it, onTestFinished } from 'vitest'
import { z } from 'zod'
import { makeClient } from './helpers.js'

class ShopError extends ProblemDetailsError {}

const transfer = defineOperation({
  name: 'transfers.create',
  method: 'POST',
  path: '/transfers',
  params: z.object({ amount: z.string() }).strict(),
  retry: unsentOnly,
  idempotency: { header: 'Idempotency-Key', generate: true },
})

/** A promise and its resolve. */
function deferred<T = void>(): { promise: Promise<T>; resolve(value: T): void; reject(error: unknown): void } {
  let resolve!: (value: T) => void
  let reject!: (error: unknown) => void
  const promise = new Promise<T>((res, rej) => {
    resolve = res
    reject = rej
  })
  return { promise, resolve, reject }
}

/** `promise`, or the string `never` when it has not settled within 5 s (the test's patience). */
async function within<T>(promise: Promise<T>): Promise<T | 'never'> {
  let timer: NodeJS.Timeout | undefined
  const never = new Promise<'never'>((resolve) => {
    timer = setTimeout(() => resolve('never'), 5_000)
  })
  try {
    return await Promise.race([promise, never])
  } finally {
    clearTimeout(timer)
  }
}

/** A journal whose `open` answers only when the test says (`land`, or `fail`), and that reports each close. */
class LateStore extends MemoryIntentStore {
  readonly started = deferred<Intent>()
  readonly #answer = deferred()
  readonly closes: [string, IntentOutcome][] = []
  readonly closed = deferred()

  override async open(intent: Intent): Promise<void> {
    this.started.resolve(intent)
    await this.#answer.promise
    return super.open(intent)
  }
  land(): void {
    this.#answer.resolve()
  }
  fail(): void {
    this.#answer.reject(new Error('the store gave up'))
  }
  override async close(id: string, outcome: IntentOutcome): Promise<void> {
    await super.close(id, outcome)
    this.closes.push([id, outcome])
    this.closed.resolve()
  }
}

async function shop(store: LateStore, totalTimeout: number) {
  const server = await startFaultServer(faults.json(200, { ok: true }))
  onTestFinished(() => server.close())
  const http = makeClient({ maxRetries: 0, totalTimeout })
  onTestFinished(() => http.close())
  const ops = new OperationClient<undefined>({
    http,
    baseUrls: { default: server.url },
    context: undefined,
    journal: store,
    answers: problemAnswers(ShopError),
  })
  return { server, ops }
}

it('the deadline wins over open: the call is refused with nothing sent, and the intent, landing later, is closed as not_applied', async () => {
  const store = new LateStore()
  const { server, ops } = await shop(store, 200)
  const started = performance.now()
  const error = await ops.call(transfer, { body: { amount: '10.00' } }).catch((e: unknown) => e)
  expect(performance.now() - started).toBeLessThan(2_000)
  expect(error).toMatchObject({ name: 'TimeoutError', phase: 'total', requestSent: false, outcomeUnknown: false })
  expect(server.requests).toHaveLength(0)
  const intent = await store.started.promise

  // The store answers at last: the write lands after the call gave up on it.
  store.land()
  expect(await within(store.closed.promise), 'the late intent was never closed: it stays open for ever').not.toBe(
    'never',
  )
  expect(store.closes).toStrictEqual([[intent.id, 'not_applied']])
  expect(await store.openIntents('core-test')).toStrictEqual([])
})

it("the caller's abort wins over open: the same, closed as not_applied once it lands", async () => {
  const store = new LateStore()
  const { server, ops } = await shop(store, 60_000)
  const abort = new AbortController()
  const call = ops.call(transfer, { body: { amount: '10.00' } }, { signal: abort.signal }).catch((e: unknown) => e)
  const intent = await store.started.promise
  abort.abort(new Error('the merchant gave up'))
  expect(await call).toMatchObject({ name: 'UserAbortError', requestSent: false, outcomeUnknown: false })
  expect(server.requests).toHaveLength(0)

  store.land()
  expect(await within(store.closed.promise), 'the late intent was never closed').not.toBe('never')
  expect(store.closes).toStrictEqual([[intent.id, 'not_applied']])
  expect(await store.openIntents('core-test')).toStrictEqual([])
})

it('an open that fails after the call gave up closes nothing, and leaves no unhandled rejection', async () => {
  const store = new LateStore()
  const { ops } = await shop(store, 200)
  const unhandled: unknown[] = []
  const onUnhandled = (reason: unknown) => unhandled.push(reason)
  process.on('unhandledRejection', onUnhandled)
  onTestFinished(() => {
    process.off('unhandledRejection', onUnhandled)
  })
  expect(await ops.call(transfer, { body: { amount: '10.00' } }).catch((e: unknown) => e)).toMatchObject({
    requestSent: false,
  })
  store.fail()
  // Two turns of the event loop: a rejection nobody handled is reported by then.
  await new Promise((resolve) => setImmediate(resolve))
  await new Promise((resolve) => setImmediate(resolve))
  expect(store.closes).toStrictEqual([])
  expect(unhandled).toStrictEqual([])
})
