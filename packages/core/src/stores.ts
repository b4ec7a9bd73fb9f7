/**
 * The two stores that keep money safe across failures: the intent journal (a money-moving call is
 * written down before it is sent, so a crash cannot lose its outcome) and claims (a callback's side
 * effects run once per key, across every instance sharing the store, and are never dropped). In memory here, for
 * one process; `@paywire/redis` implements both for many.
 */

import { nodeCrypto } from './builtins.js'
import { type Clock, systemClock } from './clock.js'
import { type Reconciliation, RequestValidationError } from './errors.js'

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
  /**
   * The longest the call could run from `createdAt` (the client's `totalTimeout`, in ms): until
   * then it may still be on its way, so no lookup that finds nothing settles it as not applied.
   * Absent on intents written before it was recorded.
   */
  readonly callLimitMs?: number | undefined
  /**
   * The origin the call was sent to (`https://s2s.gateway.example`). Clients of one service that
   * talk to different gateways (sandbox and production) may share a journal: each reconciles only
   * the intents sent to its own origins. Absent on intents written before it was recorded.
   */
  readonly target?: string | undefined
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
 * What a claim found: `claimed` (the caller's token holds the key now, also when it already did), `held`
 * (another token holds it: a delivery being processed, or a holder that will never answer, whose claim
 * expires after its `holdMs`) or `done` (completed: the key's work is finished, for `keepMs`).
 */
export type ClaimState = 'claimed' | 'held' | 'done'

/**
 * Claims of a key, shared by every instance that uses the same store, so a callback's work runs once
 * per key. The caller makes the token (a fresh random string per attempt at the work) before claiming:
 * every operation is idempotent for that token, so one whose reply was lost (a dropped connection) can
 * be sent again and recognises what it already did. A claim is held for `holdMs` (if its holder dies or
 * loses its connection, it expires and a redelivery proceeds), completed (kept for `keepMs`, every
 * later claim answers `done`) or released (a failure: the next delivery may retry). `complete` and
 * `release` with a token that does not hold the key change nothing.
 */
export interface ClaimStore {
  /**
   * Claims `key` for `token` for `holdMs`: `claimed` when `token` holds it now (a claim sent again
   * with the same token, after its reply was lost, answers `claimed` too), `held` while another token
   * holds it, `done` once completed.
   */
  claim(key: string, token: string, holdMs: number): Promise<ClaimState>
  /**
   * Marks `key` done for `keepMs` when `token` holds it, or nobody does (an expired claim nobody took
   * since is still the holder's). `true` when the key is now done by `token` (also when it already
   * was: sending it again is safe); `false` when another token took the key, whose work may then run
   * a second time.
   */
  complete(key: string, token: string, keepMs: number): Promise<boolean>
  /** Frees `key` when `token` still holds it; a completed key, or one another token holds, is left as is. Safe to send again. */
  release(key: string, token: string): Promise<void>
}

/**
 * A fresh claim token: random (a UUID), so no two attempts at the work share one, and made before the
 * claim so that the claim can be sent again with it after a lost reply.
 */
export function claimToken(): string {
  return nodeCrypto().randomUUID()
}

interface ClaimEntry {
  readonly token: string
  readonly done: boolean
  readonly expiresAt: number
}

/** A token must be a non-empty string: it is the only proof of who holds a claim. */
function checkToken(operation: string, token: unknown): string {
  if (typeof token !== 'string' || token === '') {
    throw new RequestValidationError(operation, [
      { path: 'token', message: 'must be a non-empty string (a fresh random one per attempt at the work)' },
    ])
  }
  return token
}

/** Claims of one process, timed on the monotonic clock. */
export class MemoryClaimStore implements ClaimStore {
  readonly #entries = new Map<string, ClaimEntry>()
  readonly #clock: Clock

  constructor(options: { clock?: Clock } = {}) {
    this.#clock = options.clock ?? systemClock
  }

  async claim(key: string, token: string, holdMs: number): Promise<ClaimState> {
    checkToken('MemoryClaimStore.claim', token)
    const now = this.#clock.now()
    const entry = this.#entries.get(key)
    if (entry && entry.expiresAt > now) {
      if (entry.done) return 'done'
      return entry.token === token ? 'claimed' : 'held'
    }
    this.#entries.set(key, { token, done: false, expiresAt: now + holdMs })
    return 'claimed'
  }

  async complete(key: string, token: string, keepMs: number): Promise<boolean> {
    checkToken('MemoryClaimStore.complete', token)
    const entry = this.#entries.get(key)
    // Only the holder completes; an expired claim nobody took since is still the holder's.
    if (entry && entry.token !== token && entry.expiresAt > this.#clock.now()) return false
    this.#entries.set(key, { token, done: true, expiresAt: this.#clock.now() + keepMs })
    return true
  }

  async release(key: string, token: string): Promise<void> {
    checkToken('MemoryClaimStore.release', token)
    const entry = this.#entries.get(key)
    if (entry?.token === token && !entry.done) this.#entries.delete(key)
  }
}
