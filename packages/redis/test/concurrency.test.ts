import { randomUUID } from 'node:crypto'
import type { ClaimStore, NewEvent, TakenEvent } from '@paywire/core'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { RedisClaimStore } from '../src/index.js'
import { type Connected, connect, eventually } from './helpers.js'
import { describeWithRedis } from './redis-server.js'

const N = 50 // concurrent deliveries of one key
const M = 5 // handler instances, each with its own Redis connection and store
const HOLD = 30_000
const KEEP = 60_000

const event = (key: string): NewEvent => ({ key, previousKeys: [], fields: `{"id":"${key}"}`, ref: `order:${key}` })
const lease = () => ({ token: randomUUID(), ms: HOLD, maxAttempts: 5 })

/**
 * A delivery as the inbox handles it: record the event leased to a fresh token, run `onEvent` when
 * this delivery took it, then complete on success or release it for a retry on failure.
 */
async function deliver(store: ClaimStore, key: string, onEvent: () => Promise<void>): Promise<string> {
  const token = randomUUID()
  const answer = await store.record(event(key), token, HOLD)
  if (answer !== 'taken') return answer
  try {
    await onEvent()
  } catch (error) {
    await store.release(key, token, { retryInMs: 1, counted: true, error: String(error), dead: false })
    throw error
  }
  await store.complete(key, token, KEEP)
  return 'ran'
}

describeWithRedis(`concurrent deliveries and runners across instances, each on its own connection`, (server) => {
  let clients: Connected[] = []
  let stores: RedisClaimStore[] = []
  const store = (i: number) => stores[i % stores.length] as RedisClaimStore
  beforeAll(async () => {
    clients = await Promise.all(Array.from({ length: M }, () => connect(server().url)))
    stores = clients.map((client) => new RedisClaimStore({ client, keyPrefix: 'concurrency:' }))
  })
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()))
  })

  it(`${N} records of one key at once, spread over ${M} stores: exactly one writes it, 20 keys in parallel`, async () => {
    const keys = Array.from({ length: 20 }, () => `id:${randomUUID()}:type:status`)
    const results = await Promise.all(
      keys.map((key) =>
        Promise.all(
          Array.from({ length: N }, (_, i) =>
            store(i).record(event(key), randomUUID(), i % 3 === 0 ? undefined : HOLD),
          ),
        ),
      ),
    )
    for (const answers of results) {
      expect(answers.filter((a) => a === 'taken' || a === 'recorded')).toHaveLength(1)
      expect(answers.filter((a) => a === 'known')).toHaveLength(N - 1)
    }
  })

  it('3 instances on 3 connections race takeDue in a loop over 200 due events: every event is taken exactly once', async () => {
    const racers = clients
      .slice(0, 3)
      .map((client) => new RedisClaimStore({ client, keyPrefix: `race-${randomUUID()}:` }))
    const keys = Array.from({ length: 200 }, (_, i) => `due-${i}-${randomUUID()}`)
    await Promise.all(
      keys.map((key, i) => (racers[i % 3] as RedisClaimStore).record(event(key), randomUUID(), undefined)),
    )
    const runs = await Promise.all(
      racers.map(async (racer) => {
        const mine: TakenEvent[] = []
        for (;;) {
          // A small, odd batch so the three interleave many times over the 200.
          const batch = await racer.takeDue(lease(), 7)
          if (batch.length === 0) return mine
          mine.push(...batch)
        }
      }),
    )
    const taken = runs.flat()
    expect(taken.every((t) => !t.dead && t.event.attempts === 1 && t.event.state === 'running')).toBe(true)
    expect(taken.map((t) => t.event.key).sort()).toStrictEqual([...keys].sort())
    // Each racer got a share: the loop really raced, not one instance draining the rest alone.
    expect(runs.filter((mine) => mine.length > 0).length).toBeGreaterThan(1)
  })

  it('onEvent runs once for N concurrent deliveries; a failed run is retried by exactly one runner; then no delivery runs it', async () => {
    const key = `evt-${randomUUID()}:payment:success`
    let runs = 0
    const wave = (onEvent: () => Promise<void>) =>
      Promise.allSettled(Array.from({ length: N }, (_, i) => deliver(store(i), key, onEvent)))

    // Wave 1: the one delivery that takes the event fails in onEvent and releases it; the rest were told known.
    const failed = await wave(async () => {
      runs++
      throw new Error('onEvent failed')
    })
    expect(runs).toBe(1)
    expect(failed.filter((r) => r.status === 'rejected')).toHaveLength(1)
    expect(failed.filter((r) => r.status === 'fulfilled' && r.value === 'known')).toHaveLength(N - 1)

    // The retry: every instance's runner races for due events; exactly one takes it, as attempt 2.
    const retried: { token: string; taken: TakenEvent }[] = []
    await eventually(
      async () => {
        const batches = await Promise.all(
          stores.map(async (s) => {
            const runner = lease()
            return (await s.takeDue(runner, 100)).map((taken) => ({ token: runner.token, taken }))
          }),
        )
        retried.push(...batches.flat().filter((r) => r.taken.event.key === key))
        return retried.length > 0
      },
      5_000,
      'the retry',
    )
    expect(retried).toHaveLength(1)
    const [retry] = retried
    expect(retry?.taken.event).toMatchObject({ attempts: 2, lastError: 'Error: onEvent failed' })

    // Deliveries while the retry runs are told known: nobody else runs it.
    const during = await wave(async () => {
      runs++
    })
    expect(during.every((r) => r.status === 'fulfilled' && r.value === 'known')).toBe(true)
    runs++ // the retry's run succeeds
    expect(await store(3).complete(key, retry?.token ?? '', KEEP)).toBe(true)

    // Done: every later delivery is told done, and nothing runs it again.
    const late = await wave(async () => {
      runs++
    })
    expect(late.every((r) => r.status === 'fulfilled' && r.value === 'done')).toBe(true)
    expect(runs).toBe(2)
  })
})
