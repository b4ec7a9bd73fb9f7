/**
 * RecordBatches with several batches in flight, from the attacker's side: a harness that checks at
 * every send that no more than `batchesInFlight` unanswered batches that are not yet slow are out,
 * that no key is in two unanswered batches (slow ones included) or twice in one, that each key's
 * records go in the order they were made, that no two batches leave in one turn of the event loop,
 * and that batches stay within maxItems and maxBytes; then random bursts (fixed seeds) with
 * reentrant callers, sends that throw, fail, answer a wrong count or no list, keysOf and sizeOf that
 * throw, batches answered in any order, two in one turn, and batches left to go slow; and the same
 * attacks one at a time, where what each caller gets is known exactly.
 */

import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { mulberry32 } from '../../../tests/reliability/support/random.js'
import { RecordBatches, SLOW_BATCH_MS } from '../src/inbox/record-batches.js'

interface Item {
  readonly id: number
  readonly keys: readonly string[]
  readonly size?: number
  /** keysOf throws for it. */
  readonly badKeys?: boolean
  /** sizeOf throws for it. */
  readonly badSize?: boolean
}

/** One turn of the event loop. */
const turn = () => new Promise<void>((resolve) => setImmediate(resolve))
const turns = async (n: number) => {
  for (let i = 0; i < n; i++) await turn()
}

interface Sent {
  /** 1-based number of the send. */
  readonly n: number
  readonly items: readonly Item[]
  /** The harness clock when it left (ms; moved only by `rig.advance`). */
  readonly sentAt: number
  answered: boolean
  readonly answer: (answers: unknown) => void
  readonly fail: (error: unknown) => void
}

interface RigOptions {
  readonly batchesInFlight: number
  readonly maxItems?: number
  readonly maxBytes?: number
  /** What the send does for batch `n`: stays open for the test to answer (the default) or throws at once. */
  readonly behave?: (n: number, items: readonly Item[]) => 'open' | 'throw'
  /** Called inside send, before it returns (a send that records again at once). */
  readonly inside?: (n: number) => void
}

/**
 * A store whose batches stay open until the test answers them, checking every rule at each send.
 * `violations` collects what broke; the harness's own clock follows `advance` (fake setTimeout).
 */
function rig(options: RigOptions) {
  const { batchesInFlight, maxItems = 64, maxBytes = Number.MAX_SAFE_INTEGER } = options
  const sent: Sent[] = []
  const violations: string[] = []
  let clock = 0
  let sends = 0
  let sendsThisTurn = 0
  /** For each key, the ids of the items (keysOf did not throw) touching it, in add order; and how many went. */
  const byKey = new Map<string, number[]>()
  const sentOfKey = new Map<string, number>()
  const sentTimes = new Map<number, number>()
  const unanswered = () => sent.filter((s) => !s.answered)
  const slow = (s: Sent) => clock - s.sentAt >= SLOW_BATCH_MS

  const batches = new RecordBatches<Item, string>({
    operation: 'TestStore.record',
    maxItems,
    maxBytes,
    batchesInFlight,
    keysOf: (item) => {
      if (item.badKeys) throw new Error(`keys ${item.id}`)
      return item.keys
    },
    sizeOf: (item) => {
      if (item.badSize) throw new Error(`size ${item.id}`)
      return item.size ?? 1
    },
    send: (items) => {
      const n = ++sends
      const where = `batch ${n} [${items.map((item) => item.id).join(',')}]`
      if (sendsThisTurn++ === 0) setImmediate(() => (sendsThisTurn = 0))
      if (batchesInFlight > 1 && sendsThisTurn > 1)
        violations.push(`${where}: ${sendsThisTurn} batches left in one turn`)
      const fresh = unanswered().filter((s) => !slow(s)).length + 1
      if (fresh > batchesInFlight) violations.push(`${where}: ${fresh} batches in flight, not slow`)
      if (items.length === 0) violations.push(`${where}: empty`)
      if (items.length > maxItems) violations.push(`${where}: ${items.length} items > maxItems ${maxItems}`)
      const bytes = items.reduce((sum, item) => sum + (item.size ?? 1), 0)
      if (items.length > 1 && bytes > maxBytes) violations.push(`${where}: ${bytes} bytes > maxBytes ${maxBytes}`)
      const keysOut = new Set(unanswered().flatMap((s) => s.items.flatMap((item) => item.keys)))
      const inBatch = new Set<string>()
      for (const item of items) {
        sentTimes.set(item.id, (sentTimes.get(item.id) ?? 0) + 1)
        if ((sentTimes.get(item.id) ?? 0) > 1) violations.push(`${where}: item ${item.id} sent twice`)
        for (const key of new Set(item.keys)) {
          if (inBatch.has(key)) violations.push(`${where}: key ${key} twice in one batch`)
          if (keysOut.has(key)) violations.push(`${where}: key ${key} also in a batch in flight`)
          inBatch.add(key)
          const order = byKey.get(key) ?? []
          const at = sentOfKey.get(key) ?? 0
          if (order[at] !== item.id) violations.push(`${where}: item ${item.id} went before ${order[at]} on ${key}`)
          sentOfKey.set(key, at + 1)
        }
      }
      options.inside?.(n)
      if (options.behave?.(n, items) === 'throw') {
        sent.push({ n, items, sentAt: clock, answered: true, answer: () => {}, fail: () => {} })
        throw new Error(`sync ${n}`)
      }
      return new Promise((resolve, reject) => {
        const one: Sent = {
          n,
          items,
          sentAt: clock,
          answered: false,
          answer: (answers) => {
            one.answered = true
            resolve(answers as string[])
          },
          fail: (error) => {
            one.answered = true
            reject(error)
          },
        }
        sent.push(one)
      })
    },
  })

  const add = (item: Item): Promise<string> => {
    if (!item.badKeys && !item.badSize) {
      for (const key of new Set(item.keys)) byKey.set(key, [...(byKey.get(key) ?? []), item.id])
    }
    return batches.add(item)
  }
  /** Answers a batch with each item's own answer. */
  const answerOwn = (s: Sent | undefined) => s?.answer(s.items.map((item) => `a${item.id}`))
  /** Moves the harness clock and the fake timers by `ms` (the clock first: sends in the timers see it). */
  const advance = (ms: number) => {
    clock += ms
    vi.advanceTimersByTime(ms)
  }
  /** The keys sent, for each key, as many as were added: none left behind. */
  const everyKeySent = () => {
    const missing: string[] = []
    for (const [key, order] of byKey) {
      if ((sentOfKey.get(key) ?? 0) !== order.length) missing.push(`${key}: ${sentOfKey.get(key) ?? 0}/${order.length}`)
    }
    return missing
  }
  return { batches, sent, violations, add, answerOwn, advance, unanswered, everyKeySent }
}

const ids = (s: Sent | undefined) => s?.items.map((item) => item.id)

/** Settles to a string: the answer, or `error <message>`. */
const outcome = (promise: Promise<string>) =>
  promise.then(
    (answer) => answer,
    (error: Error) => `error ${error.message}`,
  )

describe('RecordBatches with several batches in flight, adversarial', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] })
  })
  afterEach(() => {
    vi.useRealTimers()
  })

  it('random bursts (fixed seeds), one to three in flight, reentrant callers, every kind of failure, batches left to go slow: every rule holds at every send, every record gets exactly what its batch answered for it, none hangs', async () => {
    // Would catch: a third batch out, two leaving in one turn, a key in two batches, a record
    // passing an earlier one of its key, an answer given to the wrong caller, a slot lost or freed
    // twice by a slow batch or a failing send (a hang, or one batch too many), a record never sent.
    const cases = [1, 2, 3].flatMap((batchesInFlight) => [5, 11, 77, 2026].map((seed) => ({ batchesInFlight, seed })))
    for (const { batchesInFlight, seed } of cases) {
      const random = mulberry32(seed * 31 + batchesInFlight)
      const maxItems = 2 + Math.floor(random() * 8)
      const maxBytes = 6 + Math.floor(random() * 20)
      const keySpace = 4 + Math.floor(random() * 10)
      const key = () => `k${Math.floor(random() * keySpace)}`
      /** What each caller must get, set when the harness decides its batch's fate. */
      const expected = new Map<number, string>()
      const syncThrow = new Set<number>()
      const r = rig({
        batchesInFlight,
        maxItems,
        maxBytes,
        behave: (n, items) => {
          if (random() < 0.06) {
            syncThrow.add(n)
            for (const item of items) expected.set(item.id, `error sync ${n}`)
            return 'throw'
          }
          return 'open'
        },
      })
      const outcomes: Array<Promise<{ id: number; got: string }>> = []
      let next = 0
      const add = (): void => {
        const id = next++
        const keys = Array.from({ length: Math.floor(random() * 4) }, key)
        if (keys.length > 0 && random() < 0.2) keys.push(keys[0] as string)
        const size = random() < 0.1 ? maxBytes + 3 : 1 + Math.floor(random() * 5)
        const badKeys = random() < 0.03
        const badSize = !badKeys && random() < 0.03
        if (badKeys) expected.set(id, `error keys ${id}`)
        if (badSize) expected.set(id, `error size ${id}`)
        const reentrant = random() < 0.25
        outcomes.push(
          outcome(r.add({ id, keys, size, badKeys, badSize })).then((got) => {
            // A caller that records again the moment its answer (or error) arrives.
            if (reentrant && next < 450) add()
            return { id, got }
          }),
        )
      }
      /** Answers `s` in one of the ways a store can, noting what each of its callers must get. */
      const settle = (s: Sent) => {
        const fate = random()
        const m = s.items.length
        if (fate < 0.06) {
          for (const item of s.items) expected.set(item.id, `error batch ${s.n} lost`)
          s.fail(new Error(`batch ${s.n} lost`))
        } else if (fate < 0.09) {
          for (const item of s.items)
            expected.set(item.id, `error TestStore.record: the store answered ${m + 1} records for a batch of ${m}`)
          s.answer([...s.items.map((item) => `a${item.id}`), 'extra'])
        } else if (fate < 0.12 && m > 1) {
          for (const item of s.items)
            expected.set(item.id, `error TestStore.record: the store answered ${m - 1} records for a batch of ${m}`)
          s.answer(s.items.slice(1).map((item) => `a${item.id}`))
        } else if (fate < 0.15) {
          for (const item of s.items)
            expected.set(item.id, `error TestStore.record: the store answered no list for a batch of ${m}`)
          s.answer(random() < 0.5 ? null : { length: m, 0: 'a-lie' })
        } else {
          const answers = s.items.map((item) => {
            if (random() < 0.08) {
              expected.set(item.id, `error own ${item.id}`)
              return new Error(`own ${item.id}`)
            }
            expected.set(item.id, `a${item.id}`)
            return `a${item.id}`
          })
          s.answer(answers)
        }
      }
      while (next < 350) {
        const step = random()
        if (step < 0.4) {
          const burst = 1 + Math.floor(random() * 6)
          for (let i = 0; i < burst; i++) add()
        } else if (step < 0.75) {
          // Answer one batch in flight, any of them, or two in one turn (one read from the server).
          const open = r.unanswered()
          const many = random() < 0.3 ? 2 : 1
          for (let i = 0; i < many && open.length > 0; i++) {
            const [s] = open.splice(Math.floor(random() * open.length), 1)
            if (s) settle(s)
          }
        } else if (step < 0.79) {
          // Every batch in flight goes slow.
          r.advance(SLOW_BATCH_MS)
        }
        await turns(Math.floor(random() * 3))
      }
      // Drain: answer whatever is out until every record (reentrant ones included) has settled.
      let done = false
      const all = () => Promise.all(outcomes)
      for (let round = 0; round < 5_000 && !done; round++) {
        for (const s of r.unanswered()) settle(s)
        await turns(2)
        let settledCount = 0
        for (const one of outcomes) one.then(() => settledCount++)
        await turns(1)
        done = settledCount === outcomes.length && r.unanswered().length === 0
      }
      const where = `${batchesInFlight} in flight, seed ${seed}`
      expect(done, `${where}: every record settled`).toBe(true)
      const results = await all()
      expect(r.violations, where).toEqual([])
      for (const { id, got } of results) expect(got, `${where}: record ${id}`).toBe(expected.get(id))
      expect(r.everyKeySent(), where).toEqual([])
      expect(syncThrow.size + r.sent.length, where).toBeGreaterThan(0)
    }
  })

  it('one slow and one fast: past SLOW_BATCH_MS two more may go beside the slow one, not three; the slow one answering late frees no slot twice; its key waits for it', async () => {
    // Would catch: a slow batch still counted (nothing goes), a slow batch released again when it
    // answers (a third batch out), a record of the slow batch's key sent before it answered.
    const r = rig({ batchesInFlight: 2 })
    const slowOne = r.add({ id: 0, keys: ['a'] })
    await turn()
    const fast = r.add({ id: 1, keys: ['b'] })
    const sameKey = r.add({ id: 2, keys: ['a'] })
    const rest = [r.add({ id: 3, keys: ['c'] }), r.add({ id: 4, keys: ['d'] })]
    await turns(3)
    expect(r.sent.map(ids)).toEqual([[0], [1]])
    r.advance(SLOW_BATCH_MS / 2)
    r.answerOwn(r.sent[1])
    expect(await fast).toBe('a1')
    await turns(3)
    // The key of the slow batch holds 2 back; 3 and 4 go (half of what waits or is in flight).
    expect(r.sent.map(ids)).toEqual([[0], [1], [3, 4]])
    // The first is now slow; [3, 4] is not.
    r.advance(SLOW_BATCH_MS / 2)
    await turns(3)
    expect(r.sent).toHaveLength(3)
    const more = r.add({ id: 5, keys: ['e'] })
    await turns(3)
    expect(r.sent.map(ids)).toEqual([[0], [1], [3, 4], [5]])
    // Two not slow in flight ([3, 4] and [5]) and one slow: the next waits.
    const waits = r.add({ id: 6, keys: ['f'] })
    await turns(3)
    expect(r.sent).toHaveLength(4)
    // The slow one answers late: its key frees 2, but no slot (it gave its slot back when it went slow).
    r.answerOwn(r.sent[0])
    expect(await slowOne).toBe('a0')
    await turns(4)
    expect(r.sent).toHaveLength(4)
    r.answerOwn(r.sent[2])
    await turns(3)
    expect(r.sent.map(ids)).toEqual([[0], [1], [3, 4], [5], [2, 6]])
    r.answerOwn(r.sent[3])
    r.answerOwn(r.sent[4])
    expect(await Promise.all([sameKey, ...rest, more, waits])).toEqual(['a2', 'a3', 'a4', 'a5', 'a6'])
    expect(r.violations).toEqual([])
  })

  it('both slow: past SLOW_BATCH_MS the two slots come back one turn apart, never two batches in one turn; both answering late frees nothing more', async () => {
    // Would catch: two batches leaving in the timers phase where both slow batches are released,
    // a slot freed twice (three fresh batches out), a record of a slow batch's key sent early.
    for (const order of ['first-first', 'second-first'] as const) {
      const r = rig({ batchesInFlight: 2 })
      const a = r.add({ id: 0, keys: ['a'] })
      await turn()
      const b = r.add({ id: 1, keys: ['b'] })
      const waiting = [
        r.add({ id: 2, keys: ['a'] }),
        ...Array.from({ length: 8 }, (_, i) => r.add({ id: 3 + i, keys: [`w${i}`] })),
      ]
      await turns(3)
      expect(r.sent.map(ids)).toEqual([[0], [1]])
      r.advance(SLOW_BATCH_MS)
      // One leaves with the timers, the other a turn later.
      const counts = [r.sent.length]
      for (let i = 0; i < 3; i++) {
        await turn()
        counts.push(r.sent.length)
      }
      expect(counts, order).toEqual([3, 4, 4, 4])
      // Record 2 shares a's key: neither carries it.
      expect(r.sent.slice(2).flatMap((s) => ids(s) ?? [])).not.toContain(2)
      const [first, second] = order === 'first-first' ? [r.sent[0], r.sent[1]] : [r.sent[1], r.sent[0]]
      r.answerOwn(first)
      await turns(2)
      r.answerOwn(second)
      await turns(4)
      // Two fresh batches in flight still: the slow ones answering freed keys, not slots.
      expect(r.sent, order).toHaveLength(4)
      expect(await Promise.all([a, b])).toEqual(['a0', 'a1'])
      for (let round = 0; round < 10 && r.unanswered().length > 0; round++) {
        for (const s of r.unanswered()) r.answerOwn(s)
        await turns(3)
      }
      expect(await Promise.all(waiting)).toEqual(Array.from({ length: 9 }, (_, i) => `a${i + 2}`))
      expect(r.violations, order).toEqual([])
    }
  })

  it('a slow batch whose key a later record waits on, then the fast ones: the record waits for the slow one only, and goes in order behind records of the same key made before it', async () => {
    // Would catch: a later record of key a passing an earlier one that waits on the slow batch.
    const r = rig({ batchesInFlight: 2 })
    const first = r.add({ id: 0, keys: ['a'] })
    await turn()
    const blocked = r.add({ id: 1, keys: ['a', 'x'] })
    const behindX = r.add({ id: 2, keys: ['x'] })
    const free = r.add({ id: 3, keys: ['y'] })
    await turns(3)
    // 1 waits on a, 2 waits behind 1 on x, 3 goes.
    expect(r.sent.map(ids)).toEqual([[0], [3]])
    r.advance(SLOW_BATCH_MS)
    r.answerOwn(r.sent[1])
    await turns(4)
    expect(r.sent).toHaveLength(2)
    r.answerOwn(r.sent[0])
    await turns(3)
    expect(r.sent.map(ids)).toEqual([[0], [3], [1]])
    r.answerOwn(r.sent[2])
    await turns(3)
    expect(r.sent.map(ids)).toEqual([[0], [3], [1], [2]])
    r.answerOwn(r.sent[3])
    expect(await Promise.all([first, blocked, behindX, free])).toEqual(['a0', 'a1', 'a2', 'a3'])
    expect(r.violations).toEqual([])
  })

  it('a send that throws at once while another batch is in flight fails its own records only and gives its slot back', async () => {
    // Would catch: the other batch's callers failed or answered with the thrown error, a slot
    // leaked (only one batch in flight from then on) or the failed batch's keys still blocking.
    const r = rig({ batchesInFlight: 2, behave: (n) => (n === 2 ? 'throw' : 'open') })
    const a = r.add({ id: 0, keys: ['a'] })
    // Made in the same turn: the first goes alone, the next turn's batch carries these two and throws.
    const thrown = [r.add({ id: 1, keys: ['b'] }), r.add({ id: 2, keys: ['c'] })].map(outcome)
    await turns(2)
    expect(r.sent.map(ids)).toEqual([[0], [1, 2]])
    expect(await Promise.all(thrown)).toEqual(['error sync 2', 'error sync 2'])
    await turns(2)
    // b again: its key is free, and a slot (one in flight: a).
    const again = r.add({ id: 3, keys: ['b'] })
    await turns(2)
    expect(r.sent.map(ids)).toEqual([[0], [1, 2], [3]])
    // Both slots taken now: the next waits for one.
    const other = r.add({ id: 4, keys: ['d'] })
    await turns(3)
    expect(r.sent).toHaveLength(3)
    r.answerOwn(r.sent[0])
    expect(await a).toBe('a0')
    await turns(3)
    expect(r.sent.map(ids)).toEqual([[0], [1, 2], [3], [4]])
    r.answerOwn(r.sent[2])
    r.answerOwn(r.sent[3])
    expect(await Promise.all([again, other])).toEqual(['a3', 'a4'])
    await turns(2)
    // Both slots free again: two batches in flight in consecutive turns.
    r.add({ id: 5, keys: ['e'] })
    await turn()
    r.add({ id: 6, keys: ['f'] })
    await turns(2)
    expect(r.unanswered().map(ids)).toEqual([[5], [6]])
    for (const s of r.unanswered()) r.answerOwn(s)
    expect(r.violations).toEqual([])
  })

  it('a wrong count or no list while another batch is in flight fails that batch only; the other gets its own answers, and both slots come back', async () => {
    // Would catch: an answer of one batch handed to the other's callers, a batch's callers left
    // waiting (no list read as zero answers), a slot lost.
    const bad: Array<[string, (m: number) => unknown, string]> = [
      ['one short', (m) => Array.from({ length: m - 1 }, () => 'x'), 'answered 1 records for a batch of 2'],
      ['one over', (m) => Array.from({ length: m + 1 }, () => 'x'), 'answered 3 records for a batch of 2'],
      ['null', () => null, 'answered no list for a batch of 2'],
      ['a string as long', (m) => 'xy'.slice(0, m), 'answered no list for a batch of 2'],
      ['an array-like', (m) => ({ length: m, 0: 'x', 1: 'y' }), 'answered no list for a batch of 2'],
      ['undefined', () => undefined, 'answered no list for a batch of 2'],
    ]
    for (const [name, answers, message] of bad) {
      const r = rig({ batchesInFlight: 2 })
      const good = r.add({ id: 0, keys: ['a'] })
      const lied = [r.add({ id: 1, keys: ['b'] }), r.add({ id: 2, keys: ['c'] })].map(outcome)
      await turns(2)
      expect(r.sent.map(ids), name).toEqual([[0], [1, 2]])
      r.sent[1]?.answer(answers(2))
      expect(await Promise.all(lied), name).toEqual([
        `error TestStore.record: the store ${message}`,
        `error TestStore.record: the store ${message}`,
      ])
      // a still in flight; the lied batch's keys and slot are free.
      const sameKeys = [r.add({ id: 3, keys: ['b'] }), r.add({ id: 4, keys: ['c'] })]
      await turns(3)
      expect(r.sent.map(ids), name).toEqual([[0], [1, 2], [3, 4]])
      r.answerOwn(r.sent[0])
      r.answerOwn(r.sent[2])
      expect(await Promise.all([good, ...sameKeys]), name).toEqual(['a0', 'a3', 'a4'])
      expect(r.violations, name).toEqual([])
    }
  })

  it('keysOf or sizeOf throwing while two batches are in flight rejects that record alone; the waiting ones and the slots are untouched', async () => {
    // Would catch: a throw that escapes add (a caller's record throws instead of rejecting), one
    // that drops or reorders the records waiting, or a slot or key left taken.
    const r = rig({ batchesInFlight: 2 })
    const a = r.add({ id: 0, keys: ['a'] })
    await turn()
    const b = r.add({ id: 1, keys: ['b'] })
    const waiting = [r.add({ id: 2, keys: ['a'] }), r.add({ id: 3, keys: ['c'] })]
    let keysThrew: Promise<string> | undefined
    let sizeThrew: Promise<string> | undefined
    expect(() => {
      keysThrew = r.add({ id: 4, keys: ['c'], badKeys: true })
      sizeThrew = r.add({ id: 5, keys: ['a'], badSize: true })
    }).not.toThrow()
    const after = r.add({ id: 6, keys: ['c'] })
    expect(await outcome(keysThrew as Promise<string>)).toBe('error keys 4')
    expect(await outcome(sizeThrew as Promise<string>)).toBe('error size 5')
    await turns(3)
    expect(r.sent.map(ids)).toEqual([[0], [1]])
    r.answerOwn(r.sent[1])
    expect(await b).toBe('a1')
    await turns(3)
    // 2 waits on a; 3 goes; 6 waits behind 3 on c.
    expect(r.sent.map(ids)).toEqual([[0], [1], [3]])
    r.answerOwn(r.sent[0])
    expect(await a).toBe('a0')
    await turns(3)
    expect(r.sent.map(ids)).toEqual([[0], [1], [3], [2]])
    r.answerOwn(r.sent[2])
    await turns(3)
    expect(r.sent.map(ids)).toEqual([[0], [1], [3], [2], [6]])
    r.answerOwn(r.sent[3])
    r.answerOwn(r.sent[4])
    expect(await Promise.all([...waiting, after])).toEqual(['a2', 'a3', 'a6'])
    expect(r.violations).toEqual([])
  })

  it('three in flight under a steady stream: never over maxItems or maxBytes, an oversized record alone, each key in order, every answer its own', async () => {
    // Would catch: the share of what waits exceeding maxItems, bytes summed over the wrong items,
    // an oversized record carried with others or held back for ever.
    const r = rig({ batchesInFlight: 3, maxItems: 5, maxBytes: 12 })
    const random = mulberry32(4242)
    const all: Array<Promise<string>> = []
    let id = 0
    for (let round = 0; round < 60; round++) {
      for (let i = Math.floor(random() * 9); i > 0; i--) {
        const size = random() < 0.1 ? 40 : 1 + Math.floor(random() * 6)
        all.push(r.add({ id: id++, keys: [`k${Math.floor(random() * 12)}`], size }))
      }
      const open = r.unanswered()
      if (open.length > 0 && random() < 0.7) r.answerOwn(open[Math.floor(random() * open.length)])
      await turn()
    }
    for (let round = 0; round < 200 && r.unanswered().length > 0; round++) {
      for (const s of r.unanswered()) r.answerOwn(s)
      await turns(2)
    }
    expect(await Promise.all(all)).toEqual(Array.from({ length: id }, (_, i) => `a${i}`))
    expect(r.violations).toEqual([])
    expect(r.everyKeySent()).toEqual([])
    expect(Math.max(...r.sent.map((s) => s.items.length))).toBe(5)
  })

  it('a later record never passes an earlier one held back by a key in the other batch in flight, though a slot is free', async () => {
    // Would catch: the free slot taking a later record of a key that an earlier, blocked record
    // also names (Y names b and a; Z names b only).
    const r = rig({ batchesInFlight: 2 })
    const first = r.add({ id: 0, keys: ['a'] })
    await turn()
    const x = r.add({ id: 1, keys: ['a'] })
    const y = r.add({ id: 2, keys: ['b', 'a'] })
    const z = r.add({ id: 3, keys: ['b'] })
    const w = r.add({ id: 4, keys: ['w'] })
    await turns(3)
    expect(r.sent.map(ids)).toEqual([[0], [4]])
    r.answerOwn(r.sent[1])
    await turns(3)
    expect(r.sent).toHaveLength(2)
    r.answerOwn(r.sent[0])
    await turns(3)
    expect(r.sent.map(ids)).toEqual([[0], [4], [1]])
    r.answerOwn(r.sent[2])
    await turns(3)
    expect(r.sent.map(ids)).toEqual([[0], [4], [1], [2]])
    r.answerOwn(r.sent[3])
    await turns(3)
    r.answerOwn(r.sent[4])
    expect(await Promise.all([first, x, y, z, w])).toEqual(['a0', 'a1', 'a2', 'a3', 'a4'])
    expect(r.sent.map(ids)).toEqual([[0], [4], [1], [2], [3]])
    expect(r.violations).toEqual([])
  })

  it('two batches answered in one turn whose callers each record again at once: one batch leaves per turn after, never two', async () => {
    // Would catch: both freed slots filled in the same turn by the callers' new records.
    for (const batchesInFlight of [2, 3]) {
      const r = rig({ batchesInFlight })
      const chain = (id: number, depth: number): Promise<string> =>
        r.add({ id, keys: [`c${id % 7}`] }).then((answer) => (depth > 0 ? chain(id + 100, depth - 1) : answer))
      const chains = Array.from({ length: 6 }, (_, i) => chain(i, 5))
      for (let round = 0; round < 100 && r.unanswered().length > 0; round++) {
        // Every batch out answered in one go, as one read from the server delivers them.
        for (const s of r.unanswered()) r.answerOwn(s)
        await turn()
      }
      expect(await Promise.all(chains)).toEqual(Array.from({ length: 6 }, (_, i) => `a${i + 500}`))
      expect(r.violations, `${batchesInFlight} in flight`).toEqual([])
    }
  })

  it('a send that records again from inside itself (a client wrapper that records as it sends) does not make two batches leave in one turn', async () => {
    // Would catch: the turn's flag set only after send returns, so a record made inside send goes
    // out at once in a second batch of the same turn, beside the one still being sent.
    let r: ReturnType<typeof rig> | undefined
    const inner: Array<Promise<string>> = []
    r = rig({
      batchesInFlight: 2,
      inside: (n) => {
        if (n === 1 && inner.length === 0) inner.push((r as ReturnType<typeof rig>).add({ id: 100, keys: ['inner'] }))
      },
    })
    const outer = r.add({ id: 0, keys: ['outer'] })
    await turns(3)
    for (const s of r.unanswered()) r.answerOwn(s)
    expect(await Promise.all([outer, ...inner])).toEqual(['a0', 'a100'])
    expect(r.violations).toEqual([])
  })
})
