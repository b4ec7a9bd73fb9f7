/** The tables the stores use, created by `migrate()`: versioned, so a later version adds steps and never edits one. */

import { RequestValidationError } from '@paywire/core'
import { checkOut, DEFAULT_SCHEMA, type PgPool, schemaIssues } from './pool.js'

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
 * The SQL of every step from `from` (exclusive) to the current version, for a DBA to review and run
 * by hand instead of `migrate()`; it records the version it reaches.
 */
export function migrationSql(options: { schema?: string; from?: number } = {}): string {
  const schema = checkSchema('migrationSql', options.schema)
  const from = options.from ?? 0
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
