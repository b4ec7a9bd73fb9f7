/** The intent journal on Redis: a money-moving call written down before it is sent outlives the process that sent it. */

import type { Intent, IntentOutcome, IntentStore, Reconciliation, ValidationIssue } from '@paywire/core'
import { PaywireError, RequestValidationError } from '@paywire/core'
import {
  checkKeyPart,
  checkStoreOptions,
  DEFAULT_KEY_PREFIX,
  type RedisClient,
  type RedisStoreOptions,
  text,
} from './client.js'
import { jsonIssues } from './json.js'

/** The largest record Redis itself takes is 512 MiB; the default cap is far below, as wire params are small. */
const MAX_RECORD_BYTES = 512 * 1024 * 1024
const DEFAULT_MAX_INTENT_BYTES = 1024 * 1024

/** The options of `RedisIntentStore`. */
export interface RedisIntentStoreOptions extends RedisStoreOptions {
  /**
   * The largest intent record, as UTF-8 JSON bytes (default 1 MiB). A larger intent is refused by
   * `open`, so the call is not sent: a body that size is a bug, not a payment.
   */
  maxIntentBytes?: number
}

/**
 * Core's `IntentStore` on Redis. Each open intent is a JSON string at `<keyPrefix>intent:<id>` and
 * a member of its service's sorted set `<keyPrefix>open:<service>`, scored by `createdAt`. `open`
 * writes both in one `MULTI` and resolves once Redis acknowledged it; `close` removes both.
 * Records have no TTL: an intent stays until it is closed (set `maxmemory-policy noeviction`).
 */
export class RedisIntentStore implements IntentStore {
  readonly #client: RedisClient
  readonly #prefix: string
  readonly #maxBytes: number

  constructor(options: RedisIntentStoreOptions) {
    const max = (options as Partial<RedisIntentStoreOptions> | null)?.maxIntentBytes
    const extra: ValidationIssue[] = []
    if (max !== undefined && !(Number.isInteger(max) && max > 0 && max <= MAX_RECORD_BYTES)) {
      extra.push({ path: 'maxIntentBytes', message: `must be a whole number of bytes from 1 to ${MAX_RECORD_BYTES}` })
    }
    checkStoreOptions('RedisIntentStore', options, extra)
    this.#client = options.client
    this.#prefix = options.keyPrefix ?? DEFAULT_KEY_PREFIX
    this.#maxBytes = max ?? DEFAULT_MAX_INTENT_BYTES
  }

  /** Writes `intent` (record and index in one transaction); resolves only once Redis acknowledged both. */
  async open(intent: Intent): Promise<void> {
    const json = this.#encode(intent)
    const record = this.#record(intent.id)
    const index = this.#index(intent.service)
    try {
      await this.#client.multi().set(record, json).zAdd(index, { score: intent.createdAt, value: intent.id }).exec()
    } catch (error) {
      // EXEC has no rollback: when ZADD was refused (the index key holds another type) the SET still
      // ran. Drop that record, which no index lists, and report the refusal itself.
      await this.#client
        .multi()
        .del(record)
        .exec()
        .catch(() => undefined)
      throw new PaywireError(`RedisIntentStore.open: Redis refused to write intent ${intent.id}: ${refusal(error)}`, {
        cause: error,
      })
    }
  }

  /**
   * Removes the intent from its service's open index and deletes its record, in one transaction.
   * The outcome is not kept (a closed intent needs nothing more). An unknown id changes nothing.
   */
  async close(id: string, _outcome: IntentOutcome): Promise<void> {
    const key = this.#record(checkKeyPart('RedisIntentStore.close', 'id', id))
    // Two steps, no script: the read only learns the service (which index to update) and nothing but
    // close removes a record, so a concurrent close of the same id does the same idempotent writes.
    const raw = text(await this.#client.get(key))
    if (raw === null) return
    const intent = this.#decode(key, raw)
    await this.#client.multi().zRem(this.#index(intent.service), id).del(key).exec()
  }

  /** Every open intent of `service`, oldest first (equal `createdAt` in id order). */
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
        // Closed between the two reads (close removes index and record together), or lost.
        if (text(await this.#client.zScore(index, id)) === null) continue
        throw new PaywireError(
          `RedisIntentStore: intent ${id} is open in ${index} but its record ${key} is gone: something other than the journal deleted or evicted it (set maxmemory-policy noeviction). Check that payment by hand, then run ZREM ${index} ${id}.`,
        )
      }
      const intent = this.#decode(key, raw)
      if (intent.service === service) intents.push(intent)
      // The id was opened again under another service: this index entry is stale, drop it.
      else await this.#client.zRem(index, id)
    }
    return intents
  }

  #encode(intent: Intent): string {
    const operation = 'RedisIntentStore.open'
    if (typeof intent !== 'object' || intent === null) {
      throw new RequestValidationError(operation, [{ path: 'intent', message: 'must be an Intent object' }])
    }
    checkKeyPart(operation, 'intent.id', intent.id)
    checkKeyPart(operation, 'intent.service', intent.service)
    const issues: ValidationIssue[] = []
    if (typeof intent.operation !== 'string') issues.push({ path: 'intent.operation', message: 'must be a string' })
    if (typeof intent.createdAt !== 'number' || !Number.isFinite(intent.createdAt)) {
      issues.push({ path: 'intent.createdAt', message: 'must be a finite number (ms since the epoch)' })
    }
    if (intent.idempotencyKey !== undefined && typeof intent.idempotencyKey !== 'string') {
      issues.push({ path: 'intent.idempotencyKey', message: 'must be a string or undefined' })
    }
    if (intent.params !== undefined) issues.push(...jsonIssues(intent.params, 'intent.params'))
    if (intent.reconciliation !== undefined) issues.push(...jsonIssues(intent.reconciliation, 'intent.reconciliation'))
    if (issues.length > 0) throw new RequestValidationError(operation, issues)
    const { id, service, createdAt, params, reconciliation, idempotencyKey } = intent
    const json = JSON.stringify({
      id,
      service,
      operation: intent.operation,
      createdAt,
      params,
      reconciliation,
      idempotencyKey,
    })
    const bytes = Buffer.byteLength(json)
    if (bytes > this.#maxBytes) {
      throw new RequestValidationError(operation, [
        {
          path: 'intent.params',
          message: `the intent is ${bytes} bytes as JSON, over maxIntentBytes (${this.#maxBytes})`,
        },
      ])
    }
    return json
  }

  /** The record as it was written: absent `reconciliation`, `idempotencyKey` and `params` are `undefined` again. */
  #decode(key: string, raw: string): Intent {
    let parsed: unknown
    try {
      parsed = JSON.parse(raw)
    } catch {
      parsed = undefined
    }
    // 'null', an array or a number parse too: anything but an object reads as an empty record.
    const record = (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? parsed : {}) as Record<
      string,
      unknown
    >
    const { id, service, operation, createdAt, params, reconciliation, idempotencyKey } = record
    const valid =
      typeof id === 'string' &&
      typeof service === 'string' &&
      typeof operation === 'string' &&
      typeof createdAt === 'number' &&
      (idempotencyKey === undefined || typeof idempotencyKey === 'string') &&
      (reconciliation === undefined || (typeof reconciliation === 'object' && reconciliation !== null))
    if (!valid) {
      throw new PaywireError(
        `RedisIntentStore: ${key} is not an intent record written by @paywire/redis (another program wrote to the journal's keys? use a keyPrefix of its own)`,
      )
    }
    return {
      id,
      service,
      operation,
      params,
      reconciliation: reconciliation as Reconciliation | undefined,
      idempotencyKey,
      createdAt,
    }
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

/** ZRANGE's members as strings, whatever the client's type mapping. */
function strings(reply: unknown): string[] {
  if (!Array.isArray(reply)) return []
  return reply.map((member) => text(member) ?? '')
}
