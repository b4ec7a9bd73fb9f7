/**
 * The callback inbox's stores against real servers (Debian's `redis-server` and PostgreSQL, started
 * here on loopback as the tests start them): records per second at a fixed number in flight, and
 * the bench process's CPU per record, each store interleaved in rounds with its baselines:
 *
 * - Redis: `RedisClaimStore.record` (the records made together sent as one script), the 0.2.0
 *   record (its own script, one event per call: stores-0.2.ts), and a raw `SET NX PX` (the baseline:
 *   a claim and nothing more).
 * - PostgreSQL: `PostgresClaimStore.record` (the records made together sent as one statement), the
 *   0.2.0 record (its own statement, one event per call), and a raw
 *   `INSERT … ON CONFLICT DO NOTHING` into a table of a text key and an expiry.
 *
 * Every record is a new event (its own key, and one previous key, as the card gateway files a callback), as a stream of callbacks is. Both servers keep data in
 * memory only as far as their defaults allow (PostgreSQL `fsync=off`, Redis without AOF): the figure
 * is the client's and the statement's cost, not the disk's.
 */

import { createHash, randomUUID } from 'node:crypto'
import type { NewEvent } from '@paywire/core'
import { migrate, PostgresClaimStore } from '@paywire/postgres'
import { RedisClaimStore, type RedisClient } from '@paywire/redis'
import { createClient } from 'redis'
import { startPostgres } from '../packages/postgres/test/postgres-process.js'
import { LuaScript, runScript } from '../packages/redis/src/client.js'
import { startRedisServer } from '../packages/redis/test/redis-process.js'
import { interleave, measureLoad, median } from './measure.js'
import { RECORD_LUA_0_2, RECORD_SQL_0_2 } from './stores-0.2.js'
import { type Spread, spread } from './throughput.js'

export interface StoreSettings {
  readonly concurrency: number
  readonly rounds: number
  readonly warmupMs: number
  readonly durationMs: number
}

export interface StoreContender {
  readonly name: string
  readonly rps: number
  readonly cpuUsPerRecord: number
}

export interface StoreResult {
  readonly store: 'RedisClaimStore' | 'PostgresClaimStore'
  readonly concurrency: number
  /** The store first, then its baselines. */
  readonly contenders: readonly StoreContender[]
  /** The store's records/s ÷ the raw baseline's, paired per round: higher is better. */
  readonly vsRaw: Spread
  /** The same against the store as sent before (the 0.2.0 record), when measured. */
  readonly vsBefore?: Spread
}

const STORE = 'store'
const RAW = 'raw'
const BEFORE = 'before'

/** A callback's fields as the inbox records them: a few hundred bytes of JSON. */
const FIELDS = JSON.stringify({
  order_id: 'order-000123',
  trans_id: '5f1c8a2e-8d4b-11ee-b9d1-0242ac120002',
  type: 'SALE',
  status: 'SETTLED',
  amount: '10.00',
  currency: 'USD',
  hash: 'a3f5c6d7e8f90a1b2c3d4e5f60718293',
})

/**
 * An event filed as the card gateway files a callback: its key and the one key an earlier version
 * filed it under (checked for done before it is written).
 */
function newEvent(key: string): NewEvent {
  return { key: `callback:v2:${key}`, previousKeys: [`callback:${key}`], fields: FIELDS, ref: key.slice(0, 12) }
}

/** Interleaves `calls` in rounds and summarises each; the store's name is `STORE`, the baseline's `RAW`. */
async function contest(
  store: StoreResult['store'],
  calls: Record<string, () => Promise<unknown>>,
  labels: Record<string, string>,
  settings: StoreSettings,
  log: (text: string) => void,
): Promise<StoreResult> {
  const names = Object.keys(calls)
  const load = { concurrency: settings.concurrency, warmupMs: settings.warmupMs, durationMs: settings.durationMs }
  for (const name of names) await measureLoad(calls[name] as () => Promise<unknown>, { ...load, warmupMs: 0 })
  const samples = await interleave(names, settings.rounds, async (name, round) => {
    const sample = await measureLoad(calls[name] as () => Promise<unknown>, load)
    log(
      `  ${store} round ${round + 1} ${labels[name]?.padEnd(34)} ${sample.rps.toFixed(0)} records/s ` +
        `${sample.cpuUsPerRequest.toFixed(1)} µs CPU`,
    )
    return sample
  })
  const paired = (other: string) =>
    spread((samples[STORE] ?? []).map((s, round) => s.rps / (samples[other]?.[round]?.rps ?? Number.NaN)))
  return {
    store,
    concurrency: settings.concurrency,
    contenders: names.map((name) => ({
      name: labels[name] ?? name,
      rps: median((samples[name] ?? []).map((s) => s.rps)),
      cpuUsPerRecord: median((samples[name] ?? []).map((s) => s.cpuUsPerRequest)),
    })),
    vsRaw: paired(RAW),
    ...(samples[BEFORE] ? { vsBefore: paired(BEFORE) } : {}),
  }
}

async function measureRedis(settings: StoreSettings, log: (text: string) => void): Promise<StoreResult[]> {
  const server = await startRedisServer()
  const client = createClient({ url: server.url })
  client.on('error', () => {})
  await client.connect()
  try {
    const prefix = `bench-${randomUUID()}:`
    const store = new RedisClaimStore({ client: client as unknown as RedisClient, keyPrefix: prefix })
    const released = new LuaScript(RECORD_LUA_0_2)
    let n = 0
    const key = () => `cb-${n++}`
    // The record as 0.2.0 sent it: its own script, one event per call.
    const before = () => {
      const { key: k, previousKeys, fields, ref } = newEvent(key())
      const keys = [
        `${prefix}inbox:due`,
        `${prefix}inbox:dead`,
        `${prefix}inbox:done`,
        `${prefix}inbox:event:${k}`,
        `${prefix}claim:${k}`,
        `${prefix}inbox:ref:${ref}`,
      ]
      for (const previous of previousKeys) keys.push(`${prefix}inbox:event:${previous}`, `${prefix}claim:${previous}`)
      return runScript(client as unknown as RedisClient, released, {
        keys,
        arguments: [prefix, k, randomUUID(), '', fields, ref],
      })
    }
    const results: StoreResult[] = []
    for (const concurrency of inFlight(settings)) {
      results.push(
        await contest(
          'RedisClaimStore',
          {
            [STORE]: () => store.record(newEvent(key()), randomUUID(), undefined),
            [BEFORE]: before,
            [RAW]: () =>
              client.set(`${prefix}raw:${key()}`, '1', { condition: 'NX', expiration: { type: 'PX', value: 600_000 } }),
          },
          {
            [STORE]: 'RedisClaimStore.record (batched)',
            [BEFORE]: 'the 0.2.0 record, a script per event',
            [RAW]: 'raw SET NX PX',
          },
          { ...settings, concurrency },
          log,
        ),
      )
    }
    return results
  } finally {
    await client.quit().catch(() => {})
    await server.stop()
  }
}

/** The judged number in flight, then one at a time (a lone callback, which waits for no batch). */
function inFlight(settings: StoreSettings): number[] {
  return [settings.concurrency, 1]
}

async function measurePostgres(settings: StoreSettings, log: (text: string) => void): Promise<StoreResult[]> {
  const server = await startPostgres()
  const pool = server.pool({ max: settings.concurrency })
  try {
    await migrate(pool)
    await pool.query('CREATE TABLE raw_claims (key text PRIMARY KEY, expires_at timestamptz NOT NULL)')
    const store = new PostgresClaimStore({ pool })
    let n = 0
    const hash = (text: string) => createHash('sha256').update(text, 'utf8').digest()
    // The record as 0.2.0 sent it: its own statement, one event per call.
    const before = () => {
      const { key, previousKeys, fields, ref } = newEvent(`cb-${n++}`)
      return pool.query(RECORD_SQL_0_2, [
        hash(key),
        Buffer.from(key),
        randomUUID(),
        null,
        Buffer.from(fields),
        hash(ref),
        Buffer.from(ref),
        previousKeys.map(hash),
      ])
    }
    const raw = () =>
      pool.query(
        `INSERT INTO raw_claims (key, expires_at) VALUES ($1, statement_timestamp() + interval '10 minutes')
ON CONFLICT DO NOTHING`,
        [`cb-${n++}`],
      )
    const results: StoreResult[] = []
    for (const concurrency of inFlight(settings)) {
      results.push(
        await contest(
          'PostgresClaimStore',
          {
            [STORE]: () => store.record(newEvent(`cb-${n++}`), randomUUID(), undefined),
            [BEFORE]: before,
            [RAW]: raw,
          },
          {
            [STORE]: 'PostgresClaimStore.record (batched)',
            [BEFORE]: 'the 0.2.0 record, a statement per event',
            [RAW]: 'raw INSERT … ON CONFLICT DO NOTHING',
          },
          { ...settings, concurrency },
          log,
        ),
      )
    }
    return results
  } finally {
    await pool.end().catch(() => {})
    await server.stop()
  }
}

/** Both stores, one after the other (each with its own server, stopped after). */
export async function measureStores(settings: StoreSettings, log: (text: string) => void): Promise<StoreResult[]> {
  return [...(await measureRedis(settings, log)), ...(await measurePostgres(settings, log))]
}
