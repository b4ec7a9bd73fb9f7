import { randomUUID } from 'node:crypto'
import { MemoryClaimStore, type NewEvent } from '@paywire/core'
import { createTestClock } from '@paywire/core/testing'
import { afterAll, afterEach, beforeAll, expect, it, vi } from 'vitest'
import { RedisClaimStore } from '../src/index.js'
import { type Connected, connect, eventually } from './helpers.js'
import { describeWithRedis } from './redis-server.js'

const LONG = 60_000
const DAY = 86_400_000

const event = (key: string): NewEvent => ({ key, previousKeys: [], fields: `{"id":"${key}"}`, ref: `order:${key}` })
const lease = (maxAttempts = 5) => ({ token: randomUUID(), ms: LONG, maxAttempts })

describeWithRedis('RedisClaimStore on a real Redis: what the shared contract does not pin down', (server) => {
  let client: Connected
  beforeAll(async () => {
    client = await connect(server().url)
  })
  afterAll(async () => {
    await client.close()
  })
  afterEach(() => {
    vi.restoreAllMocks()
  })
  /** Redis's own clock, in ms since the epoch. */
  const redisNow = async () => {
    const [seconds, micros] = (await (client as unknown as { time(): Promise<[string, string]> }).time()).map(Number)
    return (seconds as number) * 1000 + Math.floor((micros as number) / 1000)
  }

  it("times come from Redis: instances whose clocks are a day apart agree on a lease, and a receive time is Redis's", async () => {
    const claims = new RedisClaimStore({ client, keyPrefix: `clock-${randomUUID()}:` })
    const key = `evt-${randomUUID()}`
    const real = Date.now.bind(Date)
    const now = vi.spyOn(Date, 'now')
    now.mockImplementation(() => real() - DAY) // the instance recording it runs a day behind
    const before = await redisNow()
    expect(await claims.record(event(key), randomUUID(), 1_000)).toBe('taken')
    const after = await redisNow()
    now.mockImplementation(() => real() + DAY) // a runner a day ahead: on Redis's clock the lease has not ended
    expect(await claims.take(key, lease())).toBeUndefined()
    expect((await claims.takeDue(lease(), 100)).map((t) => t.event.key)).not.toContain(key)
    now.mockRestore()
    let taken: Awaited<ReturnType<RedisClaimStore['take']>>
    await eventually(
      async () => {
        taken = await claims.take(key, lease())
        return taken !== undefined
      },
      5_000,
      'the lease ending on Redis',
    )
    expect(taken?.event.receivedAt).toBeGreaterThanOrEqual(before)
    expect(taken?.event.receivedAt).toBeLessThanOrEqual(after)
  })

  it('a dead event that ran out of attempts gives the same reason as core’s MemoryClaimStore, word for word', async () => {
    const claims = new RedisClaimStore({ client, keyPrefix: `reason-${randomUUID()}:` })
    const clock = createTestClock()
    const memory = new MemoryClaimStore({ clock })
    const key = `evt-${randomUUID()}`
    await memory.record(event(key), randomUUID(), 1)
    clock.advance(1)
    const inMemory = await memory.take(key, lease(1))
    await claims.record(event(key), randomUUID(), 1)
    let onRedis: Awaited<ReturnType<RedisClaimStore['take']>>
    await eventually(
      async () => {
        onRedis = await claims.take(key, lease(1))
        return onRedis !== undefined
      },
      5_000,
      'the 1 ms lease ending',
    )
    expect(inMemory?.dead).toBe(true)
    expect(onRedis).toMatchObject({ dead: true, event: { state: 'dead', attempts: 1 } })
    expect(onRedis?.event.lastError).toBe(inMemory?.event.lastError)
    expect(onRedis?.event.lastError).toBe(
      'each of its 1 runs ended with no outcome recorded (the process running it died, or lost the store)',
    )
  })

  it('prune sweeps a backlog larger than one script’s batch, in several scripts, and counts every entry', async () => {
    const claims = new RedisClaimStore({ client, keyPrefix: `prune-${randomUUID()}:` })
    const keys = Array.from({ length: 1_200 }, () => `evt-${randomUUID()}`)
    // Every keep ends after the last complete, so no complete sweeps another's done key first.
    await Promise.all(
      keys.map(async (key) => {
        const token = randomUUID()
        await claims.record(event(key), token, LONG)
        await claims.complete(key, token, 3_000)
      }),
    )
    const last = await redisNow()
    await eventually(async () => (await redisNow()) > last + 3_000, 10_000, 'every keep ending')
    expect(await claims.prune(1)).toBe(1_200)
    expect(await claims.prune(1)).toBe(0)
  })

  it('a release sent again after its reply was lost gives an uncounted attempt back once, not twice', async () => {
    const claims = new RedisClaimStore({ client, keyPrefix: `again-${randomUUID()}:` })
    const key = `evt-${randomUUID()}`
    await claims.record(event(key), randomUUID(), 1)
    const runner = lease()
    await eventually(async () => (await claims.take(key, runner)) !== undefined, 5_000, 'the 1 ms lease ending')
    const uncounted = { retryInMs: 0, counted: false, error: 'Error: store down', dead: false }
    expect(await claims.release(key, runner.token, uncounted)).toBe(true)
    expect(await claims.release(key, runner.token, uncounted)).toBe(true)
    expect((await claims.take(key, lease()))?.event).toMatchObject({ attempts: 2, lastError: 'Error: store down' })
  })

  it('wake makes due, on Redis’s clock, an event released with a retry time past any date; the due index agrees', async () => {
    const prefix = `wake-${randomUUID()}:`
    const claims = new RedisClaimStore({ client, keyPrefix: prefix })
    for (const retryInMs of [1e300, Number.MAX_VALUE]) {
      const key = `evt-${randomUUID()}`
      const holder = randomUUID()
      await claims.record(event(key), holder, LONG)
      const later = { retryInMs, counted: true, error: undefined, dead: false, fields: '{"far":true}' }
      expect(await claims.release(key, holder, later)).toBe(true)
      expect(await claims.take(key, lease())).toBeUndefined()
      const before = await redisNow()
      expect(await claims.wake(key)).toBe(true)
      const after = await redisNow()
      const due = await client.zScore(`${prefix}inbox:due`, key)
      expect(due).toBeGreaterThanOrEqual(before)
      expect(due).toBeLessThanOrEqual(after)
      const taken = await claims.takeDue(lease(), 10)
      expect(taken.map((t) => t.event)).toMatchObject([{ key, fields: '{"far":true}', attempts: 2 }])
    }
  })
})
