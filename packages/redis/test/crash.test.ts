import { randomUUID } from 'node:crypto'
import type { Intent } from '@paywire/core'
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest'
import { RedisClaimStore, RedisIntentStore } from '../src/index.js'
import { intentOf } from './contract.js'
import {
  type Connected,
  connect,
  eventually,
  killFixtures,
  nextLine,
  pack,
  sigkill,
  spawnFixture,
  unpack,
} from './helpers.js'
import { describeWithRedis } from './redis-server.js'

const HOLD = 1_000
const LONG = 60_000
const PREFIX = 'crash:'

afterEach(killFixtures)

describeWithRedis('processes killed with SIGKILL', (server) => {
  let clients: Connected[] = []
  let raw: Connected
  beforeAll(async () => {
    clients = await Promise.all([1, 2, 3, 4, 5].map(() => connect(server().url)))
    raw = clients[0] as Connected
  })
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()))
  })

  it('a holder killed while holding a claim: no claim succeeds before holdMs, one does after; its stale token changes nothing', async () => {
    const key = `callback ${randomUUID()}:payment:success`
    const stores = clients.map((client) => new RedisClaimStore({ client, keyPrefix: PREFIX }))
    const holder = spawnFixture('claim-holder.ts', [server().url, PREFIX, key, String(HOLD)])
    const { token: stale, before } = await nextLine<{ token: string; before: number }>(holder)
    expect(stale).toEqual(expect.any(String))
    await sigkill(holder)

    // Redis set the expiry at (its time of the SET) + HOLD >= before + HOLD, and a key is expired
    // only once its time is past: a claim acknowledged before `before + HOLD` must have been refused.
    let refusedInHold = 0
    let winner: string | undefined
    let winnerAckAt = 0
    let attempt = 0
    await eventually(
      async () => {
        const token = randomUUID()
        const state = await (stores[attempt++ % stores.length] as RedisClaimStore).claim(key, token, LONG)
        const ackAt = Date.now()
        if (state !== 'claimed') {
          if (ackAt < before + HOLD) refusedInHold++
          return false
        }
        winner = token
        winnerAckAt = ackAt
        return true
      },
      HOLD + 5_000,
      'a redelivery after the killed holder’s hold',
    )
    expect(winnerAckAt).toBeGreaterThanOrEqual(before + HOLD)
    expect(refusedInHold).toBeGreaterThan(10)

    const claimKey = `${PREFIX}claim:${key}`
    await (stores[1] as RedisClaimStore).release(key, stale)
    await (stores[2] as RedisClaimStore).complete(key, stale, LONG)
    expect(await raw.get(claimKey)).toBe(`held:${winner}`)
    expect(await (stores[3] as RedisClaimStore).claim(key, randomUUID(), LONG)).toBe('held')
    await (stores[4] as RedisClaimStore).complete(key, winner as string, LONG)
    expect(await raw.get(claimKey)).toBe(`done:${winner}`)
  })

  it('an intent opened by a process killed before closing it is found, exactly, by a new process with a new store, which closes it', async () => {
    const service = `card-gateway ${randomUUID()}`
    const intent: Intent = intentOf({
      service,
      reconciliation: undefined,
      idempotencyKey: undefined,
      params: { trans_id: 'T 1:ü', amount: '10.00', nested: { list: [{ a: 1 }, { b: [null, 'x'] }] } },
    })
    const writer = spawnFixture('journal.ts', ['open', server().url, PREFIX, pack(intent)])
    expect(await nextLine(writer)).toStrictEqual({ opened: intent.id })
    await sigkill(writer)

    const reader = spawnFixture('journal.ts', ['recover', server().url, PREFIX, service])
    const { found, remaining } = await nextLine<{ found: string; remaining: string }>(reader)
    expect(unpack(found)).toStrictEqual([intent])
    expect(unpack(remaining)).toStrictEqual([])
    const journal = new RedisIntentStore({ client: raw, keyPrefix: PREFIX })
    expect(await journal.openIntents(service)).toStrictEqual([])
    expect(await raw.get(`${PREFIX}intent:${intent.id}`)).toBeNull()
  })
})

describeWithRedis(
  'redis-server itself killed with SIGKILL (appendonly yes, appendfsync always)',
  (server) => {
    it('every acknowledged open and complete is still there after the restart', async () => {
      const before = await connect(server().url)
      const journal = new RedisIntentStore({ client: before, keyPrefix: PREFIX })
      const claims = new RedisClaimStore({ client: before, keyPrefix: PREFIX })
      const intent = intentOf({ service: 'remittance' })
      await journal.open(intent)
      const token = randomUUID()
      await claims.claim('evt-1', token, LONG)
      await claims.complete('evt-1', token, LONG)
      await before.close()

      await server().crashAndRestart()

      const after = await connect(server().url)
      try {
        expect(
          await new RedisIntentStore({ client: after, keyPrefix: PREFIX }).openIntents('remittance'),
        ).toStrictEqual([intent])
        expect(await new RedisClaimStore({ client: after, keyPrefix: PREFIX }).claim('evt-1', randomUUID(), LONG)).toBe(
          'done',
        )
      } finally {
        await after.close()
      }
    })
  },
  { appendonly: true },
)
