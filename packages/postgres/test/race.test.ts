/**
 * Two merchant processes receive the same 200 callbacks at the same time (the gateway delivering
 * each twice, to two instances): every payment's effect is in the merchant's table exactly once.
 */

import { writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { signCallback } from '@paywire/card-gateway/testing'
import type pg from 'pg'
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest'
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
})
