/**
 * Schema version 2 over real version-1 data: a database built by the published version-1 SQL, with
 * claims written by version 1's own statements (test/fixtures/v1.ts), is migrated; the new store
 * then reads every v1 claim as version 1 meant it, and a version-1 instance still running during a
 * rolling upgrade keeps working beside it without taking over, or pruning, a recorded event.
 */

import { randomUUID } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Lease, NewEvent } from '@paywire/core'
import type pg from 'pg'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { migrate, migrationSql, PostgresClaimStore, PostgresIntentStore, SCHEMA_VERSION } from '../src/index.js'
import { V1ClaimStore, v1MigrationSql } from './fixtures/v1.js'
import { describeWithPostgres } from './postgres-server.js'

const LONG = 60_000
const token = () => randomUUID()
const lease = (): Lease => ({ token: token(), ms: LONG, maxAttempts: 5 })
const event = (key: string, previousKeys: string[] = []): NewEvent => ({
  key,
  previousKeys,
  fields: `{"id":${JSON.stringify(key)}}`,
  ref: `order:${key}`,
})

describeWithPostgres('schema version 2, from version 1', (server) => {
  let pool: pg.Pool
  beforeAll(async () => {
    pool = server().pool({ max: 10 })
  })
  afterAll(async () => {
    await pool.end()
  })

  /** A database as version 1 left it: its SQL run by hand, as its migrate() ran it. */
  const v1Database = async (schema: string) => {
    await pool.query(v1MigrationSql(schema))
    return { v1: new V1ClaimStore(pool, schema), v2: new PostgresClaimStore({ pool, schema }) }
  }
  /** Ends a claim's hold or keep on the server's clock, without waiting for it. */
  const expire = (schema: string, key: string) =>
    pool.query(`UPDATE ${schema}.claims SET expires_at = now() - interval '1 second' WHERE key = $1`, [
      Buffer.from(key, 'utf8'),
    ])

  it('the fixture is the published version 1: its SQL is sql/schema-v1.sql, shipped unchanged', () => {
    const file = readFileSync(join(import.meta.dirname, '..', 'sql', 'schema-v1.sql'), 'utf8')
    expect(v1MigrationSql('paywire')).toBe(file)
    expect(migrationSql().startsWith(file.replace(/COMMIT;\n$/, ''))).toBe(true)
  })

  it('v1 done and held claims written before the upgrade: done stays done (as the key or a previous key), held answers held, then is taken once its hold ends', async () => {
    const schema = 'v1_rows'
    const { v1, v2 } = await v1Database(schema)
    const t = token()
    expect(await v1.claim('done-key', t, LONG)).toBe('claimed')
    expect(await v1.complete('done-key', t, LONG)).toBe(true)
    expect(await v1.claim('held-key', token(), LONG)).toBe('claimed')
    expect(await v1.claim('held-previous', token(), LONG)).toBe('claimed')
    expect(await v1.claim('released-key', t, LONG)).toBe('claimed')
    await v1.release('released-key', t)

    expect(await migrate(pool, { schema })).toStrictEqual({ from: 1, to: SCHEMA_VERSION })

    expect(await v2.record(event('done-key'), token(), LONG)).toBe('done')
    expect(await v2.record(event('new-key-1', ['other', 'done-key']), token(), LONG)).toBe('done')
    expect(await v2.record(event('held-key'), token(), LONG)).toBe('held')
    expect(await v2.record(event('new-key-2', ['held-previous']), token(), undefined)).toBe('held')
    expect(await v2.record(event('released-key'), token(), LONG)).toBe('taken')
    // Nothing of version 1 is an event to run or a dead letter.
    expect((await v2.takeDue(lease(), 1_000)).map((taken) => taken.event.key)).toStrictEqual([])
    expect(await v2.failedEvents(1_000)).toStrictEqual([])
    expect(await v2.take('held-key', lease())).toBeUndefined()

    await expire(schema, 'held-key')
    await expire(schema, 'held-previous')
    const mine = token()
    expect(await v2.record(event('held-key'), mine, LONG)).toBe('taken')
    expect(await v2.record(event('held-key'), mine, LONG)).toBe('taken')
    expect(await v2.record(event('new-key-2', ['held-previous']), token(), undefined)).toBe('recorded')
    expect(await v2.complete('held-key', mine, LONG)).toBe(true)
    expect(await v2.record(event('held-key'), token(), LONG)).toBe('done')
  })

  it('a version-1 instance still running after the migration: its claims are read as it wrote them, and it never takes over, completes or prunes a recorded event', async () => {
    const schema = 'v1_rollout'
    const { v1, v2 } = await v1Database(schema)
    await migrate(pool, { schema })

    // Its own claim on a new key: held, then done, for the new store too.
    const old = token()
    expect(await v1.claim('v1-new', old, LONG)).toBe('claimed')
    expect(await v2.record(event('v1-new'), token(), LONG)).toBe('held')
    expect(await v2.record(event('v2-after', ['v1-new']), token(), LONG)).toBe('held')
    expect(await v1.complete('v1-new', old, LONG)).toBe(true)
    expect(await v2.record(event('v1-new'), token(), LONG)).toBe('done')
    expect(await v2.record(event('v2-after', ['v1-new']), token(), LONG)).toBe('done')

    // Its claim released: nothing left, the next delivery is a new event.
    expect(await v1.claim('v1-released', old, LONG)).toBe('claimed')
    await v1.release('v1-released', old)
    expect(await v2.record(event('v1-released'), token(), undefined)).toBe('recorded')

    // Events the new store recorded, in every state not done, even due ones: held for version 1.
    const runner = token()
    expect(await v2.record(event('pending'), token(), undefined)).toBe('recorded')
    expect(await v2.record(event('running'), runner, LONG)).toBe('taken')
    expect(await v2.record(event('dead'), runner, LONG)).toBe('taken')
    expect(await v2.release('dead', runner, { retryInMs: 0, counted: true, error: 'Error: x', dead: true })).toBe(true)
    for (const key of ['pending', 'running', 'dead']) {
      const other = token()
      expect(await v1.claim(key, other, LONG)).toBe('held')
      expect(await v1.complete(key, other, LONG)).toBe(false)
      await v1.release(key, other)
    }
    expect(await v1.prune()).toBe(0)
    const due = await v2.takeDue(lease(), 1_000)
    expect(due.map((taken) => taken.event.key).sort()).toStrictEqual(['pending', 'v1-released'])
    expect((await v2.failedEvents(10)).map((e) => e.key)).toStrictEqual(['dead'])
    expect(await v2.complete('running', runner, LONG)).toBe(true)

    // A done key: done for version 1 while kept; once its keep ended, version 1 may claim it again,
    // and the new store reads that claim as version 1's (held, then done when it completes).
    expect(await v1.claim('running', token(), LONG)).toBe('done')
    await expire(schema, 'running')
    const late = token()
    expect(await v1.claim('running', late, LONG)).toBe('claimed')
    expect(await v2.record(event('running'), token(), LONG)).toBe('held')
    expect(await v2.take('running', lease())).toBeUndefined()
    expect(await v1.complete('running', late, LONG)).toBe(true)
    expect(await v2.record(event('running'), token(), LONG)).toBe('done')

    // The new prune deletes v1 claims past their hold, and leaves every recorded event.
    await v1.claim('v1-dies', token(), LONG)
    await expire(schema, 'v1-dies')
    await expire(schema, 'running')
    expect(await v2.prune(LONG)).toBe(2)
    const left = await pool.query(`SELECT convert_from(key, 'UTF8') AS key FROM ${schema}.claims ORDER BY 1`)
    expect(left.rows.map((row) => row.key)).toStrictEqual(['dead', 'pending', 'v1-new', 'v1-released'])
  })

  it('migrate from 0 and from 1 reach the same schema; two instances migrating a version-1 database at once apply the step once', async () => {
    expect(await migrate(pool, { schema: 'from_zero' })).toStrictEqual({ from: 0, to: 2 })
    await v1Database('from_one')
    const [a, b] = await Promise.all([migrate(pool, { schema: 'from_one' }), migrate(pool, { schema: 'from_one' })])
    expect([a.from, b.from].sort()).toStrictEqual([1, 2])
    expect([a.to, b.to]).toStrictEqual([2, 2])
    const versions = await pool.query('SELECT version FROM from_one.schema_version ORDER BY version')
    expect(versions.rows.map((row) => row.version)).toStrictEqual([1, 2])
    const shape = (schema: string) =>
      pool
        .query(
          `SELECT string_agg(table_name || '.' || column_name || ' ' || data_type || ' ' || is_nullable || ' ' || coalesce(column_default, ''), ', ' ORDER BY table_name, column_name) AS columns,
             (SELECT string_agg(replace(indexdef, $1 || '.', ''), '; ' ORDER BY indexname) FROM pg_indexes WHERE schemaname = $1) AS indexes,
             (SELECT string_agg(pg_get_constraintdef(oid), '; ' ORDER BY conname) FROM pg_constraint WHERE connamespace = $1::regnamespace) AS constraints
           FROM information_schema.columns WHERE table_schema = $1`,
          [schema],
        )
        .then((result) => result.rows[0])
    expect(await shape('from_one')).toStrictEqual(await shape('from_zero'))
  })

  it('migrationSql({ from: 1 }) run by hand upgrades a version-1 database; the files shipped for DBAs are migrationSql()', async () => {
    const sql = (name: string) => readFileSync(join(import.meta.dirname, '..', 'sql', name), 'utf8')
    expect(sql('schema-v2.sql')).toBe(migrationSql())
    expect(sql('upgrade-v1-to-v2.sql')).toBe(migrationSql({ from: 1 }))
    expect(migrationSql({ from: 2 })).toBe('BEGIN;\nCOMMIT;\n')
    for (const from of [-1, 3, 1.5, Number.NaN]) expect(() => migrationSql({ from })).toThrow(/from/)

    const { v1 } = await v1Database('by_dba')
    const t = token()
    await v1.claim('kept', t, LONG)
    await v1.complete('kept', t, LONG)
    await pool.query(migrationSql({ schema: 'by_dba', from: 1 }))
    expect(await migrate(pool, { schema: 'by_dba' })).toStrictEqual({ from: 2, to: 2 })
    const store = new PostgresClaimStore({ pool, schema: 'by_dba' })
    expect(await store.record(event('kept'), token(), LONG)).toBe('done')
    expect(await store.record(event('fresh'), token(), LONG)).toBe('taken')
    expect(await new PostgresIntentStore({ pool, schema: 'by_dba' }).openIntents('x')).toStrictEqual([])
  })
})
