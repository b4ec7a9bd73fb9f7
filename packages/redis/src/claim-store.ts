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
import { RecordBatches } from '@paywire/core/engine'
import { checkEvent, checkLease, checkLimit, checkRelease, checkToken } from './claim-checks.js'
import {
  COMPLETE,
  FAILED,
  FORGET,
  PRUNE,
  RECORD,
  RELEASE,
  RENEW,
  RETRY,
  TAKE_DUE,
  TAKE_ONE,
  WAKE,
} from './claim-scripts.js'
import {
  checkKeyPart,
  checkMs,
  checkStoreOptions,
  DEFAULT_KEY_PREFIX,
  type RedisClient,
  type RedisStoreOptions,
  runScript,
  text,
} from './client.js'

/**
 * Events one record script carries at most: about 10 µs of Redis's time each, so a full batch holds
 * the server for under a millisecond.
 */
const RECORD_BATCH = 64

/** Bytes one record script carries at most (fields and keys): a batch of large callbacks stays small. */
const RECORD_BATCH_BYTES = 1_048_576

/** The record operation, as its errors name it. */
const RECORD_OPERATION = 'RedisClaimStore.record'

/** A checked `record` call waiting for its batch. */
interface Recording {
  readonly event: NewEvent
  readonly token: string
  /** The lease in ms, or '' for a pending event. */
  readonly lease: string
}

/** Done keys swept per `prune` script: a larger backlog takes several, so no one script holds Redis long. */
const PRUNE_BATCH = 500

const ANSWERS: ReadonlySet<string> = new Set<RecordAnswer>(['taken', 'recorded', 'known', 'done', 'held'])
const STATES: ReadonlySet<string> = new Set<StoredEventState>(['pending', 'running', 'done', 'dead'])

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
  readonly #records = new RecordBatches<Recording, RecordAnswer>({
    operation: RECORD_OPERATION,
    send: (records) => this.#recordBatch(records),
    keysOf: ({ event }) => [event.key, ...event.previousKeys],
    maxItems: RECORD_BATCH,
    // UTF-16 units, not bytes: a bound, not a measure (UTF-8 takes at most three bytes per unit).
    sizeOf: ({ event }) =>
      event.previousKeys.reduce(
        (size, key) => size + key.length,
        event.fields.length + event.key.length + event.ref.length,
      ),
    maxBytes: RECORD_BATCH_BYTES,
    // Redis runs one script at a time: one batch is written while the other's callers run.
    batchesInFlight: 2,
  })

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
   * Records made while one is being written go to Redis together in the next script (group commit).
   */
  async record(event: NewEvent, token: string, leaseMs: number | undefined): Promise<RecordAnswer> {
    const checked = checkEvent(RECORD_OPERATION, event)
    const holder = checkToken(RECORD_OPERATION, token)
    const lease = leaseMs === undefined ? '' : String(checkMs(RECORD_OPERATION, 'leaseMs', leaseMs))
    return this.#records.add({ event: checked, token: holder, lease })
  }

  /** One record script for the batch: the script answers each event in order. */
  async #recordBatch(records: readonly Recording[]): Promise<Array<RecordAnswer | Error>> {
    const args = [this.#prefix]
    for (const { event, token, lease } of records) {
      args.push(
        event.key,
        token,
        lease,
        event.fields,
        event.ref,
        String(event.previousKeys.length),
        ...event.previousKeys,
      )
    }
    const replies = list(
      RECORD_OPERATION,
      await runScript(this.#client, RECORD, { keys: [this.#due, this.#done], arguments: args }),
    )
    return replies.map((one) => {
      const reply = text(one)
      if (reply !== null && ANSWERS.has(reply)) return reply as RecordAnswer
      if (reply?.startsWith('error:'))
        return new Error(`${RECORD_OPERATION}: Redis refused the record: ${reply.slice(6)}`)
      // Anything else is not this script's answer: refuse rather than guess whether it was recorded.
      return new Error(`${RECORD_OPERATION}: the record script answered ${JSON.stringify(reply)}`)
    })
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
    const reply = await runScript(this.#client, TAKE_ONE, {
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
    const reply = await runScript(this.#client, TAKE_DUE, {
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
    const reply = await runScript(this.#client, RENEW, {
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
    const reply = await runScript(this.#client, COMPLETE, {
      keys: [this.#due, this.#done, this.#event(checkedKey)],
      arguments: [this.#prefix, checkedKey, holder, String(keep)],
    })
    return Number(reply) === 1
  }

  /**
   * Ends `token`'s run of `key` without success: pending again in `retryInMs`, or dead; an
   * uncounted release gives the attempt back, and `fields`, when given, replace the record's (with
   * the run's end, only while `token` holds it running). `true` when it did or had already (sent
   * again, it writes nothing); `false` when `token` no longer holds it.
   */
  async release(key: string, token: string, next: ReleaseOptions): Promise<boolean> {
    const operation = 'RedisClaimStore.release'
    const checkedKey = checkKeyPart(operation, 'key', key)
    const holder = checkToken(operation, token)
    const { retryInMs, counted, error, dead, fields } = checkRelease(operation, next)
    const reply = await runScript(this.#client, RELEASE, {
      keys: [this.#due, this.#dead, this.#event(checkedKey)],
      arguments: [
        checkedKey,
        holder,
        String(retryInMs),
        counted ? '1' : '0',
        error ?? '',
        error === undefined ? '0' : '1',
        dead ? '1' : '0',
        fields ?? '',
        fields === undefined ? '0' : '1',
      ],
    })
    return Number(reply) === 1
  }

  /**
   * Makes the pending event `key` due now, whatever its retry time, its attempts and fields kept;
   * `false` when it is not pending (running, done, dead or absent), and then nothing is written.
   */
  async wake(key: string): Promise<boolean> {
    const checkedKey = checkKeyPart('RedisClaimStore.wake', 'key', key)
    const reply = await runScript(this.#client, WAKE, {
      keys: [this.#due, this.#event(checkedKey)],
      arguments: [checkedKey],
    })
    return Number(reply) === 1
  }

  /** The dead events, oldest received first, at most `limit`, with their fields and last error. */
  async failedEvents(limit: number): Promise<StoredEvent[]> {
    const operation = 'RedisClaimStore.failedEvents'
    const count = checkLimit(operation, limit)
    if (count === 0) return [] // ZRANGE 0 -1 would list them all
    const reply = await runScript(this.#client, FAILED, {
      keys: [this.#dead],
      arguments: [this.#prefix, String(count)],
    })
    return list(operation, reply).map((one) => taken(operation, one).event)
  }

  /** Makes the dead event `key` pending and due now, attempts reset, receive time kept; `false` when it is not dead. */
  async retry(key: string): Promise<boolean> {
    const checkedKey = checkKeyPart('RedisClaimStore.retry', 'key', key)
    const reply = await runScript(this.#client, RETRY, {
      keys: [this.#due, this.#dead, this.#event(checkedKey)],
      arguments: [checkedKey],
    })
    return Number(reply) === 1
  }

  /** Erases every record of the payment `ref` (pending, running, dead or done) and its index entries; answers how many records. */
  async forget(ref: string): Promise<number> {
    const checkedRef = checkKeyPart('RedisClaimStore.forget', 'ref', ref)
    const reply = await runScript(this.#client, FORGET, {
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
        await runScript(this.#client, PRUNE, { keys: [this.#done], arguments: [this.#prefix, String(PRUNE_BATCH)] }),
      )
      removed += batch
      // A short batch was the last; so is a reply that is not a count, rather than looping on it.
      if (!(batch >= PRUNE_BATCH)) return removed
    }
  }

  #event(key: string): string {
    return `${this.#prefix}inbox:event:${key}`
  }

  #ref(ref: string): string {
    return `${this.#prefix}inbox:ref:${ref}`
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
