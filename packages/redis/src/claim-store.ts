/**
 * The callback inbox's store on Redis: a verified event is recorded before its delivery is
 * acknowledged, and every run starts from the record, across every instance sharing the server.
 */

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
import { RequestValidationError } from '@paywire/core'
import {
  checkKeyPart,
  checkMs,
  checkStoreOptions,
  DEFAULT_KEY_PREFIX,
  type RedisClient,
  type RedisStoreOptions,
  text,
} from './client.js'

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

/**
 * Whether an index entry's key can be read as an event: a hash, or gone. Anything else was written
 * by another program (a keyPrefix shared with it): the walks over an index skip it rather than fail
 * on WRONGTYPE, which would stop every later `takeDue`, `failedEvents` or `prune` at that entry.
 */
const OURS = `local function ours(key)
  local kind = redis.call('TYPE', key)
  kind = type(kind) == 'table' and kind.ok or kind
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
 * KEYS[1] due, [2] dead, [3] done, [4] the event hash, [5] its former-version key, [6] the ref's
 * set, then per previous key its hash and its former-version key. ARGV[1] prefix, [2] key,
 * [3] token, [4] leaseMs or '', [5] fields, [6] ref.
 */
const RECORD = `${NOW}${DONE_MEMBER}
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

/** Take one key. KEYS[1] due, [2] dead, [3] the event hash; ARGV[1] key, [2] token, [3] ms, [4] maxAttempts. */
const TAKE_ONE = `${NOW}${EVENT}${TAKE}
return take(KEYS[3], ARGV[1])`

/**
 * Take due = the oldest due entries and the take of each in one step, so two instances sending it
 * at once never take the same event: the second runs after the first and finds it leased. An entry
 * whose record is no longer pending or running (deleted or overwritten behind the store's back) is
 * dropped. KEYS[1] due, [2] dead; ARGV[1] prefix, [2] token, [3] ms, [4] maxAttempts, [5] limit.
 */
const TAKE_DUE = `${NOW}${EVENT}${TAKE}${OURS}
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
return taken`

/**
 * Renew = check the holder and move the lease end in one step: a renew read-then-written from the
 * client could extend the lease of the runner that took the event after this one's ended.
 * KEYS[1] due, [2] the event hash; ARGV[1] key, [2] token, [3] ms.
 */
const RENEW = `${NOW}
local v = redis.call('HMGET', KEYS[2], 'state', 'token')
if v[1] ~= 'running' or v[2] ~= ARGV[2] then return 0 end
local lease = now + tonumber(ARGV[3])
redis.call('HSET', KEYS[2], 'until', lease)
redis.call('ZADD', KEYS[1], lease, ARGV[1])
return 1`

/**
 * Complete = check the holder, then replace the record by a done mark holding only state, token,
 * ref and keep end (the fields and error are gone with the old hash), expiring by itself at the keep
 * end (PEXPIREAT on the same TIME the `until` field holds, so the two agree). Sent again by the same
 * token it finds its own done mark and answers 1, writing nothing. It also sweeps a few done keys
 * whose keep ended, so the indexes stay bounded even where `prune` is never called.
 * KEYS[1] due, [2] done, [3] the event hash; ARGV[1] prefix, [2] key, [3] token, [4] keepMs.
 */
const COMPLETE = `${NOW}${DONE_MEMBER}${SWEEP}
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
return 1`

/**
 * Release = check the holder and end the run in one step. Sent again by the same token it finds
 * the event pending or dead with its token and answers 1 without writing, so an uncounted attempt
 * is never given back twice. KEYS[1] due, [2] dead, [3] the event hash; ARGV[1] key, [2] token,
 * [3] retryInMs, [4] counted 1/0, [5] error, [6] has an error 1/0, [7] dead 1/0.
 */
const RELEASE = `${NOW}
local v = redis.call('HMGET', KEYS[3], 'state', 'token', 'attempts', 'receivedAt')
if not v[1] or v[2] ~= ARGV[2] then return 0 end
if v[1] == 'pending' or v[1] == 'dead' then return 1 end
if v[1] ~= 'running' then return 0 end
local attempts = tonumber(v[3])
if ARGV[4] == '0' and attempts > 0 then attempts = attempts - 1 end
if ARGV[6] == '1' then redis.call('HSET', KEYS[3], 'error', ARGV[5]) else redis.call('HDEL', KEYS[3], 'error') end
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
return 1`

/**
 * Failed events = the index and the records read in one step, so no event is listed half-changed.
 * An index entry whose record is not dead (deleted or overwritten behind the store's back) is
 * dropped. KEYS[1] dead; ARGV[1] prefix, [2] limit.
 */
const FAILED = `${EVENT}${OURS}
local listed = {}
for _, key in ipairs(redis.call('ZRANGE', KEYS[1], 0, tonumber(ARGV[2]) - 1)) do
  local hash = ARGV[1] .. 'inbox:event:' .. key
  if ours(hash) and redis.call('HGET', hash, 'state') == 'dead' then
    listed[#listed + 1] = event(hash, key, 1)
  else
    redis.call('ZREM', KEYS[1], key)
  end
end
return listed`

/** Retry = a dead event made pending and due now, attempts reset. KEYS[1] due, [2] dead, [3] the event hash; ARGV[1] key. */
const RETRY = `${NOW}
if redis.call('HGET', KEYS[3], 'state') ~= 'dead' then return 0 end
redis.call('HSET', KEYS[3], 'state', 'pending', 'attempts', 0, 'until', now)
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('ZADD', KEYS[1], now, ARGV[1])
return 1`

/**
 * Forget = every key of the ref's set whose record still names this ref: its hash and every index
 * entry of it deleted, then the set itself. A key written again since under another ref is left
 * (only taken out of this set). Counts the records erased (a done key past its keep is no longer
 * one). KEYS[1] due, [2] dead, [3] done, [4] the ref's set; ARGV[1] prefix, [2] ref.
 */
const FORGET = `${NOW}${DONE_MEMBER}${OURS}
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
return erased`

/** Prune = one batch of the sweep. KEYS[1] done; ARGV[1] prefix, [2] batch size. */
const PRUNE = `${NOW}${SWEEP}
return sweep(KEYS[1], tonumber(ARGV[2]))`

/** Done keys swept per `prune` script: a larger backlog takes several, so no one script holds Redis long. */
const PRUNE_BATCH = 500

const ANSWERS: ReadonlySet<string> = new Set<RecordAnswer>(['taken', 'recorded', 'known', 'done', 'held'])
const STATES: ReadonlySet<string> = new Set<StoredEventState>(['pending', 'running', 'done', 'dead'])

/** In `u` mode a pair is one code point, so this matches only a surrogate without its partner. */
const LONE_SURROGATE = /[\uD800-\uDFFF]/u

/**
 * Core's `ClaimStore` (the callback inbox's store) on Redis. Each recorded event is a hash
 * `<keyPrefix>inbox:event:<key>` (state, token, attempts, lease or due time, receive time, ref,
 * fields, last error), indexed by the sorted sets `<keyPrefix>inbox:due`, `<keyPrefix>inbox:dead`
 * and `<keyPrefix>inbox:done` and the set `<keyPrefix>inbox:ref:<ref>`. Every operation is one Lua
 * script timed on Redis's clock, safe to send again after a lost reply. A done event keeps only its
 * state, token, ref and keep end, and Redis deletes it when the keep ends. Keys the store's former
 * version wrote (`<keyPrefix>claim:<key>`) are read by `record`: done there is done here, a claim
 * still held there answers `held`. Needs `maxmemory-policy noeviction` and, for an acknowledged event
 * to outlive Redis itself, `appendonly yes` with `appendfsync always` (README, "What Redis must be
 * set up for").
 */
export class RedisClaimStore implements ClaimStore {
  readonly #client: RedisClient
  readonly #prefix: string
  readonly #due: string
  readonly #dead: string
  readonly #done: string

  constructor(options: RedisStoreOptions) {
    checkStoreOptions('RedisClaimStore', options)
    this.#client = options.client
    this.#prefix = options.keyPrefix ?? DEFAULT_KEY_PREFIX
    this.#due = `${this.#prefix}inbox:due`
    this.#dead = `${this.#prefix}inbox:dead`
    this.#done = `${this.#prefix}inbox:done`
  }

  /**
   * Records `event` for `token` unless its key is known: `done` when it, or one of its previous
   * keys, is done (here, or in the former version's keys), `known` when it is recorded and not done,
   * `held` when the former version still holds a claim on it; else it writes it, leased to `token`
   * with `leaseMs` (`taken`, attempt 1) or pending and due now (`recorded`). Sent again with the same
   * token after a lost reply, it answers as the first time while the event stands as it left it.
   */
  async record(event: NewEvent, token: string, leaseMs: number | undefined): Promise<RecordAnswer> {
    const operation = 'RedisClaimStore.record'
    const checked = checkEvent(operation, event)
    const holder = checkToken(operation, token)
    const lease = leaseMs === undefined ? '' : String(checkMs(operation, 'leaseMs', leaseMs))
    const keys = [
      this.#due,
      this.#dead,
      this.#done,
      this.#event(checked.key),
      this.#former(checked.key),
      this.#ref(checked.ref),
    ]
    for (const previous of checked.previousKeys) keys.push(this.#event(previous), this.#former(previous))
    const reply = text(
      await this.#client.eval(RECORD, {
        keys,
        arguments: [this.#prefix, checked.key, holder, lease, checked.fields, checked.ref],
      }),
    )
    if (reply !== null && ANSWERS.has(reply)) return reply as RecordAnswer
    // Anything else is not this script's answer: refuse rather than guess whether it was recorded.
    throw new Error(`${operation}: the record script answered ${JSON.stringify(reply)}`)
  }

  /**
   * Takes `key` for `lease.token` when it is due (pending past its retry time, or running past its
   * lease), counting the attempt; one that used `lease.maxAttempts` is set dead and answered with
   * `dead: true`. `undefined` when it is not due, or not there.
   */
  async take(key: string, lease: Lease): Promise<TakenEvent | undefined> {
    const operation = 'RedisClaimStore.take'
    const checkedKey = checkKeyPart(operation, 'key', key)
    const { token, ms, maxAttempts } = checkLease(operation, lease)
    const reply = await this.#client.eval(TAKE_ONE, {
      keys: [this.#due, this.#dead, this.#event(checkedKey)],
      arguments: [checkedKey, token, String(ms), String(maxAttempts)],
    })
    return reply === null || reply === undefined ? undefined : taken(operation, reply)
  }

  /**
   * Takes up to `limit` due events, oldest due first, each as `take` does, in one script: two
   * instances taking at once never get the same event.
   */
  async takeDue(lease: Lease, limit: number): Promise<TakenEvent[]> {
    const operation = 'RedisClaimStore.takeDue'
    const { token, ms, maxAttempts } = checkLease(operation, lease)
    const count = checkLimit(operation, limit)
    if (count === 0) return []
    const reply = await this.#client.eval(TAKE_DUE, {
      keys: [this.#due, this.#dead],
      arguments: [this.#prefix, token, String(ms), String(maxAttempts), String(count)],
    })
    return list(operation, reply).map((one) => taken(operation, one))
  }

  /** Moves the end of `token`'s lease of `key` to `ms` from now; `false` when `token` does not hold it. */
  async renew(key: string, token: string, ms: number): Promise<boolean> {
    const operation = 'RedisClaimStore.renew'
    const checkedKey = checkKeyPart(operation, 'key', key)
    const holder = checkToken(operation, token)
    const checkedMs = checkMs(operation, 'ms', ms)
    const reply = await this.#client.eval(RENEW, {
      keys: [this.#due, this.#event(checkedKey)],
      arguments: [checkedKey, holder, String(checkedMs)],
    })
    return Number(reply) === 1
  }

  /**
   * Marks `key` done for `keepMs` when `token` holds it, dropping its fields: `true`, also when
   * `token` already did. `false` when another runner took it since, or it is not running.
   */
  async complete(key: string, token: string, keepMs: number): Promise<boolean> {
    const operation = 'RedisClaimStore.complete'
    const checkedKey = checkKeyPart(operation, 'key', key)
    const holder = checkToken(operation, token)
    const keep = checkMs(operation, 'keepMs', keepMs)
    const reply = await this.#client.eval(COMPLETE, {
      keys: [this.#due, this.#done, this.#event(checkedKey)],
      arguments: [this.#prefix, checkedKey, holder, String(keep)],
    })
    return Number(reply) === 1
  }

  /**
   * Ends `token`'s run of `key` without success: pending again in `retryInMs`, or dead; an
   * uncounted release gives the attempt back. `true` when it did or had already; `false` when
   * `token` no longer holds it.
   */
  async release(key: string, token: string, next: ReleaseOptions): Promise<boolean> {
    const operation = 'RedisClaimStore.release'
    const checkedKey = checkKeyPart(operation, 'key', key)
    const holder = checkToken(operation, token)
    const { retryInMs, counted, error, dead } = checkRelease(operation, next)
    const reply = await this.#client.eval(RELEASE, {
      keys: [this.#due, this.#dead, this.#event(checkedKey)],
      arguments: [
        checkedKey,
        holder,
        String(retryInMs),
        counted ? '1' : '0',
        error ?? '',
        error === undefined ? '0' : '1',
        dead ? '1' : '0',
      ],
    })
    return Number(reply) === 1
  }

  /** The dead events, oldest received first, at most `limit`, with their fields and last error. */
  async failedEvents(limit: number): Promise<StoredEvent[]> {
    const operation = 'RedisClaimStore.failedEvents'
    const count = checkLimit(operation, limit)
    if (count === 0) return [] // ZRANGE 0 -1 would list them all
    const reply = await this.#client.eval(FAILED, { keys: [this.#dead], arguments: [this.#prefix, String(count)] })
    return list(operation, reply).map((one) => taken(operation, one).event)
  }

  /** Makes the dead event `key` pending and due now, attempts reset, receive time kept; `false` when it is not dead. */
  async retry(key: string): Promise<boolean> {
    const checkedKey = checkKeyPart('RedisClaimStore.retry', 'key', key)
    const reply = await this.#client.eval(RETRY, {
      keys: [this.#due, this.#dead, this.#event(checkedKey)],
      arguments: [checkedKey],
    })
    return Number(reply) === 1
  }

  /** Erases every record of the payment `ref` (pending, running, dead or done) and its index entries; answers how many records. */
  async forget(ref: string): Promise<number> {
    const checkedRef = checkKeyPart('RedisClaimStore.forget', 'ref', ref)
    const reply = await this.#client.eval(FORGET, {
      keys: [this.#due, this.#dead, this.#done, this.#ref(checkedRef)],
      arguments: [this.#prefix, checkedRef],
    })
    return Number(reply)
  }

  /**
   * Removes the done keys whose keep ended: the index entries Redis cannot expire by itself, and
   * the hash when Redis has not expired it yet; answers how many. `keepMs` is checked but not
   * needed: each done key carries its own keep end.
   */
  async prune(keepMs: number): Promise<number> {
    checkMs('RedisClaimStore.prune', 'keepMs', keepMs)
    let removed = 0
    for (;;) {
      const batch = Number(
        await this.#client.eval(PRUNE, { keys: [this.#done], arguments: [this.#prefix, String(PRUNE_BATCH)] }),
      )
      removed += batch
      // A short batch was the last; so is a reply that is not a count, rather than looping on it.
      if (!(batch >= PRUNE_BATCH)) return removed
    }
  }

  #event(key: string): string {
    return `${this.#prefix}inbox:event:${key}`
  }

  /** The key the store's former version (claim/complete/release) wrote for `key`: read, never written. */
  #former(key: string): string {
    return `${this.#prefix}claim:${key}`
  }

  #ref(ref: string): string {
    return `${this.#prefix}inbox:ref:${ref}`
  }
}

/** A token is a non-empty string without a lone surrogate: the only proof of who holds an event. */
function checkToken(operation: string, token: unknown): string {
  const checked = checkKeyPart(operation, 'token', token)
  if (checked === '') {
    throw new RequestValidationError(operation, [
      { path: 'token', message: 'must be a non-empty string (a fresh random one per runner)' },
    ])
  }
  return checked
}

/** The event's key, previous keys and ref name Redis keys; its fields must come back exactly as written. */
function checkEvent(operation: string, event: unknown): NewEvent {
  if (typeof event !== 'object' || event === null) {
    throw new RequestValidationError(operation, [{ path: 'event', message: 'must be a NewEvent object' }])
  }
  const { key, previousKeys, fields, ref } = event as Record<string, unknown>
  checkKeyPart(operation, 'event.key', key)
  if (!Array.isArray(previousKeys)) {
    throw new RequestValidationError(operation, [
      { path: 'event.previousKeys', message: 'must be an array of strings' },
    ])
  }
  for (const [i, previous] of previousKeys.entries()) checkKeyPart(operation, `event.previousKeys[${i}]`, previous)
  if (typeof fields !== 'string') {
    throw new RequestValidationError(operation, [
      { path: 'event.fields', message: `must be a string, got ${typeof fields}` },
    ])
  }
  if (LONE_SURROGATE.test(fields)) {
    throw new RequestValidationError(operation, [
      { path: 'event.fields', message: 'has a lone UTF-16 surrogate: sent as UTF-8 it would come back as U+FFFD' },
    ])
  }
  checkKeyPart(operation, 'event.ref', ref)
  return event as NewEvent
}

/** A lease: its token, a duration for the lease end, and at least one run allowed. */
function checkLease(operation: string, lease: unknown): { token: string; ms: number; maxAttempts: number } {
  if (typeof lease !== 'object' || lease === null) {
    throw new RequestValidationError(operation, [{ path: 'lease', message: 'must be a Lease object' }])
  }
  const { token, ms, maxAttempts } = lease as Record<string, unknown>
  const checkedToken = checkToken(operation, token)
  const checkedMs = checkMs(operation, 'lease.ms', ms)
  if (typeof maxAttempts !== 'number' || !Number.isSafeInteger(maxAttempts) || maxAttempts < 1) {
    throw new RequestValidationError(operation, [{ path: 'lease.maxAttempts', message: 'must be a whole number >= 1' }])
  }
  return { token: checkedToken, ms: checkedMs, maxAttempts }
}

/** How many events to answer at most: a whole number, 0 answering none. */
function checkLimit(operation: string, limit: unknown): number {
  if (typeof limit !== 'number' || !Number.isSafeInteger(limit) || limit < 0) {
    throw new RequestValidationError(operation, [{ path: 'limit', message: 'must be a whole number >= 0' }])
  }
  return limit
}

/** A release's options; `retryInMs` may be 0 (due again at once), rounded up to a whole ms like every duration. */
function checkRelease(operation: string, next: unknown): ReleaseOptions {
  if (typeof next !== 'object' || next === null) {
    throw new RequestValidationError(operation, [{ path: 'next', message: 'must be a ReleaseOptions object' }])
  }
  const { retryInMs, counted, error, dead } = next as Record<string, unknown>
  const issues = []
  if (typeof retryInMs !== 'number' || !Number.isFinite(retryInMs) || retryInMs < 0) {
    issues.push({ path: 'next.retryInMs', message: 'must be a finite number of ms, 0 or more' })
  }
  if (typeof counted !== 'boolean') issues.push({ path: 'next.counted', message: 'must be a boolean' })
  if (typeof dead !== 'boolean') issues.push({ path: 'next.dead', message: 'must be a boolean' })
  if (error !== undefined && typeof error !== 'string') {
    issues.push({ path: 'next.error', message: 'must be a string or undefined' })
  }
  if (issues.length > 0) throw new RequestValidationError(operation, issues)
  return {
    retryInMs: Math.ceil(retryInMs as number),
    counted: counted as boolean,
    error: error as string | undefined,
    dead: dead as boolean,
  }
}

/** A script's array reply; anything else is not this store's script answering. */
function list(operation: string, reply: unknown): unknown[] {
  if (!Array.isArray(reply)) throw new Error(`${operation}: the script answered ${describe(reply)}, not a list`)
  return reply
}

/** An event as the scripts answer it (`EVENT` in the Lua above), checked field by field. */
function taken(operation: string, reply: unknown): TakenEvent {
  const parts = list(operation, reply)
  const [key, fields, ref, receivedAt, attempts, state, lastError, dead] = parts.map((part, i) =>
    i === 7 ? part : text(part),
  )
  const stateText = state as string | null
  if (
    parts.length !== 8 ||
    typeof key !== 'string' ||
    typeof ref !== 'string' ||
    stateText === null ||
    !STATES.has(stateText) ||
    !Number.isSafeInteger(Number(receivedAt)) ||
    !Number.isSafeInteger(Number(attempts))
  ) {
    throw new Error(`${operation}: the script answered an event it could not read: ${describe(reply)}`)
  }
  return {
    event: {
      key,
      fields: (fields as string | null) ?? undefined,
      ref,
      receivedAt: Number(receivedAt),
      attempts: Number(attempts),
      state: stateText as StoredEventState,
      lastError: (lastError as string | null) ?? undefined,
    },
    dead: Number(dead) === 1,
  }
}

/** A short description of an unexpected reply, never its whole content (it may hold event fields). */
function describe(reply: unknown): string {
  const shown = JSON.stringify(reply, (_k, v: unknown) =>
    typeof v === 'string' && v.length > 40 ? `${v.slice(0, 40)}…` : v,
  )
  return shown === undefined ? String(reply) : shown.length > 200 ? `${shown.slice(0, 200)}…` : shown
}
