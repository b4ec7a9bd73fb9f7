/**
 * The record's group commit against a real PostgreSQL: records made together go as one statement
 * and each gets its own answer; an event PostgreSQL refuses fails alone; two instances recording
 * the same keys at once in opposite orders each get one winner per key; a reply cut off a batch
 * fails every record in it, and each sent again by its runner answers as its first write did.
 */

import { randomUUID } from 'node:crypto'
import type { NewEvent } from '@paywire/core'
import type pg from 'pg'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { PostgresClaimStore } from '../src/index.js'
import { type CutProxy, startCutProxy } from './cut-proxy.js'
import { freshSchema, watched } from './helpers.js'
import { describeWithPostgres } from './postgres-server.js'

const event = (key: string, previousKeys: string[] = []): NewEvent => ({
  key,
  previousKeys,
  fields: `{"trans_id":"${key}"}`,
  ref: `ref-${key}`,
})

describeWithPostgres('PostgresClaimStore.record in batches', (server) => {
  let direct: pg.Pool
  let schema: string
  beforeAll(async () => {
    direct = server().pool()
    schema = await freshSchema(direct, 'batches')
  })
  afterAll(async () => {
    await direct.end()
  })

  const row = async (key: string) =>
    (
      await direct.query(
        `SELECT token, state, attempts, convert_from(fields, 'UTF8') AS fields, convert_from(ref, 'UTF8') AS ref
         FROM ${schema}.claims WHERE key = convert_to($1, 'UTF8')`,
        [key],
      )
    ).rows[0]

  it('records made while one is written go as one statement, each answered its own, a second record of a key known', async () => {
    const pool = server().pool({ max: 4 })
    try {
      const seen = watched(pool)
      const store = new PostgresClaimStore({ pool: seen.pool, schema })
      const run = randomUUID().slice(0, 8)
      const keys = Array.from({ length: 20 }, (_, i) => `${run}-k${i}`)
      const answers = await Promise.all([
        ...keys.map((key) => store.record(event(key), `token-${key}`, 60_000)),
        // The same key again, by another runner: it waits for a later batch and finds it recorded.
        store.record(event(keys[3] as string), 'token-other', 60_000),
        // An event whose previous key is being recorded: it too waits, and is written after it.
        store.record(event(`${run}-k20`, [keys[5] as string]), `token-${run}-k20`, undefined),
      ])
      expect(answers).toEqual([...keys.map(() => 'taken'), 'known', 'recorded'])
      // The first alone (nothing was in flight), the next eleven on the next turn (half of what waits
      // and is in flight), then the eight left that share no key with those; the second k3 and k20
      // after the statement that had k3 and k5, together, or one each when both statements are
      // free by then (each takes half of the two).
      expect(seen.records).toBeGreaterThanOrEqual(3)
      expect(seen.records).toBeLessThanOrEqual(5)
      for (const key of keys) {
        expect(await row(key)).toEqual({
          token: `token-${key}`,
          state: 'running',
          attempts: 1,
          fields: `{"trans_id":"${key}"}`,
          ref: `ref-${key}`,
        })
      }
      expect(await row(`${run}-k20`)).toMatchObject({ state: 'pending', attempts: 0 })
    } finally {
      await pool.end()
    }
  })

  it("an event PostgreSQL refuses (a DBA's check, by trigger) fails alone; the rest of its batch is recorded", async () => {
    const pool = server().pool({ max: 4 })
    try {
      const guarded = await freshSchema(direct, 'batches_guarded')
      await direct.query(`CREATE FUNCTION ${guarded}.refuse() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF convert_from(NEW.ref, 'UTF8') = 'ref-refused' THEN
    RAISE EXCEPTION 'this payment may not be recorded' USING ERRCODE = '23514';
  END IF;
  RETURN NEW;
END $$`)
      await direct.query(
        `CREATE TRIGGER refuse BEFORE INSERT ON ${guarded}.claims FOR EACH ROW EXECUTE FUNCTION ${guarded}.refuse()`,
      )
      const seen = watched(pool)
      const store = new PostgresClaimStore({ pool: seen.pool, schema: guarded })
      const first = store.record(event('first'), 't-first', 60_000)
      const batch = [
        store.record(event('a'), 't-a', 60_000),
        store.record(event('refused'), 't-refused', 60_000),
        store.record(event('c'), 't-c', undefined),
      ]
      const [a, refused, c] = await Promise.allSettled(batch)
      expect(await first).toBe('taken')
      expect(a).toEqual({ status: 'fulfilled', value: 'taken' })
      expect(refused).toMatchObject({
        status: 'rejected',
        reason: { code: '23514', message: 'this payment may not be recorded' },
      })
      expect(c).toEqual({ status: 'fulfilled', value: 'recorded' })
      // The batch of three refused whole (nothing of it written), then each alone.
      expect(seen.records).toBe(5)
      const rows = await direct.query(
        `SELECT convert_from(key, 'UTF8') AS key, token FROM ${guarded}.claims ORDER BY key`,
      )
      expect(rows.rows).toEqual([
        { key: 'a', token: 't-a' },
        { key: 'c', token: 't-c' },
        { key: 'first', token: 't-first' },
      ])
    } finally {
      await pool.end()
    }
  })

  it('a refusal of the whole statement (a read-only server) fails the batch once: no event is sent again alone', async () => {
    const pool = server().pool({ max: 4 })
    try {
      const seen = watched(pool)
      const store = new PostgresClaimStore({ pool: seen.pool, schema })
      const run = randomUUID().slice(0, 8)
      expect(await store.record(event(`${run}-first`), 't-first', 60_000)).toBe('taken')
      // As after a failover to a standby: every transaction of these connections is read-only.
      await pool.query('ALTER DATABASE postgres SET default_transaction_read_only = on')
      const readOnly = server().pool({ max: 4 })
      try {
        const watchedReadOnly = watched(readOnly)
        const refused = new PostgresClaimStore({ pool: watchedReadOnly.pool, schema })
        const blocker = refused.record(event(`${run}-x`), 't-x', 60_000)
        const batch = ['a', 'b', 'c'].map((key) => refused.record(event(`${run}-${key}`), `t-${key}`, 60_000))
        for (const one of await Promise.allSettled([blocker, ...batch])) {
          expect(one).toMatchObject({ status: 'rejected', reason: { code: '25006' } })
        }
        // The lone one, then a and b (half of what waits and is in flight), then c: each statement
        // refused whole, none of their events sent again alone.
        expect(watchedReadOnly.records).toBe(3)
      } finally {
        await readOnly.end()
      }
    } finally {
      await direct.query('ALTER DATABASE postgres RESET default_transaction_read_only')
      await pool.end()
    }
  })

  it('two instances recording the same keys at once, in opposite orders: one winner per key, nothing refused', async () => {
    const pools = [server().pool({ max: 4 }), server().pool({ max: 4 })]
    try {
      const run = randomUUID().slice(0, 8)
      const keys = Array.from({ length: 40 }, (_, i) => `${run}-${i}`)
      const [one, two] = pools.map((pool) => new PostgresClaimStore({ pool, schema }))
      for (let round = 0; round < 5; round++) {
        const roundKeys = keys.map((key) => `${key}-r${round}`)
        const [first, second] = await Promise.all([
          Promise.all(roundKeys.map((key) => one?.record(event(key), `one-${key}`, 60_000))),
          Promise.all([...roundKeys].reverse().map((key) => two?.record(event(key), `two-${key}`, 60_000))),
        ])
        const secondInOrder = [...(second ?? [])].reverse()
        roundKeys.forEach((key, i) => {
          const pair = [first?.[i], secondInOrder[i]].sort()
          expect(pair, key).toEqual(['known', 'taken'])
        })
      }
    } finally {
      await Promise.all(pools.map((pool) => pool.end()))
    }
  })

  it('a reply cut off a batch fails every record in it; each sent again by its runner answers as its first write', async () => {
    let proxy: CutProxy | undefined
    let pool: pg.Pool | undefined
    try {
      proxy = await startCutProxy(server().port)
      pool = server().pool({ port: proxy.port, max: 3 })
      const store = new PostgresClaimStore({ pool, schema })
      const run = randomUUID().slice(0, 8)
      // The first record waits at the server on a row lock held by an open transaction, holding
      // one of the two statements in flight while the records made next go in the other.
      const locker = await direct.connect()
      await locker.query('BEGIN')
      await locker.query(
        `INSERT INTO ${schema}.claims (key_hash, key, token, done, expires_at)
         VALUES (sha256(convert_to($1, 'UTF8')), convert_to($1, 'UTF8'), 'locker', false, 'infinity')`,
        [`${run}-first`],
      )
      const blocker = store.record(event(`${run}-first`), 't-first', 60_000)
      for (;;) {
        const { rows } = await direct.query(
          `SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND (query LIKE 'WITH prev AS%' OR query LIKE 'WITH i AS%')`,
        )
        if (rows[0].n > 0) break
      }
      // The next batch statement (not a lone record's) is cut on its reply.
      const cut = proxy.arm(/^WITH i AS/, 'reply')
      const keys = ['a', 'b', 'c', 'd', 'e'].map((key) => `${run}-${key}`)
      // Settled as they come: the cut statement's records reject while the blocker still waits.
      const settled = Promise.allSettled(keys.map((key) => store.record(event(key), `t-${key}`, 60_000)))
      await cut
      await locker.query('ROLLBACK')
      locker.release()
      expect(await blocker).toBe('taken')
      const outcomes = await settled
      const lost = keys.filter((_, i) => outcomes[i]?.status === 'rejected')
      // Every record of the cut statement fails, and none other; the server wrote them all the same.
      expect(lost.length).toBeGreaterThanOrEqual(2)
      for (const [i, outcome] of outcomes.entries()) {
        if (outcome.status === 'fulfilled') expect(outcome.value).toBe('taken')
        expect(await row(keys[i] as string)).toMatchObject({ token: `t-${keys[i]}` })
      }
      expect(await Promise.all(keys.map((key) => store.record(event(key), `t-${key}`, 60_000)))).toEqual(
        keys.map(() => 'taken'),
      )
      expect(await store.record(event(lost[0] as string), 't-someone-else', 60_000)).toBe('known')
    } finally {
      await pool?.end()
      await proxy?.close()
    }
  })
})
