/** `@paywire/postgres`: core's intent journal and the callback inbox's store on PostgreSQL, and exactly-once effects with `runOnce`. */

export { PostgresClaimStore } from './claim-store.js'
export { lockPayment, PostgresInbox, type PostgresInboxOptions, type RunOnceResult } from './inbox.js'
export { PostgresIntentStore, type PostgresIntentStoreOptions } from './intent-store.js'
export type { NamedStatement, PgPool, PgPoolClient, PgQueryable, PgResult, PostgresStoreOptions } from './pool.js'
export { migrate, migrationSql, SCHEMA_VERSION } from './schema.js'
