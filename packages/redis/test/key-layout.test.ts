import { randomUUID } from 'node:crypto'
import type { NewEvent } from '@paywire/core'
import { createClient, RESP_TYPES } from 'redis'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { RedisClaimStore, type RedisClient, RedisIntentStore } from '../src/index.js'
import { intentOf } from './contract.js'
import { type Connected, connect, eventually, listed } from './helpers.js'
import { describeWithRedis } from './redis-server.js'

interface Raw {
  get(key: string): Promise<string | null>
  hGetAll(key: string): Promise<Record<string, string>>
  keys(pattern: string): Promise<string[]>
  pTTL(key: string): Promise<number>
  sMembers(key: string): Promise<string[]>
  type(key: string): Promise<string>
  zRangeWithScores(key: string, start: number, stop: number): Promise<{ value: string; score: number }[]>
}

const event = (key: string, ref: string, fields = `{"id":"${key}"}`): NewEvent => ({
  key,
  previousKeys: [],
  fields,
  ref,
})
const lease = (ms = 60_000) => ({ token: randomUUID(), ms, maxAttempts: 5 })

describeWithRedis('the keys in Redis (README, "Keys")', (server) => {
  let client: Connected
  let raw: Raw
  beforeAll(async () => {
    client = await connect(server().url)
    raw = client as unknown as Raw
  })
  afterAll(async () => {
    await client.close()
  })
  /** Every key under `prefix`, sorted: a test on its own prefix sees the whole layout. */
  const keysOf = async (prefix: string) => (await raw.keys(`${prefix}*`)).sort()
  const hash = async (key: string) => ({ ...(await raw.hGetAll(key)) })

  it('a recorded event is the hash <prefix>inbox:event:<key> (no TTL), in the due index by due time and in its ref set', async () => {
    const p = `layout-${randomUUID()}:`
    const claims = new RedisClaimStore({ client, keyPrefix: p })
    const key = `evt ${randomUUID()}:payment:success`
    const ref = 'order ✓ 1'
    const token = randomUUID()
    expect(await claims.record(event(key, ref, '{"a":"付款"}'), token, 5_000)).toBe('taken')
    expect(await keysOf(p)).toStrictEqual([`${p}inbox:due`, `${p}inbox:event:${key}`, `${p}inbox:ref:${ref}`].sort())
    const stored = await hash(`${p}inbox:event:${key}`)
    expect(stored).toStrictEqual({
      state: 'running',
      token,
      attempts: '1',
      until: expect.stringMatching(/^\d+$/),
      receivedAt: expect.stringMatching(/^\d+$/),
      ref,
      fields: '{"a":"付款"}',
    })
    // The lease end is Redis's time of the record plus leaseMs, both read in the same script.
    expect(Number(stored.until) - Number(stored.receivedAt)).toBe(5_000)
    expect(await raw.pTTL(`${p}inbox:event:${key}`)).toBe(-1) // an event not done never expires
    expect(await raw.zRangeWithScores(`${p}inbox:due`, 0, -1)).toStrictEqual([
      { value: key, score: Number(stored.until) },
    ])
    expect(await raw.sMembers(`${p}inbox:ref:${ref}`)).toStrictEqual([key])

    const pending = `evt ${randomUUID()}`
    expect(await claims.record(event(pending, ref), randomUUID(), undefined)).toBe('recorded')
    const waiting = await hash(`${p}inbox:event:${pending}`)
    expect(waiting).toMatchObject({ state: 'pending', attempts: '0' })
    expect(waiting.until).toBe(waiting.receivedAt) // due at once
  })

  it('complete leaves only state, token, ref and keep end, expiring by itself within keepMs; no field data survives', async () => {
    const p = `layout-${randomUUID()}:`
    const claims = new RedisClaimStore({ client, keyPrefix: p })
    const key = `evt-${randomUUID()}`
    const ref = `order-${randomUUID()}`
    const token = randomUUID()
    const secret = `card holder ${randomUUID()}`
    await claims.record(event(key, ref, JSON.stringify({ secret })), token, 60_000)
    await claims.release(key, token, { retryInMs: 0, counted: true, error: 'Error: boom', dead: false })
    const taker = lease()
    expect((await claims.take(key, taker))?.event.lastError).toBe('Error: boom')
    const keepMs = 86_400_000
    expect(await claims.complete(key, taker.token, keepMs)).toBe(true)

    const record = `${p}inbox:event:${key}`
    const done = await hash(record)
    expect(done).toStrictEqual({ state: 'done', token: taker.token, ref, until: expect.stringMatching(/^\d+$/) })
    const pttl = await raw.pTTL(record)
    expect(pttl).toBeLessThanOrEqual(keepMs)
    expect(pttl).toBeGreaterThan(keepMs - 5_000)
    expect(await keysOf(p)).toStrictEqual([`${p}inbox:done`, record, `${p}inbox:ref:${ref}`].sort())
    // The done index names the ref (its byte length first): Redis may expire the hash before prune runs.
    expect(await raw.zRangeWithScores(`${p}inbox:done`, 0, -1)).toStrictEqual([
      { value: `${Buffer.byteLength(ref)}:${ref}${key}`, score: Number(done.until) },
    ])
    for (const name of await keysOf(p)) {
      const kind = await raw.type(name)
      const values =
        kind === 'hash'
          ? Object.values(await hash(name))
          : kind === 'set'
            ? await raw.sMembers(name)
            : (await raw.zRangeWithScores(name, 0, -1)).map((m) => m.value)
      expect(values.join('\n')).not.toContain(secret)
      expect(values.join('\n')).not.toContain('boom')
    }
  })

  it('a done key whose keep ended is expired by Redis, and prune removes what Redis cannot: its done index entry and its ref set', async () => {
    const p = `layout-${randomUUID()}:`
    const claims = new RedisClaimStore({ client, keyPrefix: p })
    const key = `evt-${randomUUID()}`
    const ref = `order-${randomUUID()}`
    const token = randomUUID()
    await claims.record(event(key, ref), token, 60_000)
    await claims.complete(key, token, 300)
    expect(await raw.pTTL(`${p}inbox:event:${key}`)).toBeLessThanOrEqual(300)
    await eventually(async () => (await raw.type(`${p}inbox:event:${key}`)) === 'none', 5_000, 'Redis expiring it')
    expect(await keysOf(p)).toStrictEqual([`${p}inbox:done`, `${p}inbox:ref:${ref}`])
    expect(await claims.prune(1)).toBe(1)
    expect(await keysOf(p)).toStrictEqual([])
    expect(await claims.prune(1)).toBe(0)
  })

  it('complete sweeps a few done keys whose keep ended, so the indexes stay bounded without prune', async () => {
    const p = `layout-${randomUUID()}:`
    const claims = new RedisClaimStore({ client, keyPrefix: p })
    const ref = `order-${randomUUID()}`
    const short = Array.from({ length: 5 }, () => `evt-${randomUUID()}`)
    for (const key of short) {
      const token = randomUUID()
      await claims.record(event(key, ref), token, 60_000)
      await claims.complete(key, token, 1)
    }
    await eventually(async () => (await raw.keys(`${p}inbox:event:*`)).length === 0, 5_000, 'Redis expiring them')
    const last = `evt-${randomUUID()}`
    const token = randomUUID()
    await claims.record(event(last, ref), token, 60_000)
    await claims.complete(last, token, 60_000)
    expect((await raw.zRangeWithScores(`${p}inbox:done`, 0, -1)).map((m) => m.value)).toStrictEqual([
      `${Buffer.byteLength(ref)}:${ref}${last}`,
    ])
    expect(await raw.sMembers(`${p}inbox:ref:${ref}`)).toStrictEqual([last])
  })

  it('a dead event leaves the due index for the dead index, scored by its receive time; retry puts it back; forget leaves no key', async () => {
    const p = `layout-${randomUUID()}:`
    const claims = new RedisClaimStore({ client, keyPrefix: p })
    const key = `evt-${randomUUID()}`
    const ref = `order-${randomUUID()}`
    const token = randomUUID()
    await claims.record(event(key, ref), token, 60_000)
    await claims.release(key, token, { retryInMs: 1, counted: true, error: 'TypeError: x', dead: true })
    const dead = await hash(`${p}inbox:event:${key}`)
    expect(dead).toMatchObject({ state: 'dead', error: 'TypeError: x', attempts: '1' })
    expect(dead.until).toBeUndefined()
    expect(await keysOf(p)).toStrictEqual([`${p}inbox:dead`, `${p}inbox:event:${key}`, `${p}inbox:ref:${ref}`].sort())
    expect(await raw.zRangeWithScores(`${p}inbox:dead`, 0, -1)).toStrictEqual([
      { value: key, score: Number(dead.receivedAt) },
    ])
    expect(await claims.retry(key)).toBe(true)
    expect(await keysOf(p)).toStrictEqual([`${p}inbox:due`, `${p}inbox:event:${key}`, `${p}inbox:ref:${ref}`].sort())
    expect(await claims.forget(ref)).toBe(1)
    expect(await keysOf(p)).toStrictEqual([])
  })

  it('the store never writes a key of its former version (<prefix>claim:<key>)', async () => {
    const p = `layout-${randomUUID()}:`
    const claims = new RedisClaimStore({ client, keyPrefix: p })
    const key = `evt-${randomUUID()}`
    const token = randomUUID()
    await claims.record({ ...event(key, 'r'), previousKeys: [`old-${key}`] }, token, 60_000)
    await claims.complete(key, token, 60_000)
    expect(await raw.keys(`${p}claim:*`)).toStrictEqual([])
  })

  it('an intent is paywire:intent:<id> (JSON, no TTL) and a member of the sorted set paywire:open:<service>, scored by createdAt', async () => {
    const journal = new RedisIntentStore({ client })
    const intent = intentOf({ service: `svc ${randomUUID()}`, idempotencyKey: 'k-1' })
    await journal.open(intent)
    const record = `paywire:intent:${intent.id}`
    // The record is the intent as JSON, with the time Redis wrote it (`writtenAt`, its own clock).
    const { writtenAt, ...stored } = JSON.parse((await raw.get(record)) as string)
    expect(stored).toStrictEqual(JSON.parse(JSON.stringify(intent)))
    expect(Number.isFinite(writtenAt)).toBe(true)
    expect(await raw.pTTL(record)).toBe(-1)
    expect(await raw.type(`paywire:open:${intent.service}`)).toBe('zset')
    expect(await raw.zRangeWithScores(`paywire:open:${intent.service}`, 0, -1)).toStrictEqual([
      { value: intent.id, score: intent.createdAt },
    ])
    await journal.close(intent.id, 'applied')
    expect(await raw.get(record)).toBeNull()
    expect(await raw.type(`paywire:open:${intent.service}`)).toBe('none') // an empty sorted set is no key
  })

  it('stores with different keyPrefix values share nothing on one server', async () => {
    const key = `evt-${randomUUID()}`
    const a = new RedisClaimStore({ client, keyPrefix: 'shop-a:' })
    const b = new RedisClaimStore({ client, keyPrefix: 'shop-b:' })
    expect(await a.record(event(key, 'r'), randomUUID(), 60_000)).toBe('taken')
    expect(await b.record(event(key, 'r'), randomUUID(), 60_000)).toBe('taken')
    expect(await b.forget('r')).toBe(1)
    expect(await a.record(event(key, 'r'), randomUUID(), 60_000)).toBe('known')
    const intent = intentOf({ service: `svc-${randomUUID()}` })
    await new RedisIntentStore({ client, keyPrefix: 'shop-a:' }).open(intent)
    expect(await listed(new RedisIntentStore({ client, keyPrefix: 'shop-b:' }), intent.service)).toStrictEqual([])
  })

  it('work with a client that maps strings to Buffers (node-redis type mapping)', async () => {
    const buffers = createClient({ url: server().url }).withTypeMapping({ [RESP_TYPES.BLOB_STRING]: Buffer })
    await buffers.connect()
    try {
      const mapped = buffers as unknown as RedisClient
      const p = `buffers-${randomUUID()}:`
      const claims = new RedisClaimStore({ client: mapped, keyPrefix: p })
      const journal = new RedisIntentStore({ client: mapped, keyPrefix: p })
      const key = `evt-${randomUUID()}`
      const fields = JSON.stringify({ text: '付款 🧾 é' })
      const token = randomUUID()
      expect(await claims.record(event(key, 'order 付款', fields), token, undefined)).toBe('recorded')
      expect(await claims.record(event(key, 'order 付款', fields), token, undefined)).toBe('recorded')
      expect(await claims.record(event(key, 'order 付款', fields), randomUUID(), undefined)).toBe('known')
      const runner = lease()
      const [taken] = await claims.takeDue(runner, 10)
      expect(taken).toMatchObject({
        dead: false,
        event: { key, fields, ref: 'order 付款', attempts: 1, state: 'running' },
      })
      expect(taken?.event.lastError).toBeUndefined()
      expect(await claims.complete(key, runner.token, 60_000)).toBe(true)
      expect(await claims.record(event(key, 'order 付款', fields), randomUUID(), undefined)).toBe('done')
      const holder = randomUUID()
      const dead = `evt-${randomUUID()}`
      await claims.record(event(dead, 'order 付款', fields), holder, 60_000)
      await claims.release(dead, holder, { retryInMs: 1, counted: true, error: 'Error: é', dead: true })
      expect(await claims.failedEvents(10)).toMatchObject([{ key: dead, fields, state: 'dead', lastError: 'Error: é' }])
      expect(await claims.forget('order 付款')).toBe(2)
      const intent = intentOf({ service: `svc-${randomUUID()}`, params: { text: '付款 🧾' } })
      await journal.open(intent)
      expect(await listed(journal, intent.service)).toStrictEqual([intent])
      await journal.close(intent.id, 'applied')
      expect(await listed(journal, intent.service)).toStrictEqual([])
    } finally {
      await buffers.close()
    }
  })

  it('a backlog of 5,000 open intents is listed oldest first in one ZRANGE and one MGET', async () => {
    const journal = new RedisIntentStore({ client })
    const service = `svc-${randomUUID()}`
    const intents = Array.from({ length: 5_000 }, (_, i) => intentOf({ service, createdAt: 1_000_000 - i }))
    await Promise.all(intents.map((intent) => journal.open(intent)))
    expect(await listed(journal, service)).toStrictEqual([...intents].reverse())
  })
})
