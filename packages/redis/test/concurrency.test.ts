import { randomUUID } from 'node:crypto'
import type { ClaimStore } from '@paywire/core'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { RedisClaimStore } from '../src/index.js'
import { type Connected, connect } from './helpers.js'
import { describeWithRedis } from './redis-server.js'

const N = 50 // concurrent deliveries of one key
const M = 5 // handler instances, each with its own Redis connection and store
const HOLD = 30_000
const KEEP = 60_000

/**
 * A callback handler's use of the claim store, as core's inbox uses it: claim, run `onEvent`,
 * complete on success, release on failure so a redelivery may retry.
 */
async function deliver(store: ClaimStore, key: string, onEvent: () => Promise<void>): Promise<'ran' | 'duplicate'> {
  const token = randomUUID()
  if ((await store.claim(key, token, HOLD)) !== 'claimed') return 'duplicate'
  try {
    await onEvent()
  } catch (error) {
    await store.release(key, token)
    throw error
  }
  await store.complete(key, token, KEEP)
  return 'ran'
}

describeWithRedis(
  `${N} concurrent duplicate deliveries across ${M} instances, each on its own connection`,
  (server) => {
    let clients: Connected[] = []
    let stores: RedisClaimStore[] = []
    beforeAll(async () => {
      clients = await Promise.all(Array.from({ length: M }, () => connect(server().url)))
      stores = clients.map((client) => new RedisClaimStore({ client, keyPrefix: 'concurrency:' }))
    })
    afterAll(async () => {
      await Promise.all(clients.map((c) => c.close()))
    })

    it(`${N} claims of one key at once, spread over ${M} stores: exactly one claimed, 20 keys in parallel`, async () => {
      const keys = Array.from({ length: 20 }, () => `id:${randomUUID()}:type:status`)
      const results = await Promise.all(
        keys.map((key) =>
          Promise.all(
            Array.from({ length: N }, async (_, i) => {
              const token = randomUUID()
              return { token, state: await (stores[i % M] as RedisClaimStore).claim(key, token, HOLD) }
            }),
          ),
        ),
      )
      for (const claims of results) {
        expect(claims.filter((c) => c.state === 'claimed')).toHaveLength(1)
        expect(claims.filter((c) => c.state === 'held')).toHaveLength(N - 1)
      }
    })

    it('onEvent runs once for N concurrent deliveries; a failed run releases the key for exactly one retry; then none', async () => {
      const key = `evt-${randomUUID()}:payment:success`
      let runs = 0
      const wave = (onEvent: () => Promise<void>) =>
        Promise.allSettled(Array.from({ length: N }, (_, i) => deliver(stores[i % M] as RedisClaimStore, key, onEvent)))

      // Wave 1: the one delivery that claims the key fails in onEvent and releases it.
      const failed = await wave(async () => {
        runs++
        throw new Error('onEvent failed')
      })
      expect(runs).toBe(1)
      expect(failed.filter((r) => r.status === 'rejected')).toHaveLength(1)

      // Wave 2: the redelivery proceeds: exactly one run succeeds and completes the key.
      const succeeded = await wave(async () => {
        runs++
      })
      expect(runs).toBe(2)
      expect(succeeded.filter((r) => r.status === 'fulfilled' && r.value === 'ran')).toHaveLength(1)

      // Wave 3: completed: every later delivery is a duplicate.
      const late = await wave(async () => {
        runs++
      })
      expect(runs).toBe(2)
      expect(late.every((r) => r.status === 'fulfilled' && r.value === 'duplicate')).toBe(true)
    })
  },
)
