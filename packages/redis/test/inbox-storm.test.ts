/**
 * The durable inbox on Redis, attacked as the outside tester did: three merchant instances (real
 * processes sharing one redis-server through `RedisClaimStore`) receive callbacks from a gateway that
 * never delivers again after a 2xx, while a random instance is SIGKILLed every 150–500 ms and
 * restarted; one event kills whichever process runs it; 1,000 callbacks arrive at once. Judged by
 * what the gateway was told: every acknowledged callback runs. Effects here are counted in Redis
 * (at least once: a run killed after its effect and before its done mark runs again, and the count
 * says how often that happened); for effects exactly once, see the PostgreSQL suite's `runOnce`.
 */

import { afterAll, afterEach, beforeAll, expect, it } from 'vitest'
import {
  deliverUnderStorm,
  eventually,
  type Instance,
  judgeStorm,
  STORM_PASSWORD,
  stormCallback,
  supervise,
} from '../../../tests/support/inbox-storm.js'
import { RedisClaimStore } from '../src/index.js'
import { type Connected, connect, killFixtures, nextLine, sigkill, spawnFixture } from './helpers.js'
import { describeWithRedis } from './redis-server.js'

afterEach(killFixtures)

describeWithRedis('the durable inbox on Redis under SIGKILL, a poison event and a burst', (server) => {
  let redis: Connected
  beforeAll(async () => {
    redis = await connect(server().url)
  })
  afterAll(async () => {
    await redis.close()
  })

  /** Starts one merchant instance and resolves once it listens. */
  async function instance(prefix: string, maxAttempts = 8): Promise<Instance> {
    const child = await spawnFixture('storm-merchant.ts', [server().url, prefix, STORM_PASSWORD, String(maxAttempts)])
    const { url } = await nextLine<{ url: string }>(child)
    return { url, kill: () => sigkill(child) }
  }

  /** How often each payment ran, as the fixtures counted in Redis. */
  async function runs(prefix: string): Promise<Map<string, number>> {
    // The connection is a node-redis client; the stores only type the commands they send.
    const client = redis as unknown as { hGetAll(key: string): Promise<Record<string, string>> }
    const all = await client.hGetAll(`${prefix}effects`)
    return new Map(Object.entries(all).map(([id, n]) => [id, Number(n)]))
  }

  it('SIGKILL storm: 3 instances, one killed every 150–500 ms, 900 callbacks over 12 s: 0 acknowledged never ran', async () => {
    const prefix = `storm-kill-${Date.now()}:`
    const ids = Array.from({ length: 900 }, (_, i) => `pay-${i}`)
    const instances = await Promise.all([instance(prefix), instance(prefix), instance(prefix)])
    const result = await deliverUnderStorm({
      bodies: ids.map(stormCallback),
      instances,
      inFlight: 12,
      spreadOverMs: 12_000,
      minDisruptions: 15,
      disrupt: async (live) => {
        const victim = Math.floor(Math.random() * live.length)
        await live[victim]?.kill()
        live[victim] = await instance(prefix)
        return 'sigkill'
      },
    })
    const { neverRan, doubles } = await judgeStorm(ids, result.acknowledged, () => runs(prefix))
    console.info(
      `redis SIGKILL storm: ${result.acknowledged.size} acknowledged, ${result.disruptions.sigkill ?? 0} kills, answers ${JSON.stringify(result.answers)}, ${neverRan} never ran, ${doubles} ran twice (killed between the effect and the done mark), ${result.elapsedMs} ms`,
    )
    expect(result.acknowledged.size).toBe(900)
    expect(result.disruptions.sigkill ?? 0).toBeGreaterThanOrEqual(15)
    expect(neverRan).toBe(0)
    await Promise.all(instances.map((i) => i.kill()))
  }, 240_000)

  it('a poison event that kills every process running it is set aside after maxAttempts; every other event runs', async () => {
    const prefix = `storm-poison-${Date.now()}:`
    const ids = ['poison', ...Array.from({ length: 50 }, (_, i) => `pay-${i}`)]
    const instances = await Promise.all([instance(prefix, 3), instance(prefix, 3), instance(prefix, 3)])
    const supervisor = supervise(instances, () => instance(prefix, 3))
    try {
      const result = await deliverUnderStorm({
        bodies: ids.map(stormCallback),
        instances,
        inFlight: 4,
        disrupt: async () => 'none',
      })
      const store = new RedisClaimStore({ client: redis, keyPrefix: prefix })
      await eventually(
        async () => (await store.failedEvents(10)).length === 1,
        60_000,
        () => `the poison is never set aside (${supervisor.deaths()} deaths)`,
      )
      const [dead] = await store.failedEvents(10)
      const others = new Set([...result.acknowledged].filter((i) => ids[i] !== 'poison'))
      const { neverRan } = await judgeStorm(ids, others, () => runs(prefix))
      console.info(
        `redis poison: set aside after ${dead?.attempts} runs (${supervisor.deaths()} processes died), ${neverRan} never ran`,
      )
      expect(dead?.attempts).toBe(3)
      expect(supervisor.deaths()).toBe(3)
      expect(dead?.lastError).toMatch(/no outcome recorded/)
      expect(neverRan).toBe(0)
      expect((await runs(prefix)).has('poison')).toBe(false)
    } finally {
      await supervisor.stop()
      await Promise.all(instances.map((i) => i.kill().catch(() => {})))
    }
  }, 180_000)

  it('1,000 callbacks at once to 3 instances: all acknowledged, each run once', async () => {
    const prefix = `storm-burst-${Date.now()}:`
    const ids = Array.from({ length: 1_000 }, (_, i) => `pay-${i}`)
    const instances = await Promise.all([instance(prefix), instance(prefix), instance(prefix)])
    const result = await deliverUnderStorm({
      bodies: ids.map(stormCallback),
      instances,
      inFlight: 1_000,
      disrupt: async () => 'none',
    })
    const { neverRan, doubles } = await judgeStorm(ids, result.acknowledged, () => runs(prefix))
    console.info(
      `redis burst: ${result.acknowledged.size} acknowledged in ${result.elapsedMs} ms, answers ${JSON.stringify(result.answers)}, ${neverRan} never ran, ${doubles} ran twice`,
    )
    expect(result.acknowledged.size).toBe(1_000)
    expect(neverRan).toBe(0)
    expect(doubles).toBe(0)
    await Promise.all(instances.map((i) => i.kill()))
  }, 180_000)
})
