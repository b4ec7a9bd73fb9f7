/**
 * Exactly-once effects in the merchant's own database: the work and its done mark commit in one
 * transaction, so a process killed mid-work leaves neither, and the retry runs it once.
 */

import { createHash } from 'node:crypto'
import { PaywireError, RequestValidationError } from '@paywire/core'
import { boundedClient, checkOut, type StatementDeadline, statement } from './connection.js'
import {
  checkMs,
  checkStoreOptions,
  hashOf,
  keyBytes,
  type PgPool,
  type PgQueryable,
  type PostgresStoreOptions,
  timeoutIssues,
} from './pool.js'

/** The options of `PostgresInbox`. */
export interface PostgresInboxOptions extends PostgresStoreOptions {
  /**
   * How long the server keeps a `runOnce` transaction whose client has gone silent, in ms (default
   * 10 000; `SET LOCAL idle_in_transaction_session_timeout`): past it the server ends the session,
   * which rolls the transaction back and frees the key's lock. A runner cut off by a partition (no
   * reply, no RST) would otherwise hold the lock, and make every redelivery of its key wait, for the
   * hours TCP takes to notice. Keep it above the longest pause `work` makes between two statements.
   */
  idleInTransactionTimeoutMs?: number
}

/**
 * The default of `idleInTransactionTimeoutMs`: a runOnce transaction has no reason to sit idle (its
 * work sends statements; calls to other systems belong in an outbox), and 10 s is below the default
 * statement deadline (30 s), so a redelivery waiting on a stalled holder's lock gets it instead of
 * timing out.
 */
const DEFAULT_IDLE_IN_TRANSACTION_MS = 10_000

/** What `runOnce` answers: `ran` with the work's value, or `ran: false` when the key was already done. */
export type RunOnceResult<T> = { readonly ran: true; readonly value: T } | { readonly ran: false }

/**
 * Runs work once per key, in the same PostgreSQL database as the merchant's own tables. Use it inside
 * a callback handler's `onEvent` (with the event's dedupe key) or anywhere an effect must not happen
 * twice: the done mark is a row of `<schema>.effects` written in the work's own transaction.
 */
export class PostgresInbox {
  readonly #pool: PgPool
  readonly #table: string
  readonly #timeoutMs: number
  readonly #idleMs: number

  constructor(options: PostgresInboxOptions) {
    const idle = (options as Partial<PostgresInboxOptions> | null)?.idleInTransactionTimeoutMs
    const checked = checkStoreOptions('PostgresInbox', options, timeoutIssues('idleInTransactionTimeoutMs', idle))
    this.#pool = options.pool
    this.#table = `${checked.schema}.effects`
    this.#timeoutMs = checked.statementTimeoutMs
    this.#idleMs = idle ?? DEFAULT_IDLE_IN_TRANSACTION_MS
  }

  /** The deadline of each statement `operation` sends. */
  #bound(operation: string): StatementDeadline {
    return { operation, timeoutMs: this.#timeoutMs }
  }

  /**
   * Opens a transaction, inserts the done mark of `key` (unique: a second runner waits on the first's
   * transaction, then finds the key done), runs `work(tx)` and commits both together. Write with
   * `tx`, never with the pool: only `tx`'s writes commit with the mark. When `work` throws, or the
   * process dies, or the connection drops before the commit, nothing of it stays and a retry runs it
   * again. A commit whose reply was lost rejects (outcome unknown): calling `runOnce` again is safe,
   * it answers `ran: false` when the commit had landed. Every statement, `work`'s on `tx` included,
   * is bounded by `statementTimeoutMs` on both sides (the client destroys the connection, the server
   * cancels the statement), and the server ends the transaction once its client has been silent for
   * `idleInTransactionTimeoutMs`: a stalled connection holds neither the call nor the key's lock.
   */
  async runOnce<T>(key: string, work: (tx: PgQueryable) => Promise<T> | T): Promise<RunOnceResult<T>> {
    const op = 'PostgresInbox.runOnce'
    const bytes = keyBytes(op, 'key', key)
    if (typeof work !== 'function') {
      throw new RequestValidationError(op, [{ path: 'work', message: 'must be a function' }])
    }
    const held = await checkOut(this.#pool, this.#bound(op))
    const client = held.client
    let broken: Error | undefined
    let committing = false
    try {
      // One round trip. The server's own limits, scoped to this transaction: a holder cut off by a
      // partition looks idle in transaction to the server, which then ends its session and frees the
      // key's lock; a statement that waits on such a lock (the mark) is cancelled like any other.
      await held.bounded(
        client.query(
          `BEGIN; SET LOCAL statement_timeout = ${this.#timeoutMs}; SET LOCAL idle_in_transaction_session_timeout = ${this.#idleMs}`,
        ),
        'BEGIN',
      )
      const mark = await held.bounded(
        client.query(
          `INSERT INTO ${this.#table} (key_hash, key) VALUES ($1, $2) ON CONFLICT (key_hash) DO NOTHING RETURNING 1 AS ok`,
          [hashOf(bytes), bytes],
        ),
        'the done mark',
      )
      if (mark.rows.length === 0) {
        await held.bounded(client.query('ROLLBACK'), 'ROLLBACK')
        return { ran: false }
      }
      const value = await work(boundedClient(held, 'a statement of work on tx'))
      // A work that caught its statement's timeout and returned anyway: its connection is lost, and
      // nothing it wrote can commit.
      const stalled = held.timedOut()
      if (stalled) throw stalled
      committing = true
      await held.bounded(client.query('COMMIT'), 'COMMIT')
      return { ran: true, value }
    } catch (error) {
      if (committing) {
        broken = error instanceof Error ? error : new Error(String(error))
        throw new PaywireError(
          `${op}: the commit of ${JSON.stringify(key)} failed or its reply was lost (${error instanceof Error ? error.message : String(error)}): its work may or may not be committed; calling runOnce again is safe (it answers ran: false when it was)`,
          { cause: error },
        )
      }
      // A connection past its deadline is destroyed on release, and the server rolls back what it
      // held: a ROLLBACK sent on it would only wait for the deadline again.
      if (held.timedOut() === undefined) {
        await held.bounded(client.query('ROLLBACK'), 'ROLLBACK').catch((rollbackError: unknown) => {
          broken = rollbackError instanceof Error ? rollbackError : new Error(String(rollbackError))
        })
      }
      throw error
    } finally {
      // A connection whose transaction state is unknown is destroyed, never handed to the next caller.
      held.release(broken)
    }
  }

  /** Whether `key`'s work has committed. */
  async isDone(key: string): Promise<boolean> {
    const bytes = keyBytes('PostgresInbox.isDone', 'key', key)
    const result = await statement(
      this.#pool,
      this.#bound('PostgresInbox.isDone'),
      `SELECT 1 FROM ${this.#table} WHERE key_hash = $1`,
      [hashOf(bytes)],
    )
    return result.rows.length === 1
  }

  /**
   * Forgets done marks older than `olderThanMs`: a key delivered again after that runs again. Keep
   * them longer than the gateway retries a callback (days); answers how many were deleted.
   */
  async prune(olderThanMs: number): Promise<number> {
    const ms = checkMs('PostgresInbox.prune', 'olderThanMs', olderThanMs)
    const result = await statement(
      this.#pool,
      this.#bound('PostgresInbox.prune'),
      `DELETE FROM ${this.#table} WHERE done_at < statement_timestamp() - $1 * interval '1 millisecond'`,
      [ms],
    )
    return result.rowCount ?? 0
  }
}

/**
 * Takes the transaction-scoped advisory lock of one payment: every transaction that takes it for the
 * same id waits for the one holding it, so reading a payment's state and moving it forward is one
 * step (no two callbacks of one payment move its state at once, so it never goes backwards). Released
 * at commit or rollback. Call it on `runOnce`'s `tx`, before reading the payment's row, with the
 * payment's order (`orderOf(event)` of `@paywire/card-gateway`: `trans_id` changes under cascading).
 * An empty id is refused: it would put every event without one on one shared lock.
 */
export async function lockPayment(tx: PgQueryable, paymentId: string): Promise<void> {
  const bytes = keyBytes('lockPayment', 'paymentId', paymentId)
  if (bytes.length === 0) {
    throw new RequestValidationError('lockPayment', [
      {
        path: 'paymentId',
        message:
          "must not be empty: lock by the payment's order (orderOf(event)); an empty id would make every such event wait for every other",
      },
    ])
  }
  // A 64-bit lock id from the id's SHA-256; a collision only makes two payments wait for each other.
  const id = createHash('sha256').update('paywire:payment:').update(bytes).digest().readBigInt64BE(0)
  await tx.query('SELECT pg_advisory_xact_lock($1)', [id.toString()])
}
