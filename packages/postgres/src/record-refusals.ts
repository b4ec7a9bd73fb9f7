/**
 * How `PostgresClaimStore` reads what PostgreSQL (or node-postgres) answers a record statement that
 * failed: whether the refusal may be one event's own, so each event of the batch is sent again
 * alone, and whether a prepared statement could not be used, so it is sent again unnamed. Both
 * decide a resend, and each resend is safe only because the refused statement wrote nothing.
 */

import { hashOf } from './pool.js'

/**
 * SQLSTATEs that say what befell the whole statement, the connection or the server, never one
 * event: the connection (08), a read-only standby (25), the login or the database (28, 3D, which a
 * new connection answers), the statement itself (42, but for 42501, which a row-level security
 * policy answers for one row), resources (53), an operator or a cancel (57), the system (58), an
 * internal error (XX).
 */
const BATCH_WIDE_SQLSTATE = /^(08|25|28|3D|53|57|58|XX)|^42(?!501)/

/**
 * PostgreSQL refused the batch with an error that may be one event's own (a trigger's or a
 * policy's refusal, a data or constraint error, a deadlock): the statement, atomic, wrote nothing.
 */
export function refusedForOneEvent(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code
  return (
    error instanceof Error && typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) && !BATCH_WIDE_SQLSTATE.test(code)
  )
}

/**
 * Whether `error` says a named statement could not be used as node-postgres sent it, before
 * anything of it ran: 26000 (not prepared in this server session: a pooler in transaction mode that
 * cannot keep prepared statements sends a connection's statements to other sessions, or someone ran
 * DEALLOCATE or DISCARD ALL), 42P05 (prepared already in this session, by another client of such a
 * pooler), 0A000 from the plan check (its cached plan no longer fits the table), or node-postgres's
 * own refusal of a name it prepared for another text (a wrapper that rewrote the text, such as a
 * per-call comment), raised before anything is sent.
 */
export function namedStatementRefused(error: unknown): boolean {
  const { code, routine, message } = (error ?? {}) as { code?: unknown; routine?: unknown; message?: unknown }
  if (code === '26000' || code === '42P05') return true
  if (code === '0A000') return routine === 'RevalidateCachedQuery'
  return code === undefined && typeof message === 'string' && message.startsWith('Prepared statements must be unique')
}

/** The name a record statement is prepared under: its text's, so two schemas' never meet. */
export function statementName(text: string): string {
  return `paywire_record_${hashOf(Buffer.from(text, 'utf8')).toString('hex').slice(0, 16)}`
}
