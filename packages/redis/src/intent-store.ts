/** The intent journal on Redis: a money-moving call written down before it is sent outlives the process that sent it. */

import type { Intent, IntentOutcome, IntentStore, ValidationIssue } from '@paywire/core'
import { PaywireError, RequestValidationError } from '@paywire/core'
import { decodeIntentRecord, encodeIntentRecord } from '@paywire/core/engine'
import {
  checkKeyPart,
  checkStoreOptions,
  DEFAULT_KEY_PREFIX,
  LuaScript,
  type RedisClient,
  type RedisStoreOptions,
  runScript,
  text,
} from './client.js'

/** The largest record Redis itself takes is 512 MiB; the default cap is far below, as wire params are small. */
const MAX_RECORD_BYTES = 512 * 1024 * 1024
const DEFAULT_MAX_INTENT_BYTES = 1024 * 1024

/**
 * Open = one script, so the record and its index entry are written together or not at all: a
 * `MULTI` whose `EXEC` reply is lost leaves the client unable to tell which, and one whose index
 * key holds another type would run its `SET` anyway (EXEC has no rollback). The index's type is
 * checked before anything is written. The record gains `writtenAt`, Redis's own clock when it is
 * written (`TIME`, ms), appended to the JSON object as text (the client wrote it, so it ends with
 * `}`): reconciliation measures it against `now()`, so no process's clock decides how long ago a
 * call was made. KEYS record, index; ARGV json, score (createdAt), id.
 */
const OPEN = new LuaScript(`local kind = redis.call('TYPE', KEYS[2])
kind = type(kind) == 'table' and kind.ok or kind
if kind ~= 'zset' and kind ~= 'none' then
  return redis.error_reply('WRONGTYPE the index ' .. KEYS[2] .. ' holds a ' .. kind .. ', not a sorted set')
end
local t = redis.call('TIME')
local written = string.format('%d', t[1] * 1000 + math.floor(t[2] / 1000))
redis.call('SET', KEYS[1], string.sub(ARGV[1], 1, -2) .. ',"writtenAt":' .. written .. '}')
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[3])
return 1`)

/** Redis's clock, in ms since the epoch. */
const NOW = new LuaScript("local t = redis.call('TIME') return t[1] * 1000 + math.floor(t[2] / 1000)")

/**
 * Forget = the undo of an open whose outcome is unknown and whose call is therefore not sent:
 * both keys or neither, and only when the record is still the one this open wrote.
 * KEYS record, index; ARGV json, id.
 */
const FORGET = new LuaScript(`local written = redis.call('GET', KEYS[1])
local mine = string.sub(ARGV[1], 1, -2) .. ',"writtenAt":'
if written and string.sub(written, 1, #mine) == mine then
  redis.call('DEL', KEYS[1])
  redis.call('ZREM', KEYS[2], ARGV[2])
  return 1
end
return 0`)

/**
 * Repair = drop an index entry whose record is gone, in one step with the check: an `open` of the
 * same id between a scan's read and the repair writes the record first, and must not lose its
 * entry. 1 removed, 0 not in the index (closed meanwhile), -1 the record is back. KEYS record,
 * index; ARGV id.
 */
const REPAIR = new LuaScript(`if redis.call('EXISTS', KEYS[1]) == 1 then return -1 end
return redis.call('ZREM', KEYS[2], ARGV[1])`)

/** How many times `open` sends its script when the connection fails: the script is idempotent. */
const OPEN_ATTEMPTS = 3

/** An index entry a scan could not list, as told to `onOrphan`. */
export interface JournalOrphan {
  /** The service whose index lists it. */
  readonly service: string
  /** The intent's id, as the index holds it. */
  readonly id: string
  /** The entry's score: the intent's `createdAt` (ms since the epoch), when the index still had it. */
  readonly createdAt: number | undefined
  /**
   * `true`: its record was gone, and the entry was removed from the index. `false`: its record is
   * not one this store wrote (another program wrote to the key); both are left as they are.
   */
  readonly repaired: boolean
  /** What was found and what to do about it, in words. */
  readonly message: string
}

/** The options of `RedisIntentStore`. */
export interface RedisIntentStoreOptions extends RedisStoreOptions {
  /**
   * The largest intent record, as UTF-8 JSON bytes (default 1 MiB). A larger intent is refused by
   * `open`, so the call is not sent: a body that size is a bug, not a payment.
   */
  maxIntentBytes?: number
  /**
   * Hears each index entry `openIntents` skipped: one whose record is gone (removed from the index)
   * or unreadable (left). The scan lists every other intent: one bad entry never fails the journal
   * of the whole service. Default: the message goes to `console.error`, so it is never silent.
   */
  onOrphan?(orphan: JournalOrphan): void
}

/**
 * Core's `IntentStore` on Redis. Each open intent is a JSON string at `<keyPrefix>intent:<id>` and
 * a member of its service's sorted set `<keyPrefix>open:<service>`, scored by `createdAt`. `open`
 * writes both in one Lua script and resolves once Redis acknowledged it; `close` removes both in one
 * `MULTI`. Neither ever leaves one without the other. Records have no TTL: an intent stays until it
 * is closed (set `maxmemory-policy noeviction`).
 */
export class RedisIntentStore implements IntentStore {
  readonly #client: RedisClient
  readonly #prefix: string
  readonly #maxBytes: number
  readonly #onOrphan: ((orphan: JournalOrphan) => void) | undefined

  constructor(options: RedisIntentStoreOptions) {
    const max = (options as Partial<RedisIntentStoreOptions> | null)?.maxIntentBytes
    const onOrphan = (options as Partial<RedisIntentStoreOptions> | null)?.onOrphan
    const extra: ValidationIssue[] = []
    if (max !== undefined && !(Number.isInteger(max) && max > 0 && max <= MAX_RECORD_BYTES)) {
      extra.push({ path: 'maxIntentBytes', message: `must be a whole number of bytes from 1 to ${MAX_RECORD_BYTES}` })
    }
    if (onOrphan !== undefined && typeof onOrphan !== 'function') {
      extra.push({ path: 'onOrphan', message: 'must be a function' })
    }
    checkStoreOptions('RedisIntentStore', options, extra)
    this.#client = options.client
    this.#prefix = options.keyPrefix ?? DEFAULT_KEY_PREFIX
    this.#maxBytes = max ?? DEFAULT_MAX_INTENT_BYTES
    this.#onOrphan = onOrphan
  }

  /**
   * Writes `intent` (record and index in one script); resolves only once Redis acknowledged both.
   * A connection lost on the way is retried with the same script (writing it twice changes nothing);
   * when every attempt fails the write is undone if it landed, both keys together, and `open`
   * rejects: the call is not sent. An undo that cannot reach Redis either leaves a whole intent,
   * never half of one, which `reconcileAll()` settles as a call that was not applied.
   */
  async open(intent: Intent): Promise<void> {
    const json = this.#encode(intent)
    const keys = [this.#record(intent.id), this.#index(intent.service)]
    let lastError: unknown
    for (let attempt = 1; attempt <= OPEN_ATTEMPTS; attempt++) {
      try {
        await runScript(this.#client, OPEN, { keys, arguments: [json, String(intent.createdAt), intent.id] })
        return
      } catch (error) {
        if (isRedisRefusal(error)) {
          // Refused by the script before it wrote anything (or by Redis before it ran): nothing to undo.
          throw new PaywireError(
            `RedisIntentStore.open: Redis refused to write intent ${intent.id}: ${refusal(error)}`,
            {
              cause: error,
            },
          )
        }
        lastError = error
        if (attempt < OPEN_ATTEMPTS) await pause(20 * attempt)
      }
    }
    // The outcome of the writes is unknown; the call will not be sent, so the intent must not stay.
    const undone = await runScript(this.#client, FORGET, { keys, arguments: [json, intent.id] }).then(
      () => true,
      () => false,
    )
    const left = undone
      ? 'nothing was left in the journal'
      : 'if the write landed, the intent stays in the journal whole, and reconcileAll() settles it as not applied'
    throw new PaywireError(
      `RedisIntentStore.open: the connection to Redis failed ${OPEN_ATTEMPTS} times writing intent ${intent.id} (${refusal(lastError)}); the call is not sent, and ${left}`,
      { cause: lastError },
    )
  }

  /**
   * Removes the intent from its service's open index and deletes its record, in one transaction.
   * The outcome is not kept (a closed intent needs nothing more). An unknown id changes nothing.
   */
  /** Redis's clock (`TIME`), in ms since the epoch: what each intent's `writtenAt` is on. */
  async now(): Promise<number> {
    return Number(await runScript(this.#client, NOW, { keys: [], arguments: [] }))
  }

  async close(id: string, _outcome: IntentOutcome): Promise<void> {
    const key = this.#record(checkKeyPart('RedisIntentStore.close', 'id', id))
    // Two steps, no script: the read only learns the service (which index to update) and nothing but
    // close removes a record, so a concurrent close of the same id does the same idempotent writes.
    const raw = text(await this.#client.get(key))
    if (raw === null) return
    const intent = this.#decode(key, raw)
    await this.#client.multi().zRem(this.#index(intent.service), id).del(key).exec()
  }

  /**
   * Every open intent of `service`, oldest first (equal `createdAt` in id order). An index entry
   * whose record is gone (left by an earlier version of this store when a write's reply was lost, or evicted) is removed from the
   * index and reported to `onOrphan`; one whose record is unreadable is skipped and reported. Neither
   * fails the scan: every other intent is listed.
   */
  async openIntents(service: string): Promise<Intent[]> {
    const index = this.#index(checkKeyPart('RedisIntentStore.openIntents', 'service', service))
    const ids = strings(await this.#client.zRange(index, 0, -1))
    if (ids.length === 0) return []
    const raws = await this.#client.mGet(ids.map((id) => this.#record(id)))
    const records = Array.isArray(raws) ? raws : []
    const intents: Intent[] = []
    for (const [i, id] of ids.entries()) {
      const key = this.#record(id)
      const raw = text(records[i])
      if (raw === null) {
        await this.#repair(service, index, id, key)
        continue
      }
      let intent: Intent
      try {
        intent = this.#decode(key, raw)
      } catch (error) {
        const createdAt = score(await this.#client.zScore(index, id))
        this.#report({
          service,
          id,
          createdAt,
          repaired: false,
          message: `${error instanceof Error ? error.message : String(error)}; it is left in ${index} and skipped by every scan until you remove it (ZREM ${index} ${id}) after checking that payment by hand`,
        })
        continue
      }
      if (intent.service === service) intents.push(intent)
      // The id was opened again under another service: this index entry is stale, drop it.
      else await this.#client.zRem(index, id)
    }
    return intents
  }

  /** An index entry without a record: closed between the two reads (nothing to do), or an orphan to drop. */
  async #repair(service: string, index: string, id: string, key: string): Promise<void> {
    const createdAt = score(await this.#client.zScore(index, id))
    if (createdAt === undefined) return // closed meanwhile: close removes both
    const removed = Number(await runScript(this.#client, REPAIR, { keys: [key, index], arguments: [id] }))
    if (removed !== 1) return // closed, or opened again, meanwhile
    const when = Number.isFinite(createdAt) ? ` opened at ${new Date(createdAt).toISOString()}` : ''
    this.#report({
      service,
      id,
      createdAt,
      repaired: true,
      message: `RedisIntentStore: intent ${id} of ${service}${when} was listed in ${index} without its record ${key}; the entry was removed. Left by an earlier version of this store when a write's reply was lost (its call was then not sent), or the record was evicted or deleted by something else (set maxmemory-policy noeviction): if that call may have been sent, check it by hand, by the time it was opened`,
    })
  }

  #report(orphan: JournalOrphan): void {
    try {
      if (this.#onOrphan) this.#onOrphan(orphan)
      // Never silent: without onOrphan this line may be the only trace of the entry.
      else console.error(orphan.message)
    } catch {
      // An observer that throws changes nothing: the scan goes on.
    }
  }

  #encode(intent: Intent): string {
    const operation = 'RedisIntentStore.open'
    if (typeof intent !== 'object' || intent === null) {
      throw new RequestValidationError(operation, [{ path: 'intent', message: 'must be an Intent object' }])
    }
    checkKeyPart(operation, 'intent.id', intent.id)
    checkKeyPart(operation, 'intent.service', intent.service)
    return encodeIntentRecord(operation, intent, this.#maxBytes)
  }

  /** The record as it was written, or an error saying the key holds something else. */
  #decode(key: string, raw: string): Intent {
    return decodeIntentRecord(
      raw,
      `RedisIntentStore: ${key} is not an intent record written by @paywire/redis (another program wrote to the journal's keys? use a keyPrefix of its own)`,
    )
  }

  #record(id: string): string {
    return `${this.#prefix}intent:${id}`
  }

  #index(service: string): string {
    return `${this.#prefix}open:${service}`
  }
}

/** What Redis answered: node-redis's MultiErrorReply keeps the failed commands' errors in `replies`. */
function refusal(error: unknown): string {
  const { replies, errorIndexes } = (error ?? {}) as { replies?: unknown[]; errorIndexes?: number[] }
  const message = (value: unknown) => (value instanceof Error ? value.message : String(value))
  const failed = (errorIndexes ?? []).map((i) => message(replies?.[i]))
  return failed.length > 0 ? failed.join('; ') : message(error)
}

/** True for an error Redis answered (node-redis's ErrorReply and its kinds), false for a lost connection. */
function isRedisRefusal(error: unknown): boolean {
  for (let proto = error; proto !== null && typeof proto === 'object'; proto = Object.getPrototypeOf(proto)) {
    if ((proto as { constructor?: { name?: string } }).constructor?.name === 'ErrorReply') return true
  }
  return false
}

/** A short pause between attempts, so a client without an offline queue does not fail them all at once. */
function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}

/** A ZSCORE reply as a number; `undefined` when the member is not there. */
function score(reply: unknown): number | undefined {
  const value = text(reply)
  return value === null ? undefined : Number(value)
}

/** ZRANGE's members as strings, whatever the client's type mapping. */
function strings(reply: unknown): string[] {
  if (!Array.isArray(reply)) return []
  return reply.map((member) => text(member) ?? '')
}
