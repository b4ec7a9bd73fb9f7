/**
 * Two merchant processes receive the same 200 callbacks at the same time (the gateway delivering
 * each twice, to two instances): every payment's effect is in the merchant's table exactly once.
 * And the inbox store raced directly, from three pools: every recorded event is taken exactly once.
 */

import { randomUUID } from 'node:crypto'
import { writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { signCallback } from '@paywire/card-gateway/testing'
import type { Lease, NewEvent, TakenEvent } from '@paywire/core'
import type pg from 'pg'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { PostgresClaimStore } from '../src/index.js'
import { freshSchema, killFixtures, lines, spawnFixture } from './helpers.js'
import { describeWithPostgres } from './postgres-server.js'

afterEach(killFixtures)

const N = 200
const PASSWORD = 'callback-password'

describeWithPostgres('two processes racing duplicate callbacks', (server) => {
  let pool: pg.Pool
  let schema: string
  beforeAll(async () => {
    pool = server().pool()
    schema = await freshSchema(pool, 'race')
  })
  afterAll(async () => {
    await pool.end()
  })

  for (const claims of ['postgres', 'memory'] as const) {
    it(`${N} callbacks delivered to both processes at once, ${claims} claims: each effect exactly once`, async () => {
      await pool.query(`DROP TABLE IF EXISTS ${schema}.payments_seen, ${schema}.gate, ${schema}.effects_${claims}`)
      await pool.query(`CREATE TABLE ${schema}.payments_seen (id text NOT NULL, pid integer NOT NULL)`)
      await pool.query(`CREATE TABLE ${schema}.gate (open boolean)`)
      await pool.query(`TRUNCATE ${schema}.effects, ${schema}.claims`)
      const bodies = Array.from({ length: N }, (_, i) =>
        signCallback(
          {
            id: `pay-race-${i}`,
            order_number: `order-${i}`,
            order_amount: '10.00',
            order_currency: 'USD',
            order_description: 'Filters',
            order_status: 'settled',
            type: 'sale',
            status: 'success',
          },
          PASSWORD,
        ),
      )
      const file = join(tmpdir(), `paywire-race-${process.pid}.txt`)
      writeFileSync(file, `${bodies.join('\n')}\n`)
      const results: Record<string, unknown>[] = []
      const children = await Promise.all(
        [1, 2].map(() => spawnFixture('deliverer.ts', [String(server().port), schema, PASSWORD, file, claims])),
      )
      let ready = 0
      let started = 0
      const allReady = new Promise<void>((resolve) => {
        for (const child of children) {
          void lines(child, (line) => {
            if (line.ready) {
              if (++ready === 2) resolve()
            } else results.push(line)
          }).then((code) => results.push({ code }))
        }
      })
      await allReady
      started = performance.now()
      await pool.query(`INSERT INTO ${schema}.gate VALUES (true)`)
      await Promise.all(children.map((child) => new Promise((resolve) => child.once('exit', resolve))))
      const elapsed = performance.now() - started
      expect(results.filter((r) => 'code' in r).map((r) => r.code)).toStrictEqual([0, 0])
      const done = results.filter((r) => 'ok' in r)
      expect(done.map((r) => r.ok)).toStrictEqual([N, N])
      const rows = await pool.query(`SELECT id, count(*)::int AS n FROM ${schema}.payments_seen GROUP BY id`)
      expect(rows.rows).toHaveLength(N)
      expect(rows.rows.every((r) => r.n === 1)).toBe(true)
      const runs = done.reduce((sum, r) => sum + Number(r.runs), 0)
      // Shared claims: one process runs onEvent per payment. Claims of its own each: both run it, and
      // runOnce alone keeps the effect single.
      expect(runs).toBe(claims === 'postgres' ? N : 2 * N)
      const pids = await pool.query(`SELECT count(DISTINCT pid)::int AS n FROM ${schema}.payments_seen`)
      console.info(
        `race figures (${claims} claims): ${N} callbacks x 2 processes, ${runs} onEvent runs, ${rows.rows.length} effects (0 double), effects applied by ${pids.rows[0]?.n} processes, ${done.map((r) => r.retries).join('+')} redeliveries after 503, ${Math.round(elapsed)} ms`,
      )
    }, 60_000)
  }

  describe('the inbox store raced from 3 pools', () => {
    const EVENTS = 300
    let pools: pg.Pool[]
    let stores: PostgresClaimStore[]
    beforeAll(async () => {
      pools = [1, 2, 3].map(() => server().pool({ max: 4 }))
      await freshSchema(pool, 'race_store')
      stores = pools.map((p) => new PostgresClaimStore({ pool: p, schema: 'race_store' }))
    })
    afterAll(async () => {
      await Promise.all(pools.map((p) => p.end()))
    })
    const event = (key: string): NewEvent => ({ key, previousKeys: [], fields: `{"id":"${key}"}`, ref: `order:${key}` })
    const lease = (): Lease => ({ token: randomUUID(), ms: 60_000, maxAttempts: 3 })
    const store = (i: number) => stores[i % stores.length] as PostgresClaimStore

    /** Takes due events from every pool at once, two loops per pool, until `more()` is false and none is left due. */
    const drain = async (more: () => boolean) => {
      const taken: TakenEvent[] = []
      let calls = 0
      const loop = async (i: number) => {
        for (;;) {
          const stillComing = more()
          calls++
          const got = await store(i).takeDue(lease(), 1 + (i % 7))
          taken.push(...got)
          // Empty while others hold every due row (skipped, not waited for): the others go on.
          if (got.length === 0 && !stillComing) return
          if (got.length === 0) await new Promise((resolve) => setImmediate(resolve))
        }
      }
      await Promise.all(Array.from({ length: 6 }, (_, i) => loop(i)))
      return { taken, calls }
    }

    it(`${EVENTS} due events, takeDue racing in a loop on 3 pools (and take of single keys beside it): each taken exactly once`, async () => {
      const keys = Array.from({ length: EVENTS }, (_, i) => `due-${i}-${randomUUID()}`)
      await Promise.all(keys.map((key, i) => store(i).record(event(key), randomUUID(), undefined)))
      const single: TakenEvent[] = []
      const takes = (async () => {
        for (const [i, key] of [...keys].reverse().entries()) {
          const got = await store(i).take(key, lease())
          if (got) single.push(got)
        }
      })()
      const { taken, calls } = await drain(() => false)
      await takes
      const all = [...taken, ...single]
      expect(all.every((t) => !t.dead && t.event.attempts === 1 && t.event.state === 'running')).toBe(true)
      expect(all.map((t) => t.event.key).sort()).toStrictEqual([...keys].sort())
      const rows = await pool.query(
        `SELECT count(*)::int AS n FROM race_store.claims WHERE state = 'running' AND attempts = 1 AND due_at > now()`,
      )
      expect(rows.rows[0]?.n).toBe(EVENTS)
      console.info(
        `takeDue race figures: ${EVENTS} events, ${taken.length} taken by ${calls} takeDue calls on 3 pools, ${single.length} by take, 0 twice`,
      )
    }, 60_000)

    it(`${EVENTS} events recorded (half leased at once) while takeDue races on 3 pools: each runs exactly once`, async () => {
      const keys = Array.from({ length: EVENTS }, (_, i) => `rec-${i}-${randomUUID()}`)
      let recording = true
      const recorded = (async () => {
        const answers = await Promise.all(
          keys.map((key, i) => store(i).record(event(key), randomUUID(), i % 2 === 0 ? 60_000 : undefined)),
        )
        recording = false
        return answers
      })()
      const { taken } = await drain(() => recording)
      const answers = await recorded
      expect(answers.filter((a) => a === 'taken')).toHaveLength(EVENTS / 2)
      expect(answers.filter((a) => a === 'recorded')).toHaveLength(EVENTS / 2)
      const ran = [...keys.filter((_, i) => answers[i] === 'taken'), ...taken.map((t) => t.event.key)]
      expect(ran.sort()).toStrictEqual([...keys].sort())
    }, 60_000)

    it('a done key past its keep, recorded again by 10 tokens at once from 3 pools (20 keys in parallel): exactly one takes it over', async () => {
      const keys = Array.from({ length: 20 }, (_, i) => `kept-${i}-${randomUUID()}`)
      for (const [i, key] of keys.entries()) {
        const first = randomUUID()
        expect(await store(i).record(event(key), first, 60_000)).toBe('taken')
        expect(await store(i).complete(key, first, 60_000)).toBe(true)
      }
      await pool.query(`UPDATE race_store.claims SET expires_at = now() - interval '1 second' WHERE state = 'done'`)
      const results = await Promise.all(
        keys.map((key) =>
          Promise.all(Array.from({ length: 10 }, (_, i) => store(i).record(event(key), randomUUID(), 60_000))),
        ),
      )
      for (const answers of results) {
        expect(answers.filter((a) => a === 'taken')).toHaveLength(1)
        expect(answers.filter((a) => a === 'known')).toHaveLength(9)
      }
    }, 60_000)
  })
})
