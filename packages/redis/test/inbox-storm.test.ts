/**
 * The durable inbox on Redis, attacked as the outside tester did: three merchant instances (real
 * processes sharing one redis-server through `RedisClaimStore`) receive callbacks from a gateway that
 * never delivers again after a 2xx, while a random instance is SIGKILLed every 150–500 ms and
 * restarted; one event kills whichever process runs it; 1,000 callbacks arrive at once. Judged by
 * what the gateway was told: every acknowledged callback runs. Effects here are counted in Redis
 * (at least once: a run killed after its effect and before its done mark runs again, and the count
 * says how often that happened); for effects exactly once, see the PostgreSQL suite's `runOnce`.
 */

import { signCallback } from '@paywire/card-gateway/testing'
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest'
import { deliverUnderStorm, eventually, type Instance } from '../../../tests/support/inbox-storm.js'
import { RedisClaimStore } from '../src/index.js'
import { type Connected, connect, killFixtures, nextLine, sigkill, spawnFixture } from './helpers.js'
import { describeWithRedis } from './redis-server.js'

afterEach(killFixtures)

const PASSWORD = 'storm-password'

/** The signed Checkout callback of payment `id` (each payment its own order). */
function callback(id: string): string {
  return signCallback(
    {
      id,
      order_number: `order-${id}`,
      order_amount: '10.00',
      order_currency: 'USD',
      order_description: 'Filters',
      order_status: 'settled',
      type: 'sale',
      status: 'success',
    },
    PASSWORD,
  )
}

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
    const child = await spawnFixture('storm-merchant.ts', [server().url, prefix, PASSWORD, String(maxAttempts)])
    const { url } = await nextLine<{ url: string }>(child)
    return { url, kill: () => sigkill(child) }
  }

  async function runs(prefix: string): Promise<Map<string, number>> {
    // The connection is a node-redis client; the stores only type the commands they send.
    const client = redis as unknown as { hGetAll(key: string): Promise<Record<string, string>> }
    const all = await client.hGetAll(`${prefix}effects`)
    return new Map(Object.entries(all).map(([id, n]) => [id, Number(n)]))
  }

  /** Waits until every acknowledged payment ran; answers the figures. */
  async function judge(prefix: string, ids: readonly string[], acknowledged: ReadonlySet<number>) {
    let seen = new Map<string, number>()
    await eventually(
      async () => {
        seen = await runs(prefix)
        return [...acknowledged].every((i) => seen.has(ids[i] as string))
      },
      60_000,
      () => `${[...acknowledged].filter((i) => !seen.has(ids[i] as string)).length} acknowledged callbacks never ran`,
    )
    const neverRan = [...acknowledged].filter((i) => !seen.has(ids[i] as string)).length
    const reruns = [...seen.values()].filter((n) => n > 1).length
    return { neverRan, reruns }
  }

  it('SIGKILL storm: 3 instances, one killed every 150–500 ms, 900 callbacks over 12 s: 0 acknowledged never ran', async () => {
    const prefix = `storm-kill-${Date.now()}:`
    const ids = Array.from({ length: 900 }, (_, i) => `pay-${i}`)
    const instances = await Promise.all([instance(prefix), instance(prefix), instance(prefix)])
    const result = await deliverUnderStorm({
      bodies: ids.map(callback),
      instances,
      inFlight: 12,
      spreadOverMs: 12_000,
      disrupt: async (live) => {
        const victim = Math.floor(Math.random() * live.length)
        await live[victim]?.kill()
        live[victim] = await instance(prefix)
        return 'sigkill'
      },
    })
    const { neverRan, reruns } = await judge(prefix, ids, result.acknowledged)
    console.info(
      `redis SIGKILL storm: ${result.acknowledged.size} acknowledged, ${result.disruptions.sigkill ?? 0} kills, answers ${JSON.stringify(result.answers)}, ${neverRan} never ran, ${reruns} ran twice (killed between the effect and the done mark), ${result.elapsedMs} ms`,
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
    let deaths = 0
    let supervising = true
    // A supervisor, as in production: whichever instance the poison killed is replaced.
    const supervisor = (async () => {
      while (supervising) {
        for (const [i, inst] of instances.entries()) {
          const alive = await fetch(inst.url, { method: 'POST', body: '' }).then(
            () => true,
            () => false,
          )
          if (!alive) {
            deaths++
            instances[i] = await instance(prefix, 3)
          }
        }
        await new Promise((resolve) => setTimeout(resolve, 100))
      }
    })()
    try {
      const result = await deliverUnderStorm({
        bodies: ids.map(callback),
        instances,
        inFlight: 4,
        disrupt: async () => 'none',
      })
      const store = new RedisClaimStore({ client: redis, keyPrefix: prefix })
      await eventually(
        async () => (await store.failedEvents(10)).length === 1,
        60_000,
        () => `the poison is never set aside (${deaths} deaths)`,
      )
      const [dead] = await store.failedEvents(10)
      const { neverRan } = await judge(
        prefix,
        ids,
        new Set([...result.acknowledged].filter((i) => ids[i] !== 'poison')),
      )
      console.info(
        `redis poison: set aside after ${dead?.attempts} runs (${deaths} processes died), ${neverRan} never ran`,
      )
      expect(dead?.attempts).toBe(3)
      expect(deaths).toBe(3)
      expect(dead?.lastError).toMatch(/no outcome recorded/)
      expect(neverRan).toBe(0)
      expect((await runs(prefix)).has('poison')).toBe(false)
    } finally {
      supervising = false
      await supervisor
      await Promise.all(instances.map((i) => i.kill().catch(() => {})))
    }
  }, 180_000)

  it('1,000 callbacks at once to 3 instances: all acknowledged, each run once', async () => {
    const prefix = `storm-burst-${Date.now()}:`
    const ids = Array.from({ length: 1_000 }, (_, i) => `pay-${i}`)
    const instances = await Promise.all([instance(prefix), instance(prefix), instance(prefix)])
    const result = await deliverUnderStorm({
      bodies: ids.map(callback),
      instances,
      inFlight: 1_000,
      disrupt: async () => 'none',
    })
    const { neverRan, reruns } = await judge(prefix, ids, result.acknowledged)
    console.info(
      `redis burst: ${result.acknowledged.size} acknowledged in ${result.elapsedMs} ms, answers ${JSON.stringify(result.answers)}, ${neverRan} never ran, ${reruns} ran twice`,
    )
    expect(result.acknowledged.size).toBe(1_000)
    expect(neverRan).toBe(0)
    expect(reruns).toBe(0)
    await Promise.all(instances.map((i) => i.kill()))
  }, 180_000)
})
