/**
 * The Lua scripts of `RedisClaimStore`, one per operation of the inbox's store, and the snippets
 * they share. Kept apart from the class so each script's atomicity argument reads beside its code.
 */

/*
 * Every script below is one EVAL: Redis runs it to the end with no other client's command in
 * between, so each check and the writes it decides are one step, whichever instance sends it. Each
 * reads the time from Redis (TIME) rather than taking it from the caller, so instances whose clocks
 * disagree still agree on when a lease, a retry or a keep ends. Redis 5 and later replicate a
 * script's effects, not the script, so reading TIME before writing is allowed and replicas copy
 * the values written.
 *
 * Keys (P is the keyPrefix): the event hash `P inbox:event:<key>`, the sorted sets `P inbox:due`
 * (pending and running events by due time or lease end), `P inbox:dead` (dead events by receive
 * time) and `P inbox:done` (done keys by keep end, the member naming the ref too), and the sets
 * `P inbox:ref:<ref>` (the keys of a payment, for `forget`). The scripts build the names of the
 * event hashes and ref sets they reach through an index from P: on Redis Cluster every key must be
 * in one slot, which a hash-tagged prefix (`{paywire}:`) gives.
 */

import { LuaScript } from './client.js'

/** Redis's clock in ms since the epoch: TIME answers seconds and microseconds. */
const NOW = `local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
`

/**
 * An event as the scripts answer it: key, fields, ref, receivedAt, attempts, state, lastError,
 * dead (1 or 0). HMGET gives `false` for an absent field, which Redis answers as a null element.
 */
const EVENT = `local function event(hash, key, dead)
  local v = redis.call('HMGET', hash, 'fields', 'ref', 'receivedAt', 'attempts', 'state', 'error')
  return {key, v[1], v[2], v[3], v[4], v[5], v[6], dead}
end
`

/**
 * Take = one event, when due (pending past its retry time, or running past its lease). The attempt
 * is counted here, before the run starts, so a run whose process dies still used one; an event that
 * used them all is set aside as dead instead of being run again. The reason's wording is core's
 * (`outcomeless` in claims.ts). KEYS[1] due, KEYS[2] dead; ARGV[2] token, ARGV[3] lease ms,
 * ARGV[4] maxAttempts.
 */
const TAKE = `local function take(hash, key)
  local v = redis.call('HMGET', hash, 'state', 'until', 'attempts', 'receivedAt')
  if v[1] ~= 'pending' and v[1] ~= 'running' then return nil end
  if tonumber(v[2]) > now then return nil end
  local attempts = tonumber(v[3])
  if attempts >= tonumber(ARGV[4]) then
    redis.call('HSET', hash, 'state', 'dead', 'error', 'each of its ' .. attempts ..
      ' runs ended with no outcome recorded (the process running it died, or lost the store)')
    redis.call('HDEL', hash, 'until')
    redis.call('ZREM', KEYS[1], key)
    redis.call('ZADD', KEYS[2], v[4], key)
    return event(hash, key, 1)
  end
  local lease = now + tonumber(ARGV[3])
  redis.call('HSET', hash, 'state', 'running', 'token', ARGV[2], 'attempts', attempts + 1, 'until', lease)
  redis.call('ZADD', KEYS[1], lease, key)
  return event(hash, key, 0)
end
`

/** A key's type as TYPE names it: Redis 7 answers TYPE to a script as a status table, earlier ones as a string. */
const TYPE_OF = `local function typeOf(key)
  local kind = redis.call('TYPE', key)
  return type(kind) == 'table' and kind.ok or kind
end
`

/**
 * Whether an index entry's key can be read as an event: a hash, or gone. Anything else was written
 * by another program (a keyPrefix shared with it): the walks over an index skip it rather than fail
 * on WRONGTYPE, which would stop every later `takeDue`, `failedEvents` or `prune` at that entry.
 */
const OURS = `${TYPE_OF}local function ours(key)
  local kind = typeOf(key)
  return kind == 'hash' or kind == 'none'
end
`

/**
 * The member of `P inbox:done` for a done key: the ref's length in bytes, a colon, the ref, then the
 * key. Once Redis expired the event hash, this is the only place that still names its ref, and the
 * sweep needs it to take the key out of that ref's set.
 */
const DONE_MEMBER = `local function doneMember(ref, key)
  return string.len(ref) .. ':' .. ref .. key
end
`

/**
 * Sweep = up to `limit` done keys whose keep ended: their hash deleted (when Redis has not expired
 * it yet), their ref set entry and index entry removed. A hash written again since (a new delivery
 * after the keep, under the same ref) keeps its ref set entry. Answers how many index entries went.
 * ARGV[1] prefix.
 */
const SWEEP = `${OURS}local function sweep(done, limit)
  local members = redis.call('ZRANGEBYSCORE', done, '-inf', now, 'LIMIT', 0, limit)
  for _, member in ipairs(members) do
    local colon = string.find(member, ':', 1, true)
    local length = colon and tonumber(string.sub(member, 1, colon - 1))
    if length then
      local ref = string.sub(member, colon + 1, colon + length)
      local key = string.sub(member, colon + length + 1)
      local hash = ARGV[1] .. 'inbox:event:' .. key
      local v = {false, false, false}
      if ours(hash) then v = redis.call('HMGET', hash, 'state', 'until', 'ref') end
      local ended = v[1] == 'done' and tonumber(v[2]) <= now
      if ended then redis.call('DEL', hash) end
      if ended or v[3] ~= ref then redis.call('SREM', ARGV[1] .. 'inbox:ref:' .. ref, key) end
    end
    redis.call('ZREM', done, member)
  end
  return #members
end
`

/**
 * Record = every check and the write in one step, so of records of one key sent at once exactly one
 * writes it. Done anywhere wins: a previous key done in this layout, a previous key or this key done
 * in the layout of the store's former version (`P claim:<key>` = `done:<token>`), this key done and
 * still kept. Then this key's own record: answered as its first write answered when it still stands
 * as that write left it and the token is the same (the reply was lost), else `known`. Then a claim
 * the former version still holds (`held:<token>`, expiring by itself) answers `held`. A done key
 * past its keep counts as absent: it and its index entries are replaced.
 *
 * One script records a batch of events (the store's group commit), each as if alone, in order; the
 * store never puts two events sharing a key in one batch. The indexes are checked first: one that
 * another program wrote fails the whole script before anything is written. Each event is then
 * recorded under `pcall`, so an error of its own keys (WRONGTYPE) is that event's answer,
 * `error:<message>`, and the others stand. The event hashes, former-version keys and ref sets are
 * named from P, like the take-due script's: on Redis Cluster the prefix's hash tag puts them in
 * the indexes' slot. KEYS[1] due, [2] done. ARGV[1] prefix, then per event: key, token, leaseMs or
 * '', fields, ref, the number of previous keys, and those keys.
 */
export const RECORD = new LuaScript(`${NOW}${DONE_MEMBER}${TYPE_OF}
local prefix = ARGV[1]
local function former(key)
  local value = redis.call('GET', prefix .. 'claim:' .. key)
  if not value then return nil end
  return string.sub(value, 1, 5)
end
local function record(key, token, lease, fields, ref, first, last)
  local held = false
  for i = first, last do
    local v = redis.call('HMGET', prefix .. 'inbox:event:' .. ARGV[i], 'state', 'until')
    if v[1] == 'done' and tonumber(v[2]) > now then return 'done' end
    local old = former(ARGV[i])
    if old == 'done:' then return 'done' end
    if old == 'held:' then held = true end
  end
  local old = former(key)
  if old == 'done:' then return 'done' end
  if old == 'held:' then held = true end
  local hash = prefix .. 'inbox:event:' .. key
  local v = redis.call('HMGET', hash, 'state', 'until', 'token', 'attempts', 'ref')
  if v[1] then
    if v[1] ~= 'done' or tonumber(v[2]) > now then
      if v[1] == 'done' then return 'done' end
      if v[3] == token then
        if lease ~= '' and v[1] == 'running' and v[4] == '1' then return 'taken' end
        if lease == '' and v[1] == 'pending' and v[4] == '0' then return 'recorded' end
      end
      return 'known'
    end
    redis.call('ZREM', KEYS[2], doneMember(v[5], key))
    if v[5] ~= ref then redis.call('SREM', prefix .. 'inbox:ref:' .. v[5], key) end
    redis.call('DEL', hash)
  end
  if held then return 'held' end
  local state, attempts, due, answer = 'pending', 0, now, 'recorded'
  if lease ~= '' then state, attempts, due, answer = 'running', 1, now + tonumber(lease), 'taken' end
  -- The payment's set first: if Redis refuses it (another program's key), nothing of the event is written.
  redis.call('SADD', prefix .. 'inbox:ref:' .. ref, key)
  redis.call('HSET', hash, 'state', state, 'token', token, 'attempts', attempts, 'until', due,
    'receivedAt', now, 'ref', ref, 'fields', fields)
  redis.call('ZADD', KEYS[1], due, key)
  return answer
end
-- The indexes every event of the batch writes: another program's key there fails the whole
-- batch before anything is written (within each event's pcall it would leave events unindexed).
for _, index in ipairs(KEYS) do
  local kind = typeOf(index)
  if kind ~= 'zset' and kind ~= 'none' then
    return redis.error_reply('WRONGTYPE ' .. index .. ' is not the inbox index (a ' .. kind .. ' of another program)')
  end
end
local answers = {}
local at = 2
while at <= #ARGV do
  local count = tonumber(ARGV[at + 5])
  local ok, answer = pcall(record, ARGV[at], ARGV[at + 1], ARGV[at + 2], ARGV[at + 3], ARGV[at + 4], at + 6, at + 5 + count)
  if not ok then
    -- Redis 7 raises a redis.call error as a table { err = message }; earlier versions as a string.
    answer = 'error:' .. (type(answer) == 'table' and tostring(answer.err) or tostring(answer))
  end
  answers[#answers + 1] = answer
  at = at + 6 + count
end
return answers`)

/** Take one key. KEYS[1] due, [2] dead, [3] the event hash; ARGV[1] key, [2] token, [3] ms, [4] maxAttempts. */
export const TAKE_ONE = new LuaScript(`${NOW}${EVENT}${TAKE}
return take(KEYS[3], ARGV[1])`)

/**
 * Take due = the oldest due entries and the take of each in one step, so two instances sending it
 * at once never take the same event: the second runs after the first and finds it leased. An entry
 * whose record is no longer pending or running (deleted or overwritten behind the store's back) is
 * dropped. KEYS[1] due, [2] dead; ARGV[1] prefix, [2] token, [3] ms, [4] maxAttempts, [5] limit.
 */
export const TAKE_DUE = new LuaScript(`${NOW}${EVENT}${TAKE}${OURS}
local taken = {}
for _, key in ipairs(redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'LIMIT', 0, tonumber(ARGV[5]))) do
  local hash = ARGV[1] .. 'inbox:event:' .. key
  local readable = ours(hash)
  local one = readable and take(hash, key)
  if one then
    taken[#taken + 1] = one
  else
    local state = readable and redis.call('HGET', hash, 'state')
    if state ~= 'pending' and state ~= 'running' then redis.call('ZREM', KEYS[1], key) end
  end
end
return taken`)

/**
 * Renew = check the holder and move the lease end in one step: a renew read-then-written from the
 * client could extend the lease of the runner that took the event after this one's ended.
 * KEYS[1] due, [2] the event hash; ARGV[1] key, [2] token, [3] ms.
 */
export const RENEW = new LuaScript(`${NOW}
local v = redis.call('HMGET', KEYS[2], 'state', 'token')
if v[1] ~= 'running' or v[2] ~= ARGV[2] then return 0 end
local lease = now + tonumber(ARGV[3])
redis.call('HSET', KEYS[2], 'until', lease)
redis.call('ZADD', KEYS[1], lease, ARGV[1])
return 1`)

/**
 * Complete = check the holder, then replace the record by a done mark holding only state, token,
 * ref and keep end (the fields and error are gone with the old hash), expiring by itself at the keep
 * end (PEXPIREAT on the same TIME the `until` field holds, so the two agree). Sent again by the same
 * token it finds its own done mark and answers 1, writing nothing. It also sweeps a few done keys
 * whose keep ended, so the indexes stay bounded even where `prune` is never called.
 * KEYS[1] due, [2] done, [3] the event hash; ARGV[1] prefix, [2] key, [3] token, [4] keepMs.
 */
export const COMPLETE = new LuaScript(`${NOW}${DONE_MEMBER}${SWEEP}
local v = redis.call('HMGET', KEYS[3], 'state', 'token', 'ref')
if not v[1] or v[2] ~= ARGV[3] then return 0 end
if v[1] == 'done' then return 1 end
if v[1] ~= 'running' then return 0 end
local keep = now + tonumber(ARGV[4])
redis.call('DEL', KEYS[3])
redis.call('HSET', KEYS[3], 'state', 'done', 'token', ARGV[3], 'ref', v[3], 'until', keep)
redis.call('PEXPIREAT', KEYS[3], keep)
redis.call('ZREM', KEYS[1], ARGV[2])
redis.call('ZADD', KEYS[2], keep, doneMember(v[3], ARGV[2]))
sweep(KEYS[2], 16)
return 1`)

/**
 * Release = check the holder and end the run in one step. Sent again by the same token it finds
 * the event pending or dead with its token and answers 1 without writing, so an uncounted attempt
 * is never given back twice, and fields another runner wrote since are never overwritten (that
 * runner's take put its own token on the record). New fields are written only with the run's end.
 * KEYS[1] due, [2] dead, [3] the event hash; ARGV[1] key, [2] token, [3] retryInMs, [4] counted
 * 1/0, [5] error, [6] has an error 1/0, [7] dead 1/0, [8] fields, [9] has fields 1/0.
 */
export const RELEASE = new LuaScript(`${NOW}
local v = redis.call('HMGET', KEYS[3], 'state', 'token', 'attempts', 'receivedAt')
if not v[1] or v[2] ~= ARGV[2] then return 0 end
if v[1] == 'pending' or v[1] == 'dead' then return 1 end
if v[1] ~= 'running' then return 0 end
local attempts = tonumber(v[3])
if ARGV[4] == '0' and attempts > 0 then attempts = attempts - 1 end
if ARGV[6] == '1' then redis.call('HSET', KEYS[3], 'error', ARGV[5]) else redis.call('HDEL', KEYS[3], 'error') end
if ARGV[9] == '1' then redis.call('HSET', KEYS[3], 'fields', ARGV[8]) end
if ARGV[7] == '1' then
  redis.call('HSET', KEYS[3], 'state', 'dead', 'attempts', attempts)
  redis.call('HDEL', KEYS[3], 'until')
  redis.call('ZREM', KEYS[1], ARGV[1])
  redis.call('ZADD', KEYS[2], v[4], ARGV[1])
else
  local due = now + tonumber(ARGV[3])
  redis.call('HSET', KEYS[3], 'state', 'pending', 'attempts', attempts, 'until', due)
  redis.call('ZADD', KEYS[1], due, ARGV[1])
end
return 1`)

/**
 * Wake = a pending event made due now, whatever its retry time, in one step: its due time and its
 * entry in the due index both become now (an earlier one, already due, is kept, and so is its place
 * in the order; the index entry is written either way, so takeDue finds it). Attempts, fields, token and error are kept. Any other state (running, done, dead,
 * absent) answers 0 and writes nothing. KEYS[1] due, [2] the event hash; ARGV[1] key.
 */
export const WAKE = new LuaScript(`${NOW}
local v = redis.call('HMGET', KEYS[2], 'state', 'until')
if v[1] ~= 'pending' then return 0 end
local due = tonumber(v[2])
if due == nil or due > now then
  due = now
  redis.call('HSET', KEYS[2], 'until', due)
end
redis.call('ZADD', KEYS[1], due, ARGV[1])
return 1`)

/**
 * Failed events = the index and the records read in one step, so no event is listed half-changed.
 * An index entry whose record is not dead (deleted or overwritten behind the store's back) is
 * dropped. KEYS[1] dead; ARGV[1] prefix, [2] limit.
 */
export const FAILED = new LuaScript(`${EVENT}${OURS}
local listed = {}
for _, key in ipairs(redis.call('ZRANGE', KEYS[1], 0, tonumber(ARGV[2]) - 1)) do
  local hash = ARGV[1] .. 'inbox:event:' .. key
  if ours(hash) and redis.call('HGET', hash, 'state') == 'dead' then
    listed[#listed + 1] = event(hash, key, 1)
  else
    redis.call('ZREM', KEYS[1], key)
  end
end
return listed`)

/** Retry = a dead event made pending and due now, attempts reset. KEYS[1] due, [2] dead, [3] the event hash; ARGV[1] key. */
export const RETRY = new LuaScript(`${NOW}
if redis.call('HGET', KEYS[3], 'state') ~= 'dead' then return 0 end
redis.call('HSET', KEYS[3], 'state', 'pending', 'attempts', 0, 'until', now)
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('ZADD', KEYS[1], now, ARGV[1])
return 1`)

/**
 * Forget = every key of the ref's set whose record still names this ref: its hash and every index
 * entry of it deleted, then the set itself. A key written again since under another ref is left
 * (only taken out of this set). Counts the records erased (a done key past its keep is no longer
 * one). KEYS[1] due, [2] dead, [3] done, [4] the ref's set; ARGV[1] prefix, [2] ref.
 */
export const FORGET = new LuaScript(`${NOW}${DONE_MEMBER}${OURS}
local erased = 0
for _, key in ipairs(redis.call('SMEMBERS', KEYS[4])) do
  local hash = ARGV[1] .. 'inbox:event:' .. key
  local v = ours(hash) and redis.call('HMGET', hash, 'ref', 'state', 'until') or {}
  if v[1] == ARGV[2] then
    if v[2] ~= 'done' or tonumber(v[3]) > now then erased = erased + 1 end
    redis.call('DEL', hash)
    redis.call('ZREM', KEYS[1], key)
    redis.call('ZREM', KEYS[2], key)
  end
  redis.call('ZREM', KEYS[3], doneMember(ARGV[2], key))
end
redis.call('DEL', KEYS[4])
return erased`)

/** Prune = one batch of the sweep. KEYS[1] done; ARGV[1] prefix, [2] batch size. */
export const PRUNE = new LuaScript(`${NOW}${SWEEP}
return sweep(KEYS[1], tonumber(ARGV[2]))`)
