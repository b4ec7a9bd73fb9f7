/**
 * RedisClaimStore.record's group commit from the attacker's side, against a real redis-server:
 * many runners racing on one key over several instances, 200 previous keys, keys that name
 * themselves as previous, refusals of several kinds in one batch, cuts of a full batch on either
 * side, random bursts compared with the same records made one at a time, refused input in the
 * middle of a burst, a closed client, and a batch whose command never comes back.
 */

import { randomUUID } from 'node:crypto'
import type { NewEvent } from '@paywire/core'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { mulberry32 } from '../../../tests/reliability/support/random.js'
import { RedisClaimStore, type RedisClient } from '../src/index.js'
import { cutRig } from './cut-proxy.js'
import { type Connected, connect } from './helpers.js'
import { describeWithRedis } from './redis-server.js'

const event = (key: string, previousKeys: string[] = [], ref = `ref-${key}`): NewEvent => ({
  key,
  previousKeys,
  fields: `{"trans_id":"${key}"}`,
  ref,
})

const turn = () => new Promise<void>((resolve) => setImmediate(resolve))

describeWithRedis('RedisClaimStore.record in batches, adversarial', (server) => {
  const rig = cutRig(server)
  let extra: Connected
  beforeAll(async () => {
    extra = await connect(server().url)
  })
  afterAll(async () => {
    await extra?.close()
  })
  const direct = () =>
    rig.direct as unknown as {
      hGetAll(key: string): Promise<Record<string, string>>
      hSet(key: string, field: string, value: string): Promise<unknown>
      set(key: string, value: string, options?: unknown): Promise<unknown>
      sAdd(key: string, member: string): Promise<unknown>
      sIsMember(key: string, member: string): Promise<unknown>
      zScore(key: string, member: string): Promise<unknown>
      exists(key: string): Promise<number>
      get(key: string): Promise<unknown>
    }
  const storeOn = (client: unknown, prefix: string) =>
    new RedisClaimStore({ client: client as RedisClient, keyPrefix: prefix })
  const fresh = () => `adv-${randomUUID()}:`

  /** Marks `key` done in `store` (recorded, then completed by its runner). */
  const done = async (store: RedisClaimStore, key: string) => {
    expect(await store.record(event(key), `done-${key}`, 60_000)).toBe('taken')
    expect(await store.complete(key, `done-${key}`, 600_000)).toBe(true)
  }

  it('forty runners per key on four instances over three connections at once: exactly one writer per key, the rest known', async () => {
    const prefix = fresh()
    const stores = [rig.viaProxy, rig.direct, extra, rig.direct].map((client) => storeOn(client, prefix))
    const keys = Array.from({ length: 25 }, (_, i) => `race-${i}`)
    const random = mulberry32(11)
    const calls: Array<{ key: string; token: string; pending: boolean; answer: Promise<string> }> = []
    for (let runner = 0; runner < 40; runner++) {
      for (const key of keys) {
        const store = stores[Math.floor(random() * stores.length)] as RedisClaimStore
        const token = `t${runner}-${key}`
        const pending = random() < 0.5
        calls.push({ key, token, pending, answer: store.record(event(key), token, pending ? undefined : 60_000) })
      }
    }
    const answers = await Promise.all(calls.map((call) => call.answer))
    for (const key of keys) {
      const mine = calls.map((call, i) => ({ ...call, got: answers[i] })).filter((call) => call.key === key)
      const writers = mine.filter((call) => call.got === 'taken' || call.got === 'recorded')
      expect(writers, key).toHaveLength(1)
      expect(mine.filter((call) => call.got !== 'known')).toHaveLength(1)
      const [writer] = writers
      expect(writer?.got).toBe(writer?.pending ? 'recorded' : 'taken')
      expect(await direct().hGetAll(`${prefix}inbox:event:${key}`)).toMatchObject({
        token: writer?.token,
        state: writer?.pending ? 'pending' : 'running',
        attempts: writer?.pending ? '0' : '1',
      })
    }
  })

  it('200 previous keys, one of them done; a key that is its own previous key; previous keys repeated', async () => {
    const prefix = fresh()
    const store = storeOn(rig.viaProxy, prefix)
    await done(store, 'p150')
    await done(store, 'selfdone')
    const previous = Array.from({ length: 200 }, (_, i) => `p${i}`)
    const answers = await Promise.all([
      store.record(event('many', previous), 't-many', 60_000),
      store.record(
        event(
          'many-but-150',
          previous.filter((p) => p !== 'p150'),
        ),
        't-mb',
        60_000,
      ),
      store.record(event('self', ['self', 'self']), 't-self', 60_000),
      store.record(event('self', ['self']), 't-self-2', 60_000),
      store.record(event('selfdone', ['selfdone']), 't-sd', 60_000),
      store.record(event('after-self', ['self', 'self', 'p3']), 't-as', undefined),
      store.record(event('dup', ['p150', 'p150']), 't-dup', 60_000),
      store.record(event('empty', []), 't-empty', 60_000),
    ])
    expect(answers).toEqual(['done', 'taken', 'taken', 'known', 'done', 'recorded', 'done', 'taken'])
    // A done answer wrote nothing.
    expect(await direct().exists(`${prefix}inbox:event:many`)).toBe(0)
    expect(await direct().exists(`${prefix}inbox:event:dup`)).toBe(0)
  })

  it('refusals of several kinds in one full batch (own key, a previous key, a former-version key not a string) each fail alone', async () => {
    const prefix = fresh()
    const store = storeOn(rig.viaProxy, prefix)
    await direct().set(`${prefix}inbox:event:bad-own`, 'not a hash')
    await direct().set(`${prefix}inbox:event:bad-prev`, 'not a hash')
    await direct().set(`${prefix}inbox:event:bad-prev2`, 'not a hash')
    await direct().hSet(`${prefix}claim:bad-former`, 'x', 'not a string')
    rig.proxy.record()
    const first = store.record(event('first'), 't-first', 60_000)
    // 128 waiting behind the first: the next script carries half, capped at a full batch of 64.
    const keys = Array.from({ length: 128 }, (_, i) => `good-${i}`)
    const bad = new Map<number, NewEvent>([
      [3, event('bad-own')],
      [20, event('uses-bad-prev', ['bad-prev'])],
      [40, event('bad-former')],
      [63, event('also-uses-bad-prev', ['p', 'bad-prev2'])],
    ])
    const calls = keys.map((key, i) => store.record(bad.get(i) ?? event(key), `t-${i}`, 60_000))
    expect(await first).toBe('taken')
    const outcomes = await Promise.allSettled(calls)
    outcomes.forEach((outcome, i) => {
      if (bad.has(i)) {
        expect(outcome.status, `call ${i}`).toBe('rejected')
        expect((outcome as PromiseRejectedResult).reason.message).toMatch(
          /^RedisClaimStore\.record: Redis refused the record: .*WRONGTYPE/,
        )
      } else expect(outcome, `call ${i}`).toEqual({ status: 'fulfilled', value: 'taken' })
    })
    // The first alone, then the 64 with the refusals in one script, then the other 64.
    expect(rig.proxy.commands).toEqual(['EVALSHA', 'EVALSHA', 'EVALSHA'])
    expect(await direct().exists(`${prefix}inbox:event:uses-bad-prev`)).toBe(0)
    expect(await direct().exists(`${prefix}inbox:event:bad-former`)).toBe(0)
  })

  it('a reply lost for a full batch of 64 fails those 64, and at most the batch sent behind it on that connection; the rest go; each sent again answers as its first write', async () => {
    const prefix = fresh()
    const store = storeOn(rig.viaProxy, prefix)
    rig.proxy.arm(2, 'reply')
    const first = store.record(event('first'), 't-first', 60_000)
    const keys = Array.from({ length: 200 }, (_, i) => `cut-${i}`)
    const calls = keys.map((key, i) => store.record(event(key), `t-${key}`, i % 2 === 0 ? 60_000 : undefined))
    expect(await first).toBe('taken')
    const outcomes = await Promise.allSettled(calls)
    expect(rig.proxy.cuts).toBe(1)
    const lost = outcomes.flatMap((outcome, i) => (outcome.status === 'rejected' ? [i] : []))
    // The cut batch, and the one behind it when it was already written to the connection the cut closed.
    expect([64, 128]).toContain(lost.length)
    expect(lost).toEqual(Array.from({ length: lost.length }, (_, i) => i))
    outcomes.slice(lost.length).forEach((outcome, j) => {
      const i = lost.length + j
      expect(outcome).toEqual({ status: 'fulfilled', value: i % 2 === 0 ? 'taken' : 'recorded' })
    })
    rig.proxy.record()
    const again = await Promise.all(
      keys.map((key, i) => store.record(event(key), `t-${key}`, i % 2 === 0 ? 60_000 : undefined)),
    )
    expect(again).toEqual(keys.map((_, i) => (i % 2 === 0 ? 'taken' : 'recorded')))
    const others = await Promise.all(keys.map((key) => store.record(event(key), 'someone-else', 60_000)))
    expect(new Set(others)).toEqual(new Set(['known']))
  })

  it('a request lost for a full batch: nothing of it written; what was in flight with it written at most once; sent again, each is written once', async () => {
    const prefix = fresh()
    const store = storeOn(rig.viaProxy, prefix)
    rig.proxy.arm(2, 'request')
    // 128 waiting behind the first: the second script carries a full batch of 64, and is cut. The
    // first may still be in flight on the connection the cut closes.
    const keys = ['first', ...Array.from({ length: 128 }, (_, i) => `req-${i}`)]
    const outcomes = await Promise.allSettled(keys.map((key) => store.record(event(key), `t-${key}`, 60_000)))
    expect(rig.proxy.cuts).toBe(1)
    for (const [i, outcome] of outcomes.entries()) {
      const written = await direct().exists(`${prefix}inbox:event:${keys[i]}`)
      if (i >= 1 && i <= 64)
        expect({ i, status: outcome.status, written }).toEqual({ i, status: 'rejected', written: 0 })
      else if (outcome.status === 'fulfilled') expect(outcome.value).toBe('taken')
    }
    rig.proxy.record()
    expect(await Promise.all(keys.map((key) => store.record(event(key), `t-${key}`, 60_000)))).toEqual(
      keys.map(() => 'taken'),
    )
    expect(new Set(await Promise.all(keys.map((key) => store.record(event(key), 'someone-else', 60_000))))).toEqual(
      new Set(['known']),
    )
  })

  it('random bursts (fixed seeds) answer exactly as the same records made one at a time, and leave the same records', async () => {
    for (const seed of [3, 17, 2024]) {
      const random = mulberry32(seed)
      const keySpace = Array.from({ length: 14 }, (_, i) => `r${i}`)
      const pick = () => keySpace[Math.floor(random() * keySpace.length)] as string
      const plan = Array.from({ length: 220 }, () => {
        const key = pick()
        const previous = random() < 0.35 ? Array.from({ length: 1 + Math.floor(random() * 3) }, pick) : []
        // Few tokens per key, so a runner often sends its record again (a lost reply, as it sees it).
        const token = `tok-${key}-${Math.floor(random() * 3)}`
        const lease = random() < 0.5 ? 60_000 : undefined
        const wait = random() < 0.15
        return { event: event(key, previous, `ref-${Math.floor(random() * 4)}`), token, lease, wait }
      })
      const seed0 = async (prefix: string) => {
        const store = storeOn(rig.direct, prefix)
        await done(store, 'r1')
        await done(store, 'r7')
        // The former version's claims: one done, one still held.
        await direct().set(`${prefix}claim:r4`, 'done:old-token')
        await direct().set(`${prefix}claim:r9`, 'held:old-token', { expiration: { type: 'PX', value: 600_000 } })
      }
      const batchedPrefix = fresh()
      const onePrefix = fresh()
      await seed0(batchedPrefix)
      await seed0(onePrefix)
      const batched = storeOn(rig.viaProxy, batchedPrefix)
      const inBatches: Array<Promise<string>> = []
      for (const step of plan) {
        if (step.wait) await turn()
        inBatches.push(batched.record(step.event, step.token, step.lease))
      }
      const answers = await Promise.all(inBatches)
      const single = storeOn(rig.direct, onePrefix)
      const oneByOne: string[] = []
      for (const step of plan) oneByOne.push(await single.record(step.event, step.token, step.lease))
      expect(answers, `seed ${seed}`).toEqual(oneByOne)
      for (const key of keySpace) {
        const [a, b] = await Promise.all(
          [batchedPrefix, onePrefix].map((prefix) => direct().hGetAll(`${prefix}inbox:event:${key}`)),
        )
        const kept = (hash: Record<string, string> | undefined) => ({
          state: hash?.state,
          token: hash?.token,
          attempts: hash?.attempts,
          ref: hash?.ref,
          fields: hash?.fields,
        })
        expect(kept(a), `seed ${seed} key ${key}`).toEqual(kept(b))
      }
    }
  })

  it('refused input in the middle of a burst sends nothing and does not disturb the batch', async () => {
    const prefix = fresh()
    const store = storeOn(rig.viaProxy, prefix)
    rig.proxy.record()
    const first = store.record(event('first'), 't-first', 60_000)
    const good = ['g1', 'g2', 'g3'].map((key) => store.record(event(key), `t-${key}`, 60_000))
    const refused = [
      store.record(event('lone\uD800'), 't', 60_000),
      store.record(event('ok', ['\uDC00prev']), 't', 60_000),
      store.record({ ...event('ok2'), fields: 'x\uD83D' }, 't', 60_000),
      store.record(event('ok3'), '', 60_000),
      store.record(event('ok4'), 't', 0),
      store.record(event('ok5'), 't', Number.NaN),
      store.record(event('ok6'), 't', Number.POSITIVE_INFINITY),
      store.record({ ...event('ok7'), previousKeys: 'p' as unknown as string[] }, 't', 60_000),
      store.record(null as unknown as NewEvent, 't', 60_000),
    ]
    for (const one of refused) await expect(one).rejects.toThrow(/RedisClaimStore\.record/)
    expect(await first).toBe('taken')
    expect(await Promise.all(good)).toEqual(['taken', 'taken', 'taken'])
    // The first, then g1 and g2 (half of the four), then g3: none of the refused.
    expect(rig.proxy.commands).toEqual(['EVALSHA', 'EVALSHA', 'EVALSHA'])
    for (const key of ['ok', 'ok2', 'ok3', 'ok4', 'ok5', 'ok6', 'ok7']) {
      expect(await direct().exists(`${prefix}inbox:event:${key}`)).toBe(0)
    }
  })

  it('fields of every byte kind, 64 events of 256 KiB in one script, come back exactly; unicode and NUL keys stay apart', async () => {
    const prefix = fresh()
    const store = storeOn(rig.viaProxy, prefix)
    const blocker = store.record(event('blocker'), 't-blocker', 60_000)
    const big = (i: number) => `${String(i).padStart(3, '0')}\u0000é😀\r\n${'x'.repeat(256 * 1024)}`
    const keys = Array.from({ length: 63 }, (_, i) => (i % 3 === 0 ? `k\u0000${i}` : i % 3 === 1 ? `k😀${i}` : `k${i}`))
    // Two keys that differ only where a careless encoder would merge them.
    keys.push('ké')
    const calls = keys.map((key, i) => store.record({ ...event(key), fields: big(i) }, `t-${i}`, 60_000))
    expect(await blocker).toBe('taken')
    expect(await Promise.all(calls)).toEqual(keys.map(() => 'taken'))
    expect(await store.record(event('ke\u0301'), 't-decomposed', 60_000)).toBe('taken')
    for (const [i, key] of keys.entries()) {
      const hash = await direct().hGetAll(`${prefix}inbox:event:${key}`)
      expect(hash.fields === big(i), key).toBe(true)
    }
  })

  it('over node-redis 5 (RESP2): a batch with a refused event answers each its own', async () => {
    const client = await connect(server().url, 5)
    try {
      const prefix = fresh()
      await direct().set(`${prefix}inbox:event:bad`, 'not a hash')
      const store = storeOn(client, prefix)
      const first = store.record(event('first'), 't-first', 60_000)
      const rest = ['a', 'bad', 'c'].map((key) =>
        store.record(event(key), `t-${key}`, key === 'c' ? undefined : 60_000),
      )
      expect(await first).toBe('taken')
      const [a, bad, c] = await Promise.allSettled(rest)
      expect(a).toEqual({ status: 'fulfilled', value: 'taken' })
      expect(bad).toMatchObject({ status: 'rejected', reason: { message: expect.stringMatching(/WRONGTYPE/) } })
      expect(c).toEqual({ status: 'fulfilled', value: 'recorded' })
    } finally {
      await client.close()
    }
  })

  it('a runner that gives up waiting and sends its record again while the first is still queued gets the same answer twice', async () => {
    const store = storeOn(rig.viaProxy, fresh())
    const blocker = store.record(event('blocker'), 't-b', 60_000)
    const once = store.record(event('k'), 't-k', 60_000)
    const twice = store.record(event('k'), 't-k', 60_000)
    const pendingOnce = store.record(event('p'), 't-p', undefined)
    const pendingTwice = store.record(event('p'), 't-p', undefined)
    const otherLease = store.record(event('p'), 't-p', 60_000)
    expect(await Promise.all([blocker, once, twice, pendingOnce, pendingTwice, otherLease])).toEqual([
      'taken',
      'taken',
      'taken',
      'recorded',
      'recorded',
      'known',
    ])
  })

  it('a client closed with a batch in flight and records waiting: every record settles, none hangs', async () => {
    const client = await connect(server().url)
    const store = storeOn(client, fresh())
    expect(await store.record(event('warm'), 't-warm', 60_000)).toBe('taken')
    const inFlight = store.record(event('a'), 't-a', 60_000)
    const waiting = Array.from({ length: 30 }, (_, i) => store.record(event(`w${i}`), `t-w${i}`, 60_000))
    ;(client as unknown as { destroy(): void }).destroy()
    const outcomes = await Promise.allSettled([inFlight, ...waiting])
    // The one on the wire may have been answered before the socket went; the rest cannot be.
    for (const outcome of outcomes.slice(1)) expect(outcome.status).toBe('rejected')
    await expect(store.record(event('after'), 't-after', 60_000)).rejects.toThrow()
  })

  it('records made from inside other records’ answers, as deep as 300, all settle in order', async () => {
    const prefix = fresh()
    const store = storeOn(rig.viaProxy, prefix)
    const answers: string[] = []
    const chain = async (i: number): Promise<void> => {
      answers.push(await store.record(event('deep', i > 0 ? [`d${i - 1}`] : []), `t-${i % 2}`, 60_000))
      if (i < 300) await chain(i + 1)
    }
    await Promise.all([chain(0), ...Array.from({ length: 50 }, (_, i) => store.record(event(`side${i}`), 's', 60_000))])
    expect(answers[0]).toBe('taken')
    expect(answers.slice(1).every((answer) => answer === 'taken' || answer === 'known')).toBe(true)
    expect(answers).toHaveLength(301)
  })

  it('one record script that never comes back (a stalled connection of a pool) stops later records for SLOW_BATCH_MS at most', async () => {
    // A client pool (createClientPool) whose one connection is partitioned: its EVALSHA never
    // answers; the pool's other connections answer at once. Before group commit only the record
    // on that connection waited. Found by this review: the store's one batch in flight was that
    // command, so every later record of any key waited behind it for as long as TCP takes to
    // notice. Now a batch unanswered after SLOW_BATCH_MS (1 s) stops holding back the others.
    const prefix = fresh()
    const real = rig.direct as unknown as RedisClient
    let stalled = 0
    const abandoned: Array<(error: Error) => void> = []
    const pool = new Proxy(real, {
      get(target, name, receiver) {
        if (name === 'evalSha') {
          return (sha1: string, options: { keys: string[]; arguments: string[] }) => {
            if (stalled++ === 0) return new Promise((_resolve, reject) => abandoned.push(reject))
            return target.evalSha(sha1, options)
          }
        }
        const value = Reflect.get(target, name, receiver)
        return typeof value === 'function' ? value.bind(target) : value
      },
    })
    const store = storeOn(pool, prefix)
    try {
      let stalledSettled = false
      store.record(event('on-the-stalled-connection'), 't-1', 60_000).then(
        () => {
          stalledSettled = true
        },
        () => {
          stalledSettled = true
        },
      )
      expect(await pool.get(`${prefix}anything`)).toBeNull()
      expect(await store.record(event('unrelated'), 't-2', 60_000)).toBe('taken')
      expect(stalledSettled).toBe(false)
    } finally {
      for (const reject of abandoned) reject(new Error('test over'))
    }
  })
})
