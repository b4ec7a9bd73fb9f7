/**
 * The intent journal: a money-moving call is written down before it is sent, so a crash cannot lose
 * its outcome. In memory here, for one process; `@paywire/redis` and `@paywire/postgres` keep it for
 * many. (The callback inbox's store is in claims.ts.)
 */

import type { Reconciliation } from '../errors/errors.js'

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
   * The base URL the call was sent to, with its path (`https://gateway.example/sandbox`; an origin
   * alone on intents written before paths were recorded). Clients of one service that talk to
   * different gateways, or to two environments under two paths of one host, may share a journal:
   * each reconciles only the intents sent to its own base URLs. Absent on the oldest intents.
   */
  readonly target?: string | undefined
  /**
   * The merchant account that wrote it: a fingerprint of the client's keys (never the keys: see
   * `accountFingerprint`). Two accounts on one gateway may share a journal: each reconciles only its
   * own intents, since a lookup with the other account's keys sees nothing of them. Absent on
   * intents written before it was recorded ("unbound": docs/reconciliation.md says how they settle).
   */
  readonly account?: string | undefined
  /**
   * When the store recorded it, in ms since the epoch on the store's own clock (Redis `TIME`,
   * PostgreSQL's `statement_timestamp()`), set by stores that have one when they list it. With the
   * store's `now()`, the time since it was written is measured on one clock: no process's clock
   * (the writer's or the reconciler's, which may run ahead) decides when "not found" proves anything.
   */
  readonly writtenAt?: number | undefined
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
  /**
   * The store's clock, in ms since the epoch, for a store shared by several processes: with each
   * intent's `writtenAt`, what reconciliation measures the time since a call on. Optional: without
   * it, a process's own clock is used.
   */
  now?(): Promise<number>
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
