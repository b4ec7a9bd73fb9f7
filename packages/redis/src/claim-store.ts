/** Callback claims on Redis: at most one holder of a key across every instance sharing the server. */

import { randomUUID } from 'node:crypto'
import type { ClaimStore } from '@paywire/core'
import {
  checkKeyPart,
  checkMs,
  checkStoreOptions,
  DEFAULT_KEY_PREFIX,
  type RedisClient,
  type RedisStoreOptions,
  text,
} from './client.js'

/**
 * The two values a claim key holds: `held:<token>` while claimed, `done:<token>` once completed.
 * Disjoint whatever the token, so no token passed to `release` can match a completed key.
 */
const HELD = 'held:'
const DONE = 'done:'

/**
 * Complete = compare-and-set: the check of the current value and the write must be one step, or a
 * new holder could take the key between them and have its claim overwritten. Only the holder
 * completes, or anyone once the key is gone (an expired claim nobody took since is still the
 * holder's), as core's `MemoryClaimStore` does. KEYS[1] key; ARGV held value, done value, keepMs.
 */
const COMPLETE = `local held = redis.call('GET', KEYS[1])
if held and held ~= ARGV[1] and held ~= ARGV[2] then return 0 end
redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
return 1`

/**
 * Release = compare-and-delete, one step for the same reason: a GET then DEL from the client could
 * delete the claim of a new holder that took the key after this holder's claim expired.
 */
const RELEASE = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`

/**
 * Core's `ClaimStore` on Redis, under `<keyPrefix>claim:<key>`: a claim is `SET key held:<token> NX
 * PX holdMs` (one command, atomic without a script), `complete` sets `done:<token>` for `keepMs` so
 * every redelivery in that time is refused, `release` deletes the key when the token still holds it.
 */
export class RedisClaimStore implements ClaimStore {
  readonly #client: RedisClient
  readonly #prefix: string

  constructor(options: RedisStoreOptions) {
    checkStoreOptions('RedisClaimStore', options)
    this.#client = options.client
    this.#prefix = `${options.keyPrefix ?? DEFAULT_KEY_PREFIX}claim:`
  }

  /** Claims `key` for `holdMs`: a token when this caller now holds it, `undefined` when held or completed. */
  async claim(key: string, holdMs: number): Promise<string | undefined> {
    const redisKey = this.#key('RedisClaimStore.claim', key)
    const ms = checkMs('RedisClaimStore.claim', 'holdMs', holdMs)
    const token = randomUUID()
    const reply = text(
      await this.#client.set(redisKey, HELD + token, { condition: 'NX', expiration: { type: 'PX', value: ms } }),
    )
    if (reply === 'OK') return token
    if (reply === null) return undefined
    // A client that ignored NX would answer OK to every caller: refuse rather than hand out a second holder.
    throw new Error(`RedisClaimStore.claim: SET NX answered ${JSON.stringify(reply)}, not OK or nil`)
  }

  /** Marks `key` done for `keepMs` when `token` holds it (or nobody does); another holder's claim is left as is. */
  async complete(key: string, token: string, keepMs: number): Promise<void> {
    const redisKey = this.#key('RedisClaimStore.complete', key)
    const ms = checkMs('RedisClaimStore.complete', 'keepMs', keepMs)
    const checked = checkKeyPart('RedisClaimStore.complete', 'token', token)
    await this.#client.eval(COMPLETE, { keys: [redisKey], arguments: [HELD + checked, DONE + checked, String(ms)] })
  }

  /** Frees `key` for the next delivery when `token` still holds it; a completed or re-claimed key is left as is. */
  async release(key: string, token: string): Promise<void> {
    const redisKey = this.#key('RedisClaimStore.release', key)
    const checked = checkKeyPart('RedisClaimStore.release', 'token', token)
    await this.#client.eval(RELEASE, { keys: [redisKey], arguments: [HELD + checked] })
  }

  #key(operation: string, key: string): string {
    return this.#prefix + checkKeyPart(operation, 'key', key)
  }
}
