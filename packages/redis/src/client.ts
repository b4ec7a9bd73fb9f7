/** The node-redis commands the stores send, and the checks of the options both stores take. */

import { createHash } from 'node:crypto'
import { RequestValidationError, type ValidationIssue } from '@paywire/core'

/**
 * The part of a node-redis client the stores use: a client from `createClient()`, a pool from
 * `createClientPool()` or a cluster from `createCluster()` of `redis` 5 or 6 fits, connected by you.
 * The stores never open, close or configure a connection.
 */
export interface RedisClient {
  set(key: string, value: string, options: RedisSetOptions): Promise<unknown>
  get(key: string): Promise<unknown>
  mGet(keys: string[]): Promise<unknown>
  zRange(key: string, start: number, stop: number): Promise<unknown>
  zScore(key: string, member: string): Promise<unknown>
  zRem(key: string, member: string): Promise<unknown>
  eval(script: string, options: ScriptArguments): Promise<unknown>
  evalSha(sha1: string, options: ScriptArguments): Promise<unknown>
  multi(): RedisTransaction
}

/** A script's keys and arguments, as node-redis 5 and 6 take them. */
export interface ScriptArguments {
  keys: string[]
  arguments: string[]
}

/** `SET key value NX PX ms`, as node-redis 5 and 6 spell it. */
export interface RedisSetOptions {
  condition: 'NX'
  expiration: { type: 'PX'; value: number }
}

/** `MULTI … EXEC`: the queued writes run one after the other, with no other client's command between them. */
export interface RedisTransaction {
  set(key: string, value: string): RedisTransaction
  zAdd(key: string, member: { score: number; value: string }): RedisTransaction
  zRem(key: string, member: string): RedisTransaction
  del(key: string): RedisTransaction
  exec(): Promise<unknown>
}

/** What both stores take. */
export interface RedisStoreOptions {
  /** Your connected node-redis client (`redis` 5 or 6): the store sends commands on it and nothing else. */
  client: RedisClient
  /**
   * Prepended to every key the store writes (default `paywire:`). On Redis Cluster use a hash tag,
   * e.g. `{paywire}:`, so an intent's record and its service's index share a slot.
   */
  keyPrefix?: string
}

export const DEFAULT_KEY_PREFIX = 'paywire:'

/** In `u` mode a pair is one code point, so this matches only a surrogate without its partner. */
const LONE_SURROGATE = /[\uD800-\uDFFF]/u

const COMMANDS = ['set', 'get', 'mGet', 'zRange', 'zScore', 'zRem', 'eval', 'evalSha', 'multi'] as const

/** Checks the options of a store's constructor; refuses them with every issue named. */
export function checkStoreOptions(store: string, options: unknown, extra: ValidationIssue[] = []): void {
  const issues: ValidationIssue[] = []
  if (typeof options !== 'object' || options === null) {
    throw new RequestValidationError(store, [{ path: '(options)', message: 'pass { client }' }], 'options')
  }
  const { client, keyPrefix } = options as Record<string, unknown>
  if (typeof client !== 'object' || client === null) {
    issues.push({ path: 'client', message: 'pass your connected node-redis client (createClient() of redis 5 or 6)' })
  } else {
    const methods = client as Record<string, unknown>
    const missing = COMMANDS.filter((name) => typeof methods[name] !== 'function')
    // ioredis spells them mget/zrange and takes SET flags as strings: refused, not half-working.
    const ioredis = typeof methods.mget === 'function' ? '; ioredis is not supported, pass a node-redis client' : ''
    if (missing.length > 0) {
      issues.push({
        path: 'client',
        message: `not a node-redis client (redis 5 or 6): it lacks ${missing.join(', ')}${ioredis}`,
      })
    }
  }
  if (keyPrefix !== undefined && (typeof keyPrefix !== 'string' || keyPrefix === '')) {
    issues.push({ path: 'keyPrefix', message: 'must be a non-empty string (default "paywire:")' })
  } else if (typeof keyPrefix === 'string' && LONE_SURROGATE.test(keyPrefix)) {
    issues.push({ path: 'keyPrefix', message: 'has a lone UTF-16 surrogate, which Redis would store as U+FFFD' })
  }
  issues.push(...extra)
  if (issues.length > 0) throw new RequestValidationError(store, issues, 'options')
}

/**
 * Refuses a string that is not well-formed Unicode: node-redis sends keys as UTF-8, where every lone
 * surrogate becomes U+FFFD, so two different keys would name the same Redis key.
 */
export function checkKeyPart(operation: string, path: string, value: unknown): string {
  if (typeof value !== 'string') {
    throw new RequestValidationError(operation, [{ path, message: `must be a string, got ${typeof value}` }])
  }
  if (LONE_SURROGATE.test(value)) {
    throw new RequestValidationError(operation, [
      { path, message: 'has a lone UTF-16 surrogate: Redis keys are UTF-8, where it would collide with U+FFFD' },
    ])
  }
  return value
}

/** A duration for `PX`: a finite number of ms above 0, rounded up to a whole ms (PX takes integers). */
export function checkMs(operation: string, path: string, value: unknown): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    throw new RequestValidationError(operation, [{ path, message: 'must be a finite number of ms above 0' }])
  }
  return Math.ceil(value)
}

/** A string reply, whatever the client's type mapping: node-redis may hand back a Buffer. */
export function text(reply: unknown): string | null {
  if (reply === null || reply === undefined) return null
  if (typeof reply === 'string') return reply
  if (reply instanceof Uint8Array) return Buffer.from(reply.buffer, reply.byteOffset, reply.byteLength).toString('utf8')
  return String(reply)
}

/** Every script of the stores, as made (`LuaScript`): what a test loads into a server first. */
const made: LuaScript[] = []

/** @internal The scripts of every store module loaded so far. */
export function everyScript(): readonly LuaScript[] {
  return made
}

/** A Lua script of the stores, and the SHA-1 of its text, by which EVALSHA names it. */
export class LuaScript {
  readonly text: string
  #sha1: string | undefined

  constructor(text: string) {
    this.text = text
    made.push(this)
  }

  /** Worked out on the first run, not at import: a process that never sends the script never hashes it. */
  get sha1(): string {
    this.#sha1 ??= createHash('sha1').update(this.text, 'utf8').digest('hex')
    return this.#sha1
  }
}

/** Whether Redis refused an EVALSHA for not knowing the script: nothing of it ran. */
function unknownScript(error: unknown): boolean {
  return error instanceof Error && error.message.startsWith('NOSCRIPT')
}

/**
 * Runs `script` by its SHA-1 (EVALSHA), so its text crosses the wire once per server rather than
 * with every call. A server that does not hold it yet (first use, a restart, `SCRIPT FLUSH`, another
 * node of a cluster) answers NOSCRIPT without running anything; the text is then sent (EVAL), which
 * also caches it. So the script runs once either way.
 */
export async function runScript(client: RedisClient, script: LuaScript, options: ScriptArguments): Promise<unknown> {
  try {
    return await client.evalSha(script.sha1, options)
  } catch (error) {
    if (!unknownScript(error)) throw error
  }
  return client.eval(script.text, options)
}
