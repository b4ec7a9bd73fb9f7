/**
 * `keepIntentOpen`: the journal leaves a call's intent open whatever its outcome, for the merchant to
 * close in the transaction that records the result; the result and the error carry the intent's id.
 * Without it, the SDK closes on a definite outcome as before, and the id is still given.
 */

import {
  type Intent,
  type IntentOutcome,
  MemoryIntentStore,
  type PaywireError,
  ProblemDetailsError,
  RequestValidationError,
} from '@paywire/core'
import { defineOperation, OperationClient, problemAnswers, safe, unsentOnly } from '@paywire/core/engine'
import { faults, startFaultServer } from '@paywire/core/testing'
import { expect, it, onTestFinished } from 'vitest'
import { z } from 'zod'
import { makeClient } from './helpers.js'

class ShopError extends ProblemDetailsError {}

const charge = defineOperation({
  name: 'charges.create',
  method: 'POST',
  path: '/charges',
  params: z.object({ amount: z.string() }).strict(),
  retry: unsentOnly,
  idempotency: { header: 'Idempotency-Key', generate: true },
})
const lookup = defineOperation({ name: 'charges.list', method: 'GET', path: '/charges', retry: safe })

/** A memory journal that records each close. */
class ClosingStore extends MemoryIntentStore {
  readonly closes: [string, IntentOutcome][] = []
  override async close(id: string, outcome: IntentOutcome): Promise<void> {
    this.closes.push([id, outcome])
    return super.close(id, outcome)
  }
}

async function shop(answer: Parameters<typeof startFaultServer>[0], journal: unknown) {
  const server = await startFaultServer(answer)
  onTestFinished(() => server.close())
  const http = makeClient({ maxRetries: 0 })
  onTestFinished(() => http.close())
  const ops = new OperationClient<undefined>({
    http,
    baseUrls: { default: server.url },
    context: undefined,
    journal,
    answers: problemAnswers(ShopError),
  })
  return { server, ops }
}

const open = (store: MemoryIntentStore) => store.openIntents('core-test').then((all) => all.map((i: Intent) => i.id))

it('keepIntentOpen: the answer leaves the intent open, and withResponse() gives its id to close with the result', async () => {
  const store = new ClosingStore()
  const { ops } = await shop(faults.json(200, { ok: true }), store)
  const { data, intentId } = await ops
    .call(charge, { body: { amount: '1.00' } }, { keepIntentOpen: true })
    .withResponse()
  expect(data).toStrictEqual({ ok: true })
  expect(intentId).toEqual(expect.any(String))
  expect(store.closes).toStrictEqual([])
  expect(await open(store)).toStrictEqual([intentId])
  // The merchant records the result, then closes it (on PostgreSQL: closeIn, in the same transaction).
  await store.close(intentId as string, 'applied')
  expect(await open(store)).toStrictEqual([])
})

it('without it the answer closes the intent as before, and its id is still given', async () => {
  const store = new ClosingStore()
  const { ops } = await shop(faults.json(200, { ok: true }), store)
  const { intentId } = await ops.call(charge, { body: { amount: '1.00' } }).withResponse()
  expect(store.closes).toStrictEqual([[intentId, 'applied']])
  expect(await open(store)).toStrictEqual([])
})

it('keepIntentOpen: a definite refusal leaves the intent open too; the error carries its id', async () => {
  const store = new ClosingStore()
  const { ops } = await shop(faults.json(422, { type: 'about:blank', title: 'Unprocessable', status: 422 }), store)
  const error = await ops.call(charge, { body: { amount: '1.00' } }, { keepIntentOpen: true }).catch((e: unknown) => e)
  expect(error).toBeInstanceOf(ShopError)
  expect((error as PaywireError).outcomeUnknown).toBe(false)
  const intentId = (error as PaywireError).intentId
  expect(intentId).toEqual(expect.any(String))
  expect(store.closes).toStrictEqual([])
  expect(await open(store)).toStrictEqual([intentId])
})

it('without it a definite refusal closes the intent as not_applied; an unknown outcome leaves it open; both errors carry the id', async () => {
  const store = new ClosingStore()
  const refused = await shop(faults.json(422, { type: 'about:blank', title: 'Unprocessable', status: 422 }), store)
  const refusal = (await refused.ops
    .call(charge, { body: { amount: '1.00' } })
    .catch((e: unknown) => e)) as PaywireError
  expect(store.closes).toStrictEqual([[refusal.intentId, 'not_applied']])

  const lost = await shop(faults.json(503, { type: 'about:blank', title: 'Unavailable', status: 503 }), store)
  const unknown = (await lost.ops.call(charge, { body: { amount: '1.00' } }).catch((e: unknown) => e)) as PaywireError
  expect(unknown.outcomeUnknown).toBe(true)
  expect(await open(store)).toStrictEqual([unknown.intentId])
  expect(JSON.parse(JSON.stringify(unknown))).toMatchObject({ intentId: unknown.intentId })
})

it('errors of calls that wrote no intent carry no intentId', async () => {
  const { ops } = await shop(faults.json(503, { type: 'about:blank', title: 'Unavailable', status: 503 }), undefined)
  const error = (await ops.call(charge, { body: { amount: '1.00' } }).catch((e: unknown) => e)) as PaywireError
  expect(error.outcomeUnknown).toBe(true)
  expect('intentId' in error).toBe(false)
})

it('keepIntentOpen where no intent is written is refused, naming it, before anything is sent', async () => {
  const store = new ClosingStore()
  const journaled = await shop(faults.json(200, { ok: true }), store)
  const bare = await shop(faults.json(200, { ok: true }), undefined)
  const refusals = [
    await bare.ops.call(charge, { body: { amount: '1.00' } }, { keepIntentOpen: true }).catch((e: unknown) => e),
    await journaled.ops.call(lookup, {}, { keepIntentOpen: true }).catch((e: unknown) => e),
    await journaled.ops
      .request({ method: 'POST', path: '/charges', body: {} }, { keepIntentOpen: true })
      .catch((e: unknown) => e),
    await journaled.ops
      .call(charge, { body: { amount: '1.00' } }, { keepIntentOpen: 'yes' as unknown as boolean })
      .catch((e: unknown) => e),
  ]
  for (const refusal of refusals) {
    expect(refusal).toBeInstanceOf(RequestValidationError)
    expect((refusal as RequestValidationError).issues.map((issue) => issue.path)).toStrictEqual(['keepIntentOpen'])
  }
  expect((refusals[0] as Error).message).toMatch(/this client has no journal/)
  expect((refusals[1] as Error).message).toMatch(/only money-moving calls are journaled/)
  expect(journaled.server.requests).toHaveLength(0)
  expect(bare.server.requests).toHaveLength(0)
  expect(store.closes).toStrictEqual([])
  expect(await open(store)).toStrictEqual([])
})
