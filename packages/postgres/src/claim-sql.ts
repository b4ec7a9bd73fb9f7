/**
 * The statements of `PostgresClaimStore`, one per operation, over `<schema>.claims` at schema version
 * 2 (its columns are described in schema.ts). Each is one statement, so instances racing on a key are
 * ordered by its row lock; every time is the server's `statement_timestamp()`.
 */

/** A row written by a v2 statement and not touched by v1 since: its `done` agrees with its state. */
const V2_ROW = `(c.state IS NOT NULL AND c.done = (c.state = 'done'))`

/** The columns an event is read back from, in `StoredEvent`'s order (`received_ms` in ms since the epoch). */
const EVENT = `c.key, c.fields, c.ref, (extract(epoch FROM c.received_at) * 1000)::float8 AS received_ms,
  c.attempts, c.state, c.last_error`

/** A number of ms as an interval: `$n` is a double precision. */
const ms = (n: number) => `($${n}::float8 * interval '1 millisecond')`

/** Where a record statement reads an event's values: the batch's row `i`, or one event's parameters. */
interface EventSource {
  readonly key: string
  readonly token: string
  /** The lease in ms, NULL for a pending event. */
  readonly lease: string
  readonly fields: string
  readonly refHash: string
  readonly ref: string
}

const BATCH_ROW: EventSource = {
  key: 'i.key',
  token: 'i.token',
  lease: 'i.lease',
  fields: 'i.fields',
  refHash: 'i.ref_hash',
  ref: 'i.ref',
}

const ONE_EVENT: EventSource = {
  key: '$2::bytea',
  token: '$3::text',
  lease: '$4::float8',
  fields: '$5::bytea',
  refHash: '$6::bytea',
  ref: '$7::bytea',
}

/**
 * The columns `record` writes, and what a new event holds in each. `expires_at` is infinity (a v1
 * instance finds the key held).
 */
function recorded(from: EventSource): readonly (readonly [string, string])[] {
  return [
    ['key', from.key],
    ['token', from.token],
    ['done', 'false'],
    ['expires_at', `'infinity'::timestamptz`],
    ['state', `CASE WHEN ${from.lease} IS NULL THEN 'pending' ELSE 'running' END`],
    ['due_at', `statement_timestamp() + coalesce(${from.lease}, 0) * interval '1 millisecond'`],
    ['fields', from.fields],
    ['ref_hash', from.refHash],
    ['ref', from.ref],
    ['received_at', `date_trunc('milliseconds', statement_timestamp())`],
    ['attempts', `CASE WHEN ${from.lease} IS NULL THEN 0 ELSE 1 END`],
    ['last_error', 'NULL::text'],
  ]
}

/**
 * The insert of a record, `rows` giving the key hash and the event's values, and the row it leaves
 * read back under its lock. Why an upsert whose every column is `CASE WHEN gone THEN new ELSE old
 * END`, rather than a `DO UPDATE … WHERE gone` or a SELECT first: under READ COMMITTED a SELECT
 * cannot see a row that a concurrent record committed after this statement's snapshot, and
 * `DO UPDATE … WHERE` returns no row when its condition is false. This way the insert either
 * lands, or waits for the concurrent insert of the same key and then locks the row, which
 * RETURNING reads as it now stands: the answer is derived from the row itself (its token is ours
 * or not).
 */
function upsert(table: string, from: EventSource, rows: (values: string) => string): string {
  // Only a done key past its keep, or a v1 claim past its hold, has a finite expires_at: such a row
  // counts as absent, and record takes it over.
  const gone = `c.expires_at <= statement_timestamp()`
  const columns = recorded(from)
  return `INSERT INTO ${table} AS c (key_hash, ${columns.map(([column]) => column).join(', ')})
  SELECT ${rows(columns.map(([, value]) => value).join(', '))}
  ON CONFLICT (key_hash) DO UPDATE SET
    ${columns.map(([column]) => `${column} = CASE WHEN ${gone} THEN EXCLUDED.${column} ELSE c.${column} END`).join(',\n    ')}
  RETURNING c.key_hash, c.token, c.state, c.done, c.attempts, NOT ${V2_ROW} AS legacy,
    c.expires_at > statement_timestamp() AS alive`
}

/** The batch's rows to insert: the events no previous key blocks, in key-hash order. */
const batchRows = (values: string) => `i.key_hash, ${values}
  FROM i LEFT JOIN prev ON prev.n = i.n
  WHERE prev.n IS NULL OR NOT (prev.done OR prev.held)
  ORDER BY i.key_hash`

/**
 * The SQL of every operation on `table` (`<schema>.claims`). The parameters are named in each
 * statement's comment; key and ref hashes are SHA-256 of their UTF-8 bytes.
 */
export function claimStatements(table: string, effects: string) {
  return {
    /**
     * One event (a lone record, or one sent again alone): $1 key_hash, $2 key, $3 token, $4 lease
     * ms or NULL, $5 fields, $6 ref_hash, $7 ref, $8 the previous keys' hashes. Answers one row:
     * prev_done, prev_held (a previous key's row done, or held by a v1 claim, as the statement's
     * snapshot shows it) and, unless those blocked it, the key's row as it stands after the upsert,
     * read under its lock (found): mine (its token is the event's), state, done, attempts, legacy
     * (written by v1), alive (not past its expires_at).
     */
    recordOne: `WITH prev AS (
  SELECT coalesce(bool_or(c.done), false) AS done,
    coalesce(bool_or(NOT c.done AND NOT ${V2_ROW}), false) AS held
  FROM ${table} AS c
  WHERE c.key_hash = ANY($8::bytea[]) AND c.key_hash <> $1 AND c.expires_at > statement_timestamp()
), put AS (
  ${upsert(table, ONE_EVENT, (values) => `$1::bytea, ${values} FROM prev WHERE NOT prev.done AND NOT prev.held`)}
)
SELECT prev.done AS prev_done, prev.held AS prev_held, put.key_hash IS NOT NULL AS found, put.token = $3 AS mine,
  put.state, put.done, put.attempts, put.legacy, put.alive
FROM prev LEFT JOIN put ON true`,

    /**
     * A batch of events, one array element each (the store's group commit; no two share a key):
     * $1 key_hash, $2 key, $3 token, $4 lease ms or NULL, $5 fields, $6 ref_hash, $7 ref; and every
     * event's previous keys, $8 their hashes and $9 the number of the event (1-based) each is of.
     * Answers a row per event, in order, as `recordOne` answers its one. The rows are written in
     * key-hash order, so two instances' batches sharing keys lock them in one order and never wait
     * on each other in a cycle. PostgreSQL runs an INSERT's input in the order its SELECT gives (an
     * INSERT is never parallel) without promising it; a deadlock all the same is answered 40P01,
     * and the store sends each event of that batch again alone.
     */
    record: `WITH i AS (
  SELECT * FROM unnest($1::bytea[], $2::bytea[], $3::text[], $4::float8[], $5::bytea[], $6::bytea[], $7::bytea[])
    WITH ORDINALITY AS i(key_hash, key, token, lease, fields, ref_hash, ref, n)
), prev AS (
  SELECT p.n, bool_or(c.done) AS done, bool_or(NOT c.done AND NOT ${V2_ROW}) AS held
  FROM unnest($8::bytea[], $9::int8[]) AS p(key_hash, n)
  JOIN i ON i.n = p.n
  JOIN ${table} AS c ON c.key_hash = p.key_hash AND c.key_hash <> i.key_hash AND c.expires_at > statement_timestamp()
  GROUP BY p.n
), put AS (
  ${upsert(table, BATCH_ROW, batchRows)}
)
SELECT coalesce(prev.done, false) AS prev_done, coalesce(prev.held, false) AS prev_held,
  put.key_hash IS NOT NULL AS found, put.token = i.token AS mine, put.state, put.done, put.attempts, put.legacy, put.alive
FROM i LEFT JOIN prev ON prev.n = i.n LEFT JOIN put ON put.key_hash = i.key_hash
ORDER BY i.n`,

    /**
     * $1 key_hash, $2 token, $3 maxAttempts, $4 lease ms, $5 the dead letter's reason (`%s`: the
     * attempts). The UPDATE locks the row and, when a concurrent take changed it first, checks its
     * WHERE again on the new version (a lease now running is not due): one taker wins.
     */
    take: `UPDATE ${table} AS c SET ${takeSet()}
WHERE c.key_hash = $1 AND c.state IN ('pending', 'running') AND c.due_at <= statement_timestamp()
RETURNING ${EVENT}`,

    /**
     * $1 limit, $2 token, $3 maxAttempts, $4 lease ms, $5 the dead letter's reason. The due rows are
     * locked by `FOR UPDATE SKIP LOCKED`, so instances taking at once skip each other's rows instead
     * of waiting, and a row another instance took since this statement's snapshot fails the due
     * check again when it is locked. Answered oldest due first.
     */
    takeDue: `WITH due AS (
  SELECT c.key_hash, c.due_at FROM ${table} AS c
  WHERE c.state IN ('pending', 'running') AND c.due_at <= statement_timestamp()
  ORDER BY c.due_at, c.key_hash
  LIMIT $1
  FOR UPDATE SKIP LOCKED
), taken AS (
  UPDATE ${table} AS c SET ${takeSet()}
  FROM due
  WHERE c.key_hash = due.key_hash AND c.state IN ('pending', 'running') AND c.due_at <= statement_timestamp()
  RETURNING ${EVENT}, due.due_at AS was_due, c.key_hash
)
SELECT * FROM taken ORDER BY was_due, key_hash`,

    /** $1 key_hash, $2 token, $3 ms. Only a running event, only by its holder. */
    renew: `UPDATE ${table} AS c SET due_at = statement_timestamp() + ${ms(3)}
WHERE c.key_hash = $1 AND c.token = $2 AND c.state = 'running'
RETURNING 1 AS ok`,

    /**
     * $1 key_hash, $2 token, $3 keep ms. The holder's running event becomes done, its fields and
     * error dropped; its own done row answers again unchanged (a complete sent again after a lost
     * reply keeps the first keep).
     */
    complete: `UPDATE ${table} AS c SET state = 'done', done = true, fields = NULL, last_error = NULL, due_at = NULL,
  expires_at = CASE WHEN c.state = 'done' THEN c.expires_at ELSE statement_timestamp() + ${ms(3)} END
WHERE c.key_hash = $1 AND c.token = $2 AND (c.state = 'running' OR (c.state = 'done' AND c.done))
RETURNING 1 AS ok`,

    /**
     * $1 key_hash, $2 token, $3 dead, $4 retry ms (NULL when dead), $5 counted, $6 error, $7 new
     * fields (NULL: kept). Changes only a running event; the holder's event already pending or dead
     * (its release sent again after a lost reply) answers again unchanged, so an uncounted attempt
     * is given back once and fields another runner wrote since are never overwritten (that
     * runner's take put its own token on the row, so the old token matches no row at all).
     */
    release: `UPDATE ${table} AS c SET
  state = CASE WHEN c.state <> 'running' THEN c.state WHEN $3::boolean THEN 'dead' ELSE 'pending' END,
  due_at = CASE WHEN c.state <> 'running' THEN c.due_at WHEN $3::boolean THEN NULL
    ELSE statement_timestamp() + ${ms(4)} END,
  attempts = CASE WHEN c.state = 'running' AND NOT $5::boolean THEN greatest(c.attempts - 1, 0) ELSE c.attempts END,
  last_error = CASE WHEN c.state = 'running' THEN $6::text ELSE c.last_error END,
  fields = CASE WHEN c.state = 'running' AND $7::bytea IS NOT NULL THEN $7::bytea ELSE c.fields END
WHERE c.key_hash = $1 AND c.token = $2 AND c.state IN ('running', 'pending', 'dead')
RETURNING 1 AS ok`,

    /**
     * $1 key_hash. A pending event due now, whatever its retry time (an earlier due time is kept,
     * and with it its place in takeDue's order); attempts, fields, token and error are kept. No
     * other state matches: running, done, dead or absent answers no row.
     */
    wake: `UPDATE ${table} AS c SET due_at = least(c.due_at, statement_timestamp())
WHERE c.key_hash = $1 AND c.state = 'pending'
RETURNING 1 AS ok`,

    /** $1 limit. */
    failedEvents: `SELECT ${EVENT} FROM ${table} AS c WHERE c.state = 'dead'
ORDER BY c.received_at, c.key_hash LIMIT $1`,

    /** $1 key_hash. Token, receive time and last error are kept. */
    retry: `UPDATE ${table} AS c SET state = 'pending', attempts = 0, due_at = statement_timestamp()
WHERE c.key_hash = $1 AND c.state = 'dead'
RETURNING 1 AS ok`,

    /**
     * $1 ref_hash, $2 ref (compared too: a hash collision erases nothing else). The rows are
     * locked in key-hash order, as a record batch locks them: the two never wait on each other in
     * a cycle.
     */
    forget: `DELETE FROM ${table} WHERE key_hash IN (
  SELECT c.key_hash FROM ${table} AS c WHERE c.ref_hash = $1 AND c.ref = $2 ORDER BY c.key_hash FOR UPDATE
)`,

    /**
     * $1 batch size. Done keys past their keep and v1 claims past their hold; `SKIP LOCKED` passes
     * over a row a record is taking over at that moment (its expires_at is about to change).
     */
    pruneClaims: `DELETE FROM ${table} WHERE key_hash IN (
  SELECT c.key_hash FROM ${table} AS c
  WHERE c.expires_at < 'infinity' AND c.expires_at <= statement_timestamp()
  LIMIT $1 FOR UPDATE SKIP LOCKED
)`,

    /** $1 batch size, $2 keep ms: runOnce's done marks older than the keep. */
    pruneEffects: `DELETE FROM ${effects} WHERE key_hash IN (
  SELECT e.key_hash FROM ${effects} AS e
  WHERE e.done_at < statement_timestamp() - ${ms(2)}
  LIMIT $1 FOR UPDATE SKIP LOCKED
)`,
  }
}

/**
 * take's and takeDue's SET: an event whose runs are used up ($3) becomes dead with the reason $5,
 * its token kept; any other is leased to $2 for $4 ms, the attempt counted before it runs.
 */
function takeSet(): string {
  const spent = `c.attempts >= $3`
  return `state = CASE WHEN ${spent} THEN 'dead' ELSE 'running' END,
  token = CASE WHEN ${spent} THEN c.token ELSE $2 END,
  attempts = CASE WHEN ${spent} THEN c.attempts ELSE c.attempts + 1 END,
  due_at = CASE WHEN ${spent} THEN NULL ELSE statement_timestamp() + ${ms(4)} END,
  last_error = CASE WHEN ${spent} THEN format($5::text, c.attempts) ELSE c.last_error END`
}
