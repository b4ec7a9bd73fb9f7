/** Callback claims on Redis: at most one holder of a key across every instance sharing the server. */

import { type ClaimState, type ClaimStore, RequestValidationError } from '@paywire/core'
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
 * Claim = one step that tells the three states apart: a free key is taken, a key this token already
 * holds answers `claimed` again (the same claim sent after its reply was lost on a dropped connection
 * must recognise itself, not find "someone else"), a completed key answers `done`, anything else
 * `held`. KEYS[1] key; ARGV held value, holdMs.
 */
const CLAIM = `local current = redis.call('GET', KEYS[1])
if not current then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return 'claimed'
end
if current == ARGV[1] then return 'claimed' end
if string.sub(current, 1, 5) == 'done:' then return 'done' end
return 'held'`

const STATES: ReadonlySet<string> = new Set(['claimed', 'held', 'done'])

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
 * Core's `ClaimStore` on Redis, under `<keyPrefix>claim:<key>`: a claim sets `held:<token>` for
 * `holdMs` when the key is free (one Lua script, which also answers `claimed` to the same token
 * again), `complete` sets `done:<token>` for `keepMs` so every redelivery in that time is answered
 * `done`, `release` deletes the key when the token still holds it. Each of the three is safe to send
 * again after a lost reply.
 */
export class RedisClaimStore implements ClaimStore {
  readonly #client: RedisClient
  readonly #prefix: string

  constructor(options: RedisStoreOptions) {
    checkStoreOptions('RedisClaimStore', options)
    this.#client = options.client
    this.#prefix = `${options.keyPrefix ?? DEFAULT_KEY_PREFIX}claim:`
  }

  /** Claims `key` for `token` for `holdMs`: `claimed` (now or already this token's), `held` by another token, or `done`. */
  async claim(key: string, token: string, holdMs: number): Promise<ClaimState> {
    const redisKey = this.#key('RedisClaimStore.claim', key)
    const checked = checkToken('RedisClaimStore.claim', token)
    const ms = checkMs('RedisClaimStore.claim', 'holdMs', holdMs)
    const reply = text(await this.#client.eval(CLAIM, { keys: [redisKey], arguments: [HELD + checked, String(ms)] }))
    if (reply !== null && STATES.has(reply)) return reply as ClaimState
    // Anything else is not this script's answer: refuse rather than guess who holds the key.
    throw new Error(`RedisClaimStore.claim: the claim script answered ${JSON.stringify(reply)}`)
  }

  /**
   * Marks `key` done for `keepMs` when `token` holds it (or nobody does): `true`, also when it was
   * already done by `token`. `false` when another token holds or completed it (left as is).
   */
  async complete(key: string, token: string, keepMs: number): Promise<boolean> {
    const redisKey = this.#key('RedisClaimStore.complete', key)
    const ms = checkMs('RedisClaimStore.complete', 'keepMs', keepMs)
    const checked = checkToken('RedisClaimStore.complete', token)
    const reply = await this.#client.eval(COMPLETE, {
      keys: [redisKey],
      arguments: [HELD + checked, DONE + checked, String(ms)],
    })
    return Number(reply) === 1
  }

  /** Frees `key` for the next delivery when `token` still holds it; a completed or re-claimed key is left as is. */
  async release(key: string, token: string): Promise<void> {
    const redisKey = this.#key('RedisClaimStore.release', key)
    const checked = checkToken('RedisClaimStore.release', token)
    await this.#client.eval(RELEASE, { keys: [redisKey], arguments: [HELD + checked] })
  }

  #key(operation: string, key: string): string {
    return this.#prefix + checkKeyPart(operation, 'key', key)
  }
}

/** A token is a non-empty string without a lone surrogate: the only proof of who holds a claim. */
function checkToken(operation: string, token: unknown): string {
  const checked = checkKeyPart(operation, 'token', token)
  if (checked === '') {
    throw new RequestValidationError(operation, [
      { path: 'token', message: 'must be a non-empty string (a fresh random one per attempt at the work)' },
    ])
  }
  return checked
}
