/**
 * The payment follower's words: what it delivers (`FollowUpdate`, `FollowAttention`), what a
 * merchant configures (`FollowOptions`), and what a service gives it (`FollowSpec`: its safe
 * lookup, read into an `Observation`). Service-neutral: each service client builds its own on them.
 */

import type { Clock } from '../clock.js'
import type { ClaimStore } from '../inbox/store.js'

/**
 * What made the follower look when it confirmed a state: `callback` (a verified callback said the
 * payment moved, and a lookup confirmed it), `lookup` (a scheduled lookup found it), `journal` (an
 * intent whose answer was lost, settled by reconciliation, and then looked up).
 */
export type FollowSource = 'callback' | 'lookup' | 'journal'

/**
 * One confirmed change of a payment's state. Confirmed means a lookup answer that names the payment
 * showed it: a callback's claim alone never makes an update. Per payment, updates only move forward
 * (a later stage, or the same stage become final), and the one with `final: true` is the last.
 */
export interface FollowUpdate<Record = unknown> {
  /** The payment followed: its order id (card), reference number (remittance) or transaction reference (bill). */
  readonly ref: string
  /** The state the lookup showed, in the service's own words (`settled`, `PROCESSED`, `SUCCESSFUL`). */
  readonly state: string
  /** The state of the update before this one, or `undefined` for the first. */
  readonly previous: string | undefined
  /** Whether the payment can move no further: the follower stops following it after this update. */
  readonly final: boolean
  readonly source: FollowSource
  /** When the lookup that confirmed it answered (ISO 8601, this instance's clock). */
  readonly confirmedAt: string
  /** The lookup's answer, as the service's status lookup returned it. */
  readonly record: Record
}

/**
 * What needs a person, or a call, before it is too late: `authorization_expiring` (an authorisation
 * nobody captured expires at `expiresAt`: capture or void it now), `stuck` (not final after
 * `stuckAfterMs`: the payer abandoned the page, or the service lost it; it is still followed),
 * `stopped` (not final after `followForMs`: no longer followed).
 */
export interface FollowAttention {
  readonly ref: string
  readonly kind: 'authorization_expiring' | 'stuck' | 'stopped'
  /** The last confirmed state, or `undefined` when none was ever shown. */
  readonly state: string | undefined
  /** When following began (ISO 8601). */
  readonly since: string
  /** When the authorisation expires (ISO 8601), for `authorization_expiring`. */
  readonly expiresAt?: string
}

/** What `onUpdate` and `onAttention` are told besides the news. */
export interface FollowContext {
  /**
   * The delivery's key (`<ref>:<state>`, `<ref>:attention:<kind>`): the same for every run of one
   * delivery. A run whose process dies before the follower records it runs again with a higher
   * `attempt`: make your handling idempotent on this key (a unique index, `PostgresInbox.runOnce`).
   */
  readonly key: string
  /** This run's attempt, from 1. */
  readonly attempt: number
}

/** The options every service's `follow()` takes. */
export interface FollowOptions<Update> {
  /** Receives each confirmed state change; throwing runs it again later (at most `maxAttempts` times). */
  onUpdate(update: Update, context: FollowContext): Promise<void> | void
  /** Receives what needs acting on before it is too late; throwing runs it again later. */
  onAttention?(attention: FollowAttention, context: FollowContext): Promise<void> | void
  /**
   * Where followed payments are kept: `RedisClaimStore` or `PostgresClaimStore`, shared by every
   * instance, each payment followed by one instance at a time. Give the follower a store of its own
   * (another key prefix or schema than the callback handler's): records of another runner are
   * refused. Default: a `MemoryClaimStore` (one process; a restart forgets every payment followed).
   */
  store?: ClaimStore
  /** Status lookups this instance makes per second at most, all payments together. Default 5. */
  lookupsPerSecond?: number
  /**
   * The waits between scheduled lookups of a payment not final, in ms; the last repeats. Default
   * 30 s, 1, 2, 5, 10, 20, 30 min, then 1, 2, 4 and 6 h.
   */
  schedule?: readonly number[]
  /** Not final this long after following began: `onAttention` `stuck`, once. Default 24 h. */
  stuckAfterMs?: number
  /** Not final this long after following began: `onAttention` `stopped`, and no more lookups. Default 30 days. */
  followForMs?: number
  /** Payments looked at at once on this instance. Default 8. */
  concurrency?: number
  /** A run's lease in ms: when its instance dies, another takes the payment once it ends. Default 60 000. */
  holdMs?: number
  /** Runs whose `onUpdate` or `onAttention` threw before the payment is set aside (`failed()`). Default 8. */
  maxAttempts?: number
  /** How often this instance looks for payments due, in ms (jittered ±50 %); `0`: only when you call `tick()`. Default 5 000. */
  tickEveryMs?: number
  /** Hears every failure: a lookup that failed, an `onUpdate` that threw, a store that failed, a payment set aside. */
  onError?(error: unknown): void
  /** The clock of schedules and the lookup budget (tests inject one). Default: the real clock. */
  clock?: Clock
}

/** What a service's lookup showed of one payment. */
export type Observation<Record = unknown> =
  /** A record of this payment, in a state the service ranks. */
  | {
      readonly kind: 'state'
      readonly state: string
      /** How far along its life: a state of a lower stage never follows one of a higher. */
      readonly stage: number
      readonly final: boolean
      /**
       * A final state that a later lookup can still overturn (a card decline, when cascading tries
       * another acquirer): delivered only once a lookup at least this many ms later still shows it.
       */
      readonly settleMs?: number
      readonly record: Record
    }
  /** Nothing can be concluded now (not found yet, an answer that names another payment, a failure): look again later. */
  | { readonly kind: 'unknown'; readonly reason: string }

/** The payment as the follower keeps it: its reference and the service's interface for it. */
export interface FollowedRef {
  readonly ref: string
  /** Which of the service's lookups applies (card: `checkout` or `s2s`); `undefined` where there is one. */
  readonly api: string | undefined
}

/** What a service gives the follower. */
export interface FollowSpec<Record> {
  /** The service's package name, in messages and keys (`card-gateway`). */
  readonly service: string
  /** The follower's name in messages (`payments.follow`). */
  readonly operation: string
  /** The service's safe lookup of one payment; throws only for what a retry may fix (a network failure). */
  lookup(ref: FollowedRef): Promise<Observation<Record>>
  /** The states in which an authorisation waits for capture, with its validity and the lead time of the warning. */
  readonly authorization?: {
    readonly states: readonly string[]
    readonly validMs: number
    readonly leadMs: number
  }
  /**
   * The journal as a source: settles the client's open intents (each lookup through `take`, the
   * budget) and answers the payments they started that proved applied.
   */
  journal?(take: () => Promise<void>): Promise<readonly FollowedRef[]>
  /** Called once the follower stops: the client stops telling it of its calls and callbacks. */
  detach?(): void
}

/** What `track` found: now followed, already followed, or already final (kept for a week after). */
export type TrackAnswer = 'followed' | 'already' | 'final'

/** A payment set aside after its deliveries failed `maxAttempts` times. */
export interface FailedFollow {
  readonly ref: string
  readonly attempts: number
  /** The last failure's class and message. */
  readonly lastError: string | undefined
}
