/**
 * Connections checked out of the pool, and the deadline on every statement a store sends: a
 * connection that stalls (a partition: no reply, no RST) would otherwise hold the call, and the
 * pooled connection under it, for the hours TCP takes to notice.
 */

import { PaywireError } from '@paywire/core'
import type { NamedStatement, PgPool, PgPoolClient, PgQueryable, PgResult } from './pool.js'

/** Where a checked-out connection's statements are bounded: who sends them (for errors) and how long each may take. */
export interface StatementDeadline {
  /** The store operation, as its errors name it: `PostgresInbox.runOnce`. */
  readonly operation: string
  readonly timeoutMs: number
}

/** A connection held for one operation. */
export interface Held {
  readonly client: PgPoolClient
  /**
   * `work` (a statement sent on `client`), bounded by the deadline: past it, it rejects with an
   * error naming `what` and the deadline, and `release` destroys the connection.
   */
  bounded<T>(work: Promise<T>, what: string): Promise<T>
  /** The deadline error, once a statement outlived it: the connection must not be used again. */
  timedOut(): PaywireError | undefined
  /**
   * Hands the connection back; destroys it instead (pg-pool ends a connection released with an
   * error) when it dropped, a statement outlived its deadline, or `broken` says its transaction
   * state is unknown.
   */
  release(broken?: Error): void
}

/** A promise that rejects with `timedOut()` after `ms`, and what clears its timer. */
function deadline(ms: number, timedOut: () => Error): { expired: Promise<never>; clear(): void } {
  let timer: NodeJS.Timeout | undefined
  // setTimeout runs on libuv's monotonic clock: a wall-clock step neither ends it early nor stretches it.
  const expired = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(timedOut()), ms)
  })
  // Nothing may be left unhandled when the work wins.
  expired.catch(() => {})
  return { expired, clear: () => clearTimeout(timer) }
}

/** The error of a statement, or a connection attempt, that outlived its deadline. */
function stalledError(bound: StatementDeadline, what: string, connecting: boolean): PaywireError {
  const after = connecting
    ? "a connection that opens later goes back to the pool (set the pool's connectionTimeoutMillis so that one that never opens is given up)"
    : 'its connection was destroyed, never returned to the pool'
  return new PaywireError(
    `${bound.operation}: PostgreSQL did not answer ${what} within ${bound.timeoutMs} ms (statementTimeoutMs); ${after}`,
  )
}

/**
 * A connection of `pool`, with `onError` listening from the moment the pool hands it out.
 * node-postgres parses every message of a chunk in one go: the ReadyForQuery that completes a new
 * connection hands it out (the pool stops listening to it), and a FATAL in the same chunk (a
 * restart) is emitted at once, before a promise's continuation could add a listener: an `error`
 * nobody listens to ends the process. So the listener is added in the pool's callback; a pool that
 * takes no callback (it answers a promise) is listened to when its promise settles.
 */
function listenedConnection(pool: PgPool, onError: (error: Error) => void): Promise<PgPoolClient> {
  return new Promise<PgPoolClient>((resolve, reject) => {
    let listened = false
    const handedOut = (client: PgPoolClient) => {
      // Once, should a pool both call back and answer a promise.
      if (!listened) client.on?.('error', onError)
      listened = true
      resolve(client)
    }
    const answered = pool.connect((error, client) => {
      if (error !== undefined && error !== null) reject(error)
      else if (client === undefined) reject(new Error('the pool answered no connection'))
      else handedOut(client)
    }) as unknown
    if (typeof (answered as { then?: unknown } | undefined)?.then === 'function') {
      ;(answered as Promise<PgPoolClient>).then(handedOut, reject)
    }
  })
}

/**
 * Checks out a connection, listening for its `error` while it is held: a connection that drops
 * between two queries (server restart, network cut) would otherwise crash the process with an
 * unhandled `error` event. With `bound`, getting the connection and each statement `bounded` sends
 * on it must each finish within `bound.timeoutMs`; without (migrate: DDL may rightly take long),
 * nothing is bounded.
 */
export async function checkOut(pool: PgPool, bound?: StatementDeadline): Promise<Held> {
  let dropped: Error | undefined
  let stalled: PaywireError | undefined
  const onError = (error: Error) => {
    dropped ??= error
  }
  const connecting = listenedConnection(pool, onError)
  let client: PgPoolClient
  if (bound === undefined) client = await connecting
  else {
    const limit = deadline(bound.timeoutMs, () => stalledError(bound, 'the connection attempt', true))
    try {
      client = await Promise.race([connecting, limit.expired])
    } catch (error) {
      // A connection that opens after all is healthy (or says it is not): back to the pool with it.
      connecting.then(
        (late) => {
          late.off?.('error', onError)
          late.release(dropped)
        },
        () => {},
      )
      throw error
    } finally {
      limit.clear()
    }
  }
  return {
    client,
    async bounded(work, what) {
      if (bound === undefined) return work
      const limit = deadline(bound.timeoutMs, () => {
        stalled ??= stalledError(bound, what, false)
        return stalled
      })
      // The statement may still settle after the deadline (it was only delayed): nobody waits for it then.
      work.catch(() => {})
      try {
        return await Promise.race([work, limit.expired])
      } finally {
        limit.clear()
      }
    },
    timedOut: () => stalled,
    release(broken) {
      client.off?.('error', onError)
      client.release(broken ?? stalled ?? dropped)
    },
  }
}

/**
 * Sends one statement on a connection of its own within `bound`, and hands the connection back (or
 * destroys it, on any failure, as `pg.Pool.query` does: after a lost connection or a deadline, what
 * it holds is unknown).
 */
export async function statement(
  pool: PgPool,
  bound: StatementDeadline,
  text: string | NamedStatement,
  values?: unknown[],
): Promise<PgResult> {
  const held = await checkOut(pool, bound)
  let failed: Error | undefined
  try {
    const sent = typeof text === 'string' ? held.client.query(text, values) : held.client.query(text)
    return await held.bounded(sent, 'its statement')
  } catch (error) {
    failed = error instanceof Error ? error : new Error(String(error))
    throw error
  } finally {
    held.release(failed)
  }
}

/**
 * `client` as `runOnce` hands it to the merchant's work: the same client (any of its members
 * works as before), except that every `query` that answers a promise is bounded like runOnce's own
 * statements, so a stalled connection cannot hold the work, and so runOnce, past the deadline.
 */
export function boundedClient(held: Held, what: string): PgQueryable {
  const query = (...args: unknown[]) => {
    const sent = (held.client.query as (...a: unknown[]) => unknown)(...args)
    // A submittable (a cursor, a stream) answers no promise: it is the caller's to drive.
    return typeof (sent as { then?: unknown } | null)?.then === 'function'
      ? held.bounded(Promise.resolve(sent), what)
      : sent
  }
  return new Proxy(held.client, {
    get(target, property) {
      if (property === 'query') return query
      const value: unknown = Reflect.get(target, property, target)
      return typeof value === 'function' ? value.bind(target) : value
    },
  })
}
