/**
 * The durable inbox on PostgreSQL, attacked as the outside tester did: three merchant instances (real
 * processes, the docs' recipe: `PostgresClaimStore` + `runOnce` + `lockPayment`) receive callbacks
 * from a gateway that never delivers again after a 2xx, while (1) a random instance is SIGKILLed every
 * 150–500 ms and restarted, (2) the PostgreSQL server is restarted in immediate mode again and again,
 * (3) one event kills whichever process runs it, and (4) 1,000 callbacks arrive at once. Judged by
 * what the gateway was told: every acknowledged callback runs, and its effect lands exactly once.
 */

import type pg from 'pg'
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
import { PostgresClaimStore } from '../src/index.js'
import { freshSchema, killFixtures, lines, sigkill, spawnFixture } from './helpers.js'
import { describeWithPostgres } from './postgres-server.js'

afterEach(killFixtures)

describeWithPostgres(
  'the durable inbox on PostgreSQL under SIGKILL, restarts, a poison event and a burst',
  (server) => {
    let pool: pg.Pool
    beforeAll(async () => {
      pool = server().pool()
    })
    afterAll(async () => {
      await pool.end()
    })

    async function schemaFor(name: string): Promise<string> {
      const schema = await freshSchema(pool, name)
      await pool.query(`CREATE TABLE ${schema}.effects_seen (id text NOT NULL, pid integer NOT NULL)`)
      return schema
    }

    /** Starts one merchant instance and resolves once it listens. */
    async function instance(schema: string, maxAttempts = 8): Promise<Instance> {
      const args = [String(server().port), schema, STORM_PASSWORD, String(maxAttempts)]
      const child = await spawnFixture('storm-merchant.ts', args)
      const url = await new Promise<string>((resolve, reject) => {
        void lines(child, (line) => resolve(String(line.url))).then((code) =>
          reject(new Error(`the merchant exited (${code}) before listening`)),
        )
      })
      return { url, kill: () => sigkill(child) }
    }

    /** Rows of the merchant's own effects table, by payment id. */
    async function effects(schema: string): Promise<Map<string, number>> {
      const rows = await pool.query(`SELECT id, count(*)::int AS n FROM ${schema}.effects_seen GROUP BY id`)
      return new Map(rows.rows.map((r) => [String(r.id), Number(r.n)]))
    }

    it('SIGKILL storm: 3 instances, one killed every 150–500 ms, 900 callbacks over 12 s: 0 acknowledged never ran, 0 double effects', async () => {
      const schema = await schemaFor('storm_kill')
      const ids = Array.from({ length: 900 }, (_, i) => `pay-${i}`)
      const instances = await Promise.all([instance(schema), instance(schema), instance(schema)])
      const result = await deliverUnderStorm({
        bodies: ids.map(stormCallback),
        instances,
        inFlight: 12,
        spreadOverMs: 12_000,
        minDisruptions: 15,
        disrupt: async (live) => {
          const victim = Math.floor(Math.random() * live.length)
          await live[victim]?.kill()
          live[victim] = await instance(schema)
          return 'sigkill'
        },
      })
      const { neverRan, doubles } = await judgeStorm(ids, result.acknowledged, () => effects(schema))
      console.info(
        `postgres SIGKILL storm: ${result.acknowledged.size} acknowledged, ${result.disruptions.sigkill ?? 0} kills, answers ${JSON.stringify(result.answers)}, ${neverRan} never ran, ${doubles} double, ${result.elapsedMs} ms`,
      )
      expect(result.acknowledged.size).toBe(900)
      expect(result.disruptions.sigkill ?? 0).toBeGreaterThanOrEqual(15)
      expect(neverRan).toBe(0)
      expect(doubles).toBe(0)
      await Promise.all(instances.map((i) => i.kill()))
    }, 180_000)

    it('PostgreSQL restarted in immediate mode again and again under 600 callbacks over 10 s: 0 acknowledged never ran, 0 double effects', async () => {
      const schema = await schemaFor('storm_restart')
      const ids = Array.from({ length: 600 }, (_, i) => `pay-${i}`)
      const instances = await Promise.all([instance(schema), instance(schema), instance(schema)])
      const result = await deliverUnderStorm({
        bodies: ids.map(stormCallback),
        instances,
        inFlight: 12,
        spreadOverMs: 10_000,
        minDisruptions: 5,
        everyMs: [500, 1_000],
        disrupt: async () => {
          // Down long enough that deliveries are answered 503 and runs in progress lose the store.
          await server().restart({ immediate: true, downMs: 150 + Math.random() * 450 })
          return 'restart'
        },
      })
      const { neverRan, doubles } = await judgeStorm(ids, result.acknowledged, () => effects(schema))
      console.info(
        `postgres restart storm: ${result.acknowledged.size} acknowledged, ${result.disruptions.restart ?? 0} immediate restarts, answers ${JSON.stringify(result.answers)}, ${neverRan} never ran, ${doubles} double, ${result.elapsedMs} ms`,
      )
      expect(result.acknowledged.size).toBe(600)
      expect(result.disruptions.restart ?? 0).toBeGreaterThanOrEqual(5)
      expect(neverRan).toBe(0)
      expect(doubles).toBe(0)
      await Promise.all(instances.map((i) => i.kill()))
    }, 180_000)

    it('a poison event that kills every process running it is set aside after maxAttempts; every other event runs once', async () => {
      const schema = await schemaFor('storm_poison')
      const ids = ['poison', ...Array.from({ length: 50 }, (_, i) => `pay-${i}`)]
      const instances = await Promise.all([instance(schema, 3), instance(schema, 3), instance(schema, 3)])
      const supervisor = supervise(instances, () => instance(schema, 3))
      try {
        const result = await deliverUnderStorm({
          bodies: ids.map(stormCallback),
          instances,
          inFlight: 4,
          disrupt: async () => 'none',
        })
        const store = new PostgresClaimStore({ pool, schema })
        await eventually(
          async () => (await store.failedEvents(10)).length === 1,
          60_000,
          () => `the poison is never set aside (${supervisor.deaths()} deaths)`,
        )
        const [dead] = await store.failedEvents(10)
        const others = new Set([...result.acknowledged].filter((i) => ids[i] !== 'poison'))
        const { neverRan, doubles } = await judgeStorm(ids, others, () => effects(schema))
        console.info(
          `postgres poison: set aside after ${dead?.attempts} runs (${supervisor.deaths()} processes died), ${neverRan} never ran, ${doubles} double`,
        )
        expect(dead?.attempts).toBe(3)
        expect(supervisor.deaths()).toBe(3)
        expect(dead?.lastError).toMatch(/no outcome recorded/)
        expect(neverRan).toBe(0)
        expect(doubles).toBe(0)
        expect((await effects(schema)).has('poison')).toBe(false)
      } finally {
        await supervisor.stop()
        await Promise.all(instances.map((i) => i.kill().catch(() => {})))
      }
    }, 180_000)

    it('1,000 callbacks at once to 3 instances: all acknowledged, each effect once, and the store keeps only keys (no fields) once done', async () => {
      const schema = await schemaFor('storm_burst')
      const ids = Array.from({ length: 1_000 }, (_, i) => `pay-${i}`)
      const instances = await Promise.all([instance(schema), instance(schema), instance(schema)])
      const result = await deliverUnderStorm({
        bodies: ids.map(stormCallback),
        instances,
        inFlight: 1_000,
        disrupt: async () => 'none',
      })
      const { neverRan, doubles } = await judgeStorm(ids, result.acknowledged, () => effects(schema))
      expect(result.acknowledged.size).toBe(1_000)
      expect(neverRan).toBe(0)
      expect(doubles).toBe(0)
      const fields = async () =>
        (await pool.query(`SELECT count(fields)::int AS n FROM ${schema}.claims`)).rows[0]?.n as number
      await eventually(
        async () => (await fields()) === 0,
        30_000,
        () => 'fields still stored after every event was done',
      )
      const rows = (await pool.query(`SELECT count(*)::int AS n FROM ${schema}.claims`)).rows[0]?.n
      console.info(
        `postgres burst: ${result.acknowledged.size} acknowledged in ${result.elapsedMs} ms, answers ${JSON.stringify(result.answers)}, ${neverRan} never ran, ${doubles} double; ${rows} rows, none holding fields`,
      )
      await Promise.all(instances.map((i) => i.kill()))
    }, 180_000)
  },
)
