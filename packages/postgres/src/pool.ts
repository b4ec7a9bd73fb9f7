/** The node-postgres calls the stores make, the checks of the options every store takes, and key encoding. */

import { createHash } from 'node:crypto'
import { RequestValidationError, type ValidationIssue } from '@paywire/core'

/** What a query answers, as node-postgres gives it. */
export interface PgResult {
  rows: Record<string, unknown>[]
  rowCount: number | null
}

/** Anything that runs a parameterized query: a `pg.Pool`, a `pg.Client`, or the client of a transaction. */
export interface PgQueryable {
  query(text: string, values?: unknown[]): Promise<PgResult>
  /**
   * A named (prepared) statement, as node-postgres sends it: parsed once per connection, then only
   * bound and run. The callback inbox's record statements go this way: a wrapper of the pool or its
   * clients forwards the object as it came, never changing `name` or `text` (node-postgres refuses
   * a name it prepared for another text).
   */
  query(statement: NamedStatement): Promise<PgResult>
}

/**
 * A statement node-postgres prepares under `name` on each connection the first time it runs there
 * (`client.query({ name, text, values })`), then only binds and runs.
 */
export interface NamedStatement {
  readonly name: string
  readonly text: string
  readonly values: unknown[]
}

/** A connection checked out of the pool: `runOnce` runs its transaction on one. */
export interface PgPoolClient extends PgQueryable {
  release(destroy?: boolean | Error): void
  /** node-postgres emits `error` on a checked-out connection that drops between queries. */
  on?(event: 'error', listener: (error: Error) => void): unknown
  off?(event: 'error', listener: (error: Error) => void): unknown
}

/**
 * The part of a `pg.Pool` (node-postgres 8) the stores use, created and ended by you. The stores only
 * send parameterized queries (the callback inbox's record statements named), each on a connection
 * they check out for it (one per `runOnce` transaction), so that a connection whose statement stalls
 * can be destroyed. The callback inbox's store has up to two record statements in flight: size the
 * pool for them beside your own `runOnce` transactions.
 */
export interface PgPool extends PgQueryable {
  connect(): Promise<PgPoolClient>
  /** The callback form, which the stores use: they listen to the connection before anything else runs. */
  connect(callback: (error: Error | undefined, client: PgPoolClient | undefined) => void): void
  /** `pg.Pool` is an EventEmitter: it emits `error` when one of its idle connections fails. */
  on?(event: 'error', listener: (error: Error) => void): unknown
  listenerCount?(event: 'error'): number
}

/** What every store takes. */
export interface PostgresStoreOptions {
  /** Your `pg.Pool` (node-postgres 8). */
  pool: PgPool
  /** The schema holding the tables (default `paywire`): lower-case letters, digits and `_`, as `migrate()` created it. */
  schema?: string
  /**
   * The longest one statement of the store may wait for PostgreSQL's answer, in ms (default 30 000),
   * getting its connection included. Past it the call rejects naming the statement, and the
   * connection is destroyed, never returned to the pool: a connection that stalls (a partition, no
   * reply and no RST) would otherwise hold the call for the hours TCP takes to notice. In
   * `runOnce`'s transaction the server applies it too (`statement_timeout`).
   */
  statementTimeoutMs?: number
  /**
   * Hears the errors of the pool's idle connections (a server restart, a network cut), when the pool
   * had no `error` listener when the first store was made on it: the store then adds one, since
   * node-postgres emits `error` on the pool and an `error` event nobody listens to ends the process.
   * Every store made on that pool with an `onError` hears each error once. Default, when none of
   * them has one: `console.warn` naming the error's class, code and message (never the connection's
   * settings), unless a listener of yours was added since. With a listener of your own from the
   * start, the pool's errors are yours alone.
   */
  onError?: (error: Error) => void
}

export const DEFAULT_SCHEMA = 'paywire'

/** A schema name is put into SQL text (identifiers cannot be parameters): only a plain lower-case identifier. */
const IDENTIFIER = /^[a-z_][a-z0-9_]{0,62}$/

/** In `u` mode a pair is one code point, so this matches only a surrogate without its partner. */
const LONE_SURROGATE = /[\uD800-\uDFFF]/u

/** A store's options as checked: the schema and the statement deadline to use. */
export interface CheckedStoreOptions {
  readonly schema: string
  readonly statementTimeoutMs: number
}

/**
 * How long one statement may wait for PostgreSQL's answer, when a store's options say nothing: far
 * above what a store statement takes (one indexed row, milliseconds) or a runOnce waits for another
 * runner of its key, far below the hours a stalled TCP connection takes to be noticed, and below the
 * inbox's default lease (60 s), so a run stuck on a stalled connection fails and is retried rather
 * than renewing its lease for ever.
 */
export const DEFAULT_STATEMENT_TIMEOUT_MS = 30_000

/** Node's timers fire at once past this many ms (a 32-bit signed int). */
export const MAX_TIMER_MS = 2_147_483_647

/** A timeout option: a whole number of ms from 1 to Node's timer limit, or an issue naming it. */
export function timeoutIssues(path: string, value: unknown): ValidationIssue[] {
  if (value === undefined) return []
  if (Number.isSafeInteger(value) && (value as number) >= 1 && (value as number) <= MAX_TIMER_MS) return []
  return [{ path, message: `must be a whole number of ms from 1 to ${MAX_TIMER_MS}` }]
}

/** Checks a store's options; refuses them with every issue named. */
export function checkStoreOptions(store: string, options: unknown, extra: ValidationIssue[] = []): CheckedStoreOptions {
  if (typeof options !== 'object' || options === null) {
    throw new RequestValidationError(store, [{ path: '(options)', message: 'pass { pool }' }], 'options')
  }
  const { pool, schema, statementTimeoutMs, onError } = options as Record<string, unknown>
  const issues: ValidationIssue[] = []
  if (
    typeof pool !== 'object' ||
    pool === null ||
    typeof (pool as Record<string, unknown>).query !== 'function' ||
    typeof (pool as Record<string, unknown>).connect !== 'function'
  ) {
    issues.push({ path: 'pool', message: 'pass your pg.Pool (node-postgres 8): it needs query() and connect()' })
  }
  issues.push(...schemaIssues(schema))
  issues.push(...timeoutIssues('statementTimeoutMs', statementTimeoutMs))
  if (onError !== undefined && typeof onError !== 'function') {
    issues.push({ path: 'onError', message: 'must be a function (error) => void' })
  }
  issues.push(...extra)
  if (issues.length > 0) throw new RequestValidationError(store, issues, 'options')
  reportPoolErrors(pool as PgPool, onError as ((error: Error) => void) | undefined)
  return {
    schema: (schema as string | undefined) ?? DEFAULT_SCHEMA,
    statementTimeoutMs: (statementTimeoutMs as number | undefined) ?? DEFAULT_STATEMENT_TIMEOUT_MS,
  }
}

/** The pools the stores listen on, each with the `onError` of every store made on it that gave one. */
const adopted = new WeakMap<PgPool, Set<(error: Error) => void>>()

/**
 * Makes the pool's idle-connection errors survivable: node-postgres emits `error` on the pool when an
 * idle connection fails (a server restart cuts every one), and an `error` event with no listener
 * throws, which from a socket's callback ends the process. When the pool has no listener, one is
 * added that reports to the stores' `onError`; a pool with a listener of the merchant's is left
 * alone (its errors are the merchant's). A pool that is not an EventEmitter has nothing to add to.
 */
function reportPoolErrors(pool: PgPool, onError: ((error: Error) => void) | undefined): void {
  if (typeof pool.on !== 'function' || typeof pool.listenerCount !== 'function') return
  let reporters = adopted.get(pool)
  if (reporters === undefined) {
    if (pool.listenerCount('error') > 0) return
    const heard = new Set<(error: Error) => void>()
    reporters = heard
    adopted.set(pool, heard)
    const listener = (error: Error) => {
      if (heard.size > 0) {
        for (const report of heard) {
          // A throw here would be an exception inside an event listener: it must not end the process either.
          try {
            report(error)
          } catch {}
        }
        // A listener the merchant added since handles it; else the warning, so the error is not silent.
      } else if ((pool.listenerCount?.('error') ?? 0) <= 1) console.warn(poolWarning(error))
    }
    pool.on('error', listener)
  }
  if (onError !== undefined) reporters.add(onError)
}

/** What the default report says: the error's class, code and message; never the pool's settings. */
function poolWarning(error: unknown): string {
  const { code } = (error ?? {}) as { code?: unknown }
  const kind = error instanceof Error ? error.constructor.name : typeof error
  const text = error instanceof Error ? error.message : String(error)
  return `@paywire/postgres: an idle connection of the pool failed (${kind}${typeof code === 'string' ? ` ${code}` : ''}: ${text}); the pool opens a new one when it needs it. Pass onError to the store, or listen on the pool, to handle it yourself.`
}

export function schemaIssues(schema: unknown): ValidationIssue[] {
  if (schema === undefined || (typeof schema === 'string' && IDENTIFIER.test(schema))) return []
  return [
    {
      path: 'schema',
      message: 'must be a plain lower-case identifier (a letter or _, then letters, digits or _, at most 63)',
    },
  ]
}

/**
 * A key, id or service as stored: its UTF-8 bytes (a `bytea`, so NUL and every other character
 * round-trip byte for byte). A lone surrogate is refused: in UTF-8 it would become U+FFFD and two
 * different keys would collide.
 */
export function keyBytes(operation: string, path: string, value: unknown): Buffer {
  if (typeof value !== 'string') {
    throw new RequestValidationError(operation, [{ path, message: `must be a string, got ${typeof value}` }])
  }
  if (LONE_SURROGATE.test(value)) {
    throw new RequestValidationError(operation, [
      { path, message: 'has a lone UTF-16 surrogate: keys are stored as UTF-8, where it would collide with U+FFFD' },
    ])
  }
  return Buffer.from(value, 'utf8')
}

/** The SHA-256 of a key's bytes: the indexed column, so a key of any length fits a btree entry. */
export function hashOf(bytes: Buffer): Buffer {
  return createHash('sha256').update(bytes).digest()
}

/** The longest hold, keep or age: 100 years (a longer one would overflow PostgreSQL's timestamps). */
export const MAX_MS = 100 * 365 * 24 * 3600 * 1000

/** A duration: a finite number of ms above 0 and at most 100 years, rounded up to a whole ms. */
export function checkMs(operation: string, path: string, value: unknown): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0 || value > MAX_MS) {
    throw new RequestValidationError(operation, [
      { path, message: `must be a finite number of ms above 0 and at most ${MAX_MS} (100 years)` },
    ])
  }
  return Math.ceil(value)
}

/**
 * True for an error PostgreSQL answered about the statement itself (a constraint, a type, a missing
 * table): sending it again changes nothing. False for a lost connection, and for the server's own
 * shutdown or connection errors (SQLSTATE classes 08 and 57), after which the outcome is unknown.
 */
export function isRefusal(error: unknown): boolean {
  // Only the server's answers carry a severity: node's own errors have five-letter codes too (EPIPE).
  const { code, severity } = (error ?? {}) as { code?: unknown; severity?: unknown }
  if (typeof severity !== 'string' || typeof code !== 'string' || !/^[0-9A-Z]{5}$/.test(code)) return false
  return !code.startsWith('08') && !code.startsWith('57')
}
