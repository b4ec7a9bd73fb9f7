/** The intent journal on PostgreSQL: a money-moving call written down before it is sent outlives the process that sent it. */

import type { Intent, IntentOutcome, IntentStore, ValidationIssue } from '@paywire/core'
import { PaywireError, RequestValidationError } from '@paywire/core'
import { decodeIntentRecord, encodeIntentRecord } from '@paywire/core/engine'
import { type StatementDeadline, statement } from './connection.js'
import {
  checkStoreOptions,
  hashOf,
  isRefusal,
  keyBytes,
  type PgPool,
  type PgQueryable,
  type PostgresStoreOptions,
} from './pool.js'

/** PostgreSQL's text values stop at 1 GB; the default cap is far below, as wire params are small. */
const MAX_RECORD_BYTES = 512 * 1024 * 1024
const DEFAULT_MAX_INTENT_BYTES = 1024 * 1024

/** How many times `open` sends its statement when the connection fails: the upsert is idempotent. */
/** The text appended to a record: its `writtenAt`, the server's clock in whole ms. */
const WRITTEN_AT = `',"writtenAt":' || floor(extract(epoch FROM statement_timestamp()) * 1000)::bigint`

const OPEN_ATTEMPTS = 3

/** The options of `PostgresIntentStore`. */
export interface PostgresIntentStoreOptions extends PostgresStoreOptions {
  /**
   * The largest intent record, as UTF-8 JSON bytes (default 1 MiB). A larger intent is refused by
   * `open`, so the call is not sent: a body that size is a bug, not a payment.
   */
  maxIntentBytes?: number
}

/**
 * Core's `IntentStore` on PostgreSQL: one row per open intent in `<schema>.intents`, written by one
 * statement that resolves once the server committed it, deleted by `close`. An intent stays until it
 * is closed: no row ever expires.
 */
export class PostgresIntentStore implements IntentStore {
  readonly #pool: PgPool
  readonly #table: string
  readonly #maxBytes: number
  readonly #timeoutMs: number

  constructor(options: PostgresIntentStoreOptions) {
    const max = (options as Partial<PostgresIntentStoreOptions> | null)?.maxIntentBytes
    const extra: ValidationIssue[] = []
    if (max !== undefined && !(Number.isInteger(max) && max > 0 && max <= MAX_RECORD_BYTES)) {
      extra.push({ path: 'maxIntentBytes', message: `must be a whole number of bytes from 1 to ${MAX_RECORD_BYTES}` })
    }
    const { schema, statementTimeoutMs } = checkStoreOptions('PostgresIntentStore', options, extra)
    this.#pool = options.pool
    this.#table = `${schema}.intents`
    this.#maxBytes = max ?? DEFAULT_MAX_INTENT_BYTES
    this.#timeoutMs = statementTimeoutMs
  }

  /** One statement of `operation`, bounded by `statementTimeoutMs`. */
  #send(operation: string, text: string, values: unknown[]) {
    const bound: StatementDeadline = { operation, timeoutMs: this.#timeoutMs }
    return statement(this.#pool, bound, text, values)
  }

  /**
   * Writes `intent` in one statement (an upsert on its id) and resolves once it is committed. A
   * connection lost on the way is retried with the same statement (writing it twice changes nothing);
   * when every attempt fails the write is undone if it landed, and `open` rejects: the call is not
   * sent. An undo that cannot reach the server either leaves the whole intent, which
   * `reconcileAll()` settles as a call that was not applied. A statement past `statementTimeoutMs`
   * counts as a lost connection (it may have landed): its connection is destroyed and it is retried.
   */
  async open(intent: Intent): Promise<void> {
    const { json, id, service } = this.#encode(intent)
    const values = [hashOf(id), id, hashOf(service), intent.createdAt, json]
    let lastError: unknown
    for (let attempt = 1; attempt <= OPEN_ATTEMPTS; attempt++) {
      try {
        await this.#send(
          'PostgresIntentStore.open',
          // The record gains `writtenAt`, the server's clock as it commits it, appended to the JSON
          // object as text (the client wrote it, so it ends with "}"): reconciliation measures it
          // against now(), so no process's clock decides how long ago a call was made.
          `INSERT INTO ${this.#table} (id_hash, id, service_hash, created_at, record)
           VALUES ($1, $2, $3, $4, left($5::text, -1) || ${WRITTEN_AT} || '}')
           ON CONFLICT (id_hash) DO UPDATE SET service_hash = EXCLUDED.service_hash,
             created_at = EXCLUDED.created_at, record = EXCLUDED.record`,
          values,
        )
        return
      } catch (error) {
        if (isRefusal(error)) {
          // Refused by the server: the statement did not commit, nothing to undo.
          throw new PaywireError(
            `PostgresIntentStore.open: PostgreSQL refused to write intent ${intent.id}: ${message(error)}`,
            { cause: error },
          )
        }
        lastError = error
        if (attempt < OPEN_ATTEMPTS) await pause(20 * attempt)
      }
    }
    // The outcome of the write is unknown; the call will not be sent, so the intent must not stay.
    const undone = await this.#send(
      'PostgresIntentStore.open',
      // Only the record this open wrote: its JSON, then the writtenAt the server appended.
      `DELETE FROM ${this.#table} WHERE id_hash = $1 AND left(record, length($2::text) + 12) = left($2::text, -1) || ',"writtenAt":'`,
      [hashOf(id), json],
    ).then(
      () => true,
      () => false,
    )
    const left = undone
      ? 'nothing was left in the journal'
      : 'if the write landed, the intent stays in the journal whole, and reconcileAll() settles it as not applied'
    throw new PaywireError(
      `PostgresIntentStore.open: the connection to PostgreSQL failed ${OPEN_ATTEMPTS} times writing intent ${intent.id} (${message(lastError)}); the call is not sent, and ${left}`,
      { cause: lastError },
    )
  }

  /** The server's clock (`statement_timestamp()`), in ms since the epoch: what each intent's `writtenAt` is on. */
  async now(): Promise<number> {
    const result = await this.#send(
      'PostgresIntentStore.now',
      `SELECT floor(extract(epoch FROM statement_timestamp()) * 1000)::float8 AS now`,
      [],
    )
    return Number(result.rows[0]?.now)
  }

  /** Deletes the intent's row (its outcome needs nothing more kept). An unknown id changes nothing; safe to send again. */
  async close(id: string, _outcome: IntentOutcome): Promise<void> {
    const bytes = keyBytes('PostgresIntentStore.close', 'id', id)
    await this.#send('PostgresIntentStore.close', `DELETE FROM ${this.#table} WHERE id_hash = $1`, [hashOf(bytes)])
  }

  /**
   * Closes the intent `id` in your transaction: the same DELETE as `close`, sent on `tx` (the client
   * of a transaction you opened, or `runOnce`'s `tx`), so it commits with your write of the call's
   * result, or not at all. For calls made with `keepIntentOpen: true`, whose intent stays open until
   * you record the outcome: a crash before your commit leaves it open, for `reconcileAll()` to
   * settle by lookup. Use the same schema as the journal. An id that is not open changes nothing.
   */
  async closeIn(tx: PgQueryable, id: string, _outcome: IntentOutcome): Promise<void> {
    const operation = 'PostgresIntentStore.closeIn'
    if (typeof (tx as Partial<PgQueryable> | null)?.query !== 'function') {
      throw new RequestValidationError(operation, [
        { path: 'tx', message: "must be your transaction's client (it needs query())" },
      ])
    }
    const bytes = keyBytes(operation, 'id', id)
    await tx.query(`DELETE FROM ${this.#table} WHERE id_hash = $1`, [hashOf(bytes)])
  }

  /** Every open intent of `service`, oldest first (equal `createdAt` in id order). */
  async openIntents(service: string): Promise<Intent[]> {
    const bytes = keyBytes('PostgresIntentStore.openIntents', 'service', service)
    const result = await this.#send(
      'PostgresIntentStore.openIntents',
      `SELECT record FROM ${this.#table} WHERE service_hash = $1 ORDER BY created_at, id`,
      [hashOf(bytes)],
    )
    const intents: Intent[] = []
    for (const row of result.rows) {
      const intent = decode(String(row.record))
      // A SHA-256 collision is not expected; comparing costs nothing and makes it harmless.
      if (intent.service === service) intents.push(intent)
    }
    return intents
  }

  #encode(intent: Intent): { json: string; id: Buffer; service: Buffer } {
    const operation = 'PostgresIntentStore.open'
    if (typeof intent !== 'object' || intent === null) {
      throw new RequestValidationError(operation, [{ path: 'intent', message: 'must be an Intent object' }])
    }
    const id = keyBytes(operation, 'intent.id', intent.id)
    const service = keyBytes(operation, 'intent.service', intent.service)
    return { json: encodeIntentRecord(operation, intent, this.#maxBytes), id, service }
  }
}

/** The record as it was written, or an error saying the row holds something else. */
function decode(raw: string): Intent {
  return decodeIntentRecord(
    raw,
    'PostgresIntentStore: a row of the intents table is not an intent record written by @paywire/postgres (another program wrote to the table?)',
  )
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}

/** A short pause between attempts, so a pool reconnecting is given a moment. */
function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}
