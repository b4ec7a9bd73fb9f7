/**
 * What named-statements-adversary.test.ts shares: a pool that logs every record statement the store
 * sends (named or not, on which server session, and how it ended), and a trigger that refuses
 * chosen events with a chosen SQLSTATE.
 */

import type pg from 'pg'
import type { NamedStatement, PgPool, PgPoolClient } from '../src/index.js'
import { RECORD_STATEMENT } from './helpers.js'

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
}

/** `pool`, logging every record statement sent through it; `before` runs just before each is sent. */
export function logged(
  pool: pg.Pool,
  before: (send: Send) => void = () => {},
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
        const sent = typeof text === 'string' ? query(text, values) : query(text)
        sent.then(
          () => {
            send.outcome = 'ok'
          },
          (error: unknown) => {
            const code = (error as { code?: unknown } | null)?.code
            send.outcome = typeof code === 'string' ? code : 'no code'
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
