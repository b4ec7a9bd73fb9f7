import { randomUUID } from 'node:crypto'
import type { NewEvent } from '@paywire/core'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { RedisClaimStore } from '../src/index.js'
import { type Connected, connect, eventually } from './helpers.js'
import { describeWithRedis } from './redis-server.js'

const LONG = 60_000
const SHORT = 400

interface Raw {
  /** `SET key value PX ms`, exactly as the former store's scripts wrote a claim. */
  set(key: string, value: string, options: { expiration: { type: 'PX'; value: number } }): Promise<unknown>
  keys(pattern: string): Promise<string[]>
  exists(key: string): Promise<number>
}

const event = (key: string, previousKeys: string[] = []): NewEvent => ({
  key,
  previousKeys,
  fields: `{"id":"${key}"}`,
  ref: `order:${key}`,
})

describeWithRedis('upgrading from the former claim store (claim/complete/release on <prefix>claim:<key>)', (server) => {
  let client: Connected
  let raw: Raw
  let prefix: string
  let claims: RedisClaimStore
  beforeAll(async () => {
    client = await connect(server().url)
    raw = client as unknown as Raw
  })
  afterAll(async () => {
    await client.close()
  })
  const fresh = () => {
    prefix = `upgrade-${randomUUID()}:`
    claims = new RedisClaimStore({ client, keyPrefix: prefix })
  }
  /** What the former store's `complete` left: `done:<token>` for keepMs. */
  const formerDone = (key: string, ms = LONG) =>
    raw.set(`${prefix}claim:${key}`, `done:${randomUUID()}`, { expiration: { type: 'PX', value: ms } })
  /** What the former store's `claim` left while its runner held the key: `held:<token>` for holdMs. */
  const formerHeld = (key: string, ms = SHORT) =>
    raw.set(`${prefix}claim:${key}`, `held:${randomUUID()}`, { expiration: { type: 'PX', value: ms } })
  const written = async () => raw.keys(`${prefix}inbox:*`)

  it('an event the former store completed, under a previous key or its own key, is done: nothing is written', async () => {
    fresh()
    const old = `callback ${randomUUID()}`
    await formerDone(old)
    expect(await claims.record(event(`v2 ${randomUUID()}`, ['unrelated', old]), randomUUID(), LONG)).toBe('done')
    expect(await claims.record(event(`v2 ${randomUUID()}`, [old]), randomUUID(), undefined)).toBe('done')
    const same = `callback ${randomUUID()}`
    await formerDone(same)
    expect(await claims.record(event(same), randomUUID(), LONG)).toBe('done')
    expect(await written()).toStrictEqual([])
  })

  it('an event the former store still holds answers held (try later), and once that claim expires it is taken', async () => {
    fresh()
    const old = `callback ${randomUUID()}`
    const key = `v2 ${randomUUID()}`
    await formerHeld(old)
    expect(await claims.record(event(key, [old]), randomUUID(), LONG)).toBe('held')
    expect(await claims.record(event(key, [old]), randomUUID(), undefined)).toBe('held')
    expect(await written()).toStrictEqual([])
    const token = randomUUID()
    await eventually(
      async () => (await claims.record(event(key, [old]), token, LONG)) === 'taken',
      SHORT + 5_000,
      'the former claim expiring',
    )
    expect(await raw.exists(`${prefix}claim:${old}`)).toBe(0)
    expect(await claims.complete(key, token, LONG)).toBe(true)
    expect(await claims.record(event(key, [old]), randomUUID(), LONG)).toBe('done')
  })

  it('a claim the former store holds on the same key answers held, then the event is taken once it expires', async () => {
    fresh()
    const key = `callback ${randomUUID()}`
    await formerHeld(key)
    expect(await claims.record(event(key), randomUUID(), LONG)).toBe('held')
    await eventually(
      async () => (await claims.record(event(key), randomUUID(), LONG)) === 'taken',
      SHORT + 5_000,
      'the former claim expiring',
    )
  })

  it('done anywhere wins over held; a former done key whose keep ended no longer counts', async () => {
    fresh()
    const held = `held ${randomUUID()}`
    const done = `done ${randomUUID()}`
    await formerHeld(held, LONG)
    await formerDone(done)
    expect(await claims.record(event(`v2 ${randomUUID()}`, [held, done]), randomUUID(), LONG)).toBe('done')
    const short = `done ${randomUUID()}`
    await formerDone(short, SHORT)
    const key = `v2 ${randomUUID()}`
    await eventually(
      async () => (await claims.record(event(key, [short]), randomUUID(), LONG)) === 'taken',
      SHORT + 5_000,
      'the former done key expiring',
    )
  })

  it('an event recorded by this store is known even while the former store holds a claim on a previous key', async () => {
    fresh()
    const key = `v2 ${randomUUID()}`
    const old = `callback ${randomUUID()}`
    const token = randomUUID()
    expect(await claims.record(event(key, [old]), token, LONG)).toBe('taken')
    // An instance still on the former version claims the old key meanwhile (a rolling deploy).
    await formerHeld(old, LONG)
    expect(await claims.record(event(key, [old]), randomUUID(), LONG)).toBe('known')
    expect(await claims.record(event(key, [old]), token, LONG)).toBe('taken') // its own reply, lost and asked again
  })
})
