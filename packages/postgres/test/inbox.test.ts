/**
 * migrate() and its SQL file, the options' checks, runOnce's transaction (rollback on a throw,
 * `ran: false` once done, concurrent runners of one key: once), lockPayment and the prunes.
 */

import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { type ClaimStore, MemoryClaimStore, RequestValidationError } from '@paywire/core'
import type pg from 'pg'
import { afterAll, beforeAll, expect, it } from 'vitest'
import {
  lockPayment,
  migrate,
  migrationSql,
  type NamedStatement,
  PostgresClaimStore,
  PostgresInbox,
  PostgresIntentStore,
  SCHEMA_VERSION,
} from '../src/index.js'
import { eventually } from './helpers.js'
import { describeWithPostgres } from './postgres-server.js'

describeWithPostgres('migrate, options and runOnce', (server) => {
  let pool: pg.Pool
  beforeAll(async () => {
    pool = server().pool({ max: 20 })
  })
  afterAll(async () => {
    await pool.end()
  })

  it('migrate creates the schema once and records its version; run again, or by two instances at once, it changes nothing', async () => {
    const [a, b] = await Promise.all([migrate(pool, { schema: 'mig' }), migrate(pool, { schema: 'mig' })])
    expect([a, b].map((r) => r.from).sort()).toStrictEqual([0, SCHEMA_VERSION])
    expect(await migrate(pool, { schema: 'mig' })).toStrictEqual({ from: SCHEMA_VERSION, to: SCHEMA_VERSION })
    const versions = await pool.query('SELECT version FROM mig.schema_version ORDER BY version')
    expect(versions.rows.map((r) => r.version)).toStrictEqual(Array.from({ length: SCHEMA_VERSION }, (_, i) => i + 1))
  })

  it('a database at a newer version than the package is refused, and left as it is', async () => {
    await migrate(pool, { schema: 'newer' })
    await pool.query('INSERT INTO newer.schema_version (version) VALUES (99)')
    await expect(migrate(pool, { schema: 'newer' })).rejects.toThrow(
      /version 99, newer than this @paywire\/postgres knows/,
    )
  })

  it('the SQL file shipped for DBAs is migrationSql(), and running it by hand gives the schema migrate() gives', async () => {
    const file = readFileSync(join(import.meta.dirname, '..', 'sql', `schema-v${SCHEMA_VERSION}.sql`), 'utf8')
    expect(file).toBe(migrationSql())
    await pool.query(migrationSql({ schema: 'by_hand' }))
    expect(await migrate(pool, { schema: 'by_hand' })).toStrictEqual({ from: SCHEMA_VERSION, to: SCHEMA_VERSION })
    const intents = new PostgresIntentStore({ pool, schema: 'by_hand' })
    expect(await intents.openIntents('x')).toStrictEqual([])
  })

  it('bad options are refused with the option named, before anything is sent', () => {
    const bad = [
      () => new PostgresClaimStore({ pool: {} as never }),
      () => new PostgresIntentStore({ pool, schema: 'Robert"; DROP TABLE x; --' }),
      () => new PostgresIntentStore({ pool, maxIntentBytes: 0 }),
      () => new PostgresInbox(undefined as never),
      () => new PostgresClaimStore({ pool, statementTimeoutMs: 0 }),
      () => new PostgresInbox({ pool, idleInTransactionTimeoutMs: 2 ** 31 }),
      () => new PostgresIntentStore({ pool, statementTimeoutMs: 1.5 }),
    ]
    const paths = bad.map((make) => {
      try {
        make()
      } catch (error) {
        expect(error).toBeInstanceOf(RequestValidationError)
        return (error as RequestValidationError).issues.map((i) => i.path).join()
      }
      return 'accepted'
    })
    expect(paths).toStrictEqual([
      'pool',
      'schema',
      'maxIntentBytes',
      '(options)',
      'statementTimeoutMs',
      'idleInTransactionTimeoutMs',
      'statementTimeoutMs',
    ])
    expect(() => migrationSql({ schema: 'a-b' })).toThrow(/schema/)
  })

  it('runOnce: a throw rolls back the work and the mark; the retry runs; once done, later calls answer ran: false', async () => {
    await migrate(pool, { schema: 'once' })
    await pool.query('CREATE TABLE once.ledger (id text NOT NULL, amount integer NOT NULL)')
    const inbox = new PostgresInbox({ pool, schema: 'once' })
    const work = (fail: boolean) => async (tx: { query(t: string, v?: unknown[]): Promise<unknown> }) => {
      await tx.query('INSERT INTO once.ledger VALUES ($1, $2)', ['evt-1', 10])
      if (fail) throw new Error('the handler failed after its INSERT')
      return 'applied'
    }
    await expect(inbox.runOnce('evt-1', work(true))).rejects.toThrow(/after its INSERT/)
    expect((await pool.query('SELECT * FROM once.ledger')).rows).toHaveLength(0)
    expect(await inbox.isDone('evt-1')).toBe(false)
    expect(await inbox.runOnce('evt-1', work(false))).toStrictEqual({ ran: true, value: 'applied' })
    expect(await inbox.runOnce('evt-1', work(false))).toStrictEqual({ ran: false })
    expect((await pool.query('SELECT * FROM once.ledger')).rows).toHaveLength(1)
    await expect(inbox.runOnce('bad \ud800', work(false))).rejects.toBeInstanceOf(RequestValidationError)
  })

  it('runOnce: 30 concurrent runners of one key on separate connections: the work runs once, the others answer ran: false', async () => {
    await migrate(pool, { schema: 'conc' })
    const inbox = new PostgresInbox({ pool, schema: 'conc' })
    let runs = 0
    const results = await Promise.all(
      Array.from({ length: 30 }, () =>
        inbox.runOnce('evt-concurrent', async (tx) => {
          runs++
          await tx.query('SELECT pg_sleep(0.01)')
        }),
      ),
    )
    expect(runs).toBe(1)
    expect(results.filter((r) => r.ran)).toHaveLength(1)
  })

  it('50 records of one key at once from 5 pools, 20 keys in parallel: exactly one token records each key', async () => {
    await migrate(pool, { schema: 'race_claims' })
    const pools = Array.from({ length: 5 }, () => server().pool({ max: 10 }))
    try {
      const stores = pools.map((p) => new PostgresClaimStore({ pool: p, schema: 'race_claims' }))
      const keys = Array.from({ length: 20 }, (_, k) => `id:${k}:sale:success`)
      const results = await Promise.all(
        keys.map((key) =>
          Promise.all(
            Array.from({ length: 50 }, (_, i) =>
              (stores[i % 5] as PostgresClaimStore).record(
                { key, previousKeys: [], fields: '{}', ref: `order:${key}` },
                `token-${i}`,
                // Half lease it at once (the inbox running it now), half leave it pending.
                i % 2 === 0 ? 60_000 : undefined,
              ),
            ),
          ),
        ),
      )
      for (const answers of results) {
        expect(answers.filter((answer) => answer === 'taken' || answer === 'recorded')).toHaveLength(1)
        expect(answers.filter((answer) => answer === 'known')).toHaveLength(49)
      }
    } finally {
      await Promise.all(pools.map((p) => p.end()))
    }
  })

  it('lockPayment: two transactions of one payment take turns, so a forward-only state never goes back', async () => {
    await migrate(pool, { schema: 'fwd' })
    await pool.query('CREATE TABLE fwd.payments (id text PRIMARY KEY, rank integer NOT NULL)')
    await pool.query(`INSERT INTO fwd.payments VALUES ('pay-1', 0)`)
    const inbox = new PostgresInbox({ pool, schema: 'fwd' })
    // Each event moves the payment to its rank only if that is forward: read, then write.
    const apply = (event: number) =>
      inbox.runOnce(`evt-${event}`, async (tx) => {
        await lockPayment(tx, 'pay-1')
        const { rows } = await tx.query(`SELECT rank FROM fwd.payments WHERE id = 'pay-1'`)
        const current = Number(rows[0]?.rank)
        await tx.query('SELECT pg_sleep(0.002)') // the window where, unlocked, another event would read the same rank
        if (event > current) await tx.query(`UPDATE fwd.payments SET rank = $1 WHERE id = 'pay-1'`, [event])
      })
    await Promise.all([3, 1, 4, 2, 5, 1, 4].map((event, i) => apply(event * 10 + i)))
    const { rows } = await pool.query(`SELECT rank FROM fwd.payments WHERE id = 'pay-1'`)
    expect(Number(rows[0]?.rank)).toBe(54)
    await expect(lockPayment(pool, '\udc00')).rejects.toBeInstanceOf(RequestValidationError)
    // The recipe once read `lockPayment(tx, event.id ?? '')`: every event without an id on one lock.
    await expect(lockPayment(pool, '')).rejects.toThrow(/paymentId: must not be empty: lock by the payment's order/)
  })

  it("the claim store's prune deletes done keys past their keep and runOnce's marks older than the keep, and no recorded event", async () => {
    await migrate(pool, { schema: 'prune' })
    const claims = new PostgresClaimStore({ pool, schema: 'prune' })
    const inbox = new PostgresInbox({ pool, schema: 'prune' })
    const event = (key: string) => ({ key, previousKeys: [], fields: '{}', ref: `order:${key}` })
    for (const [key, token] of [
      ['short', 't1'],
      ['long', 't2'],
    ] as const) {
      expect(await claims.record(event(key), token, 60_000)).toBe('taken')
      expect(await claims.complete(key, token, 60_000)).toBe(true)
    }
    expect(await claims.record(event('pending'), 't3', undefined)).toBe('recorded')
    expect(await claims.record(event('dead'), 't4', 60_000)).toBe('taken')
    await claims.release('dead', 't4', { retryInMs: 0, counted: true, error: 'Error: x', dead: true })
    await inbox.runOnce('done-1', () => undefined)
    await inbox.runOnce('done-2', () => undefined)
    // Its keep over on the server's clock, without waiting for it.
    await pool.query(`UPDATE prune.claims SET expires_at = now() - interval '1 second' WHERE token = 't1'`)
    expect(await claims.prune(60_000)).toBe(1)
    expect(await claims.record(event('long'), 't5', 60_000)).toBe('done')
    expect(await claims.record(event('pending'), 't5', 60_000)).toBe('known')
    expect(await claims.record(event('dead'), 't5', 60_000)).toBe('known')
    expect(await claims.record(event('short'), 't5', 60_000)).toBe('taken')
    await pool.query(`UPDATE prune.effects SET done_at = now() - interval '2 days' WHERE key = 'done-1'::bytea`)
    expect(await claims.prune(24 * 3600_000)).toBe(1)
    expect(await inbox.isDone('done-1')).toBe(false)
    expect(await inbox.isDone('done-2')).toBe(true)
    expect(await inbox.prune(60_000)).toBe(0)
    await pool.query(`UPDATE prune.effects SET done_at = now() - interval '2 days'`)
    expect(await inbox.prune(24 * 3600_000)).toBe(1)
    expect(await inbox.isDone('done-2')).toBe(false)
  })

  it("an event set aside after its runs ended with no outcome reads the reason core's store gives, word for word", async () => {
    await migrate(pool, { schema: 'reason' })
    const reasonOf = async (store: ClaimStore) => {
      const event = { key: 'poison', previousKeys: [], fields: '{}', ref: 'order:1' }
      expect(await store.record(event, 'first', 1)).toBe('taken')
      let reason: string | undefined
      await eventually(
        async () => {
          const taken = await store.take('poison', { token: 'second', ms: 60_000, maxAttempts: 1 })
          reason = taken?.event.lastError
          return taken?.dead === true
        },
        5_000,
        'the 1 ms lease ends',
      )
      return reason
    }
    const core = await reasonOf(new MemoryClaimStore())
    expect(core).toMatch(/^each of its 1 runs ended with no outcome recorded/)
    expect(await reasonOf(new PostgresClaimStore({ pool, schema: 'reason' }))).toBe(core)
  })

  it("the claim store's prune deletes a backlog in batches of 1,000 rows, one statement each", async () => {
    await migrate(pool, { schema: 'backlog' })
    await pool.query(
      `INSERT INTO backlog.claims (key_hash, key, token, done, expires_at, state)
       SELECT sha256(k), k, 't', true, now() - interval '1 hour', 'done'
       FROM (SELECT ('bulk-' || i)::bytea AS k FROM generate_series(1, 2500) AS i) AS keys`,
    )
    await pool.query(
      `INSERT INTO backlog.effects (key_hash, key, done_at)
       SELECT sha256(k), k, now() - interval '2 days'
       FROM (SELECT ('mark-' || i)::bytea AS k FROM generate_series(1, 1200) AS i) AS keys`,
    )
    const sent: string[] = []
    // Prune's statements go unnamed: a named one here is not what this test counts.
    const count = (text: string | NamedStatement) => {
      if (typeof text !== 'string') throw new Error(`prune sent a named statement: ${text.name}`)
      sent.push(text)
      return text
    }
    // The store sends each statement on a connection it checks out: count what goes on those.
    const counting = {
      query: (text: string | NamedStatement, values?: unknown[]) => pool.query(count(text), values),
      connect: async () => {
        const client = await pool.connect()
        return {
          query: (text: string | NamedStatement, values?: unknown[]) => client.query(count(text), values),
          release: (destroy?: boolean | Error) => client.release(destroy),
        }
      },
    }
    expect(await new PostgresClaimStore({ pool: counting, schema: 'backlog' }).prune(24 * 3600_000)).toBe(3_700)
    const deletes = (table: string) => sent.filter((text) => text.startsWith(`DELETE FROM backlog.${table} `)).length
    expect([deletes('claims'), deletes('effects')]).toStrictEqual([3, 2])
    const left = await pool.query(
      'SELECT (SELECT count(*) FROM backlog.claims) + (SELECT count(*) FROM backlog.effects) AS n',
    )
    expect(Number(left.rows[0]?.n)).toBe(0)
  })
})
