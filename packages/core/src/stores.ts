/**
 * The two stores that keep money safe across failures: the intent journal (a money-moving call is
 * written down before it is sent, so a crash cannot lose its outcome) and claims (a callback's side
 * effects run at most once per key, across every instance sharing the store). In memory here, for
 * one process; `@paywire/redis` implements both for many.
 */

import { nodeCrypto } from './builtins.js'
import { type Clock, systemClock } from './clock.js'
import type { Reconciliation } from './errors.js'

/** A money-moving call, written down before it is sent. */
export interface Intent {
  /** Unique per call (a UUID), the key of the journal entry. */
  readonly id: string
  /** The client that sent it: `card-gateway`, `remittance`, `bill-payment`. */
  readonly service: string
  /** The operation: `s2s.capture`, `transactions.mobileTransfer`… */
  readonly operation: string
  /** The params as validated, before credentials and signatures are added: no secret is written. */
  readonly params: unknown
  /** The key and the safe lookup that settle the call's outcome, when the operation has them. */
  readonly reconciliation: Reconciliation | undefined
  /** The idempotency key sent with the call, if any. */
  readonly idempotencyKey: string | undefined
  /** Wall-clock time it was written (ms since the epoch), for people and for ordering. */
  readonly createdAt: number
}

/** How an intent ended: the service acted on it, or provably did not. */
export type IntentOutcome = 'applied' | 'not_applied'

/**
 * Where intents are kept. `open` resolves only once the intent is durable: the call is sent after.
 * An intent is closed when its call ends with a definite outcome; one left open after a crash or an
 * unknown outcome is what `reconcileAll()` resolves.
 */
export interface IntentStore {
  open(intent: Intent): Promise<void>
  close(id: string, outcome: IntentOutcome): Promise<void>
  /** Every open intent of `service`, oldest first (intents written in the same millisecond: in any order). */
  openIntents(service: string): Promise<Intent[]>
}

/** The journal of one process: lost with it, so only for tests and single-process tools. */
export class MemoryIntentStore implements IntentStore {
  readonly #open = new Map<string, Intent>()

  async open(intent: Intent): Promise<void> {
    this.#open.set(intent.id, structuredClone(intent))
  }

  async close(id: string, _outcome: IntentOutcome): Promise<void> {
    this.#open.delete(id)
  }

  async openIntents(service: string): Promise<Intent[]> {
    return [...this.#open.values()].filter((i) => i.service === service).sort((a, b) => a.createdAt - b.createdAt)
  }
}

/**
 * At-most-once claims of a key, shared by every instance that uses the same store. A claim is held
 * for `holdMs` (if its holder dies, it expires and a redelivery proceeds), completed (then kept for
 * `keepMs`, and every later claim of the key is refused) or released (a failure: the next delivery
 * may retry). The token returned by `claim` proves the holder: `complete` and `release` with another
 * token change nothing.
 */
export interface ClaimStore {
  /** A token when this caller now holds `key`; `undefined` when it is held or already completed. */
  claim(key: string, holdMs: number): Promise<string | undefined>
  complete(key: string, token: string, keepMs: number): Promise<void>
  release(key: string, token: string): Promise<void>
}

interface ClaimEntry {
  readonly token: string
  readonly done: boolean
  readonly expiresAt: number
}

/** Claims of one process, timed on the monotonic clock. */
export class MemoryClaimStore implements ClaimStore {
  readonly #entries = new Map<string, ClaimEntry>()
  readonly #clock: Clock

  constructor(options: { clock?: Clock } = {}) {
    this.#clock = options.clock ?? systemClock
  }

  async claim(key: string, holdMs: number): Promise<string | undefined> {
    const now = this.#clock.now()
    const entry = this.#entries.get(key)
    if (entry && entry.expiresAt > now) return undefined
    const token = nodeCrypto().randomUUID()
    this.#entries.set(key, { token, done: false, expiresAt: now + holdMs })
    return token
  }

  async complete(key: string, token: string, keepMs: number): Promise<void> {
    const entry = this.#entries.get(key)
    // Only the holder completes; an expired claim nobody took since is still the holder's.
    if (entry && entry.token !== token && entry.expiresAt > this.#clock.now()) return
    this.#entries.set(key, { token, done: true, expiresAt: this.#clock.now() + keepMs })
  }

  async release(key: string, token: string): Promise<void> {
    const entry = this.#entries.get(key)
    if (entry?.token === token && !entry.done) this.#entries.delete(key)
  }
}
