/**
 * The record statements sent prepared (named), from the attacker's side, against a real PostgreSQL:
 * two schemas on one connection, replies lost on a named statement's first and later use and on
 * the unnamed resend, a trigger's refusals under every SQLSTATE the fallback listens for or not, a
 * read-only session, statements deallocated under a burst of two batches in flight (pools of two
 * and of one), the first Parse waiting on a lock past statementTimeoutMs, the table altered under
 * the prepared statements, server restarts, directly and behind a real PgBouncer 1.18.
 */

import { createHash, randomUUID } from 'node:crypto'
import type { NewEvent } from '@paywire/core'
import pg from 'pg'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { claimStatements } from '../src/claim-sql.js'
import { PostgresClaimStore } from '../src/index.js'
import { startCutProxy } from './cut-proxy.js'
import { eventually, freshSchema, logged, outcomeOf, RECORD_STATEMENT, refuseRefs, type Send } from './helpers.js'
import { describeWithPgBouncer, startPgBouncer } from './pgbouncer-process.js'
import { describeWithPostgres } from './postgres-server.js'

const event = (key: string, previousKeys: string[] = [], ref = `ref-${key}`): NewEvent => ({
  key,
  previousKeys,
  fields: `{"trans_id":"${key}"}`,
  ref,
})

const PREPARED = `SELECT name, statement FROM pg_prepared_statements WHERE name LIKE 'paywire_record_%' ORDER BY name`

/** What the server answers a named statement it does not hold as node-postgres believes. */
const NAMED_REFUSED = new Set(['26000', '42P05', '0A000'])

/** The name the store must prepare `text` under: its SHA-256's first 16 hex digits. */
const nameOf = (text: string) =>
  `paywire_record_${createHash('sha256').update(text, 'utf8').digest('hex').slice(0, 16)}`

const keysOf = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}-${i}`)

describeWithPostgres('PostgresClaimStore prepared record statements, adversarial', (server) => {
  let direct: pg.Pool
  const pools: pg.Pool[] = []
  const pool = (options: { port?: number; max?: number } = {}) => {
    const made = server().pool(options)
    pools.push(made)
    return made
  }
  beforeAll(async () => {
    direct = server().pool()
  })
  afterAll(async () => {
    await Promise.all(pools.map((one) => one.end().catch(() => {})))
    await direct.end()
  })

  /** The key's rows in `schema`, as written: one per key, or none. */
  const rows = async (schema: string, key: string) =>
    (
      await direct.query(`SELECT token, state, attempts FROM ${schema}.claims WHERE key = convert_to($1, 'UTF8')`, [
        key,
      ])
    ).rows

  /** Every key of `keys` written once in `schema`, by `tokenOf(key)`. */
  const writtenOnce = async (schema: string, keys: string[], tokenOf: (key: string) => string) => {
    const { rows: found } = await direct.query(
      `SELECT convert_from(key, 'UTF8') AS key, token FROM ${schema}.claims WHERE key = ANY($1::bytea[])`,
      [keys.map((key) => Buffer.from(key, 'utf8'))],
    )
    expect(found.map((row) => `${row.key}:${row.token}`).sort()).toEqual(
      keys.map((key) => `${key}:${tokenOf(key)}`).sort(),
    )
  }

  it('two stores on two schemas share one connection: four statements, each prepared under its own text’s name, each writing its own table', async () => {
    const a = await freshSchema(direct, 'nadv_two_a')
    const b = await freshSchema(direct, 'nadv_two_b')
    const shared = pool({ max: 1 })
    const stores = [a, b].map((schema) => new PostgresClaimStore({ pool: shared, schema }))
    const run = randomUUID().slice(0, 8)
    const keys = keysOf(`${run}-burst`, 10)
    for (let round = 0; round < 2; round++) {
      // Lone records and bursts of the same keys from both stores, interleaved on one server session.
      for (const [s, store] of stores.entries()) {
        expect(await store.record(event(`${run}-lone-${round}`), `t${s}`, 60_000)).toBe('taken')
      }
      const answers = await Promise.all(
        stores.map((store, s) =>
          Promise.all(keys.map((key) => store.record(event(`${key}-${round}`), `t${s}-${key}`, undefined))),
        ),
      )
      expect(answers).toEqual([keys.map(() => 'recorded'), keys.map(() => 'recorded')])
    }
    // A name stands for one text only: each schema's two statements under their own text's hash.
    const expected = [a, b]
      .flatMap((schema) => {
        const sql = claimStatements(`${schema}.claims`, `${schema}.effects`)
        return [sql.recordOne, sql.record].map((statement) => ({ name: nameOf(statement), statement }))
      })
      .sort((x, y) => (x.name < y.name ? -1 : 1))
    expect((await shared.query(PREPARED)).rows).toEqual(expected)
    for (const [s, schema] of [a, b].entries()) {
      await writtenOnce(
        schema,
        keys.flatMap((key) => [`${key}-0`, `${key}-1`]),
        (key) => `t${s}-${key.slice(0, -2)}`,
      )
      expect(await rows(schema, `${run}-lone-1`)).toEqual([{ token: `t${s}`, state: 'running', attempts: 1 }])
    }
  })

  it('replies lost on a named statement’s first use (Parse+Bind) and later use (Bind only), lone and in a batch, and a request lost: each record sent again answers as its first write, written once; the store stays named', async () => {
    const schema = await freshSchema(direct, 'nadv_cut')
    const proxy = await startCutProxy(server().port)
    try {
      const through = pool({ port: proxy.port, max: 1 })
      const log = logged(through)
      const store = new PostgresClaimStore({ pool: log.pool, schema, statementTimeoutMs: 10_000 })
      const run = randomUUID().slice(0, 8)

      // First use on a connection: Parse, Bind, Execute in one; the server commits, the reply is lost.
      let cut = proxy.arm(RECORD_STATEMENT, 'reply')
      await expect(store.record(event(`${run}-1`), 't1', 60_000)).rejects.toThrow()
      await cut
      expect(await rows(schema, `${run}-1`)).toEqual([{ token: 't1', state: 'running', attempts: 1 }])
      expect(await store.record(event(`${run}-1`), 't1', 60_000)).toBe('taken')

      // A later use on the same session: only its Bind goes (the proxy follows it by name).
      cut = proxy.arm(RECORD_STATEMENT, 'reply')
      await expect(store.record(event(`${run}-2`), 't2', 60_000)).rejects.toThrow()
      await cut
      const [parsedOn, boundOn] = log.sends.slice(-2) as [Send, Send]
      expect(boundOn.pid).toBe(parsedOn.pid)
      expect(await rows(schema, `${run}-2`)).toEqual([{ token: 't2', state: 'running', attempts: 1 }])
      expect(await store.record(event(`${run}-2`), 't2', 60_000)).toBe('taken')

      // A request lost on a later use: nothing written; sent again, it is the first write.
      expect(await store.record(event(`${run}-3`), 't3', 60_000)).toBe('taken')
      cut = proxy.arm(RECORD_STATEMENT, 'request')
      await expect(store.record(event(`${run}-4`), 't4', 60_000)).rejects.toThrow()
      await cut
      expect(await rows(schema, `${run}-4`)).toEqual([])
      expect(await store.record(event(`${run}-4`), 't4', 60_000)).toBe('taken')

      // A batch's reply lost, first on a session that never ran the batch statement, then on one that did.
      for (const round of [0, 1]) {
        const keys = keysOf(`${run}-batch-${round}`, 8)
        cut = proxy.arm(RECORD_STATEMENT, 'reply')
        const settled = await Promise.allSettled(keys.map((key) => store.record(event(key), `t-${key}`, undefined)))
        await cut
        const lost = keys.filter((_, i) => settled[i]?.status === 'rejected')
        expect(lost.length).toBeGreaterThan(0)
        for (const one of settled) {
          if (one.status === 'fulfilled') expect(one).toEqual({ status: 'fulfilled', value: 'recorded' })
        }
        expect(await Promise.all(lost.map((key) => store.record(event(key), `t-${key}`, undefined)))).toEqual(
          lost.map(() => 'recorded'),
        )
        await writtenOnce(schema, keys, (key) => `t-${key}`)
      }
      // A lost connection is no pooler's refusal: every record statement went named.
      expect(log.sends.filter((send) => !send.named)).toEqual([])
      expect(log.sends.filter((send) => NAMED_REFUSED.has(send.outcome ?? ''))).toEqual([])
      expect(proxy.cuts).toBe(5)
    } finally {
      await proxy.close()
    }
  })

  it('a reply lost on the unnamed resend after a 26000: the record fails, and sent again answers as its first write, written once', async () => {
    const schema = await freshSchema(direct, 'nadv_cut_resend')
    const proxy = await startCutProxy(server().port)
    try {
      const through = pool({ port: proxy.port, max: 1 })
      let cut: Promise<void> | undefined
      const log = logged(through, (send) => {
        // The first unnamed record statement, the resend, loses its reply.
        if (!send.named && cut === undefined) cut = proxy.arm(RECORD_STATEMENT, 'reply')
      })
      const store = new PostgresClaimStore({ pool: log.pool, schema, statementTimeoutMs: 10_000 })
      const run = randomUUID().slice(0, 8)
      expect(await store.record(event(`${run}-0`), 't0', 60_000)).toBe('taken')
      await through.query('DEALLOCATE ALL')
      await expect(store.record(event(`${run}-1`, [`${run}-0`]), 't1', 60_000)).rejects.toThrow()
      await cut
      expect(log.sends.map((send) => [send.named, send.outcome])).toEqual([
        [true, 'ok'],
        [true, '26000'],
        [false, 'no code'],
      ])
      expect(await rows(schema, `${run}-1`)).toEqual([{ token: 't1', state: 'running', attempts: 1 }])
      expect(await store.record(event(`${run}-1`, [`${run}-0`]), 't1', 60_000)).toBe('taken')
      expect(await store.record(event(`${run}-1`, [`${run}-0`]), 't-other', 60_000)).toBe('known')
      expect(await rows(schema, `${run}-1`)).toEqual([{ token: 't1', state: 'running', attempts: 1 }])
    } finally {
      await proxy.close()
    }
  })

  it('a trigger’s refusals are never hidden by the fallback: P0001 and 0A000 fail their event alone (batch-mates recorded), 25006 fails its whole batch with no event sent alone', async () => {
    const schema = await freshSchema(direct, 'nadv_refuse')
    await refuseRefs(direct, schema, { 'nadv-p0001': null, 'nadv-0a000': '0A000', 'nadv-25006': '25006' })
    const shared = pool({ max: 2 })
    const run = randomUUID().slice(0, 8)
    for (const [ref, code] of [
      ['nadv-p0001', 'P0001'],
      ['nadv-0a000', '0A000'],
      ['nadv-25006', '25006'],
    ] as const) {
      // A store of its own for each: the fallback is a store's.
      const log = logged(shared)
      const store = new PostgresClaimStore({ pool: log.pool, schema })
      const keys = keysOf(`${run}-${code}`, 9)
      const refused = keys[4] as string
      const settled = await Promise.allSettled(
        keys.map((key) => store.record(event(key, [], key === refused ? ref : `ref-${key}`), `t-${key}`, 60_000)),
      )
      const outcomes = settled.map(outcomeOf)
      expect(outcomes[4], code).toBe(code)
      const rejected = (settled[4] as PromiseRejectedResult).reason as Error
      expect(rejected.message, code).toContain(`refused ${ref}`)
      // The batch that carried the refused event, as the store sent it first.
      const batches = log.sends.filter((send) => send.events > 1)
      const refusedBatch = batches.find((send) => send.outcome === code)
      expect(refusedBatch, code).toBeDefined()
      // What the store sent of that batch's events after its refusal: event by event, or nothing.
      const lone = log.sends
        .slice(log.sends.indexOf(refusedBatch as Send) + 1)
        .filter((send) => send.events === 1 && (refusedBatch as Send).keys.includes(send.keys[0] as string))
      if (code === '25006') {
        // What befell the statement (a read-only session): the whole batch fails, none sent alone.
        expect(lone, code).toEqual([])
        const failed = outcomes.filter((outcome) => outcome === '25006').length
        expect(failed, code).toBe((refusedBatch as Send).events)
        expect(outcomes.filter((outcome) => outcome !== '25006')).toEqual(
          Array.from({ length: keys.length - failed }, () => 'ok:taken'),
        )
        const { rows: written } = await direct.query(
          `SELECT count(*)::int AS n FROM ${schema}.claims WHERE key = ANY($1::bytea[])`,
          [keys.map((key) => Buffer.from(key, 'utf8'))],
        )
        expect(written[0].n).toBe(keys.length - failed)
      } else {
        // One event's own: its batch-mates are sent alone and recorded; the refusal stays with its event.
        expect(outcomes.filter((_, i) => i !== 4)).toEqual(keys.slice(1).map(() => 'ok:taken'))
        expect(lone.filter((send) => send.outcome === 'ok').length).toBe((refusedBatch as Send).events - 1)
        expect(lone.filter((send) => send.outcome === code).length).toBe(1)
        await writtenOnce(
          schema,
          keys.filter((key) => key !== refused),
          (key) => `t-${key}`,
        )
        expect(await rows(schema, refused)).toEqual([])
      }
      if (code !== '0A000')
        expect(
          log.sends.filter((send) => !send.named),
          code,
        ).toEqual([])
    }
  })

  it('a read-only session (25006, default_transaction_read_only): lone and batched records fail whole, never sent again unnamed or alone, and the store stays named', async () => {
    const schema = await freshSchema(direct, 'nadv_readonly')
    await direct.query('DROP ROLE IF EXISTS nadv_ro')
    await direct.query('CREATE ROLE nadv_ro LOGIN SUPERUSER')
    await direct.query('ALTER ROLE nadv_ro SET default_transaction_read_only = on')
    const readOnly = new pg.Pool({
      host: '127.0.0.1',
      port: server().port,
      user: 'nadv_ro',
      database: 'postgres',
      max: 2,
    })
    readOnly.on('error', () => {})
    try {
      const log = logged(readOnly)
      const store = new PostgresClaimStore({ pool: log.pool, schema })
      const run = randomUUID().slice(0, 8)
      const lone = await Promise.allSettled([store.record(event(`${run}-lone`), 't', 60_000)])
      expect(lone.map(outcomeOf)).toEqual(['25006'])
      const keys = keysOf(run, 10)
      const settled = await Promise.allSettled(keys.map((key) => store.record(event(key), `t-${key}`, 60_000)))
      expect(settled.map(outcomeOf)).toEqual(keys.map(() => '25006'))
      expect(log.sends.every((send) => send.named && send.outcome === '25006')).toBe(true)
      expect(log.sends.reduce((n, send) => n + send.events, 0)).toBe(keys.length + 1)
      expect((await direct.query(`SELECT count(*)::int AS n FROM ${schema}.claims`)).rows[0].n).toBe(0)
    } finally {
      await readOnly.end()
      await direct.query('DROP ROLE IF EXISTS nadv_ro')
    }
  })

  it('a trigger refusing one event with SQLSTATE 0A000 (feature_not_supported) is that event’s refusal, not a pooler’s: the store’s records go on named after it', async () => {
    const schema = await freshSchema(direct, 'nadv_refuse_named')
    await refuseRefs(direct, schema, { 'nadv-unsupported': '0A000' })
    const shared = pool({ max: 1 })
    const log = logged(shared)
    const store = new PostgresClaimStore({ pool: log.pool, schema })
    const run = randomUUID().slice(0, 8)
    expect(await store.record(event(`${run}-0`), 't0', 60_000)).toBe('taken')
    const refused = await Promise.allSettled([store.record(event(`${run}-x`, [], 'nadv-unsupported'), 'tx', 60_000)])
    expect(refused.map(outcomeOf)).toEqual(['0A000'])
    const mark = log.sends.length
    expect(await store.record(event(`${run}-1`), 't1', 60_000)).toBe('taken')
    const keys = keysOf(`${run}-burst`, 6)
    expect(await Promise.all(keys.map((key) => store.record(event(key), `t-${key}`, 60_000)))).toEqual(
      keys.map(() => 'taken'),
    )
    // The refusal came from the trigger, named or not: nothing about preparing failed.
    expect(log.sends.slice(mark).filter((send) => !send.named)).toEqual([])
  })

  /** Records bursts through `store` until `log` shows both sessions of a pool of two ran the batch statement named. */
  const prepareBoth = async (store: PostgresClaimStore, log: { sends: Send[] }, prefix: string) => {
    for (let round = 0; round < 30; round++) {
      const keys = keysOf(`${prefix}-${round}`, 24)
      expect(await Promise.all(keys.map((key) => store.record(event(key), `t-${key}`, 60_000)))).toEqual(
        keys.map(() => 'taken'),
      )
      const sessions = new Set(log.sends.filter((s) => s.named && s.events > 1 && s.outcome === 'ok').map((s) => s.pid))
      if (sessions.size === 2) return [...sessions]
    }
    throw new Error('the burst never ran on two sessions')
  }

  it('statements deallocated on both sessions of a pool of two under a burst with two batches in flight: every record answered, written once; at most one refused send per batch in flight, unnamed from then on', async () => {
    const schema = await freshSchema(direct, 'nadv_burst2')
    const raw = pool({ max: 2 })
    const log = logged(raw)
    const store = new PostgresClaimStore({ pool: log.pool, schema })
    const run = randomUUID().slice(0, 8)
    const sessions = await prepareBoth(store, log, `${run}-warm`)
    // Someone else's DEALLOCATE ALL on each pooled session, behind node-postgres's back.
    const clients = await Promise.all([raw.connect(), raw.connect()])
    expect(clients.map((client) => (client as unknown as { processID: number }).processID).sort()).toEqual(
      sessions.sort(),
    )
    await Promise.all(clients.map((client) => client.query('DEALLOCATE ALL')))
    for (const client of clients) client.release()
    const mark = log.sends.length
    const keys = keysOf(`${run}-burst`, 150)
    const answers = await Promise.all(keys.map((key) => store.record(event(key), `t-${key}`, 60_000)))
    expect(answers).toEqual(keys.map(() => 'taken'))
    await writtenOnce(schema, keys, (key) => `t-${key}`)
    const after = log.sends.slice(mark)
    // Only what was already on its way when the first refusal came back went named: one per batch in flight.
    const refused = after.filter((send) => send.outcome === '26000')
    expect(refused.length).toBeGreaterThanOrEqual(1)
    expect(refused.length).toBeLessThanOrEqual(2)
    expect(refused.every((send) => send.named)).toBe(true)
    expect(after.filter((send) => send.outcome !== 'ok' && send.outcome !== '26000')).toEqual([])
    expect(after.reduce((n, send) => n + (send.outcome === 'ok' ? send.events : 0), 0)).toBe(keys.length)
    // A second burst, and every record sent again by its runner: unnamed, first writes.
    const again = log.sends.length
    expect(await Promise.all(keys.map((key) => store.record(event(key), `t-${key}`, 60_000)))).toEqual(answers)
    expect(log.sends.slice(again).filter((send) => send.named)).toEqual([])
  })

  it('a pool of one under a burst with two batches in flight, deallocated behind node-postgres: the two batches and the resends take turns on one connection, every record answered within its deadline, written once', async () => {
    const schema = await freshSchema(direct, 'nadv_burst1')
    const raw = pool({ max: 1 })
    const log = logged(raw)
    const store = new PostgresClaimStore({ pool: log.pool, schema, statementTimeoutMs: 5_000 })
    const run = randomUUID().slice(0, 8)
    const warm = keysOf(`${run}-warm`, 20)
    expect(await Promise.all(warm.map((key) => store.record(event(key), `t-${key}`, undefined)))).toEqual(
      warm.map(() => 'recorded'),
    )
    expect(await store.record(event(`${run}-lone`), 't', undefined)).toBe('recorded')
    expect((await raw.query(PREPARED)).rows).toHaveLength(2)
    await raw.query('DISCARD ALL')
    const mark = log.sends.length
    const keys = keysOf(`${run}-burst`, 200)
    const answers = await Promise.all(
      keys.map((key, i) => store.record(event(key, i % 7 === 0 ? [`${run}-lone`] : []), `t-${key}`, undefined)),
    )
    expect(answers).toEqual(keys.map(() => 'recorded'))
    await writtenOnce(schema, keys, (key) => `t-${key}`)
    const after = log.sends.slice(mark)
    expect(after.filter((send) => send.named).length).toBeLessThanOrEqual(2)
    expect(after.filter((send) => send.outcome === '26000').length).toBeGreaterThanOrEqual(1)
    expect(new Set(after.map((send) => send.outcome))).toEqual(new Set(['ok', '26000']))
  })

  it('statementTimeoutMs passes while the first Parse waits on a lock: every record fails within about the deadline (no resend unnamed); after the lock, each sent again answers as its first write, written once, still named', async () => {
    const schema = await freshSchema(direct, 'nadv_lock')
    const raw = pool({ max: 4 })
    const log = logged(raw)
    const timeoutMs = 1_500
    const store = new PostgresClaimStore({ pool: log.pool, schema, statementTimeoutMs: timeoutMs })
    const run = randomUUID().slice(0, 8)
    const locker = await direct.connect()
    const waiting = `SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE $1`
    const active = `SELECT count(*)::int AS n FROM pg_stat_activity WHERE state = 'active' AND query LIKE $1`
    const ours = `WITH %${schema}.claims%`
    try {
      await locker.query('BEGIN')
      await locker.query(`LOCK TABLE ${schema}.claims IN ACCESS EXCLUSIVE MODE`)
      const keys = keysOf(run, 12)
      const started = Date.now()
      const pending = Promise.allSettled(keys.map((key) => store.record(event(key), `t-${key}`, undefined)))
      // The Parse (its analysis locks the table) waits, on the server, for the lock.
      await eventually(
        async () => (await direct.query(waiting, [ours])).rows[0].n >= 2,
        5_000,
        'the record statements waiting on the lock',
      )
      const settled = await pending
      const elapsed = Date.now() - started
      for (const one of settled) {
        expect(one.status).toBe('rejected')
        expect(((one as PromiseRejectedResult).reason as Error).message).toMatch(/statementTimeoutMs/)
      }
      // One deadline, after at most SLOW_BATCH_MS (1 s) behind the two stuck batches: never a
      // second deadline for a resend.
      expect(elapsed).toBeLessThan(timeoutMs + 1_000 + 800)
      expect(log.sends.every((send) => send.named)).toBe(true)
      expect(log.sends.reduce((n, send) => n + send.events, 0)).toBe(keys.length)
      await locker.query('ROLLBACK')
      // The orphaned statements run once the lock is gone (their client is gone): let them end.
      await eventually(async () => (await direct.query(active, [ours])).rows[0].n === 0, 5_000, 'the orphans ending')
      expect(await Promise.all(keys.map((key) => store.record(event(key), `t-${key}`, undefined)))).toEqual(
        keys.map(() => 'recorded'),
      )
      await writtenOnce(schema, keys, (key) => `t-${key}`)
      expect(log.sends.every((send) => send.named)).toBe(true)
    } finally {
      await locker.query('ROLLBACK').catch(() => {})
      locker.release()
    }
  })

  it('the table altered under the prepared statements (a column added, an unrelated column’s type changed, an ALTER committed while a named Bind waits on its lock): records answer as before, on the same session, still by name', async () => {
    const schema = await freshSchema(direct, 'nadv_alter')
    const raw = pool({ max: 1 })
    const log = logged(raw)
    const store = new PostgresClaimStore({ pool: log.pool, schema, statementTimeoutMs: 10_000 })
    const run = randomUUID().slice(0, 8)
    const round = async (label: string) => {
      expect(await store.record(event(`${run}-${label}-lone`, [`${run}-warm-lone`]), 't', 60_000)).toBe('taken')
      const keys = keysOf(`${run}-${label}`, 6)
      expect(await Promise.all(keys.map((key) => store.record(event(key), `t-${key}`, undefined)))).toEqual(
        keys.map(() => 'recorded'),
      )
      await writtenOnce(schema, keys, (key) => `t-${key}`)
    }
    await round('warm')
    expect((await raw.query(PREPARED)).rows).toHaveLength(2)
    await direct.query(`ALTER TABLE ${schema}.claims ADD COLUMN nadv_note text DEFAULT 'x'`)
    await round('added')
    await direct.query(`ALTER TABLE ${schema}.claims ALTER COLUMN last_error TYPE varchar(2000)`)
    await round('retyped')
    // A migration holding the table while a record's Bind (the statement prepared) waits for it.
    const locker = await direct.connect()
    try {
      await locker.query('BEGIN')
      await locker.query(`ALTER TABLE ${schema}.claims ADD COLUMN nadv_more integer`)
      const answer = store.record(event(`${run}-waited`), 't-waited', 60_000)
      await eventually(
        async () =>
          (
            await direct.query(
              `SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE $1`,
              [`WITH %${schema}.claims%`],
            )
          ).rows[0].n === 1,
        5_000,
        'the record waiting on the migration',
      )
      await locker.query('COMMIT')
      expect(await answer).toBe('taken')
    } finally {
      await locker.query('ROLLBACK').catch(() => {})
      locker.release()
    }
    await round('migrated')
    expect(log.sends.filter((send) => !send.named || send.outcome !== 'ok')).toEqual([])
    expect(new Set(log.sends.map((send) => send.pid)).size).toBe(1)
    expect((await raw.query(PREPARED)).rows).toHaveLength(2)
  })

  it('a column the record reads back changes type (state text -> varchar): the plan’s result changed (0A000), the record is sent again unnamed, answered as its first write, written once', async () => {
    const schema = await freshSchema(direct, 'nadv_alter_result')
    const raw = pool({ max: 1 })
    const log = logged(raw)
    const store = new PostgresClaimStore({ pool: log.pool, schema })
    const run = randomUUID().slice(0, 8)
    expect(await store.record(event(`${run}-0`), 't0', 60_000)).toBe('taken')
    await direct.query(`ALTER TABLE ${schema}.claims ALTER COLUMN state TYPE varchar(16)`)
    expect(await store.record(event(`${run}-1`), 't1', 60_000)).toBe('taken')
    expect(log.sends.map((send) => [send.named, send.outcome])).toEqual([
      [true, 'ok'],
      [true, '0A000'],
      [false, 'ok'],
    ])
    expect(await rows(schema, `${run}-1`)).toEqual([{ token: 't1', state: 'running', attempts: 1 }])
    expect(await store.record(event(`${run}-0`), 't0', 60_000)).toBe('taken')
    expect(await store.record(event(`${run}-1`), 't-other', 60_000)).toBe('known')
  })

  it('a server restart between two uses: the sessions go, and with them node-postgres’s cache; the next records prepare again, answered, written once, never falling back', async () => {
    const schema = await freshSchema(direct, 'nadv_restart')
    const raw = pool({ max: 1 })
    const log = logged(raw)
    const store = new PostgresClaimStore({ pool: log.pool, schema })
    const run = randomUUID().slice(0, 8)
    const before = keysOf(`${run}-before`, 6)
    expect(await store.record(event(`${run}-lone`), 't', 60_000)).toBe('taken')
    expect(await Promise.all(before.map((key) => store.record(event(key), `t-${key}`, 60_000)))).toEqual(
      before.map(() => 'taken'),
    )
    const pid = log.sends[0]?.pid
    await server().restart()
    // The idle connections hear of it (57P01) and leave the pools.
    await eventually(async () => raw.totalCount === 0 && direct.totalCount === 0, 10_000, 'the pools emptied')
    const mark = log.sends.length
    expect(await store.record(event(`${run}-lone`), 't', 60_000)).toBe('taken')
    const after = keysOf(`${run}-after`, 6)
    expect(await Promise.all([...before, ...after].map((key) => store.record(event(key), `t-${key}`, 60_000)))).toEqual(
      [...before, ...after].map(() => 'taken'),
    )
    await writtenOnce(schema, [...before, ...after], (key) => `t-${key}`)
    const sent = log.sends.slice(mark)
    expect(sent.filter((send) => !send.named || send.outcome !== 'ok')).toEqual([])
    expect(sent.every((send) => send.pid !== pid)).toBe(true)
    expect((await raw.query(PREPARED)).rows).toHaveLength(2)
  })

  describeWithPgBouncer('behind a real PgBouncer 1.18 in transaction mode', () => {
    it('a server restart between uses: the client connection outlives its session, the named statement meets a session that never parsed it, the record is sent again unnamed, answered as its first write, written once', async () => {
      const schema = await freshSchema(direct, 'nadv_bouncer_restart')
      const bouncer = await startPgBouncer(server().port, 1)
      const through = server().pool({ port: bouncer.port, max: 1 })
      try {
        const log = logged(through)
        const store = new PostgresClaimStore({ pool: log.pool, schema, statementTimeoutMs: 10_000 })
        const run = randomUUID().slice(0, 8)
        const before = keysOf(`${run}-before`, 6)
        expect(await store.record(event(`${run}-lone`), 't', 60_000)).toBe('taken')
        expect(await Promise.all(before.map((key) => store.record(event(key), `t-${key}`, 60_000)))).toEqual(
          before.map(() => 'taken'),
        )
        // One client, one server session: prepared there, and only ever bound since.
        expect(log.sends.filter((send) => !send.named || send.outcome !== 'ok')).toEqual([])
        expect((await through.query(PREPARED)).rows).toHaveLength(2)
        await server().restart()
        await eventually(async () => direct.totalCount === 0, 10_000, 'the direct pool emptied')
        const mark = log.sends.length
        expect(await store.record(event(`${run}-lone`), 't', 60_000)).toBe('taken')
        const after = keysOf(`${run}-after`, 6)
        const all = [...before, ...after]
        expect(await Promise.all(all.map((key) => store.record(event(key), `t-${key}`, 60_000)))).toEqual(
          all.map(() => 'taken'),
        )
        expect(await Promise.all(all.map((key) => store.record(event(key), 'other', 60_000)))).toEqual(
          all.map(() => 'known'),
        )
        await writtenOnce(schema, all, (key) => `t-${key}`)
        const sent = log.sends.slice(mark)
        expect(sent.filter((send) => send.named).map((send) => send.outcome)).toEqual(['26000'])
        expect(sent.filter((send) => !send.named).every((send) => send.outcome === 'ok')).toBe(true)
      } finally {
        await through.end()
        await bouncer.stop()
      }
    })

    it('many instances through two server sessions, a server restart in the middle of their bursts: every record settles, the failed ones sent again answer as their first write, each key written once and taken once', async () => {
      const schema = await freshSchema(direct, 'nadv_bouncer_many')
      const bouncer = await startPgBouncer(server().port, 2)
      const throughs = [0, 1, 2].map(() => server().pool({ port: bouncer.port, max: 3 }))
      let restarting: Promise<void> | undefined
      let total = 0
      const errors: string[] = []
      try {
        const stores = throughs.map(
          (through) =>
            new PostgresClaimStore({
              pool: logged(through, () => {
                // The restart lands in the middle of the bursts: after some statements, before the rest.
                if (++total === 6) restarting = server().restart()
              }).pool,
              schema,
              statementTimeoutMs: 10_000,
            }),
        )
        const run = randomUUID().slice(0, 8)
        const keys = keysOf(run, 60)
        /** Records `key` by instance `s` until it answers (a record lost in the restart is sent again as is). */
        const recordUntilAnswered = async (s: number, key: string) => {
          for (let attempt = 0; attempt < 20; attempt++) {
            try {
              return await (stores[s] as PostgresClaimStore).record(event(key), `s${s}-${key}`, 60_000)
            } catch (error) {
              errors.push(String(error))
              await restarting
              // PgBouncer takes clients again once a login of its succeeds (it retries after 1 s).
              await eventually(
                () =>
                  (throughs[s] as pg.Pool).query('SELECT 1').then(
                    () => true,
                    () => false,
                  ),
                10_000,
                'PgBouncer taking clients again',
              )
            }
          }
          throw new Error(`${key} never answered: ${errors.slice(-3).join(' | ')}`)
        }
        const answers = await Promise.all(
          stores.map((_, s) =>
            Promise.all((s % 2 === 0 ? keys : [...keys].reverse()).map((key) => recordUntilAnswered(s, key))),
          ),
        )
        await restarting
        expect(restarting).toBeDefined()
        // The restart did land under records in flight: some failed and were sent again.
        expect(errors.length).toBeGreaterThan(0)
        await eventually(async () => direct.totalCount === 0, 10_000, 'the direct pool emptied')
        for (const [i, key] of keys.entries()) {
          const mine = answers.map((list, s) => (s % 2 === 0 ? list[i] : list[keys.length - 1 - i]))
          expect(mine.sort(), key).toEqual(['known', 'known', 'taken'])
        }
        const { rows: found } = await direct.query(
          `SELECT convert_from(key, 'UTF8') AS key, token FROM ${schema}.claims ORDER BY key`,
        )
        expect(found).toHaveLength(keys.length)
        for (const row of found) {
          const s = answers.findIndex(
            (list, s) =>
              (s % 2 === 0 ? list[keys.indexOf(row.key)] : list[keys.length - 1 - keys.indexOf(row.key)]) === 'taken',
          )
          expect(row.token, row.key).toBe(`s${s}-${row.key}`)
        }
      } finally {
        await restarting?.catch(() => {})
        await Promise.all(throughs.map((through) => through.end()))
        await bouncer.stop()
      }
    })
  })
})
