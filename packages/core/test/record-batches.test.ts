/**
 * Group commit of a store's records: who goes in which batch, and whose answer each caller gets,
 * when the store answers, fails one item, fails the batch, throws, or answers a wrong count.
 */

import { afterEach, describe, expect, it, vi } from 'vitest'
import { RecordBatches, SLOW_BATCH_MS } from '../src/inbox/record-batches.js'

interface Item {
  readonly key: string
  readonly previous?: readonly string[]
  readonly size?: number
}

/** A store whose batches stay open until the test answers them. */
function openStore(maxItems = 64, batchesInFlight = 1) {
  const sent: Array<{
    items: readonly Item[]
    answer: (answers: ReadonlyArray<string | Error>) => void
    fail: (e: unknown) => void
  }> = []
  const batches = new RecordBatches<Item, string>({
    operation: 'TestStore.record',
    maxItems,
    keysOf: (item) => [item.key, ...(item.previous ?? [])],
    sizeOf: (item) => item.size ?? 1,
    maxBytes: 100,
    batchesInFlight,
    send: (items) =>
      new Promise((answer, fail) => {
        sent.push({ items, answer, fail })
      }),
  })
  return { batches, sent }
}

const keys = (items: readonly Item[]) => items.map((item) => item.key)

/** One turn of the event loop. */
const turn = () => new Promise<void>((resolve) => setImmediate(resolve))

/** Lets the answered callers run, then the next batch leave (it goes on the turn after its predecessor's answers). */
const settle = async () => {
  for (let turn = 0; turn < 2; turn++) await new Promise<void>((resolve) => setImmediate(resolve))
}

describe('RecordBatches', () => {
  it('sends a lone record at once, and what arrives while it is written in one batch after it', async () => {
    const { batches, sent } = openStore()
    const first = batches.add({ key: 'a' })
    expect(sent.map((s) => keys(s.items))).toEqual([['a']])
    const rest = ['b', 'c', 'd'].map((key) => batches.add({ key }))
    // One batch in flight: the three wait.
    expect(sent).toHaveLength(1)
    sent[0]?.answer(['recorded'])
    expect(await first).toBe('recorded')
    await settle()
    expect(sent.map((s) => keys(s.items))).toEqual([['a'], ['b', 'c', 'd']])
    sent[1]?.answer(['recorded', 'known', 'done'])
    expect(await Promise.all(rest)).toEqual(['recorded', 'known', 'done'])
  })

  it('never puts two records of one key, or of a key and its previous key, in one batch, nor lets a later one pass', async () => {
    const { batches, sent } = openStore()
    const blocker = batches.add({ key: 'x' })
    const waiting = [
      batches.add({ key: 'a' }),
      batches.add({ key: 'a' }),
      batches.add({ key: 'b', previous: ['a'] }),
      batches.add({ key: 'c' }),
      // Waits behind the 'b' record passed over, though nothing taken names 'b'.
      batches.add({ key: 'b' }),
    ]
    sent[0]?.answer(['recorded'])
    await blocker
    await settle()
    expect(keys(sent[1]?.items ?? [])).toEqual(['a', 'c'])
    sent[1]?.answer(['recorded', 'recorded'])
    await settle()
    expect(keys(sent[2]?.items ?? [])).toEqual(['a'])
    sent[2]?.answer(['known'])
    await settle()
    expect(keys(sent[3]?.items ?? [])).toEqual(['b'])
    sent[3]?.answer(['recorded'])
    await settle()
    expect(keys(sent[4]?.items ?? [])).toEqual(['b'])
    sent[4]?.answer(['known'])
    expect(await Promise.all(waiting)).toEqual(['recorded', 'known', 'recorded', 'recorded', 'known'])
  })

  it('a record made by a caller as its answer arrives joins the next batch, not one of its own', async () => {
    const { batches, sent } = openStore()
    // A store's record and its caller: async functions, a few promise hops between the answer and the next record.
    const record = async (item: Item) => {
      const answer = await batches.add(item)
      await Promise.resolve()
      return answer
    }
    const again = record({ key: 'a' }).then(async () => {
      await Promise.resolve()
      return record({ key: 'a2' })
    })
    const others = ['b', 'c'].map((key) => batches.add({ key }))
    sent[0]?.answer(['recorded'])
    await settle()
    expect(sent.map((s) => keys(s.items))).toEqual([['a'], ['b', 'c', 'a2']])
    sent[1]?.answer(['recorded', 'recorded', 'recorded'])
    expect(await Promise.all([again, ...others])).toEqual(['recorded', 'recorded', 'recorded'])
  })

  it('carries at most maxItems, the oldest first', async () => {
    const { batches, sent } = openStore(2)
    const all = ['a', 'b', 'c', 'd', 'e'].map((key) => batches.add({ key }))
    for (let i = 0; i < 3; i++) {
      sent[i]?.answer(sent[i]?.items.map((item) => `ok ${item.key}`) ?? [])
      await settle()
    }
    expect(sent.map((s) => keys(s.items))).toEqual([['a'], ['b', 'c'], ['d', 'e']])
    expect(await Promise.all(all)).toEqual(['ok a', 'ok b', 'ok c', 'ok d', 'ok e'])
  })

  it('rejects only the item whose answer is an error; the others get theirs', async () => {
    const { batches, sent } = openStore()
    const blocker = batches.add({ key: 'x' })
    const [a, b, c] = ['a', 'b', 'c'].map((key) => batches.add({ key }))
    sent[0]?.answer(['recorded'])
    await blocker
    await settle()
    const own = new Error('WRONGTYPE on b')
    sent[1]?.answer(['recorded', own, 'done'])
    expect(await a).toBe('recorded')
    await expect(b).rejects.toBe(own)
    expect(await c).toBe('done')
  })

  it('rejects every item of a batch that failed whole, and goes on with the next batch', async () => {
    const { batches, sent } = openStore()
    const first = [batches.add({ key: 'a' })]
    const second = [batches.add({ key: 'b' }), batches.add({ key: 'c' })]
    const lost = new Error('connection lost')
    sent[0]?.fail(lost)
    await expect(first[0]).rejects.toBe(lost)
    await settle()
    expect(keys(sent[1]?.items ?? [])).toEqual(['b', 'c'])
    sent[1]?.answer(['recorded', 'recorded'])
    expect(await Promise.all(second)).toEqual(['recorded', 'recorded'])
  })

  it('believes no answer of a batch answered with the wrong count', async () => {
    const { batches, sent } = openStore()
    const blocker = batches.add({ key: 'x' })
    const both = [batches.add({ key: 'a' }), batches.add({ key: 'b' })]
    sent[0]?.answer(['recorded'])
    await blocker
    await settle()
    sent[1]?.answer(['recorded'])
    for (const one of both)
      await expect(one).rejects.toThrow('TestStore.record: the store answered 1 records for a batch of 2')
  })

  describe('a batch that hangs', () => {
    afterEach(() => {
      vi.useRealTimers()
    })

    it('holds back the next one for SLOW_BATCH_MS only; a record of one of its keys waits for its answer', async () => {
      vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] })
      const { batches, sent } = openStore()
      const hung = batches.add({ key: 'a', previous: ['p'] })
      const other = batches.add({ key: 'b' })
      const sameKey = batches.add({ key: 'p' })
      vi.advanceTimersByTime(SLOW_BATCH_MS - 1)
      expect(sent.map((s) => keys(s.items))).toEqual([['a']])
      vi.advanceTimersByTime(1)
      // Past it, the others go on without the hung batch, except the one sharing its previous key.
      expect(sent.map((s) => keys(s.items))).toEqual([['a'], ['b']])
      sent[1]?.answer(['recorded'])
      expect(await other).toBe('recorded')
      await settle()
      expect(sent).toHaveLength(2)
      sent[0]?.answer(['taken'])
      expect(await hung).toBe('taken')
      await settle()
      expect(sent.map((s) => keys(s.items))).toEqual([['a'], ['b'], ['p']])
      sent[2]?.answer(['known'])
      expect(await sameKey).toBe('known')
    })
  })

  it('refuses a maxItems or batchesInFlight that is not a whole number from 1', () => {
    for (const name of ['maxItems', 'batchesInFlight'] as const) {
      for (const value of [0, -1, 1.5, Number.NaN]) {
        expect(
          () =>
            new RecordBatches<Item, string>({
              operation: 'TestStore.record',
              maxItems: 8,
              keysOf: () => [],
              sizeOf: () => 1,
              maxBytes: 100,
              batchesInFlight: 1,
              send: async () => [],
              [name]: value,
            }),
        ).toThrow(`TestStore.record: ${name} must be a whole number >= 1, got ${value}`)
      }
    }
  })

  it('carries at most maxBytes, an item larger than that alone', async () => {
    const { batches, sent } = openStore()
    const all = [
      batches.add({ key: 'a' }),
      batches.add({ key: 'b', size: 60 }),
      batches.add({ key: 'c', size: 30 }),
      batches.add({ key: 'd', size: 20 }),
      batches.add({ key: 'huge', size: 500 }),
      batches.add({ key: 'e', size: 10 }),
    ]
    for (let i = 0; i < 4; i++) {
      sent[i]?.answer(sent[i]?.items.map((item) => `ok ${item.key}`) ?? [])
      await settle()
    }
    // b and c fill 90 of 100: d and huge wait, e (10) still fits; then d, and huge alone.
    expect(sent.map((s) => keys(s.items))).toEqual([['a'], ['b', 'c', 'e'], ['d'], ['huge']])
    expect(await Promise.all(all)).toEqual(['ok a', 'ok b', 'ok c', 'ok d', 'ok huge', 'ok e'])
  })

  it('rejects the batch when send throws before answering, and keeps working', async () => {
    let calls = 0
    const batches = new RecordBatches<Item, string>({
      operation: 'TestStore.record',
      maxItems: 8,
      keysOf: (item) => [item.key],
      sizeOf: () => 1,
      maxBytes: 100,
      batchesInFlight: 1,
      send: (items) => {
        calls++
        if (calls === 1) throw new Error('could not even start')
        return Promise.resolve(items.map(() => 'recorded'))
      },
    })
    await expect(batches.add({ key: 'a' })).rejects.toThrow('could not even start')
    expect(await batches.add({ key: 'a' })).toBe('recorded')
  })

  describe('two batches in flight', () => {
    const sizes = (sent: ReturnType<typeof openStore>['sent']) => sent.map((s) => s.items.length)
    const answerAll = (batch: ReturnType<typeof openStore>['sent'][number] | undefined) =>
      batch?.answer(batch.items.map((item) => `ok ${item.key}`))

    it('a lone record goes at once; one made in the same turn goes alone on the next turn, not with it', async () => {
      const { batches, sent } = openStore(64, 2)
      const a = batches.add({ key: 'a' })
      const b = batches.add({ key: 'b' })
      expect(sizes(sent)).toEqual([1])
      await turn()
      expect(sent.map((s) => keys(s.items))).toEqual([['a'], ['b']])
      // Both in flight: the next waits for one of them.
      const c = batches.add({ key: 'c' })
      await settle()
      expect(sent).toHaveLength(2)
      answerAll(sent[1])
      expect(await b).toBe('ok b')
      await settle()
      expect(sent.map((s) => keys(s.items))).toEqual([['a'], ['b'], ['c']])
      answerAll(sent[0])
      answerAll(sent[2])
      expect(await Promise.all([a, c])).toEqual(['ok a', 'ok c'])
    })

    it('splits what waits evenly between the batches: a burst of 32 settles into two batches of 16', async () => {
      const { batches, sent } = openStore(64, 2)
      const all = Array.from({ length: 32 }, (_, i) => batches.add({ key: `k${i}` }))
      await settle()
      // The first alone, then half of everything waiting or in flight.
      expect(sizes(sent)).toEqual([1, 16])
      answerAll(sent[0])
      await settle()
      expect(sizes(sent)).toEqual([1, 16, 15])
      // A caller answered records again at once, as a steady stream of callbacks does.
      const answered = new Set<number>()
      for (let round = 0; round < 4; round++) {
        const oldest = sent.findIndex((_, i) => !answered.has(i))
        answered.add(oldest)
        const batch = sent[oldest]
        answerAll(batch)
        for (const item of batch?.items ?? []) all.push(batches.add({ key: `${item.key}+` }))
        await settle()
      }
      expect(sizes(sent).slice(-2)).toEqual([16, 16])
      for (const batch of sent) answerAll(batch)
      await settle()
    })

    it('two batches answered in one turn do not leave again in one turn (they would reach the server in one read and be answered in one write again)', async () => {
      const { batches, sent } = openStore(64, 2)
      batches.add({ key: 'a' })
      await turn()
      batches.add({ key: 'b' })
      expect(sizes(sent)).toEqual([1, 1])
      for (let i = 0; i < 8; i++) batches.add({ key: `w${i}` })
      // Both answered in one turn, as one read from the server delivers them.
      answerAll(sent[0])
      answerAll(sent[1])
      // Their callers run, then one batch leaves; the other a turn later, never both in one turn.
      const seen: number[] = []
      for (let i = 0; i < 4; i++) {
        await turn()
        seen.push(sent.length)
      }
      expect(seen.map((count, i) => count - (seen[i - 1] ?? 2)).every((added) => added <= 1)).toBe(true)
      // The first takes its share while the other answered batch still counts (ceil((8 + 1) / 2)).
      expect(sizes(sent)).toEqual([1, 1, 5, 3])
      for (const batch of sent.slice(2)) answerAll(batch)
      await settle()
    })

    it('a record of a key in either batch in flight waits for that batch, and the other batch does not carry it', async () => {
      const { batches, sent } = openStore(64, 2)
      const first = batches.add({ key: 'a' })
      await turn()
      const second = batches.add({ key: 'b', previous: ['p'] })
      const again = [batches.add({ key: 'a' }), batches.add({ key: 'p' }), batches.add({ key: 'free' })]
      await settle()
      expect(sent.map((s) => keys(s.items))).toEqual([['a'], ['b']])
      // The first batch answers: 'a' may go; 'p' waits for the second, though a batch is free.
      answerAll(sent[0])
      expect(await first).toBe('ok a')
      await settle()
      expect(sent.map((s) => keys(s.items))).toEqual([['a'], ['b'], ['a', 'free']])
      answerAll(sent[1])
      expect(await second).toBe('ok b')
      await settle()
      expect(sent.map((s) => keys(s.items))).toEqual([['a'], ['b'], ['a', 'free'], ['p']])
      answerAll(sent[2])
      answerAll(sent[3])
      expect(await Promise.all(again)).toEqual(['ok a', 'ok p', 'ok free'])
    })
  })
})
