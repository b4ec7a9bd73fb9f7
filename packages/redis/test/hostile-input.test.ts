import { randomUUID } from 'node:crypto'
import { PaywireError, RequestValidationError } from '@paywire/core'
import { rejection } from '@paywire/core/testing'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { type JournalOrphan, RedisClaimStore, type RedisClient, RedisIntentStore } from '../src/index.js'
import { intentOf } from './contract.js'
import { type Connected, connect, eventually, listed } from './helpers.js'
import { describeWithRedis } from './redis-server.js'

const PREFIX = 'hostile:'

interface Raw {
  type(key: string): Promise<string>
}

describeWithRedis('hostile input against a real Redis', (server) => {
  let client: Connected
  beforeAll(async () => {
    client = await connect(server().url)
  })
  afterAll(async () => {
    await client.close()
  })
  const keys = async () =>
    ((await (client as unknown as { keys(p: string): Promise<string[]> }).keys(`${PREFIX}*`)) ?? []).sort()

  it('an intent over maxIntentBytes (default 1 MiB) is refused, naming the limit, and nothing is written', async () => {
    const journal = new RedisIntentStore({ client, keyPrefix: PREFIX })
    const service = `svc-${randomUUID()}`
    const intent = intentOf({ service, params: { blob: 'x'.repeat(2_000_000) } })
    const error = (await rejection(journal.open(intent))) as RequestValidationError
    expect(error).toBeInstanceOf(RequestValidationError)
    expect(error.message).toMatch(
      /intent\.params: the intent is 2000\d{3} bytes as JSON, over maxIntentBytes \(1048576\)/,
    )
    expect(await client.get(`${PREFIX}intent:${intent.id}`)).toBeNull()
    expect(await listed(journal, service)).toStrictEqual([])

    const roomy = new RedisIntentStore({ client, keyPrefix: PREFIX, maxIntentBytes: 4 * 1024 * 1024 })
    await roomy.open(intent)
    expect(await listed(roomy, service)).toStrictEqual([intent])
    await roomy.close(intent.id, 'applied')
  })

  it('params JSON cannot hold are refused before anything reaches Redis', async () => {
    const journal = new RedisIntentStore({ client, keyPrefix: PREFIX })
    const service = `svc-${randomUUID()}`
    const before = await keys()
    for (const params of [{ at: new Date() }, { n: Number.NaN }, { big: 1n }, { list: [undefined] }]) {
      expect(await rejection(journal.open(intentOf({ service, params })))).toBeInstanceOf(RequestValidationError)
    }
    expect(await keys()).toStrictEqual(before)
  })

  it('an event key or ref made to look like another namespace stays an event key: the inbox never touches the journal or its own indexes', async () => {
    const claims = new RedisClaimStore({ client, keyPrefix: PREFIX })
    const journal = new RedisIntentStore({ client, keyPrefix: PREFIX })
    const intent = intentOf({ service: `svc-${randomUUID()}` })
    await journal.open(intent)
    // An event lands at hostile:inbox:event:<key>, a ref's set at hostile:inbox:ref:<ref>: never at
    // hostile:intent:<id>, hostile:open:<service>, or one of the inbox's indexes.
    const hostile = [
      `../intent:${intent.id}`,
      `\r\nintent:${intent.id}`,
      `:open:${intent.service}`,
      'due',
      ':due',
      '../due',
    ]
    for (const key of hostile) {
      const token = randomUUID()
      expect(await claims.record({ key, previousKeys: [key], fields: '{}', ref: key }, token, 60_000)).toBe('taken')
      expect(await claims.complete(key, token, 60_000)).toBe(true)
      expect(await claims.forget(key)).toBe(1)
    }
    expect(await listed(journal, intent.service)).toStrictEqual([intent])
    for (const index of ['due', 'dead', 'done']) {
      expect(['zset', 'none']).toContain(await (client as unknown as Raw).type(`${PREFIX}inbox:${index}`))
    }
  })

  it('release fields that are not a string, and a wake of a key that is not one, are refused naming the field; the record stays as it was', async () => {
    const claims = new RedisClaimStore({ client, keyPrefix: PREFIX })
    const key = `fields-${randomUUID()}`
    const holder = randomUUID()
    expect(await claims.record({ key, previousKeys: [], fields: '{"kept":true}', ref: key }, holder, 60_000)).toBe(
      'taken',
    )
    const before = await keys()
    const release = { retryInMs: 0, counted: true, error: 'Error: x', dead: false }
    for (const fields of [42, null, false, { kept: false }, ['x'], Buffer.from('x'), '{"a":"\ud800"}']) {
      const error = await rejection(claims.release(key, holder, { ...release, fields } as never))
      expect(error).toBeInstanceOf(RequestValidationError)
      expect((error as RequestValidationError).issues.map((i) => i.path)).toStrictEqual(['next.fields'])
      expect(String(error)).toMatch(/next\.fields: (must be a string, got|has a lone UTF-16 surrogate)/)
    }
    for (const bad of [42, undefined, null, { key }, [key]]) {
      const error = await rejection(claims.wake(bad as never))
      expect(error).toBeInstanceOf(RequestValidationError)
      expect((error as RequestValidationError).issues.map((i) => i.path)).toStrictEqual(['key'])
    }
    expect(await keys()).toStrictEqual(before)
    // Still running, held by its runner, with its fields: none of the refused calls reached it.
    expect(await claims.take(key, { token: randomUUID(), ms: 60_000, maxAttempts: 3 })).toBeUndefined()
    expect(await claims.release(key, holder, release)).toBe(true)
    const taken = await claims.take(key, { token: randomUUID(), ms: 60_000, maxAttempts: 3 })
    expect(taken?.event).toMatchObject({ fields: '{"kept":true}', attempts: 2 })
    expect(await claims.forget(key)).toBe(1)
  })

  it('an event record another program overwrote is skipped by takeDue, failedEvents, prune and forget, never blocking the others; operations on that key itself are refused', async () => {
    const p = `${PREFIX}${randomUUID()}:`
    const claims = new RedisClaimStore({ client, keyPrefix: p })
    const ref = `order-${randomUUID()}`
    const event = (key: string) => ({ key, previousKeys: [], fields: `{"id":"${key}"}`, ref })
    const [due, dead, done, fine, fineDead] = ['due', 'dead', 'done', 'fine', 'fine-dead'].map(
      (k) => `${k}-${randomUUID()}`,
    )
    const holder = randomUUID()
    for (const key of [due, fine]) await claims.record(event(key as string), randomUUID(), undefined)
    for (const key of [dead, fineDead]) {
      await claims.record(event(key as string), holder, 60_000)
      await claims.release(key as string, holder, { retryInMs: 1, counted: true, error: 'Error: x', dead: true })
    }
    await claims.record(event(done as string), holder, 60_000)
    await claims.complete(done as string, holder, 1)
    for (const key of [due, dead, done]) await client.set(`${p}inbox:event:${key}`, 'not a hash', undefined as never)

    const taken = await claims.takeDue({ token: randomUUID(), ms: 60_000, maxAttempts: 3 }, 10)
    expect(taken.map((t) => t.event.key)).toStrictEqual([fine])
    expect((await claims.failedEvents(10)).map((e) => e.key)).toStrictEqual([fineDead])
    await eventually(async () => (await claims.prune(1)) >= 1, 5_000, 'prune past the keep of the done key')
    expect(await claims.forget(ref)).toBe(2) // fine (running) and fineDead: the overwritten keys are not its records
    for (const key of [due, dead, done]) {
      expect(await client.get(`${p}inbox:event:${key}`)).toBe('not a hash') // left for a person to look at
      expect(String(await rejection(claims.take(key as string, { token: 't', ms: 1_000, maxAttempts: 3 })))).toMatch(
        /WRONGTYPE/,
      )
    }
  })

  it('open rejects, naming the refusal and leaving no record, when Redis refuses part of its transaction, on node-redis 5 and 6', async () => {
    const service = `svc-${randomUUID()}`
    await client.set(`${PREFIX}open:${service}`, 'not a sorted set', undefined as never)
    const v5 = await connect(server().url, 5)
    try {
      for (const c of [client, v5]) {
        const intent = intentOf({ service })
        const error = await rejection(new RedisIntentStore({ client: c, keyPrefix: PREFIX }).open(intent))
        expect(error).toBeInstanceOf(PaywireError)
        expect(String(error)).toContain(`Redis refused to write intent ${intent.id}: WRONGTYPE`)
        expect(await client.get(`${PREFIX}intent:${intent.id}`)).toBeNull() // no record left without an index entry
      }
    } finally {
      await v5.close()
    }
  })

  it('a record another program overwrote is reported with its key, not returned half-read; the scan lists the rest', async () => {
    const reported: JournalOrphan[] = []
    const journal = new RedisIntentStore({ client, keyPrefix: PREFIX, onOrphan: (o) => reported.push(o) })
    const service = `svc-${randomUUID()}`
    const [intent, other] = [intentOf({ service, createdAt: 1 }), intentOf({ service, createdAt: 2 })]
    await journal.open(intent)
    await journal.open(other)
    const key = `${PREFIX}intent:${intent.id}`
    for (const garbage of ['not json', '{"id":1}', 'null', '[]']) {
      await client.set(key, garbage, undefined as never)
      expect(await listed(journal, service)).toStrictEqual([other])
      expect(reported.pop()).toMatchObject({
        service,
        id: intent.id,
        createdAt: 1,
        repaired: false,
        message: expect.stringContaining(`${key} is not an intent record written by @paywire/redis`),
      })
      expect(await client.get(key)).toBe(garbage) // left for a person to look at
    }
  })

  it('an open intent whose record was deleted behind the journal’s back is reported, and its index entry removed', async () => {
    const reported: JournalOrphan[] = []
    const journal = new RedisIntentStore({ client, keyPrefix: PREFIX, onOrphan: (o) => reported.push(o) })
    const intent = intentOf({ service: `svc-${randomUUID()}` })
    await journal.open(intent)
    await (client as unknown as { del(key: string): Promise<number> }).del(`${PREFIX}intent:${intent.id}`)
    expect(await listed(journal, intent.service)).toStrictEqual([])
    expect(reported).toHaveLength(1)
    expect(reported[0]?.message).toContain(`without its record ${PREFIX}intent:${intent.id}; the entry was removed`)
    expect(reported[0]?.message).toContain('check it by hand')
    expect(await client.zScore(`${PREFIX}open:${intent.service}`, intent.id)).toBeNull()
  })

  it('an intent closed by another instance between the index read and the record read is skipped, not reported', async () => {
    const service = `svc-${randomUUID()}`
    const [kept, closed] = [intentOf({ service, createdAt: 1 }), intentOf({ service, createdAt: 2 })]
    const other = new RedisIntentStore({ client, keyPrefix: PREFIX })
    await other.open(kept)
    await other.open(closed)
    // A client whose MGET lets the other instance close `closed` first: the race, made to happen.
    const racing: RedisClient = {
      set: (...args) => client.set(...args),
      get: (key) => client.get(key),
      zRange: (...args) => client.zRange(...args),
      zScore: (...args) => client.zScore(...args),
      zRem: (...args) => client.zRem(...args),
      eval: (...args) => client.eval(...args),
      evalSha: (...args) => client.evalSha(...args),
      multi: () => client.multi(),
      mGet: async (keys) => {
        await other.close(closed.id, 'applied')
        return client.mGet(keys)
      },
    }
    expect(await listed(new RedisIntentStore({ client: racing, keyPrefix: PREFIX }), service)).toStrictEqual([kept])
  })
})
