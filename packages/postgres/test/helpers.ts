/** What the PostgreSQL tests share: the stores over a pool, polling with a deadline, fixture processes. */

import type { ChildProcess } from 'node:child_process'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type pg from 'pg'
import { expect } from 'vitest'
import {
  type FixturePackage,
  killFixtures,
  spawnFixture as spawnPackageFixture,
} from '../../../tests/support/fixture-process.js'
import type { StoreSubject } from '../../../tests/support/store-conformance.js'
import {
  migrate,
  type NamedStatement,
  type PgPool,
  type PgPoolClient,
  PostgresClaimStore,
  PostgresIntentStore,
} from '../src/index.js'

/**
 * Resolves once `until()` holds, polling every 10 ms; rejects after `deadlineMs`. How a test waits
 * for real time (a hold measured on the server's clock) to pass: never a fixed sleep.
 */
export async function eventually(until: () => Promise<boolean>, deadlineMs: number, what: string): Promise<void> {
  const deadline = Date.now() + deadlineMs
  while (Date.now() < deadline) {
    if (await until()) return
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
  throw new Error(`${what}: still not true after ${deadlineMs} ms`)
}

/** PostgreSQL stores over `pools` (one store instance per call, round robin: several instances of a service). */
export function postgresSubject(pools: pg.Pool[], schema: string, holdMs = 400): StoreSubject {
  let next = 0
  const pool = () => pools[next++ % pools.length] as pg.Pool
  return {
    claims: () => new PostgresClaimStore({ pool: pool(), schema }),
    intents: () => new PostgresIntentStore({ pool: pool(), schema }),
    holdMs,
    // The server runs on this machine: its clock is this process's, give or take rounding to a ms.
    clockSkewMs: 50,
    pass: (ms, until) => eventually(until, ms + 5_000, `after ${ms} ms`),
  }
}

/** A fresh schema migrated on `pool`. */
export async function freshSchema(pool: pg.Pool, name: string): Promise<string> {
  await migrate(pool, { schema: name })
  return name
}

const here = dirname(fileURLToPath(import.meta.url))
const fixtures: FixturePackage = { packageDir: join(here, '..'), external: ['pg'] }

/**
 * Runs `test/fixtures/<name>` in a new Node process, as a merchant's separate process would (bundled
 * once per file: see tests/support/fixture-process.ts). With `stepped`, its stdin is a pipe the test
 * writes one line to per step it lets the fixture take.
 */
export function spawnFixture(name: string, args: string[], stepped = false): Promise<ChildProcess> {
  return spawnPackageFixture(fixtures, name, args, stepped)
}

export { killFixtures }

/** Calls `onLine` with each JSON line `child` prints; resolves with its exit code. */
export function lines(child: ChildProcess, onLine: (line: Record<string, unknown>) => void): Promise<number | null> {
  let out = ''
  let err = ''
  child.stdout?.on('data', (chunk: Buffer) => {
    out += chunk.toString('utf8')
    for (let end = out.indexOf('\n'); end !== -1; end = out.indexOf('\n')) {
      const line = out.slice(0, end)
      out = out.slice(end + 1)
      if (line.trim() !== '') onLine(JSON.parse(line) as Record<string, unknown>)
    }
  })
  child.stderr?.on('data', (chunk: Buffer) => {
    err += chunk.toString('utf8')
  })
  return new Promise((resolve) =>
    child.once('exit', (code) => {
      if (code !== 0 && code !== null) process.stderr.write(err)
      resolve(code)
    }),
  )
}

/** Kills `child` with SIGKILL (no exit handlers, no socket shutdown) and resolves once it is gone. */
export async function sigkill(child: ChildProcess): Promise<void> {
  if (child.exitCode === null && child.signalCode === null) {
    const exited = new Promise((resolve) => child.once('exit', resolve))
    child.kill('SIGKILL')
    await exited
  }
  expect(child.signalCode).toBe('SIGKILL')
}

/** The claim store's record statements, as the wire carries their text: a lone event's, and a batch's (of any size). */
export const RECORD_STATEMENT = /^WITH (prev AS \(\n {2}SELECT coalesce\(bool_or|i AS \(\n {2}SELECT \* FROM unnest)/

/** `pool`, counting the record statements sent through it, and calling `before(n)` just before the n-th is sent. */
export function watched(
  pool: pg.Pool,
  before: (n: number) => void = () => {},
): { pool: PgPool; readonly records: number } {
  const log = logged(pool, () => before(log.sends.length))
  return {
    pool: log.pool,
    get records() {
      return log.sends.length
    },
  }
}

/**
 * Adds to `schema`'s claims a DBA's trigger refusing the events whose ref is a key of `refuse`, each
 * with its SQLSTATE (null: RAISE's own, P0001).
 */
export async function refuseRefs(direct: pg.Pool, schema: string, refuse: Record<string, string | null>) {
  const checks = Object.entries(refuse)
    .map(([ref, code]) =>
      code === null
        ? `IF convert_from(NEW.ref, 'UTF8') = '${ref}' THEN RAISE EXCEPTION 'refused ${ref}'; END IF;`
        : `IF convert_from(NEW.ref, 'UTF8') = '${ref}' THEN RAISE EXCEPTION 'refused ${ref}' USING ERRCODE = '${code}'; END IF;`,
    )
    .join('\n')
  await direct.query(
    `CREATE OR REPLACE FUNCTION ${schema}.refuse() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
${checks}
RETURN NEW;
END $$`,
  )
  await direct.query(`DROP TRIGGER IF EXISTS refuse ON ${schema}.claims`)
  await direct.query(
    `CREATE TRIGGER refuse BEFORE INSERT OR UPDATE ON ${schema}.claims FOR EACH ROW EXECUTE FUNCTION ${schema}.refuse()`,
  )
}

/** One record statement as the store sent it. */
export interface Send {
  /** The server session (backend pid) of the connection it went on. */
  readonly pid: number
  /** Sent as a named (prepared) statement. */
  readonly named: boolean
  readonly name: string | undefined
  readonly text: string
  /** How many events it carried (a lone record's statement: 1). */
  readonly events: number
  /** The events' keys, in order. */
  readonly keys: readonly string[]
  /** Once settled: 'ok', or the error's SQLSTATE (or 'no code'). */
  outcome?: string
  /** Once refused: the error itself. */
  error?: unknown
}

/**
 * `pool` as a wrapper hands it to the store, logging every record statement sent through it;
 * `before` runs just before each is sent, and `rewrite` changes a named statement's text per call,
 * as a wrapper adding a per-call comment would.
 */
export function logged(
  pool: pg.Pool,
  before: (send: Send) => void = () => {},
  rewrite?: (text: string) => string,
): { readonly pool: PgPool; readonly sends: Send[] } {
  const sends: Send[] = []
  const wrap = (client: pg.PoolClient): PgPoolClient => {
    const query = client.query.bind(client) as PgPoolClient['query']
    return {
      query: ((text: string | NamedStatement, values?: unknown[]) => {
        const sql = typeof text === 'string' ? text : text.text
        if (!RECORD_STATEMENT.test(sql)) return typeof text === 'string' ? query(text, values) : query(text)
        const params = typeof text === 'string' ? values : text.values
        const first = params?.[0]
        const keys = params?.[1]
        const send: Send = {
          pid: (client as unknown as { processID: number }).processID,
          named: typeof text !== 'string',
          name: typeof text === 'string' ? undefined : text.name,
          text: sql,
          events: Array.isArray(first) ? first.length : 1,
          keys: (Array.isArray(keys) ? keys : [keys]).map((key) => Buffer.from(key as Buffer).toString('utf8')),
        }
        sends.push(send)
        before(send)
        const sent =
          typeof text === 'string' ? query(text, values) : query(rewrite ? { ...text, text: rewrite(text.text) } : text)
        sent.then(
          () => {
            send.outcome = 'ok'
          },
          (error: unknown) => {
            const code = (error as { code?: unknown } | null)?.code
            send.outcome = typeof code === 'string' ? code : 'no code'
            send.error = error
          },
        )
        return sent
      }) as PgPoolClient['query'],
      release: (destroy?: boolean | Error) => client.release(destroy),
      on: (name: 'error', listener: (error: Error) => void) => client.on(name, listener),
      off: (name: 'error', listener: (error: Error) => void) => client.off(name, listener),
    }
  }
  const wrapped = {
    query: pool.query.bind(pool),
    connect(callback?: (error: Error | undefined, client: PgPoolClient | undefined) => void) {
      const connecting = pool.connect().then(wrap)
      if (callback === undefined) return connecting
      connecting.then(
        (client) => callback(undefined, client),
        (error: Error) => callback(error, undefined),
      )
      return undefined
    },
  } as unknown as PgPool
  return { pool: wrapped, sends }
}

/** The SQLSTATE of a rejection (or 'no code'), or 'ok' when it fulfilled. */
export function outcomeOf(settled: PromiseSettledResult<unknown>): string {
  if (settled.status === 'fulfilled') return `ok:${String(settled.value)}`
  const code = (settled.reason as { code?: unknown } | null)?.code
  return typeof code === 'string' ? code : 'no code'
}
