import { randomUUID } from 'node:crypto'
import type { Intent, NewEvent, TakenEvent } from '@paywire/core'
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest'
import { RedisClaimStore, RedisIntentStore } from '../src/index.js'
import { intentOf } from './contract.js'
import {
  type Connected,
  connect,
  eventually,
  killFixtures,
  listed,
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

const event = (key: string, fields = `{"id":"${key}"}`): NewEvent => ({
  key,
  previousKeys: [],
  fields,
  ref: `order:${key}`,
})

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

  it('a runner killed while holding a lease: nobody takes the event before the lease ends, one runner does after; its stale token changes nothing', async () => {
    const key = `callback ${randomUUID()}:payment:success`
    const stores = clients.map((client) => new RedisClaimStore({ client, keyPrefix: PREFIX }))
    const holder = await spawnFixture('claim-holder.ts', [server().url, PREFIX, key, String(HOLD)])
    const { token: stale, before } = await nextLine<{ token: string; before: number }>(holder)
    expect(stale).toEqual(expect.any(String))
    await sigkill(holder)

    // Redis set the lease end at (its time of the record) + HOLD >= before + HOLD, on the clock this
    // process reads too: a take acknowledged before `before + HOLD` must have found nothing due.
    // Runners ask both ways, by key and for whatever is due.
    let refusedInHold = 0
    let winner: { token: string; taken: TakenEvent } | undefined
    let winnerAckAt = 0
    let attempt = 0
    await eventually(
      async () => {
        const store = stores[attempt % stores.length] as RedisClaimStore
        const lease = { token: randomUUID(), ms: LONG, maxAttempts: 5 }
        const taken =
          attempt++ % 2 === 0
            ? await store.take(key, lease)
            : (await store.takeDue(lease, 10)).find((t) => t.event.key === key)
        const ackAt = Date.now()
        if (taken === undefined) {
          if (ackAt < before + HOLD) refusedInHold++
          return false
        }
        winner = { token: lease.token, taken }
        winnerAckAt = ackAt
        return true
      },
      HOLD + 5_000,
      'a runner after the killed runner’s lease',
    )
    expect(winnerAckAt).toBeGreaterThanOrEqual(before + HOLD)
    expect(refusedInHold).toBeGreaterThan(10)
    expect(winner?.taken).toMatchObject({ dead: false, event: { key, attempts: 2, state: 'running' } })

    const record = `${PREFIX}inbox:event:${key}`
    const raw = clients[0] as unknown as { hGet(key: string, field: string): Promise<string | null> }
    expect(await (stores[1] as RedisClaimStore).complete(key, stale, LONG)).toBe(false)
    expect(await (stores[2] as RedisClaimStore).renew(key, stale, LONG)).toBe(false)
    expect(
      await (stores[3] as RedisClaimStore).release(key, stale, {
        retryInMs: 1,
        counted: false,
        error: undefined,
        dead: false,
      }),
    ).toBe(false)
    expect(await (stores[4] as RedisClaimStore).record(event(key), stale, HOLD)).toBe('known')
    expect(await raw.hGet(record, 'token')).toBe(winner?.token)
    expect(await raw.hGet(record, 'attempts')).toBe('2')
    expect(
      await (stores[0] as RedisClaimStore).take(key, { token: randomUUID(), ms: LONG, maxAttempts: 5 }),
    ).toBeUndefined()
    expect(await (stores[4] as RedisClaimStore).complete(key, winner?.token as string, LONG)).toBe(true)
    expect(await raw.hGet(record, 'state')).toBe('done')
    expect(await raw.hGet(record, 'token')).toBe(winner?.token)
  })

  it('an intent opened by a process killed before closing it is found, exactly, by a new process with a new store, which closes it', async () => {
    const service = `card-gateway ${randomUUID()}`
    const intent: Intent = intentOf({
      service,
      reconciliation: undefined,
      idempotencyKey: undefined,
      params: { trans_id: 'T 1:ü', amount: '10.00', nested: { list: [{ a: 1 }, { b: [null, 'x'] }] } },
    })
    const writer = await spawnFixture('journal.ts', ['open', server().url, PREFIX, pack(intent)])
    expect(await nextLine(writer)).toStrictEqual({ opened: intent.id })
    await sigkill(writer)

    const reader = await spawnFixture('journal.ts', ['recover', server().url, PREFIX, service])
    const { found, remaining } = await nextLine<{ found: string; remaining: string }>(reader)
    // As written, with the time Redis recorded it on its own clock.
    expect(unpack<Intent[]>(found).map(({ writtenAt: _, ...rest }) => rest)).toStrictEqual([intent])
    expect(unpack(remaining)).toStrictEqual([])
    const journal = new RedisIntentStore({ client: raw, keyPrefix: PREFIX })
    expect(await listed(journal, service)).toStrictEqual([])
    expect(await raw.get(`${PREFIX}intent:${intent.id}`)).toBeNull()
  })
})

describeWithRedis(
  'redis-server itself killed with SIGKILL (appendonly yes, appendfsync always)',
  (server) => {
    it('every acknowledged open, record, release and complete is still there after the restart', async () => {
      const before = await connect(server().url)
      const journal = new RedisIntentStore({ client: before, keyPrefix: PREFIX })
      const claims = new RedisClaimStore({ client: before, keyPrefix: PREFIX })
      const intent = intentOf({ service: 'remittance' })
      await journal.open(intent)
      const token = randomUUID()
      await claims.record(event('evt-done'), token, LONG)
      await claims.complete('evt-done', token, LONG)
      // Acknowledged to the gateway and not run yet: the record is all there is of it.
      expect(
        await claims.record(event('evt-pending', '{"amount":"10.00","note":"付款"}'), randomUUID(), undefined),
      ).toBe('recorded')
      await claims.record(event('evt-dead'), token, LONG)
      await claims.release('evt-dead', token, { retryInMs: 1, counted: true, error: 'TypeError: x', dead: true })
      await before.close()

      await server().crashAndRestart()

      const after = await connect(server().url)
      try {
        const claimsAfter = new RedisClaimStore({ client: after, keyPrefix: PREFIX })
        expect(await listed(new RedisIntentStore({ client: after, keyPrefix: PREFIX }), 'remittance')).toStrictEqual([
          intent,
        ])
        expect(await claimsAfter.record(event('evt-done'), randomUUID(), LONG)).toBe('done')
        const taken = await claimsAfter.takeDue({ token: randomUUID(), ms: LONG, maxAttempts: 5 }, 10)
        expect(taken.map((t) => t.event)).toMatchObject([
          { key: 'evt-pending', fields: '{"amount":"10.00","note":"付款"}', attempts: 1, state: 'running' },
        ])
        expect(await claimsAfter.failedEvents(10)).toMatchObject([{ key: 'evt-dead', lastError: 'TypeError: x' }])
      } finally {
        await after.close()
      }
    })
  },
  { appendonly: true },
)
