/**
 * Merchant processes killed with SIGKILL at every step of the journal and of `runOnce`, again and
 * again: after each kill, every intent the process saw opened and not closed is in the journal (none
 * lost), and after the restarts every item's effect is in the merchant's table exactly once (none
 * lost, none doubled), though many processes were killed after their INSERT and before its commit.
 * Four lanes (four merchants, each its own service and keys) run side by side, to keep the run short.
 */

import type pg from 'pg'
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest'
import { PostgresInbox, PostgresIntentStore } from '../src/index.js'
import { freshSchema, killFixtures, lines, sigkill, spawnFixture } from './helpers.js'
import { describeWithPostgres } from './postgres-server.js'

afterEach(killFixtures)

const LANES = 4
const KILLS_PER_LANE = 15 // 60 kill points in all
const ITEMS = 30 // per lane: more than 15 kills can use up (each ends at most 2 items in)
/** The fixture's steps: each lane kills at each of them in turn, the first or the second time it comes. */
const STEPS = ['opened', 'inserted', 'committed', 'closing', 'closed'] as const

describeWithPostgres('merchant processes killed with SIGKILL', (server) => {
  let pool: pg.Pool
  let schema: string
  beforeAll(async () => {
    pool = server().pool()
    schema = await freshSchema(pool, 'crash')
    await pool.query(`CREATE TABLE ${schema}.effects_seen (key text NOT NULL, pid integer NOT NULL)`)
  })
  afterAll(async () => {
    await pool.end()
  })

  it(`${LANES * KILLS_PER_LANE} kill points over the journal and runOnce: 0 intents lost, every effect exactly once`, async () => {
    const journal = new PostgresIntentStore({ pool, schema })
    const inbox = new PostgresInbox({ pool, schema })
    const killedAt: Record<string, number> = { opened: 0, inserted: 0, committed: 0, closing: 0, closed: 0 }
    const started = performance.now()

    const lane = async (name: string) => {
      const service = `crash-${name}`
      const run = (from: number) =>
        spawnFixture('merchant.ts', [String(server().port), schema, name, String(from), String(ITEMS)], true)
      let next = 0 // the first item not known closed
      for (let kill = 0; kill < KILLS_PER_LANE; kill++) {
        // Kill right after the step `target`, the first or the second time it comes: 12 kills per step.
        const target = STEPS[(kill + Number(name)) % STEPS.length] ?? 'opened'
        const nth = 1 + (kill % 2)
        const child = await run(next)
        const opened = new Set<number>()
        const closing = new Set<number>()
        const closed = new Set<number>()
        let seen = 0
        let step = ''
        await lines(child, (line) => {
          const i = Number(line.i)
          if (line.step === 'opened') opened.add(i)
          if (line.step === 'closing') closing.add(i)
          if (line.step === 'closed') closed.add(i)
          if (line.step === target && ++seen === nth) {
            step = target
            child.kill('SIGKILL')
          } else child.stdin?.write('\n') // the next step
        })
        await sigkill(child)
        killedAt[step] = (killedAt[step] ?? 0) + 1
        // None lost: every intent it saw opened, and not yet being closed, is in the journal for the
        // next process (one killed during its close may or may not have closed it).
        const open = (await journal.openIntents(service)).map((intent) => intent.id)
        for (const i of opened) if (!closing.has(i)) expect(open).toContain(`intent-${name}-${i}`)
        for (const i of closed) expect(open).not.toContain(`intent-${name}-${i}`)
        next = Math.max(next, ...[...closed].map((i) => i + 1))
      }
      // The last process runs to the end, undisturbed.
      const last = await run(next)
      expect(await lines(last, () => last.stdin?.write('\n'))).toBe(0)
      expect(await journal.openIntents(service)).toStrictEqual([])
    }
    await Promise.all(Array.from({ length: LANES }, (_, i) => lane(String(i))))
    const elapsed = performance.now() - started

    const rows = await pool.query(`SELECT key, count(*)::int AS n FROM ${schema}.effects_seen GROUP BY key`)
    const counts = new Map(rows.rows.map((r) => [String(r.key), Number(r.n)]))
    expect(counts.size).toBe(LANES * ITEMS)
    for (let l = 0; l < LANES; l++) {
      for (let i = 0; i < ITEMS; i++) {
        expect(counts.get(`evt-${l}-${i}`)).toBe(1)
        expect(await inbox.isDone(`callback:evt-${l}-${i}`)).toBe(true)
      }
    }
    // Every step was a kill point, the one between the INSERT and its COMMIT included.
    for (const at of ['opened', 'inserted', 'committed', 'closing', 'closed']) expect(killedAt[at]).toBeGreaterThan(0)
    console.info(
      `crash figures: ${LANES * KILLS_PER_LANE} SIGKILLs (${JSON.stringify(killedAt)}), ${LANES * ITEMS} items, 0 lost, 0 double, ${Math.round(elapsed)} ms`,
    )
  }, 120_000)
})
