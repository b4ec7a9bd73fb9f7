/**
 * From the attacker's side: a partition between the merchant and PostgreSQL (the connection stays
 * open, nothing is answered, no RST) used to hang `runOnce`, and every redelivery of the same key,
 * for the hours TCP takes to notice: the stalled holder's transaction kept the key's row lock on the
 * server, and nothing on either side ever gave up. Every store statement now has a deadline; past
 * it the call rejects naming what timed out and its connection is destroyed (never returned to the
 * pool), and runOnce's transaction carries `SET LOCAL idle_in_transaction_session_timeout` and
 * `statement_timeout`, so the server ends a stalled holder's session and frees the lock.
 */

import { randomUUID } from 'node:crypto'
import type { Lease, NewEvent } from '@paywire/core'
import type pg from 'pg'
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest'
import { intentOf } from '../../../tests/support/store-conformance.js'
import { PostgresClaimStore, PostgresInbox, PostgresIntentStore, type RunOnceResult } from '../src/index.js'
import { type CutProxy, startCutProxy } from './cut-proxy.js'
import { eventually, freshSchema } from './helpers.js'
import { describeWithPostgres } from './postgres-server.js'

/** The deadline the tests give each statement, and how late past it a rejection may come on a loaded machine. */
const DEADLINE = 400
const SLACK = 1_500
/** The test's patience: the code before the fix never ended at all. */
const PATIENCE = 10_000

const NEVER = Symbol('no end')

/** `work`'s outcome, or NEVER when it has not settled within PATIENCE ms. */
async function within<T>(work: Promise<T>): Promise<{ value?: T; error?: unknown; ms: number } | typeof NEVER> {
  const started = performance.now()
  let timer: NodeJS.Timeout | undefined
  const patience = new Promise<typeof NEVER>((resolve) => {
    timer = setTimeout(() => resolve(NEVER), PATIENCE)
  })
  try {
    return await Promise.race([
      work.then(
        (value) => ({ value, ms: performance.now() - started }),
        (error: unknown) => ({ error, ms: performance.now() - started }),
      ),
      patience,
    ])
  } finally {
    clearTimeout(timer)
  }
}

const event = (key: string): NewEvent => ({ key, previousKeys: [], fields: `{"id":"${key}"}`, ref: `order:${key}` })
const lease = (): Lease => ({ token: randomUUID(), ms: 60_000, maxAttempts: 8 })

describeWithPostgres('a stalled connection to PostgreSQL (no reply, no RST)', (server) => {
  let proxy: CutProxy
  let direct: pg.Pool
  let schema: string
  const pools: pg.Pool[] = []
  beforeAll(async () => {
    direct = server().pool()
    schema = await freshSchema(direct, 'stall')
    await direct.query(`CREATE TABLE ${schema}.payments_seen (id text NOT NULL)`)
    proxy = await startCutProxy(server().port)
  })
  afterEach(() => proxy.resume())
  afterAll(async () => {
    await proxy.close()
    await Promise.all(pools.map((pool) => pool.end().catch(() => {})))
    await direct.end()
  })

  /**
   * A pool through the proxy with one connection open and idle, ready to be stalled, and whether that
   * connection has left the pool (destroyed: pg-pool removes a connection released with an error).
   */
  const warmPool = async () => {
    const pool = server().pool({ port: proxy.port, max: 1 })
    pools.push(pool)
    const client = await pool.connect()
    client.release()
    let removed = false
    pool.on('remove', (gone) => {
      if (gone === client) removed = true
    })
    expect([pool.totalCount, pool.idleCount]).toStrictEqual([1, 1])
    return Object.assign(pool, { destroyed: () => removed })
  }
  const seen = async (id: string) =>
    Number(
      (await direct.query(`SELECT count(*)::int AS n FROM ${schema}.payments_seen WHERE id = $1`, [id])).rows[0]?.n,
    )

  it('runOnce stalled in its work rejects by its deadline and destroys the connection; a second runOnce of the key on another connection runs once the server frees the lock', async () => {
    const pool = await warmPool()
    const stalledInbox = new PostgresInbox({
      pool,
      schema,
      statementTimeoutMs: DEADLINE,
      idleInTransactionTimeoutMs: 1_000,
    })
    const key = `stall-run-${randomUUID()}`
    const ended = await within(
      stalledInbox.runOnce(key, async (tx) => {
        // The done mark is written and its row locked; then the network goes.
        await tx.query(`INSERT INTO ${schema}.payments_seen (id) VALUES ($1)`, [key])
        proxy.stall()
        await tx.query(`INSERT INTO ${schema}.payments_seen (id) VALUES ($1)`, [`${key}-second`])
      }),
    )
    expect(ended, 'runOnce never ended: it hangs on the stalled connection').not.toBe(NEVER)
    if (ended === NEVER) return
    expect(ended.ms).toBeLessThan(DEADLINE + SLACK)
    expect(String((ended.error as Error).message)).toMatch(
      /^PostgresInbox\.runOnce: PostgreSQL did not answer a statement of work on tx within 400 ms \(statementTimeoutMs\)/,
    )
    // Destroyed, never handed back: the pool holds no connection.
    expect(pool.totalCount).toBe(0)
    await eventually(async () => pool.destroyed(), 2_000, 'the stalled connection destroyed')

    // The stalled holder's session still holds the key's lock on the server, until its idle timeout.
    const other = new PostgresInbox({ pool: direct, schema, statementTimeoutMs: 5_000 })
    const freed = performance.now()
    let result: RunOnceResult<void> | undefined
    const waits: string[] = []
    await eventually(
      async () => {
        result = await other
          .runOnce(key, (tx) => tx.query(`INSERT INTO ${schema}.payments_seen (id) VALUES ($1)`, [key]).then(() => {}))
          .catch((error: unknown) => {
            waits.push(String((error as Error).message))
            return undefined
          })
        return result !== undefined
      },
      PATIENCE,
      'a second runOnce of the key (the server ends the stalled session after idleInTransactionTimeoutMs)',
    )
    expect(result).toStrictEqual({ ran: true, value: undefined })
    // The stalled run left nothing: its transaction was rolled back when the server ended it.
    expect(await seen(key)).toBe(1)
    expect(await seen(`${key}-second`)).toBe(0)
    for (const wait of waits) expect(wait).toMatch(/statement timeout|did not answer/)
    console.info(
      `stall figures: runOnce stalled in its work rejected after ${Math.round(ended.ms)} ms (statementTimeoutMs ${DEADLINE}); the key's second runOnce ran ${Math.round(performance.now() - freed)} ms later (idleInTransactionTimeoutMs 1000), after ${waits.length} timed-out waits`,
    )
  }, 30_000)

  it('runOnce stalled at its first statement rejects by its deadline naming BEGIN, and destroys the connection', async () => {
    const pool = await warmPool()
    const inbox = new PostgresInbox({ pool, schema, statementTimeoutMs: DEADLINE })
    proxy.stall()
    let ran = false
    const ended = await within(
      inbox.runOnce(`stall-begin-${randomUUID()}`, () => {
        ran = true
      }),
    )
    expect(ended, 'runOnce never ended').not.toBe(NEVER)
    if (ended === NEVER) return
    expect(ended.ms).toBeLessThan(DEADLINE + SLACK)
    expect(String((ended.error as Error).message)).toMatch(
      /^PostgresInbox\.runOnce: PostgreSQL did not answer BEGIN within 400 ms \(statementTimeoutMs\); its connection was destroyed/,
    )
    expect(ran).toBe(false)
    expect(pool.totalCount).toBe(0)
  })

  it('runOnce that cannot get a connection (the connection attempt is never answered) rejects by its deadline', async () => {
    const pool = server().pool({ port: proxy.port, max: 1 })
    pools.push(pool)
    proxy.stall()
    const ended = await within(new PostgresInbox({ pool, schema, statementTimeoutMs: DEADLINE }).runOnce('k', () => {}))
    expect(ended, 'runOnce never ended').not.toBe(NEVER)
    if (ended === NEVER) return
    expect(ended.ms).toBeLessThan(DEADLINE + SLACK)
    expect(String((ended.error as Error).message)).toMatch(
      /^PostgresInbox\.runOnce: PostgreSQL did not answer the connection attempt within 400 ms/,
    )
  })

  const calls: [string, (pool: pg.Pool) => Promise<unknown>][] = [
    ['PostgresIntentStore.open', (pool) => intents(pool).open(intentOf({ id: randomUUID() }))],
    ['PostgresIntentStore.close', (pool) => intents(pool).close(randomUUID(), 'applied')],
    ['PostgresIntentStore.openIntents', (pool) => intents(pool).openIntents('stall')],
    ['PostgresClaimStore.record', (pool) => claims(pool).record(event(randomUUID()), randomUUID(), 60_000)],
    ['PostgresClaimStore.take', (pool) => claims(pool).take(randomUUID(), lease())],
    ['PostgresClaimStore.takeDue', (pool) => claims(pool).takeDue(lease(), 10)],
    ['PostgresClaimStore.renew', (pool) => claims(pool).renew(randomUUID(), randomUUID(), 1_000)],
    ['PostgresClaimStore.complete', (pool) => claims(pool).complete(randomUUID(), randomUUID(), 1_000)],
    [
      'PostgresClaimStore.release',
      (pool) =>
        claims(pool).release(randomUUID(), randomUUID(), {
          retryInMs: 0,
          counted: true,
          error: 'Error: x',
          dead: false,
        }),
    ],
    ['PostgresClaimStore.failedEvents', (pool) => claims(pool).failedEvents(10)],
    ['PostgresClaimStore.retry', (pool) => claims(pool).retry(randomUUID())],
    ['PostgresClaimStore.forget', (pool) => claims(pool).forget(randomUUID())],
    ['PostgresClaimStore.prune', (pool) => claims(pool).prune(60_000)],
    ['PostgresInbox.isDone', (pool) => new PostgresInbox({ pool, schema, statementTimeoutMs: DEADLINE }).isDone('k')],
    ['PostgresInbox.prune', (pool) => new PostgresInbox({ pool, schema, statementTimeoutMs: DEADLINE }).prune(1_000)],
  ]
  const intents = (pool: pg.Pool) => new PostgresIntentStore({ pool, schema, statementTimeoutMs: DEADLINE })
  const claims = (pool: pg.Pool) => new PostgresClaimStore({ pool, schema, statementTimeoutMs: DEADLINE })

  it(`every store call on a stalled connection rejects by its deadline (${calls.length} calls), naming itself and the timeout, and destroys the connection`, async () => {
    const figures: string[] = []
    for (const [name, call] of calls) {
      proxy.resume()
      const pool = await warmPool()
      proxy.stall()
      const ended = await within(call(pool))
      expect(ended, `${name} never ended`).not.toBe(NEVER)
      if (ended === NEVER) continue
      const message = String((ended.error as Error | undefined)?.message)
      expect(message, name).toMatch(new RegExp(`^${name.replace('.', '\\.')}: `))
      expect(message, name).toMatch(/did not answer .* within 400 ms \(statementTimeoutMs\)/)
      // open sends its upsert 3 times and then its undo, each with its own deadline: the call's
      // deadline ends it first (see journal-deadline.test.ts).
      const attempts = name === 'PostgresIntentStore.open' ? 4 : 1
      expect(ended.ms, name).toBeLessThan(attempts * DEADLINE + 100 + SLACK)
      // The stalled connection is gone from the pool. (open's later attempts wait on new connections
      // the proxy never answers: pg's connectionTimeoutMillis is what ends those, see the docs.)
      await eventually(async () => pool.destroyed(), 2_000, `${name}: the stalled connection destroyed`)
      expect(pool.idleCount, name).toBe(0)
      figures.push(`${name} ${Math.round(ended.ms)} ms`)
    }
    console.info(`stall figures (deadline ${DEADLINE} ms): ${figures.join(', ')}`)
  }, 60_000)
})
