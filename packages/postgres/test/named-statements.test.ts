/**
 * The record statements go prepared (named): parsed and planned once per connection. From the side
 * of a server session that does not hold them as node-postgres believes: deallocated behind its back
 * (26000), prepared already under the name by someone else (42P05), and a real PgBouncer 1.18 in
 * transaction mode, which moves a connection's statements between server sessions. Each time the
 * record is sent again unnamed, answered as its first write, written once.
 */

import { randomUUID } from 'node:crypto'
import type { NewEvent } from '@paywire/core'
import type pg from 'pg'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { PostgresClaimStore } from '../src/index.js'
import { freshSchema, logged, RECORD_STATEMENT, type Send } from './helpers.js'
import { describeWithPgBouncer, pgBouncerVersion, startPgBouncer } from './pgbouncer-process.js'
import { describeWithPostgres } from './postgres-server.js'

const event = (key: string, previousKeys: string[] = []): NewEvent => ({
  key,
  previousKeys,
  fields: `{"trans_id":"${key}"}`,
  ref: `ref-${key}`,
})

/** What was refused of the named statements in `sends`: each SQLSTATE, or node-postgres's own message. */
const refusedOf = (sends: readonly Send[]) =>
  sends
    .filter((send) => send.named && send.outcome !== 'ok')
    .map((send) => (send.outcome === 'no code' ? String((send.error as Error).message) : String(send.outcome)))

const PREPARED = `SELECT name, statement FROM pg_prepared_statements WHERE name LIKE 'paywire_record_%' ORDER BY name`

describeWithPostgres('PostgresClaimStore record statements, prepared', (server) => {
  let direct: pg.Pool
  let schema: string
  beforeAll(async () => {
    direct = server().pool()
    schema = await freshSchema(direct, 'named')
  })
  afterAll(async () => {
    await direct.end()
  })

  /** The key's rows, as written: one per key, or none. */
  const rows = async (key: string) =>
    (await direct.query(`SELECT token, attempts FROM ${schema}.claims WHERE key = convert_to($1, 'UTF8')`, [key])).rows

  it('a lone record and a batch each prepare their statement once on a connection, and go by name after', async () => {
    // One connection: every statement of the store and of the test runs in the same server session.
    const pool = server().pool({ max: 1 })
    try {
      const store = new PostgresClaimStore({ pool, schema })
      const run = randomUUID().slice(0, 8)
      for (let i = 0; i < 3; i++) expect(await store.record(event(`${run}-lone-${i}`), 't', 60_000)).toBe('taken')
      for (let round = 0; round < 3; round++) {
        const keys = Array.from({ length: 8 }, (_, i) => `${run}-batch-${round}-${i}`)
        expect(await Promise.all(keys.map((key) => store.record(event(key), `t-${key}`, undefined)))).toEqual(
          keys.map(() => 'recorded'),
        )
      }
      const { rows: prepared } = await pool.query(PREPARED)
      // Two statements (a lone event's and a batch's), each prepared once, whatever the count of runs.
      expect(prepared).toHaveLength(2)
      for (const { statement } of prepared) expect(statement).toMatch(RECORD_STATEMENT)
    } finally {
      await pool.end()
    }
  })

  it('a statement deallocated behind node-postgres (26000): the record is sent again unnamed, written once; the store goes unnamed from then on', async () => {
    const pool = server().pool({ max: 1 })
    try {
      const store = new PostgresClaimStore({ pool, schema })
      const run = randomUUID().slice(0, 8)
      expect(await store.record(event(`${run}-a`), 't-a', 60_000)).toBe('taken')
      // As a pooler that hands this connection another server session: the client still believes
      // the statement prepared, and sends only its name.
      await pool.query('DEALLOCATE ALL')
      expect(await store.record(event(`${run}-b`, [`${run}-a`]), 't-b', 60_000)).toBe('taken')
      expect(await rows(`${run}-b`)).toEqual([{ token: 't-b', attempts: 1 }])
      const keys = Array.from({ length: 6 }, (_, i) => `${run}-after-${i}`)
      expect(await Promise.all(keys.map((key) => store.record(event(key), `t-${key}`, 60_000)))).toEqual(
        keys.map(() => 'taken'),
      )
      expect((await pool.query(PREPARED)).rows).toEqual([])
      // A record sent again by its runner after all that still answers as its first write.
      expect(await store.record(event(`${run}-b`, [`${run}-a`]), 't-b', 60_000)).toBe('taken')
    } finally {
      await pool.end()
    }
  })

  it('a name already prepared in the session by someone else (42P05): the record is sent again unnamed, written once', async () => {
    const probe = server().pool({ max: 1 })
    const pool = server().pool({ max: 1 })
    try {
      const run = randomUUID().slice(0, 8)
      expect(await new PostgresClaimStore({ pool: probe, schema }).record(event(`${run}-p`), 't', 60_000)).toBe('taken')
      const [{ name }] = (await probe.query(PREPARED)).rows as [{ name: string }]
      // Another client of a pooler left a statement of that name (here another text) in the session.
      await pool.query(`PREPARE ${name} AS SELECT 1`)
      const store = new PostgresClaimStore({ pool, schema })
      expect(await store.record(event(`${run}-x`), 't-x', 60_000)).toBe('taken')
      expect(await rows(`${run}-x`)).toEqual([{ token: 't-x', attempts: 1 }])
      expect(await store.record(event(`${run}-x`), 't-other', 60_000)).toBe('known')
    } finally {
      await Promise.all([probe.end(), pool.end()])
    }
  })

  it('a cached plan that no longer fits the table (0A000 from the plan check): sent again unnamed, written once', async () => {
    const altered = await freshSchema(direct, 'named_altered')
    const pool = server().pool({ max: 1 })
    try {
      const store = new PostgresClaimStore({ pool, schema: altered })
      expect(await store.record(event('before'), 't', 60_000)).toBe('taken')
      // A DBA's change of a column the statement answers: the prepared plan's result type changes.
      await direct.query(`ALTER TABLE ${altered}.claims ALTER COLUMN state TYPE varchar(16)`)
      expect(await store.record(event('after'), 't-after', 60_000)).toBe('taken')
      const { rows: written } = await direct.query(
        `SELECT token, attempts FROM ${altered}.claims WHERE key = convert_to('after', 'UTF8')`,
      )
      expect(written).toEqual([{ token: 't-after', attempts: 1 }])
    } finally {
      await pool.end()
    }
  })

  it("an event refused with 0A000 by a DBA's trigger fails alone, and the statements stay prepared", async () => {
    const guarded = await freshSchema(direct, 'named_guarded')
    await direct.query(`CREATE FUNCTION ${guarded}.refuse() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF convert_from(NEW.ref, 'UTF8') = 'ref-refused' THEN
    RAISE EXCEPTION 'not supported for this payment' USING ERRCODE = '0A000';
  END IF;
  RETURN NEW;
END $$`)
    await direct.query(
      `CREATE TRIGGER refuse BEFORE INSERT ON ${guarded}.claims FOR EACH ROW EXECUTE FUNCTION ${guarded}.refuse()`,
    )
    const pool = server().pool({ max: 1 })
    try {
      const store = new PostgresClaimStore({ pool, schema: guarded })
      const outcomes = await Promise.allSettled(
        ['a', 'b', 'refused', 'c'].map((key) => store.record(event(key), `t-${key}`, 60_000)),
      )
      expect(outcomes.map((outcome) => outcome.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled'])
      expect(outcomes[2]).toMatchObject({ reason: { code: '0A000', message: 'not supported for this payment' } })
      expect(await store.record(event('d'), 't-d', 60_000)).toBe('taken')
      expect((await pool.query(PREPARED)).rows.length).toBeGreaterThan(0)
    } finally {
      await pool.end()
    }
  })

  it('a wrapper that rewrites a named statement per call (node-postgres refuses the name for another text): sent again unnamed, written once', async () => {
    const pool = server().pool({ max: 1 })
    try {
      let call = 0
      const seen = logged(pool, undefined, (text) => `${text} -- call ${++call}`)
      const store = new PostgresClaimStore({ pool: seen.pool, schema })
      const run = randomUUID().slice(0, 8)
      for (let i = 0; i < 3; i++) expect(await store.record(event(`${run}-${i}`), `t-${i}`, 60_000)).toBe('taken')
      expect(refusedOf(seen.sends)).toEqual([expect.stringMatching(/^Prepared statements must be unique/)])
      for (let i = 0; i < 3; i++) expect(await rows(`${run}-${i}`)).toEqual([{ token: `t-${i}`, attempts: 1 }])
    } finally {
      await pool.end()
    }
  })

  describeWithPgBouncer('behind a real PgBouncer 1.18 in transaction mode', () => {
    it('instances recording through it: every key written once, the first write answered, the rest known, none refused', async () => {
      // Two server sessions for eight client connections: statements land on sessions that never
      // parsed them, and parses on sessions that already hold the name.
      expect(pgBouncerVersion()[0]).toBeGreaterThanOrEqual(1)
      const bouncer = await startPgBouncer(server().port, 2)
      const pools = [server().pool({ port: bouncer.port, max: 4 }), server().pool({ port: bouncer.port, max: 4 })]
      try {
        const seen = pools.map((pool) => logged(pool))
        const stores = seen.map(({ pool }) => new PostgresClaimStore({ pool, schema }))
        const run = randomUUID().slice(0, 8)
        const keys = Array.from({ length: 60 }, (_, i) => `${run}-${i}`)
        for (let round = 0; round < 4; round++) {
          const roundKeys = keys.map((key) => `${key}-r${round}`)
          // Each key recorded by both instances, in opposite orders, in bursts and alone.
          const [first, second] = await Promise.all(
            stores.map((store, s) =>
              Promise.all(
                (s === 0 ? roundKeys : [...roundKeys].reverse()).map((key) =>
                  store.record(event(key), `s${s}-${key}`, 60_000),
                ),
              ),
            ),
          )
          const secondInOrder = [...(second ?? [])].reverse()
          for (const [i, key] of roundKeys.entries()) {
            expect([first?.[i], secondInOrder[i]].sort(), key).toEqual(['known', 'taken'])
          }
          for (const key of roundKeys.slice(0, 5)) expect(await rows(key)).toHaveLength(1)
          expect(await stores[round % 2]?.record(event(`${run}-lone-${round}`), 't', undefined)).toBe('recorded')
        }
        const { rows: count } = await direct.query(
          `SELECT count(*)::int AS n FROM ${schema}.claims WHERE convert_from(key, 'UTF8') LIKE $1`,
          [`${run}-%`],
        )
        expect(count[0].n).toBe(keys.length * 4 + 4)
        // The fallback was taken, not just available: PgBouncer refused a named statement.
        expect(
          seen.flatMap(({ sends }) => refusedOf(sends)).filter((code) => code === '26000' || code === '42P05'),
        ).not.toEqual([])
      } finally {
        await Promise.all(pools.map((pool) => pool.end()))
        await bouncer.stop()
      }
    })
  })
})
