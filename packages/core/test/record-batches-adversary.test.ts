/**
 * RecordBatches from the attacker's side: random bursts (fixed seed) against the batching rules,
 * items whose keys repeat their own, a blocked item behind a long stream, records made from inside
 * answers, a send that never settles, and a send that answers something that is not a list.
 */

import { describe, expect, it } from 'vitest'
import { mulberry32 } from '../../../tests/reliability/support/random.js'
import { RecordBatches, type RecordBatchesSetup } from '../src/inbox/record-batches.js'

interface Item {
  readonly id: number
  readonly keys: readonly string[]
}

const turn = () => new Promise<void>((resolve) => setImmediate(resolve))
const turns = async (n: number) => {
  for (let i = 0; i < n; i++) await turn()
}

/** Whether `promise` has settled once the microtasks queued so far have run (and a few turns more). */
/** A store's batches of test items: keyed by `item.keys`, 64 a batch unless told, size not counted. */
function batchesOf(setup: Partial<RecordBatchesSetup<Item, string>> & Pick<RecordBatchesSetup<Item, string>, 'send'>) {
  return new RecordBatches<Item, string>({
    operation: 'TestStore.record',
    maxItems: 64,
    sizeOf: () => 1,
    maxBytes: Number.MAX_SAFE_INTEGER,
    batchesInFlight: 1,
    keysOf: (item) => item.keys,
    ...setup,
  })
}

async function settledSoon(promise: Promise<unknown>): Promise<boolean> {
  let settled = false
  promise.then(
    () => {
      settled = true
    },
    () => {
      settled = true
    },
  )
  await turns(5)
  return settled
}

/** A store whose batches stay open until the test answers them. */
function openStore(maxItems = 64) {
  const sent: Array<{
    items: readonly Item[]
    answer: (answers: unknown) => void
    fail: (e: unknown) => void
  }> = []
  const batches = batchesOf({
    maxItems,
    send: (items) =>
      new Promise((answer, fail) => {
        sent.push({ items, answer: answer as (answers: unknown) => void, fail })
      }),
  })
  return { batches, sent }
}

const ids = (items: readonly Item[]) => items.map((item) => item.id)

describe('RecordBatches, adversarial', () => {
  it('random bursts (fixed seeds), one to three batches in flight: never more, never empty, never over maxItems, no key shared within or across the batches in flight, each key in add order, every record answered its own', async () => {
    for (const [batchesInFlight, seed] of [1, 2, 3].flatMap((b) => [1, 7, 42, 1234, 99991].map((seed) => [b, seed]))) {
      const random = mulberry32(seed as number)
      const maxItems = 1 + Math.floor(random() * 9)
      const keySpace = 3 + Math.floor(random() * 12)
      const key = () => `k${Math.floor(random() * keySpace)}`
      let inFlight = 0
      let sends = 0
      /** For each key, the ids of the items touching it, in add order, and how many of them were sent. */
      const byKey = new Map<string, number[]>()
      const sentOfKey = new Map<string, number>()
      const failures: string[] = []
      const ownError = new Set<number>()
      const keysInFlight = new Set<string>()
      const batches = batchesOf({
        maxItems,
        batchesInFlight: batchesInFlight as number,
        send: async (items) => {
          sends++
          if (inFlight >= (batchesInFlight as number)) failures.push(`seed ${seed}: ${inFlight + 1} batches in flight`)
          inFlight++
          if (items.length === 0) failures.push(`seed ${seed}: an empty batch`)
          if (items.length > maxItems) failures.push(`seed ${seed}: ${items.length} items > ${maxItems}`)
          const inBatch = new Set<string>()
          for (const item of items) {
            for (const k of new Set(item.keys)) {
              if (inBatch.has(k)) failures.push(`seed ${seed}: key ${k} twice in one batch`)
              if (keysInFlight.has(k)) failures.push(`seed ${seed}: key ${k} in two batches in flight`)
              inBatch.add(k)
              const order = byKey.get(k) ?? []
              const at = sentOfKey.get(k) ?? 0
              if (order[at] !== item.id) failures.push(`seed ${seed}: item ${item.id} passed ${order[at]} on ${k}`)
              sentOfKey.set(k, at + 1)
            }
          }
          for (const k of inBatch) keysInFlight.add(k)
          await turns(Math.floor(random() * 3))
          for (const k of inBatch) keysInFlight.delete(k)
          inFlight--
          const whole = random()
          if (whole < 0.05) throw new Error(`batch ${sends} lost`)
          if (whole < 0.08) return items.map((item) => `answer ${item.id}`).slice(1) // the wrong count
          return items.map((item) => (ownError.has(item.id) ? new Error(`own ${item.id}`) : `answer ${item.id}`))
        },
      })
      let next = 0
      const outcomes: Array<Promise<{ id: number; outcome: string }>> = []
      const add = (): void => {
        const id = next++
        const count = Math.floor(random() * 4) // 0 to 3 keys, repeats allowed (a key equal to its own previous key)
        const keys = Array.from({ length: count }, key)
        if (random() < 0.3 && keys.length > 0) keys.push(keys[0] as string)
        for (const k of new Set(keys)) byKey.set(k, [...(byKey.get(k) ?? []), id])
        if (random() < 0.1) ownError.add(id)
        const reentrant = random() < 0.2
        outcomes.push(
          batches.add({ id, keys }).then(
            (answer) => {
              // A caller that records again the moment its answer arrives.
              if (reentrant && next < 400) add()
              return { id, outcome: answer }
            },
            (error: Error) => {
              if (reentrant && next < 400) add()
              return { id, outcome: `error ${error.message}` }
            },
          ),
        )
      }
      while (next < 300) {
        const burst = Math.floor(random() * 6)
        for (let i = 0; i < burst; i++) add()
        await turns(Math.floor(random() * 2))
      }
      // Every record settles (reentrant ones included): wait for the list to stop growing.
      for (let seen = -1; seen !== outcomes.length; ) {
        seen = outcomes.length
        await Promise.all(outcomes)
      }
      const results = await Promise.all(outcomes)
      expect(failures).toEqual([])
      for (const { id, outcome } of results) {
        if (outcome.startsWith('error ')) {
          expect(outcome, `item ${id}`).toMatch(/^error (own \d+|batch \d+ lost|TestStore\.record: the store answered)/)
          if (outcome.startsWith('error own')) expect(outcome).toBe(`error own ${id}`)
        } else expect(outcome).toBe(`answer ${id}`)
      }
      for (const [k, order] of byKey) expect(sentOfKey.get(k) ?? 0, `every item of ${k} sent`).toBe(order.length)
    }
  })

  it('an item whose keys repeat its own is not held back by itself; one with no keys is never held back', async () => {
    const { batches, sent } = openStore()
    const blocker = batches.add({ id: 0, keys: ['x'] })
    const self = batches.add({ id: 1, keys: ['a', 'a', 'a'] })
    const none = batches.add({ id: 2, keys: [] })
    const none2 = batches.add({ id: 3, keys: [] })
    sent[0]?.answer(['ok'])
    await blocker
    await turns(2)
    expect(ids(sent[1]?.items ?? [])).toEqual([1, 2, 3])
    sent[1]?.answer(['one', 'two', 'three'])
    expect(await Promise.all([self, none, none2])).toEqual(['one', 'two', 'three'])
  })

  it('an item blocked by a key waits only for its predecessor, never behind a long stream of later items', async () => {
    const { batches, sent } = openStore(4)
    const first = batches.add({ id: 0, keys: ['hot'] })
    const blocked = batches.add({ id: 1, keys: ['hot'] })
    // A stream of later items on other keys, more than several batches' worth.
    const stream = Array.from({ length: 20 }, (_, i) => batches.add({ id: 2 + i, keys: [`s${i}`] }))
    sent[0]?.answer(['taken'])
    await first
    await turns(2)
    // The blocked item is now the oldest waiting: it goes first in the very next batch.
    expect(ids(sent[1]?.items ?? [])).toEqual([1, 2, 3, 4])
    for (let i = 1; i < sent.length || i < 7; i++) {
      sent[i]?.answer(sent[i]?.items.map((item) => `a${item.id}`) ?? [])
      await turns(2)
    }
    expect(await blocked).toBe('a1')
    expect(await Promise.all(stream)).toEqual(Array.from({ length: 20 }, (_, i) => `a${2 + i}`))
    expect(sent.map((s) => s.items.length)).toEqual([1, 4, 4, 4, 4, 4, 1])
  })

  it('a later item never passes an earlier one on a shared key, even when the earlier one is only left out by maxItems', async () => {
    const { batches, sent } = openStore(2)
    const blocker = batches.add({ id: 0, keys: ['z'] })
    const all = [
      batches.add({ id: 1, keys: ['a'] }),
      batches.add({ id: 2, keys: ['b'] }),
      batches.add({ id: 3, keys: ['c'] }), // left out: the batch is full
      batches.add({ id: 4, keys: ['d', 'c'] }), // shares c with 3: must not go before it
      batches.add({ id: 5, keys: ['e'] }),
    ]
    sent[0]?.answer(['ok'])
    await blocker
    for (let i = 1; i <= 3; i++) {
      await turns(2)
      sent[i]?.answer(sent[i]?.items.map((item) => `a${item.id}`) ?? [])
    }
    expect(sent.slice(1).map((s) => ids(s.items))).toEqual([[1, 2], [3, 5], [4]])
    expect(await Promise.all(all)).toEqual(['a1', 'a2', 'a3', 'a4', 'a5'])
  })

  it('a thousand records made in one tick: the first alone, then full batches, each answered its own', async () => {
    const sizes: number[] = []
    const batches = batchesOf({
      send: async (items) => {
        sizes.push(items.length)
        return items.map((item) => `a${item.id}`)
      },
    })
    const all = Array.from({ length: 1000 }, (_, id) => batches.add({ id, keys: [`k${id}`] }))
    expect(await Promise.all(all)).toEqual(Array.from({ length: 1000 }, (_, id) => `a${id}`))
    expect(sizes).toEqual([1, ...Array.from({ length: 15 }, () => 64), 999 - 15 * 64])
  })

  it('a thousand records made in one tick, two batches in flight: the first alone, then full batches, one leaving per turn, each answered its own', async () => {
    const sizes: number[] = []
    let sentThisTurn = 0
    let mostInOneTurn = 0
    const batches = batchesOf({
      batchesInFlight: 2,
      send: async (items) => {
        sizes.push(items.length)
        if (sentThisTurn++ === 0) setImmediate(() => (sentThisTurn = 0))
        mostInOneTurn = Math.max(mostInOneTurn, sentThisTurn)
        return items.map((item) => `a${item.id}`)
      },
    })
    const all = Array.from({ length: 1000 }, (_, id) => batches.add({ id, keys: [`k${id}`] }))
    expect(await Promise.all(all)).toEqual(Array.from({ length: 1000 }, (_, id) => `a${id}`))
    expect({
      first: sizes[0],
      full: sizes.slice(1, -1).every((size) => size === 64),
      total: sizes.reduce((a, b) => a + b),
    }).toEqual({ first: 1, full: true, total: 1000 })
    expect(mostInOneTurn).toBe(1)
  })

  it('a chain of records each made inside the previous answer settles to the end (no lost wake-up)', async () => {
    const batches = batchesOf({
      send: async (items) => items.map((item) => `a${item.id}`),
    })
    const chain = (id: number): Promise<string> =>
      batches.add({ id, keys: ['same'] }).then((answer) => (id < 200 ? chain(id + 1) : answer))
    expect(await chain(0)).toBe('a200')
  })

  it('a send that never settles holds every later record, of any key, until SLOW_BATCH_MS or the store’s own deadline', async () => {
    let release: ((error: Error) => void) | undefined
    let calls = 0
    const batches = batchesOf({
      send: (items) => {
        calls++
        if (calls === 1)
          return new Promise((_resolve, reject) => {
            release = reject
          })
        return Promise.resolve(items.map((item) => `a${item.id}`))
      },
    })
    const hung = batches.add({ id: 0, keys: ['a'] })
    const other = batches.add({ id: 1, keys: ['unrelated'] })
    expect(await settledSoon(other)).toBe(false)
    expect(calls).toBe(1)
    // The store's deadline: the hung batch rejects, and the one behind it goes.
    release?.(new Error('deadline'))
    await expect(hung).rejects.toThrow('deadline')
    expect(await other).toBe('a1')
  })

  it('keysOf throwing for one item rejects that record only; the queue keeps working', async () => {
    const batches = batchesOf({
      keysOf: (item) => {
        if (item.id === 1) throw new Error('no keys for you')
        return item.keys
      },
      send: async (items) => items.map((item) => `a${item.id}`),
    })
    const [a, b, c] = [0, 1, 2].map((id) => batches.add({ id, keys: [`k${id}`] }))
    expect(await a).toBe('a0')
    await expect(b).rejects.toThrow('no keys for you')
    expect(await c).toBe('a2')
  })

  it('a send that resolves with something not a list still settles every record of its batch', async () => {
    // The contract says send resolves to a list; a store (or client double) that answers null
    // breaks it. Found by this review: `answers.length` of null was read outside the try, #write
    // rejected unhandled, and the batch's callers waited for ever.
    const unhandled: unknown[] = []
    const saved = process.listeners('unhandledRejection')
    process.removeAllListeners('unhandledRejection')
    const mine = (reason: unknown) => unhandled.push(reason)
    process.on('unhandledRejection', mine)
    try {
      const { batches, sent } = openStore()
      const blocker = batches.add({ id: 0, keys: ['x'] })
      const both = [batches.add({ id: 1, keys: ['a'] }), batches.add({ id: 2, keys: ['b'] })]
      sent[0]?.answer(['ok'])
      await blocker
      await turns(2)
      sent[1]?.answer(null)
      const settled = await Promise.all(both.map(settledSoon))
      expect({ settled, unhandled: unhandled.length }).toEqual({ settled: [true, true], unhandled: 0 })
    } finally {
      process.off('unhandledRejection', mine)
      for (const listener of saved) process.on('unhandledRejection', listener)
    }
  })
})
