/**
 * The intent journal is the engine's step, not the transport's: `OperationClient` holds the
 * client's `journal` option, writes a money-moving call's intent before its first byte and closes
 * it on a definite outcome; `HttpClient` sends what it is given and knows no journal.
 */

import {
  type Intent,
  type IntentOutcome,
  MemoryIntentStore,
  ProblemDetailsError,
  RequestValidationError,
} from '@paywire/core'
import {
  defineOperation,
  OperationClient,
  openIntentsOf,
  problemAnswers,
  reconcileJournal,
  safe,
  unsentOnly,
} from '@paywire/core/engine'
import { faults, startFaultServer } from '@paywire/core/testing'
import { describe, expect, it, onTestFinished } from 'vitest'
import { z } from 'zod'
import { jsonHandler, makeClient, post } from './helpers.js'

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

/** A memory journal that also records, in `events`, each write and close in the order they happen. */
class RecordingStore extends MemoryIntentStore {
  constructor(readonly events: string[]) {
    super()
  }
  override open(intent: Intent): Promise<void> {
    this.events.push(`open ${intent.operation}`)
    return super.open(intent)
  }
  override close(id: string, outcome: IntentOutcome): Promise<void> {
    this.events.push(`close ${outcome}`)
    return super.close(id, outcome)
  }
}

/** A shop on a loopback server; the server and `journal` (made on the shared event list) record into one list. */
async function shop(journalOf: (events: string[]) => unknown = () => undefined) {
  const events: string[] = []
  const server = await startFaultServer((req, res, n) => {
    events.push(`arrived ${req.method}`)
    return faults.json(200, { ok: true })(req, res, n)
  })
  onTestFinished(() => server.close())
  const http = makeClient({ maxRetries: 0 })
  onTestFinished(() => http.close())
  const ops = new OperationClient<undefined>({
    http,
    baseUrls: { default: server.url },
    context: undefined,
    journal: journalOf(events),
    answers: problemAnswers(ShopError),
  })
  return { events, server, http, ops }
}

describe('the intent journal is the engine step', () => {
  it('writes a money-moving call before its first byte and closes it as applied on the answer', async () => {
    const { events, ops } = await shop((events) => new RecordingStore(events))
    await ops.call(charge, { body: { amount: '1.00' } })
    expect(events).toEqual(['open charges.create', 'arrived POST', 'close applied'])
    expect(await openIntentsOf(ops)).toEqual([])
  })

  it('leaves a lookup (safe to repeat) out of the journal', async () => {
    const { events, ops } = await shop((events) => new RecordingStore(events))
    await ops.call(lookup, {})
    expect(events).toEqual(['arrived GET'])
  })

  it('the transport knows no journal: a journal among its options writes nothing', async () => {
    const events: string[] = []
    const server = await startFaultServer(faults.json(200, { ok: true }))
    onTestFinished(() => server.close())
    const store = new RecordingStore(events)
    // A service client hands its options on to the transport; `journal` is not the transport's.
    const http = makeClient({ journal: store } as Parameters<typeof makeClient>[0])
    onTestFinished(() => http.close())
    await http.send(post(server.url, { retry: unsentOnly }), jsonHandler)
    expect(server.requests).toHaveLength(1)
    expect(events).toEqual([])
    expect('journal' in http).toBe(false)
  })

  it('refuses a journal that is not a whole intent store when the engine is made, naming the option', async () => {
    const error = await shop(() => ({ open: async () => {} })).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(RequestValidationError)
    expect(error).toMatchObject({
      issues: [{ path: 'journal', message: 'must be an intent store with open(), close() and openIntents()' }],
    })
  })

  it('reads and settles intents through the engine (pendingIntents, reconcileAll)', async () => {
    const store = new MemoryIntentStore()
    const { ops } = await shop(() => store)
    expect(await openIntentsOf(ops)).toEqual([])
    const settled = await reconcileJournal(ops, 'Shop', async () => {
      throw new Error('no intent to settle')
    })
    expect(settled).toEqual([])
    expect(ops.journal).toBe(store)
    expect(ops.service).toBe('core-test')
  })
})
