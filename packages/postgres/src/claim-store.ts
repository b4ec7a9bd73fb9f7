/** The callback inbox's store on PostgreSQL: every event recorded before it is acknowledged, shared by every instance. */

import type {
  ClaimStore,
  Lease,
  NewEvent,
  RecordAnswer,
  ReleaseOptions,
  StoredEvent,
  StoredEventState,
  TakenEvent,
} from '@paywire/core'
import { RecordBatches } from '@paywire/core/engine'
import {
  type CheckedEvent,
  checkEvent,
  checkLease,
  checkLimit,
  checkReleaseOptions,
  checkToken,
} from './claim-checks.js'
import { claimStatements } from './claim-sql.js'
import { statement } from './connection.js'
import {
  checkMs,
  checkStoreOptions,
  hashOf,
  keyBytes,
  type NamedStatement,
  type PgPool,
  type PgResult,
  type PostgresStoreOptions,
} from './pool.js'
import { namedStatementRefused, refusedForOneEvent, statementName } from './record-refusals.js'

const STATES: ReadonlySet<unknown> = new Set<StoredEventState>(['pending', 'running', 'done', 'dead'])

/** How many rows one prune statement deletes at most: a huge backlog never takes one giant lock. */
const PRUNE_BATCH = 1_000

/**
 * Events one record statement carries at most: it is planned and committed once for them all, and
 * its locks are held for one statement's time.
 */
const RECORD_BATCH = 64

/** Bytes one record statement carries at most (fields and keys): a batch of large callbacks stays small. */
const RECORD_BATCH_BYTES = 1_048_576

/** The record operation, as its errors name it. */
const RECORD_OPERATION = 'PostgresClaimStore.record'

/** A checked `record` call waiting for its batch. */
interface Recording {
  readonly event: CheckedEvent
  readonly token: string
  /** The lease in ms, or null for a pending event. */
  readonly lease: number | null
}

/**
 * A record's answer from its row: `done` when a previous key is done, `held` when a v1 claim holds
 * a previous key (or the key itself); else the key's row as it stands under its lock decides.
 */
function recordAnswer(op: string, row: Record<string, unknown>, lease: number | null): RecordAnswer | Error {
  if (row.prev_done === true) return 'done'
  if (row.prev_held === true) return 'held'
  if (row.found !== true) return new Error(`${op}: the record statement neither wrote nor found the key`)
  if (row.done === true) return 'done'
  if (row.legacy === true) {
    // A v1 claim still holding the key; one past its hold was taken over above.
    if (row.alive === true) return 'held'
    return new Error(`${op}: the key's v1 claim expired and was not taken over`)
  }
  if (row.mine === true) {
    if (lease !== null && row.state === 'running' && row.attempts === 1) return 'taken'
    if (lease === null && row.state === 'pending' && row.attempts === 0) return 'recorded'
  }
  return 'known'
}

/** The dead letter's reason when every run ended with no outcome recorded (core's wording; `%s`: the runs). */
const OUTCOMELESS =
  'each of its %s runs ended with no outcome recorded (the process running it died, or lost the store)'

/**
 * Core's `ClaimStore` on PostgreSQL, in the table `<schema>.claims` at schema version 2 (one row per
 * dedupe key, unique on the key's SHA-256): the event's fields, payment, receive time, state and
 * attempts. Every operation is one statement, so instances racing on a key are ordered by its row
 * lock, and every time (due, lease, keep, receive) is the database server's `statement_timestamp()`,
 * never this process's clock. Each operation is safe to send again after a lost reply. Rows written
 * by `@paywire/postgres` 1 (its `claim`, `complete` and `release`, from a database at version 1 or
 * an instance still running it during an upgrade) are read as it wrote them: a done key is done,
 * and a held one answers `held` until its hold ends.
 */
export class PostgresClaimStore implements ClaimStore {
  readonly #pool: PgPool
  readonly #sql: ReturnType<typeof claimStatements>
  readonly #timeoutMs: number
  readonly #records = new RecordBatches<Recording, RecordAnswer>({
    operation: RECORD_OPERATION,
    send: (records) => this.#recordBatch(records),
    // Bytes as latin1 text: one character per byte, so two keys are one string only when they are one key.
    keysOf: ({ event }) => [event.key, ...event.previousKeys].map((key) => key.toString('latin1')),
    maxItems: RECORD_BATCH,
    sizeOf: ({ event }) =>
      event.fields.byteLength + event.key.byteLength + event.ref.byteLength + event.previousKeys.length * 32,
    maxBytes: RECORD_BATCH_BYTES,
    // Two server sessions write while this process settles the callers of the batch answered
    // before: prepared, a batch of half the size costs little more (unnamed, two measured 0.93–1.0×
    // one, so a store gone unnamed loses nothing by keeping two).
    batchesInFlight: 2,
  })
  /** The record statements' names, and whether they still go named (until a pooler refuses one). */
  readonly #names: { readonly recordOne: string; readonly record: string }
  #named = true

  constructor(options: PostgresStoreOptions) {
    const { schema, statementTimeoutMs } = checkStoreOptions('PostgresClaimStore', options)
    this.#pool = options.pool
    this.#sql = claimStatements(`${schema}.claims`, `${schema}.effects`)
    this.#names = { recordOne: statementName(this.#sql.recordOne), record: statementName(this.#sql.record) }
    this.#timeoutMs = statementTimeoutMs
  }

  /** One statement of `operation`, bounded by `statementTimeoutMs`. */
  #send(operation: string, text: string | NamedStatement, values?: unknown[]): Promise<PgResult> {
    return statement(this.#pool, { operation, timeoutMs: this.#timeoutMs }, text, values)
  }

  /**
   * A record statement, prepared: a callback burst's statements are parsed and planned once per
   * connection, not once each (a batch of 32 spends about 0.17 ms of its 0.6 ms there). Refused as
   * not prepared (a pooler that cannot keep prepared statements), it is sent again unnamed, and
   * this store's record statements go unnamed from then on.
   */
  async #sendRecord(which: 'recordOne' | 'record', values: unknown[]): Promise<PgResult> {
    const text = this.#sql[which]
    if (this.#named) {
      try {
        return await this.#send(RECORD_OPERATION, { name: this.#names[which], text, values })
      } catch (error) {
        if (!namedStatementRefused(error)) throw error
        this.#named = false
      }
    }
    return this.#send(RECORD_OPERATION, text, values)
  }

  /**
   * Records `event` in one statement: `done` when a previous key is done, `held` when a v1 claim
   * holds a previous key (or the key itself); else the key's row as it stands under its lock decides:
   * `done`, `taken`/`recorded` when it is this token's first write still as it left it (a retry
   * after a lost reply), `known` otherwise; no row (or a done key past its keep) is written anew,
   * leased to `token` for `leaseMs` (attempt 1) or pending and due now. Records made while one
   * statement is being written go to PostgreSQL together in the next (group commit).
   */
  async record(event: NewEvent, token: string, leaseMs: number | undefined): Promise<RecordAnswer> {
    const checked = checkEvent(RECORD_OPERATION, event)
    checkToken(RECORD_OPERATION, token)
    const lease = leaseMs === undefined ? null : checkMs(RECORD_OPERATION, 'leaseMs', leaseMs)
    return this.#records.add({ event: checked, token, lease })
  }

  /**
   * One statement for the batch. When PostgreSQL refuses it with an error that may be one event's
   * own (a trigger, a policy, a constraint, a deadlock), nothing of it was written, and each event
   * is sent again alone, one after another, so the refusal stays with its event (each alone under
   * its own `statementTimeoutMs`); what befell the statement itself (a lost connection, the
   * deadline, a read-only server) fails the batch.
   */
  async #recordBatch(records: readonly Recording[]): Promise<Array<RecordAnswer | Error>> {
    try {
      return await this.#recordStatement(records)
    } catch (error) {
      if (records.length === 1 || !refusedForOneEvent(error)) throw error
    }
    const answers: Array<RecordAnswer | Error> = []
    for (const one of records) {
      try {
        const [answer] = await this.#recordStatement([one])
        answers.push(answer ?? new Error(`${RECORD_OPERATION}: the record statement answered no row`))
      } catch (error) {
        answers.push(error instanceof Error ? error : new Error(String(error)))
      }
    }
    return answers
  }

  /** One record statement: a lone event's own (planned in a third of a batch's time), else the batch's. */
  async #recordStatement(records: readonly Recording[]): Promise<Array<RecordAnswer | Error>> {
    const [only] = records
    if (records.length === 1 && only !== undefined) {
      const { event, token, lease } = only
      const result = await this.#sendRecord('recordOne', [
        hashOf(event.key),
        event.key,
        token,
        lease,
        event.fields,
        hashOf(event.ref),
        event.ref,
        event.previousKeys.map(hashOf),
      ])
      return result.rows.map((row) => recordAnswer(RECORD_OPERATION, row, lease))
    }
    const previous: Buffer[] = []
    const previousOf: number[] = []
    records.forEach(({ event }, i) => {
      for (const key of event.previousKeys) {
        previous.push(hashOf(key))
        previousOf.push(i + 1)
      }
    })
    const result = await this.#sendRecord('record', [
      records.map(({ event }) => hashOf(event.key)),
      records.map(({ event }) => event.key),
      records.map(({ token }) => token),
      records.map(({ lease }) => lease),
      records.map(({ event }) => event.fields),
      records.map(({ event }) => hashOf(event.ref)),
      records.map(({ event }) => event.ref),
      previous,
      previousOf,
    ])
    return result.rows.map((row, i) => recordAnswer(RECORD_OPERATION, row, records[i]?.lease ?? null))
  }

  /** Takes `key` when it is due (pending past its retry time, running past its lease); dead instead when its attempts are used up. */
  async take(key: string, lease: Lease): Promise<TakenEvent | undefined> {
    const op = 'PostgresClaimStore.take'
    const bytes = keyBytes(op, 'key', key)
    const checked = checkLease(op, lease)
    const result = await this.#send(op, this.#sql.take, [
      hashOf(bytes),
      checked.token,
      checked.maxAttempts,
      checked.ms,
      OUTCOMELESS,
    ])
    const row = result.rows[0]
    return row === undefined ? undefined : taken(op, row)
  }

  /** Takes up to `limit` due events, oldest due first, in one statement that skips rows another instance is taking (`SKIP LOCKED`). */
  async takeDue(lease: Lease, limit: number): Promise<TakenEvent[]> {
    const op = 'PostgresClaimStore.takeDue'
    const checked = checkLease(op, lease)
    const n = checkLimit(op, limit)
    if (n === 0) return []
    const result = await this.#send(op, this.#sql.takeDue, [
      n,
      checked.token,
      checked.maxAttempts,
      checked.ms,
      OUTCOMELESS,
    ])
    return result.rows.map((row) => taken(op, row))
  }

  /** Extends `token`'s lease of `key` to `ms` from now (server time); `false` when `token` no longer holds it running. */
  async renew(key: string, token: string, ms: number): Promise<boolean> {
    const op = 'PostgresClaimStore.renew'
    const bytes = keyBytes(op, 'key', key)
    checkToken(op, token)
    const checked = checkMs(op, 'ms', ms)
    const result = await this.#send(op, this.#sql.renew, [hashOf(bytes), token, checked])
    return result.rows.length === 1
  }

  /**
   * Marks `key` done for `keepMs` and drops its fields when `token` holds it running: `true`, also
   * when `token` already completed it (its keep unchanged). `false` when another token took it.
   */
  async complete(key: string, token: string, keepMs: number): Promise<boolean> {
    const op = 'PostgresClaimStore.complete'
    const bytes = keyBytes(op, 'key', key)
    checkToken(op, token)
    const ms = checkMs(op, 'keepMs', keepMs)
    const result = await this.#send(op, this.#sql.complete, [hashOf(bytes), token, ms])
    return result.rows.length === 1
  }

  /**
   * Ends `token`'s run of `key` without success: pending again `retryInMs` from now, or dead; an
   * uncounted attempt is given back, and `fields`, when given, replace the row's (only with the
   * run's end, while `token` holds it running). `true` when it did, or `token`'s event is already
   * pending or dead (sent again after a lost reply: nothing changes twice); `false` when another
   * token holds it.
   */
  async release(key: string, token: string, next: ReleaseOptions): Promise<boolean> {
    const op = 'PostgresClaimStore.release'
    const bytes = keyBytes(op, 'key', key)
    checkToken(op, token)
    const checked = checkReleaseOptions(op, next)
    const result = await this.#send(op, this.#sql.release, [
      hashOf(bytes),
      token,
      checked.dead,
      checked.retryInMs,
      checked.counted,
      checked.error,
      checked.fields,
    ])
    return result.rows.length === 1
  }

  /**
   * Makes the pending event `key` due now (server time), whatever its retry time, its attempts and
   * fields kept; `false` when it is not pending (running, done, dead or absent), nothing changed.
   */
  async wake(key: string): Promise<boolean> {
    const op = 'PostgresClaimStore.wake'
    const bytes = keyBytes(op, 'key', key)
    const result = await this.#send(op, this.#sql.wake, [hashOf(bytes)])
    return result.rows.length === 1
  }

  /** The dead events, oldest received first, at most `limit`, with their fields and last error. */
  async failedEvents(limit: number): Promise<StoredEvent[]> {
    const op = 'PostgresClaimStore.failedEvents'
    const n = checkLimit(op, limit)
    if (n === 0) return []
    const result = await this.#send(op, this.#sql.failedEvents, [n])
    return result.rows.map((row) => storedEvent(op, row))
  }

  /** Makes dead `key` pending and due now, its attempts reset and its receive time kept; `false` when it is not dead. */
  async retry(key: string): Promise<boolean> {
    const op = 'PostgresClaimStore.retry'
    const bytes = keyBytes(op, 'key', key)
    const result = await this.#send(op, this.#sql.retry, [hashOf(bytes)])
    return result.rows.length === 1
  }

  /**
   * Deletes every row of the payment `ref`, in any state; answers how many. (A claim written by
   * version 1 names no payment: it is not among them, and ends with its hold or keep.)
   */
  async forget(ref: string): Promise<number> {
    const op = 'PostgresClaimStore.forget'
    const bytes = keyBytes(op, 'ref', ref)
    const result = await this.#send(op, this.#sql.forget, [hashOf(bytes), bytes])
    return result.rowCount ?? 0
  }

  /**
   * Deletes done keys past their keep and v1 claims past their hold, then `runOnce`'s done marks
   * (`<schema>.effects`) older than `keepMs`, each in batches of 1,000 rows (one statement each, so a
   * huge backlog never holds one long lock); answers how many rows it deleted in all.
   */
  async prune(keepMs: number): Promise<number> {
    const ms = checkMs('PostgresClaimStore.prune', 'keepMs', keepMs)
    let deleted = 0
    for (const [text, values] of [
      [this.#sql.pruneClaims, [PRUNE_BATCH]],
      [this.#sql.pruneEffects, [PRUNE_BATCH, ms]],
    ] as const) {
      for (;;) {
        const result = await this.#send('PostgresClaimStore.prune', text, [...values])
        const n = result.rowCount ?? 0
        deleted += n
        if (n < PRUNE_BATCH) break
      }
    }
    return deleted
  }
}

/** A row of take or takeDue: dead when the statement set it aside instead of leasing it. */
function taken(op: string, row: Record<string, unknown>): TakenEvent {
  const event = storedEvent(op, row)
  return { event, dead: event.state === 'dead' }
}

/** An event as a statement read it back; a row of another shape is an error naming it. */
function storedEvent(op: string, row: Record<string, unknown>): StoredEvent {
  const { key, fields, ref, received_ms: receivedAt, attempts, state, last_error: lastError } = row
  if (
    !Buffer.isBuffer(key) ||
    !Buffer.isBuffer(ref) ||
    !(fields === null || Buffer.isBuffer(fields)) ||
    typeof receivedAt !== 'number' ||
    typeof attempts !== 'number' ||
    !STATES.has(state) ||
    !(lastError === null || typeof lastError === 'string')
  ) {
    throw new Error(`${op}: a row of the claims table is not an event written by @paywire/postgres 2`)
  }
  return {
    key: key.toString('utf8'),
    fields: fields === null ? undefined : fields.toString('utf8'),
    ref: ref.toString('utf8'),
    receivedAt,
    attempts,
    state: state as StoredEventState,
    lastError: lastError ?? undefined,
  }
}
