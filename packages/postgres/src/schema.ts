/** The tables the stores use, created by `migrate()`: versioned, so a later version adds steps and never edits one. */

import { RequestValidationError } from '@paywire/core'
import { checkOut } from './connection.js'
import { DEFAULT_SCHEMA, type PgPool, schemaIssues } from './pool.js'

/**
 * The migration steps, in order: step `n` brings the schema to version `n`. `{schema}` is replaced by
 * the schema's name. Never edit a published step: add one.
 */
const STEPS: readonly string[] = [
  `CREATE SCHEMA IF NOT EXISTS {schema};
CREATE TABLE IF NOT EXISTS {schema}.schema_version (
  version integer NOT NULL,
  applied_at timestamptz NOT NULL DEFAULT now()
);
-- The intent journal: one row per open intent, deleted when it is closed.
CREATE TABLE {schema}.intents (
  id_hash bytea PRIMARY KEY,
  id bytea NOT NULL,
  service_hash bytea NOT NULL,
  created_at double precision NOT NULL,
  record text NOT NULL
);
CREATE INDEX intents_service_created ON {schema}.intents (service_hash, created_at, id);
-- Callback claims: who holds a dedupe key and until when (server time), or that it is done.
CREATE TABLE {schema}.claims (
  key_hash bytea PRIMARY KEY,
  key bytea NOT NULL,
  token text NOT NULL,
  done boolean NOT NULL,
  expires_at timestamptz NOT NULL
);
-- runOnce: the done marks, committed in the same transaction as the merchant's own writes.
CREATE TABLE {schema}.effects (
  key_hash bytea PRIMARY KEY,
  key bytea NOT NULL,
  done_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX effects_done_at ON {schema}.effects (done_at);`,
  `-- Version 2: the callback inbox records each event before it is acknowledged. The v1 claims
-- table is altered, not replaced: its rows stay (a v1 done key still answers done), and an instance
-- of version 1 still running its statements during a rolling upgrade keeps working on it.
-- state: pending | running | done | dead; NULL on a row a v1 statement inserted.
-- done (v1's column) is kept equal to "state is done" by every v2 write, so v1 statements read v2
--   rows rightly; a row whose done disagrees (state NULL, or 'done' with done false after a v1
--   claim took over an expired done key) was last written by v1, and is read as v1 reads it.
-- expires_at keeps its v1 meaning, "held or done until then", read by v1 instances and by both
--   prunes: a done key's keep end, and infinity for a pending, running or dead event, so that a v1
--   claim finds it held (never takes it over) and a v1 prune never deletes it.
-- due_at: when a pending event may run, or when a running event's lease ends; NULL otherwise.
-- fields: the inbox's encoded fields as UTF-8 bytes (bytea: NUL round-trips, text cannot hold it),
--   dropped once done; ref and its SHA-256 ref_hash: the payment, for forget(ref).
-- The constraints are NOT VALID: every v1 row passes them (its state is NULL), so no scan is
-- needed; they hold for every row written from now on, by v1 statements too.
ALTER TABLE {schema}.claims
  ADD COLUMN state text,
  ADD COLUMN due_at timestamptz,
  ADD COLUMN fields bytea,
  ADD COLUMN ref bytea,
  ADD COLUMN ref_hash bytea,
  ADD COLUMN received_at timestamptz,
  ADD COLUMN attempts integer NOT NULL DEFAULT 0,
  ADD COLUMN last_error text,
  ADD CONSTRAINT claims_state CHECK (state IN ('pending', 'running', 'done', 'dead')) NOT VALID,
  ADD CONSTRAINT claims_v1_sees_held
    CHECK (state IS NULL OR state = 'done' OR (NOT done AND expires_at = 'infinity')) NOT VALID;
-- takeDue: the events due to run, oldest due first.
CREATE INDEX claims_due ON {schema}.claims (due_at, key_hash) WHERE state IN ('pending', 'running');
-- failedEvents: the dead events, oldest received first.
CREATE INDEX claims_dead ON {schema}.claims (received_at, key_hash) WHERE state = 'dead';
-- forget(ref): every record of one payment.
CREATE INDEX claims_ref ON {schema}.claims (ref_hash) WHERE ref_hash IS NOT NULL;
-- prune: done keys and v1 claims past their time (every other row's expires_at is infinity).
CREATE INDEX claims_expiry ON {schema}.claims (expires_at) WHERE expires_at < 'infinity';`,
]

/** The schema version this release of the package reads and writes. */
export const SCHEMA_VERSION = STEPS.length

/** A lock id of our own, so two instances migrating at once run the steps one after the other. */
const MIGRATE_LOCK = 7_263_511_938

function checkSchema(operation: string, schema: unknown): string {
  const issues = schemaIssues(schema)
  if (issues.length > 0) throw new RequestValidationError(operation, issues, 'options')
  return (schema as string | undefined) ?? DEFAULT_SCHEMA
}

/**
 * The SQL of every step from `from` (exclusive; the version the database is at, 0 for none) to the
 * current version, in one transaction, for a DBA to review and run by hand instead of `migrate()`;
 * it records the version it reaches. `migrationSql({ from: 1 })` upgrades a version-1 database.
 */
export function migrationSql(options: { schema?: string; from?: number } = {}): string {
  const schema = checkSchema('migrationSql', options.schema)
  const from = options.from ?? 0
  if (!Number.isSafeInteger(from) || from < 0 || from > SCHEMA_VERSION) {
    throw new RequestValidationError(
      'migrationSql',
      [{ path: 'from', message: `must be a schema version this package knows, 0 to ${SCHEMA_VERSION}` }],
      'options',
    )
  }
  const parts = STEPS.slice(from).map(
    (step, i) =>
      `-- @paywire/postgres schema version ${from + i + 1}\n${step.replaceAll('{schema}', schema)}\nINSERT INTO ${schema}.schema_version (version) VALUES (${from + i + 1});\n`,
  )
  return `BEGIN;\n${parts.join('\n')}COMMIT;\n`
}

/**
 * Brings the schema to the version this package needs, in one transaction under an advisory lock
 * (instances starting together wait for each other; a step either lands whole or not at all).
 * Answers the versions before and after. Call it once at deploy or start-up: the stores never
 * create tables themselves. A database at a newer version than this package knows is refused.
 */
export async function migrate(pool: PgPool, options: { schema?: string } = {}): Promise<{ from: number; to: number }> {
  const schema = checkSchema('migrate', options.schema)
  const held = await checkOut(pool)
  const client = held.client
  let broken: Error | undefined
  try {
    await client.query('BEGIN')
    try {
      await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATE_LOCK])
      const exists = await client.query('SELECT to_regclass($1) AS t', [`${schema}.schema_version`])
      let from = 0
      if (exists.rows[0]?.t !== null) {
        const found = await client.query(`SELECT coalesce(max(version), 0) AS v FROM ${schema}.schema_version`)
        from = Number(found.rows[0]?.v ?? 0)
      }
      if (from > SCHEMA_VERSION) {
        throw new Error(
          `migrate: the schema ${schema} is at version ${from}, newer than this @paywire/postgres knows (${SCHEMA_VERSION}): upgrade the package`,
        )
      }
      for (let version = from + 1; version <= SCHEMA_VERSION; version++) {
        await client.query((STEPS[version - 1] as string).replaceAll('{schema}', schema))
        await client.query(`INSERT INTO ${schema}.schema_version (version) VALUES ($1)`, [version])
      }
      await client.query('COMMIT')
      return { from, to: SCHEMA_VERSION }
    } catch (error) {
      await client.query('ROLLBACK').catch((rollbackError: Error) => {
        broken = rollbackError
      })
      throw error
    }
  } finally {
    held.release(broken)
  }
}
