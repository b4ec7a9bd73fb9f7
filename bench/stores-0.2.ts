/**
 * The callback store's record as released in 0.2.0, one event per call (before group commit): the
 * PostgreSQL statement for the schema `paywire` and the Redis script, as that release sent them.
 * Frozen here as the stores bench's "before" contender; never edited.
 *
 * PostgreSQL: $1 key_hash, $2 key, $3 token, $4 lease ms or NULL, $5 fields, $6 ref_hash, $7 ref,
 * $8 the previous keys' hashes. Redis: KEYS due, dead, done, the event hash, its former-version key,
 * the ref's set, then per previous key its hash and its former-version key; ARGV prefix, key,
 * token, lease ms or '', fields, ref.
 */

export const RECORD_SQL_0_2 = `WITH prev AS (
  SELECT coalesce(bool_or(c.done), false) AS done,
    coalesce(bool_or(NOT c.done AND NOT (c.state IS NOT NULL AND c.done = (c.state = 'done'))), false) AS held
  FROM paywire.claims AS c
  WHERE c.key_hash = ANY($8::bytea[]) AND c.key_hash <> $1 AND c.expires_at > statement_timestamp()
), put AS (
  INSERT INTO paywire.claims AS c (key_hash, key, token, done, expires_at, state, due_at, fields, ref_hash, ref, received_at, attempts, last_error)
  SELECT $1::bytea, $2::bytea, $3::text, false, 'infinity'::timestamptz, CASE WHEN $4::float8 IS NULL THEN 'pending' ELSE 'running' END, statement_timestamp() + coalesce($4::float8, 0) * interval '1 millisecond', $5::bytea, $6::bytea, $7::bytea, date_trunc('milliseconds', statement_timestamp()), CASE WHEN $4::float8 IS NULL THEN 0 ELSE 1 END, NULL::text FROM prev WHERE NOT prev.done AND NOT prev.held
  ON CONFLICT (key_hash) DO UPDATE SET
    key = CASE WHEN c.expires_at <= statement_timestamp() THEN EXCLUDED.key ELSE c.key END,
    token = CASE WHEN c.expires_at <= statement_timestamp() THEN EXCLUDED.token ELSE c.token END,
    done = CASE WHEN c.expires_at <= statement_timestamp() THEN EXCLUDED.done ELSE c.done END,
    expires_at = CASE WHEN c.expires_at <= statement_timestamp() THEN EXCLUDED.expires_at ELSE c.expires_at END,
    state = CASE WHEN c.expires_at <= statement_timestamp() THEN EXCLUDED.state ELSE c.state END,
    due_at = CASE WHEN c.expires_at <= statement_timestamp() THEN EXCLUDED.due_at ELSE c.due_at END,
    fields = CASE WHEN c.expires_at <= statement_timestamp() THEN EXCLUDED.fields ELSE c.fields END,
    ref_hash = CASE WHEN c.expires_at <= statement_timestamp() THEN EXCLUDED.ref_hash ELSE c.ref_hash END,
    ref = CASE WHEN c.expires_at <= statement_timestamp() THEN EXCLUDED.ref ELSE c.ref END,
    received_at = CASE WHEN c.expires_at <= statement_timestamp() THEN EXCLUDED.received_at ELSE c.received_at END,
    attempts = CASE WHEN c.expires_at <= statement_timestamp() THEN EXCLUDED.attempts ELSE c.attempts END,
    last_error = CASE WHEN c.expires_at <= statement_timestamp() THEN EXCLUDED.last_error ELSE c.last_error END
  RETURNING c.token = $3 AS mine, c.state, c.done, c.attempts, NOT (c.state IS NOT NULL AND c.done = (c.state = 'done')) AS legacy,
    c.expires_at > statement_timestamp() AS alive
)
SELECT prev.done AS prev_done, prev.held AS prev_held, put.* FROM prev LEFT JOIN put ON true`

export const RECORD_LUA_0_2 = `local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
local function doneMember(ref, key)
  return string.len(ref) .. ':' .. ref .. key
end

local function former(key)
  local value = redis.call('GET', key)
  if not value then return nil end
  return string.sub(value, 1, 5)
end
local held = false
for i = 7, #KEYS, 2 do
  local v = redis.call('HMGET', KEYS[i], 'state', 'until')
  if v[1] == 'done' and tonumber(v[2]) > now then return 'done' end
  local old = former(KEYS[i + 1])
  if old == 'done:' then return 'done' end
  if old == 'held:' then held = true end
end
local old = former(KEYS[5])
if old == 'done:' then return 'done' end
if old == 'held:' then held = true end
local v = redis.call('HMGET', KEYS[4], 'state', 'until', 'token', 'attempts', 'ref')
if v[1] then
  if v[1] ~= 'done' or tonumber(v[2]) > now then
    if v[1] == 'done' then return 'done' end
    if v[3] == ARGV[3] then
      if ARGV[4] ~= '' and v[1] == 'running' and v[4] == '1' then return 'taken' end
      if ARGV[4] == '' and v[1] == 'pending' and v[4] == '0' then return 'recorded' end
    end
    return 'known'
  end
  redis.call('ZREM', KEYS[3], doneMember(v[5], ARGV[2]))
  if v[5] ~= ARGV[6] then redis.call('SREM', ARGV[1] .. 'inbox:ref:' .. v[5], ARGV[2]) end
  redis.call('DEL', KEYS[4])
end
if held then return 'held' end
local state, attempts, due, answer = 'pending', 0, now, 'recorded'
if ARGV[4] ~= '' then state, attempts, due, answer = 'running', 1, now + tonumber(ARGV[4]), 'taken' end
redis.call('HSET', KEYS[4], 'state', state, 'token', ARGV[3], 'attempts', attempts, 'until', due,
  'receivedAt', now, 'ref', ARGV[6], 'fields', ARGV[5])
redis.call('ZADD', KEYS[1], due, ARGV[2])
redis.call('SADD', KEYS[6], ARGV[2])
return answer`
