/** Callback claims on PostgreSQL: at most one holder of a dedupe key across every instance sharing the database. */

import { type ClaimState, type ClaimStore, RequestValidationError } from '@paywire/core'
import { checkMs, checkStoreOptions, hashOf, keyBytes, type PgPool, type PostgresStoreOptions } from './pool.js'

const STATES: ReadonlySet<unknown> = new Set(['claimed', 'held', 'done'])

/**
 * Core's `ClaimStore` on PostgreSQL, in the table `<schema>.claims` (one row per dedupe key, unique
 * on the key). Every operation is one statement, so two instances racing on a key are ordered by the
 * row lock: a claim inserts the row, or takes it over once its hold or keep has expired, and answers
 * what it found in the same statement. Expiry is measured on the database server's clock. Each
 * operation is safe to send again after a lost reply.
 */
export class PostgresClaimStore implements ClaimStore {
  readonly #pool: PgPool
  readonly #table: string

  constructor(options: PostgresStoreOptions) {
    const schema = checkStoreOptions('PostgresClaimStore', options)
    this.#pool = options.pool
    this.#table = `${schema}.claims`
  }

  /** Claims `key` for `token` for `holdMs`: `claimed` (now or already this token's), `held` by another token, or `done`. */
  async claim(key: string, token: string, holdMs: number): Promise<ClaimState> {
    const bytes = keyBytes('PostgresClaimStore.claim', 'key', key)
    const checked = checkToken('PostgresClaimStore.claim', token)
    const ms = checkMs('PostgresClaimStore.claim', 'holdMs', holdMs)
    // One statement: insert, or take over an expired row, or keep the row as it is; the RETURNING
    // reads the row as it now stands, under its lock, so the answer is never a stale read.
    const result = await this.#pool.query(
      `INSERT INTO ${this.#table} AS c (key_hash, key, token, done, expires_at)
       VALUES ($1, $2, $3, false, statement_timestamp() + $4 * interval '1 millisecond')
       ON CONFLICT (key_hash) DO UPDATE SET
         token = CASE WHEN c.expires_at <= statement_timestamp() THEN EXCLUDED.token ELSE c.token END,
         done = CASE WHEN c.expires_at <= statement_timestamp() THEN false ELSE c.done END,
         expires_at = CASE WHEN c.expires_at <= statement_timestamp() THEN EXCLUDED.expires_at ELSE c.expires_at END
       RETURNING CASE WHEN c.done THEN 'done' WHEN c.token = $3 THEN 'claimed' ELSE 'held' END AS state`,
      [hashOf(bytes), bytes, checked, ms],
    )
    const state = result.rows[0]?.state
    if (STATES.has(state)) return state as ClaimState
    throw new Error(`PostgresClaimStore.claim: the claim statement answered ${JSON.stringify(state)}`)
  }

  /**
   * Marks `key` done for `keepMs` when `token` holds it (or nobody does, or its claim expired): `true`,
   * also when it was already done by `token`. `false` when another token holds or completed it (left as is).
   */
  async complete(key: string, token: string, keepMs: number): Promise<boolean> {
    const bytes = keyBytes('PostgresClaimStore.complete', 'key', key)
    const ms = checkMs('PostgresClaimStore.complete', 'keepMs', keepMs)
    const checked = checkToken('PostgresClaimStore.complete', token)
    const result = await this.#pool.query(
      `INSERT INTO ${this.#table} AS c (key_hash, key, token, done, expires_at)
       VALUES ($1, $2, $3, true, statement_timestamp() + $4 * interval '1 millisecond')
       ON CONFLICT (key_hash) DO UPDATE SET token = EXCLUDED.token, done = true, expires_at = EXCLUDED.expires_at
         WHERE c.token = EXCLUDED.token OR c.expires_at <= statement_timestamp()
       RETURNING 1 AS ok`,
      [hashOf(bytes), bytes, checked, ms],
    )
    return result.rows.length === 1
  }

  /** Frees `key` for the next delivery when `token` still holds it; a completed or re-claimed key is left as is. */
  async release(key: string, token: string): Promise<void> {
    const bytes = keyBytes('PostgresClaimStore.release', 'key', key)
    const checked = checkToken('PostgresClaimStore.release', token)
    await this.#pool.query(`DELETE FROM ${this.#table} WHERE key_hash = $1 AND token = $2 AND NOT done`, [
      hashOf(bytes),
      checked,
    ])
  }

  /** Deletes claims whose hold or keep ended (they answer as absent already): run it now and then to keep the table small. */
  async prune(): Promise<number> {
    const result = await this.#pool.query(`DELETE FROM ${this.#table} WHERE expires_at <= statement_timestamp()`)
    return result.rowCount ?? 0
  }
}

/** A token is a non-empty string without a lone surrogate: the only proof of who holds a claim. */
function checkToken(operation: string, token: unknown): string {
  keyBytes(operation, 'token', token)
  if (token === '') {
    throw new RequestValidationError(operation, [
      { path: 'token', message: 'must be a non-empty string (a fresh random one per attempt at the work)' },
    ])
  }
  // PostgreSQL text cannot hold NUL; a token with one is no random token.
  if ((token as string).includes('\u0000')) {
    throw new RequestValidationError(operation, [{ path: 'token', message: 'must not contain NUL' }])
  }
  return token as string
}
