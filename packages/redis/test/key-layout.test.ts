import { randomUUID } from 'node:crypto'
import { createClient, RESP_TYPES } from 'redis'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { RedisClaimStore, type RedisClient, RedisIntentStore } from '../src/index.js'
import { intentOf } from './contract.js'
import { type Connected, connect } from './helpers.js'
import { describeWithRedis } from './redis-server.js'

interface Raw {
  get(key: string): Promise<string | null>
  pTTL(key: string): Promise<number>
  type(key: string): Promise<string>
  zRangeWithScores(key: string, start: number, stop: number): Promise<{ value: string; score: number }[]>
}

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

  it('a claim is paywire:claim:<key> = held:<token> with PTTL <= holdMs; completed, done:<token> with PTTL <= keepMs', async () => {
    const claims = new RedisClaimStore({ client })
    const key = `evt ${randomUUID()}`
    const token = randomUUID()
    await claims.claim(key, token, 5_000)
    expect(await raw.get(`paywire:claim:${key}`)).toBe(`held:${token}`)
    expect(await raw.pTTL(`paywire:claim:${key}`)).toBeGreaterThan(4_000)
    expect(await raw.pTTL(`paywire:claim:${key}`)).toBeLessThanOrEqual(5_000)
    await claims.complete(key, token, 86_400_000)
    expect(await raw.get(`paywire:claim:${key}`)).toBe(`done:${token}`)
    expect(await raw.pTTL(`paywire:claim:${key}`)).toBeGreaterThan(86_000_000)
  })

  it('an intent is paywire:intent:<id> (JSON, no TTL) and a member of the sorted set paywire:open:<service>, scored by createdAt', async () => {
    const journal = new RedisIntentStore({ client })
    const intent = intentOf({ service: `svc ${randomUUID()}`, idempotencyKey: 'k-1' })
    await journal.open(intent)
    const record = `paywire:intent:${intent.id}`
    expect(JSON.parse((await raw.get(record)) as string)).toStrictEqual(JSON.parse(JSON.stringify(intent)))
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
    expect(await a.claim(key, randomUUID(), 60_000)).toBe('claimed')
    expect(await b.claim(key, randomUUID(), 60_000)).toBe('claimed')
    const intent = intentOf({ service: `svc-${randomUUID()}` })
    await new RedisIntentStore({ client, keyPrefix: 'shop-a:' }).open(intent)
    expect(await new RedisIntentStore({ client, keyPrefix: 'shop-b:' }).openIntents(intent.service)).toStrictEqual([])
  })

  it('work with a client that maps strings to Buffers (node-redis type mapping)', async () => {
    const buffers = createClient({ url: server().url }).withTypeMapping({ [RESP_TYPES.BLOB_STRING]: Buffer })
    await buffers.connect()
    try {
      const mapped = buffers as unknown as RedisClient
      const claims = new RedisClaimStore({ client: mapped, keyPrefix: 'buffers:' })
      const journal = new RedisIntentStore({ client: mapped, keyPrefix: 'buffers:' })
      const key = `evt-${randomUUID()}`
      const token = randomUUID()
      expect(await claims.claim(key, token, 60_000)).toBe('claimed')
      expect(await claims.claim(key, randomUUID(), 60_000)).toBe('held')
      await claims.complete(key, token, 60_000)
      expect(await raw.get(`buffers:claim:${key}`)).toBe(`done:${token}`)
      const intent = intentOf({ service: `svc-${randomUUID()}`, params: { text: '付款 🧾' } })
      await journal.open(intent)
      expect(await journal.openIntents(intent.service)).toStrictEqual([intent])
      await journal.close(intent.id, 'applied')
      expect(await journal.openIntents(intent.service)).toStrictEqual([])
    } finally {
      await buffers.close()
    }
  })

  it('a backlog of 5,000 open intents is listed oldest first in one ZRANGE and one MGET', async () => {
    const journal = new RedisIntentStore({ client })
    const service = `svc-${randomUUID()}`
    const intents = Array.from({ length: 5_000 }, (_, i) => intentOf({ service, createdAt: 1_000_000 - i }))
    await Promise.all(intents.map((intent) => journal.open(intent)))
    expect(await journal.openIntents(service)).toStrictEqual([...intents].reverse())
  })
})
