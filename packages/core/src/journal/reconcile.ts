// Long: one result shape, the subject checks and reconcileAll over the journal belong together; splitting is issue 41.
/**
 * Reconciliation: an unknown outcome settled by the operation's safe lookup, never by sending the
 * call again. One result shape for every service, and one `reconcileAll` over the intent journal.
 */

import { anchoredDate, type Clock, msSince, systemClock } from '../clock.js'
import {
  callEndedMark,
  firstSentMark,
  PaywireError,
  type Reconciliation,
  RequestValidationError,
  type ValidationIssue,
} from '../errors/errors.js'
import { errorClass, type ReconcileMessage, traced, tracingIfObserved } from '../telemetry/telemetry.js'
import { accountOf } from './account.js'
import { forgetIntentMark, intentWrittenMark } from './intent-marks.js'
import type { Intent, IntentStore } from './stores.js'

/**
 * What reconciliation proved: the service acted on the call (`applied`), provably did not
 * (`not_applied`), the lookup cannot tell yet (`still_unknown`, with `next` saying what to try and
 * when), or no lookup the service documents can ever tell (`not_reconcilable`). Never a guess: a
 * lookup that finds nothing is `not_applied` only where that proves it (docs/reconciliation.md).
 */
export interface Reconciled<State = unknown> {
  /**
   * `not_reconcilable`: the service documents no lookup that settles this call (a beneficiary write,
   * a schedule, a call without a key). `evidence` says why, `next` how a person can settle it; no
   * lookup was run, and `reconcileAll()` leaves its intent open for that person to close.
   */
  readonly outcome: ReconciledOutcome
  /** The operation whose outcome was unknown: `s2s.capture`. */
  readonly operation: string
  /** The key it was looked up by. */
  readonly key: Reconciliation
  /** The lookup's answer, when there was one. */
  readonly state: State | undefined
  /** Why this outcome, in words: the lookup run and what it showed. */
  readonly evidence: string
  /**
   * For `still_unknown` and `not_reconcilable`: what to do next, and when. For `applied`, what the lost
   * answer held that the lookup cannot give back, and how to get it (a purchase's `redirect_url`).
   */
  readonly next?: string
}

/** The outcomes of `Reconciled`: only `applied` and `not_applied` close an intent. */
export type ReconciledOutcome = 'applied' | 'not_applied' | 'still_unknown' | 'not_reconcilable'

/** What reconciliation needs of an unknown outcome: the operation, its key, and how long ago the call ended. */
export interface ReconcileSubject {
  readonly operation: string
  readonly reconciliation: Reconciliation
  /**
   * Real time since the call ended (the error was raised, or the intent written), in ms, measured
   * when this subject was made: on the client's monotonic clock within a process, from the intent's
   * anchored `createdAt` across processes (docs/reconciliation.md, "How the settle delay is timed").
   */
  readonly elapsedMs: number
  /**
   * When the call ended, as `Date.now()` reads now: `Date.now() - elapsedMs`. Compare it with
   * `Date.now()` only; a wall-clock step since the call does not move it.
   */
  readonly since: number
  /**
   * For an intent: the longest its call could run from when it was written (`Intent.callLimitMs`).
   * Until `elapsedMs` passes it the call may still be on its way, so a lookup that finds nothing
   * proves nothing, whatever `settleAfterMs` says. 0 for an error: its call has ended.
   */
  readonly callLimitMs: number
  /**
   * The params of the call, as its intent recorded them (no secret is written); `undefined` for an
   * error. A lookup's record can be checked against them (its amount), not only against the key.
   */
  readonly params: unknown
  /**
   * An intent written before intents recorded their account: it may be another account's (sharing
   * the journal), so a lookup that finds nothing does not prove it `not_applied` unless the caller
   * says its unbound intents are its own (`ReconcileOptions.adoptUnboundIntents`).
   */
  readonly unbound: boolean
  /**
   * Real time since the call's first attempt that could have reached the service was sent, in ms
   * (an intent is written right before it): a dedup window a resend must arrive in runs from there,
   * not from when the call ended. `undefined` when no attempt was sent.
   */
  readonly sinceFirstSentMs: number | undefined
}

/** Options of `reconcile` and `reconcileAll`. */
export interface ReconcileOptions {
  /**
   * How long after the call a lookup that finds nothing proves that nothing happened, in ms (default
   * 120 000, the default total deadline of a call): before that, the request may still be on its way
   * to the service, so "not found" gives `still_unknown` with when to look again. Counted in real
   * time (a monotonic clock), never on the wall clock.
   */
  readonly settleAfterMs?: number
  /**
   * Whether intents written before intents recorded their account (no `account`) are this client's:
   * true when this journal has only ever been used by this one merchant account. Default false: an
   * unbound intent is settled `applied` by a lookup that finds it, but a lookup that finds nothing
   * (which, under another account's keys, says nothing) leaves it `still_unknown`.
   */
  readonly adoptUnboundIntents?: boolean
}

/**
 * Refuses options that would prove `not_applied` at once (`settleAfterMs` NaN, negative or
 * infinite) or say nothing (`adoptUnboundIntents` not a boolean), by name, before any lookup.
 */
export function checkReconcileOptions(client: string, options: ReconcileOptions | undefined): void {
  if (options === undefined) return
  const issues: ValidationIssue[] = []
  if (typeof options !== 'object' || options === null) {
    throw new RequestValidationError(`${client}.reconcile`, [{ path: 'options', message: 'must be an object' }])
  }
  const { settleAfterMs, adoptUnboundIntents } = options
  if (settleAfterMs !== undefined && !(Number.isFinite(settleAfterMs) && settleAfterMs >= 0)) {
    issues.push({
      path: 'settleAfterMs',
      message: `must be a finite number of ms >= 0 (got ${String(settleAfterMs)}): a lookup that finds nothing proves the call did not act only that long after it`,
    })
  }
  if (adoptUnboundIntents !== undefined && typeof adoptUnboundIntents !== 'boolean') {
    issues.push({ path: 'adoptUnboundIntents', message: 'must be true or false' })
  }
  if (issues.length > 0) throw new RequestValidationError(`${client}.reconcile`, issues)
}

/** The default of `ReconcileOptions.settleAfterMs`. */
export const DEFAULT_SETTLE_AFTER_MS = 120_000

const INTENT_FIELDS = '(id, service, operation, params, reconciliation, idempotencyKey, createdAt)'

/**
 * Why `value` is not an intent as a journal returns it, or `undefined` when it is one: every field
 * of `Intent` with its type. An error saved as JSON has none of `id`, `service`, `createdAt`.
 */
function intentProblem(value: Record<string, unknown>): string | undefined {
  if ('outcomeUnknown' in value || 'occurredAt' in value) {
    return 'is an error saved as JSON, not the error: its settle time and whether its outcome was definite are lost; reconcile the error object itself, or the intent from pendingIntents()'
  }
  const { id, service, operation, createdAt, reconciliation, idempotencyKey, callLimitMs, target, account, writtenAt } =
    value
  const str = (v: unknown) => typeof v === 'string' && v !== ''
  const keyed =
    reconciliation === undefined ||
    (typeof reconciliation === 'object' &&
      reconciliation !== null &&
      ['key', 'value', 'lookup'].every((f) => typeof (reconciliation as Record<string, unknown>)[f] === 'string'))
  const ok =
    str(id) &&
    str(service) &&
    str(operation) &&
    'params' in value &&
    typeof createdAt === 'number' &&
    Number.isFinite(createdAt) &&
    keyed &&
    (idempotencyKey === undefined || typeof idempotencyKey === 'string') &&
    (callLimitMs === undefined || (typeof callLimitMs === 'number' && callLimitMs >= 0)) &&
    (target === undefined || typeof target === 'string') &&
    (account === undefined || typeof account === 'string') &&
    (writtenAt === undefined || (typeof writtenAt === 'number' && Number.isFinite(writtenAt)))
  return ok ? undefined : `must be an error with outcomeUnknown, or an intent from pendingIntents() ${INTENT_FIELDS}`
}

/** Who asks `reconcileSubject`, and what it can look up. */
export interface ReconcileSubjectScope {
  /** The client's name in errors: `CardGateway` gives `CardGateway.reconcile`. */
  readonly client: string
  /** The client's service: an intent of another service is refused. */
  readonly service: string
  /**
   * The key kinds each operation of this client is reconciled by (`'s2s.capture': ['trans_id']`).
   * An error or intent keyed by a kind no operation here uses was raised by another service's
   * client; one whose operation names another kind than its own was edited or written by something
   * else. Either would be looked up by the wrong lookup, so both are refused. An operation not
   * listed (a raw `request`) may carry any kind listed.
   */
  readonly keys: Readonly<Record<string, readonly string[]>>
  /**
   * The base URLs this client sends to, with their paths: an error or intent of a call sent
   * elsewhere (the production gateway, or another path of one host) is refused, since this
   * client's lookups ask the wrong gateway.
   */
  readonly bases: readonly string[]
  /** The merchant account this client calls for (`accountFingerprint`): another account's error or intent is refused. */
  readonly account: string | undefined
  /**
   * The journal's clock now (`IntentStore.now()`), when it has one: an intent that records its
   * `writtenAt` on that clock is timed on it alone, never on this process's wall clock.
   */
  readonly storeNow?: number | undefined
  /** The client's clock (default the system clock). */
  readonly clock?: Clock
}

/**
 * The operation, key and settle time of an unknown outcome. Accepted: the error object itself (a
 * real `PaywireError` with `outcomeUnknown`, keyed by a kind of `scope.keys`), or a journal intent
 * as `pendingIntents()` returns it (of `scope.service`). Refused with the reason: an error whose
 * outcome was definite, one of another service, anything that merely looks like an error (one saved
 * as JSON has lost its settle time), a call without a key.
 * The settle time is real time: the monotonic clock within a process; for an intent written by
 * another process, its anchored `createdAt` against this process's `anchoredDate(clock)`.
 */
export function reconcileSubject(subject: PaywireError | Intent, scope: ReconcileSubjectScope): ReconcileSubject {
  const { client, service, keys, bases, account, clock = systemClock } = scope
  const elsewhere = (url: unknown, exact: boolean): string | undefined => {
    if (typeof url !== 'string' || !URL.canParse(url)) return undefined
    // An intent names its base URL; an error its request's URL, below a base URL. The oldest intents
    // name an origin alone: that one's host is all that can be checked.
    const ours = exact
      ? bases.includes(url) || (new URL(url).origin === url && bases.some((base) => new URL(base).origin === url))
      : bases.some((base) => url === base || url.startsWith(`${base}/`) || url.startsWith(`${base}?`))
    if (ours) return undefined
    return `was sent to ${url}, not below this client's ${bases.join(' or ')}: its lookups would ask the wrong gateway or account; reconcile it with a client of ${url}`
  }
  const otherAccount = (written: string | undefined): string | undefined => {
    if (written === undefined || account === undefined || written === account) return undefined
    return `was written by another merchant account (keys fingerprint ${written}; this client's is ${account}): a lookup with this client's keys sees nothing of it; reconcile it with that account's client`
  }
  const refuse = (message: string): never => {
    throw new RequestValidationError(`${client}.reconcile`, [{ path: 'subject', message }])
  }
  const settled = (
    operation: string,
    reconciliation: Reconciliation,
    elapsedMs: number,
    callLimitMs = 0,
    params: unknown = undefined,
    unbound = false,
    sinceFirstSentMs: number | undefined = elapsedMs,
  ): ReconcileSubject => ({
    operation,
    reconciliation,
    elapsedMs,
    since: Date.now() - elapsedMs,
    callLimitMs,
    params,
    unbound,
    sinceFirstSentMs,
  })
  if (subject instanceof PaywireError) {
    if (!subject.outcomeUnknown) {
      return refuse('has a definite outcome (outcomeUnknown is false): there is nothing to reconcile')
    }
    const operation = (subject as { operation?: unknown }).operation
    if (typeof operation !== 'string' || subject.reconciliation === undefined) {
      return refuse('carries no operation and reconciliation key to look up')
    }
    const wrongKey = keyProblem(operation, subject.reconciliation.key, keys)
    if (wrongKey !== undefined) return refuse(wrongKey)
    const sentElsewhere = elsewhere((subject as { url?: unknown }).url, false)
    if (sentElsewhere !== undefined) return refuse(sentElsewhere)
    const foreign = otherAccount(accountOf(subject))
    if (foreign !== undefined) return refuse(foreign)
    const sent = firstSentMark(subject)
    const elapsedMs = msSince(callEndedMark(subject))
    return settled(operation, subject.reconciliation, elapsedMs, 0, undefined, false, sent && msSince(sent))
  }
  if (typeof subject !== 'object' || subject === null || Array.isArray(subject)) {
    return refuse(`must be an error with outcomeUnknown, or an intent from pendingIntents() ${INTENT_FIELDS}`)
  }
  const problem = intentProblem(subject as unknown as Record<string, unknown>)
  if (problem !== undefined) return refuse(problem)
  if (subject.service !== service) {
    return refuse(`is an intent of ${subject.service}, not of ${service}: reconcile it with that client`)
  }
  if (subject.reconciliation === undefined) {
    return refuse(`is an intent of ${subject.operation} without a reconciliation key: settle it by hand`)
  }
  const wrongKey = keyProblem(subject.operation, subject.reconciliation.key, keys)
  if (wrongKey !== undefined) return refuse(wrongKey)
  const sentElsewhere = elsewhere(subject.target, true)
  if (sentElsewhere !== undefined) return refuse(sentElsewhere)
  const foreign = otherAccount(subject.account)
  if (foreign !== undefined) return refuse(foreign)
  const mark = intentWrittenMark(subject.id)
  // Written by this process: its own monotonic clock. By another, on a shared store with a clock of
  // its own: that clock alone (a reconciler whose clock runs ahead would otherwise take a call still
  // on its way for one long gone). Else the writer's anchored wall clock against this one's.
  const written = subject.writtenAt
  const { storeNow } = scope
  const elapsedMs = mark
    ? msSince(mark)
    : storeNow !== undefined && typeof written === 'number'
      ? storeNow - written
      : anchoredDate(clock) - subject.createdAt
  const unbound = account !== undefined && subject.account === undefined
  return settled(
    subject.operation,
    subject.reconciliation,
    elapsedMs,
    subject.callLimitMs ?? 0,
    subject.params,
    unbound,
  )
}

/** Why `key` cannot reconcile `operation` on this client, or `undefined` when it can. */
function keyProblem(
  operation: string,
  key: string,
  keys: Readonly<Record<string, readonly string[]>>,
): string | undefined {
  const every = [...new Set(Object.values(keys).flat())]
  if (!every.includes(key)) {
    return `is keyed by ${key}, which no operation of this client is keyed by (${every.join(', ')}): reconcile it with the client of the service that raised it`
  }
  const own = keys[operation]
  if (own !== undefined && !own.includes(key)) {
    return `is ${operation} keyed by ${key}, but ${operation} is keyed by ${own.join(' or ')}: it was edited or written by something else; settle it by hand`
  }
  return undefined
}

/** What the journal steps need of the engine (`OperationClient`): its journal, service and account. */
export interface JournalOwner {
  readonly journal: IntentStore | undefined
  readonly service: string
  /** The merchant account (`accountFingerprint`); another account's intents are left alone. */
  readonly account: string | undefined
}

/**
 * The open intents of the engine's journal that are this client's: its account's, and those written
 * before intents recorded one (unbound); oldest first (none without a journal). Another account's
 * intents sharing the journal are left alone.
 */
export async function openIntentsOf(engine: JournalOwner): Promise<Intent[]> {
  if (engine.journal === undefined) return []
  const open = await engine.journal.openIntents(engine.service)
  return open.filter((intent) => intent.account === undefined || intent.account === engine.account)
}

/**
 * `result` as far as `subject` proves it: a lookup that found nothing proves an unbound intent (written
 * before intents recorded their account) `not_applied` only when the caller adopts unbound intents,
 * since under another account's keys it would find nothing either.
 */
export function ownedOutcome<R extends Reconciled>(
  subject: ReconcileSubject,
  result: R,
  options?: ReconcileOptions,
): R {
  if (!subject.unbound || result.outcome !== 'not_applied' || options?.adoptUnboundIntents === true) return result
  return {
    ...result,
    outcome: 'still_unknown',
    evidence: `${result.evidence}; but this intent was written before intents recorded their merchant account, and a lookup with another account's keys would find nothing either`,
    next: "if this journal has only ever held this account's intents, reconcile it again with { adoptUnboundIntents: true }; otherwise check the call in this account's admin portal and close the intent in the journal by hand",
  }
}

/** One open intent and what its lookup showed. */
export interface IntentReconciled {
  readonly intent: Intent
  readonly result: Reconciled
  /**
   * Whether this run closed the intent in the journal. `false` for `still_unknown` and
   * `not_reconcilable`, and for a settled intent whose close the journal did not acknowledge (the
   * store was unreachable): its outcome is still `result`, and the next run settles it again.
   */
  readonly closed: boolean
}

/**
 * Settles every open intent of the client's journal by its lookup, oldest first, and closes those
 * whose outcome is now definite. `still_unknown` ones stay open for a later run, `not_reconcilable`
 * ones for a person to settle. Lookups only: no
 * call is sent again. An intent without a key, or whose lookup fails, is reported and stays open; so
 * is one whose close the journal did not acknowledge (`closed: false`, its outcome returned).
 */
export async function reconcileJournal(
  engine: JournalOwner,
  client: string,
  reconcile: (intent: Intent) => Promise<Reconciled>,
): Promise<IntentReconciled[]> {
  const journal = engine.journal
  if (journal === undefined) {
    throw new RequestValidationError(`${client}.reconcileAll`, [
      { path: 'journal', message: 'is not configured: pass an intent store as the client option journal' },
    ])
  }
  // paywire:reconcile, only when someone subscribes: the run, then each intent inside it.
  const channel = tracingIfObserved('reconcile')
  if (channel === undefined) return settleAll(journal, engine, reconcile, undefined)
  const run = reconcileMessage('all', engine.service, undefined, undefined)
  return traced(
    channel,
    run,
    () => settleAll(journal, engine, reconcile, run),
    (message, result) => {
      if (!result.ok) message.errorType = errorClass(result.error)
    },
  )
}

function reconcileMessage(
  kind: ReconcileMessage['kind'],
  service: string,
  parent: ReconcileMessage | undefined,
  intent: Intent | undefined,
): ReconcileMessage {
  const r = intent?.reconciliation
  return {
    kind,
    service,
    parent,
    operation: intent?.operation,
    reconciliation: r === undefined ? undefined : { kind: r.key, value: r.value },
    outcome: undefined,
    closed: undefined,
    intents: undefined,
    errorType: undefined,
  }
}

async function settleAll(
  journal: IntentStore,
  engine: JournalOwner,
  reconcile: (intent: Intent) => Promise<Reconciled>,
  run: ReconcileMessage | undefined,
): Promise<IntentReconciled[]> {
  const settled: IntentReconciled[] = []
  const service = engine.service
  const open = await openIntentsOf(engine)
  if (run !== undefined) run.intents = open.length
  for (const intent of open) {
    const channel = run === undefined ? undefined : tracingIfObserved('reconcile')
    if (channel === undefined) {
      settled.push(await settleOne(journal, intent, reconcile))
      continue
    }
    const message = reconcileMessage('intent', service, run, intent)
    const one = await traced(
      channel,
      message,
      () => settleOne(journal, intent, reconcile),
      (m, r) => {
        if (r.ok) {
          m.outcome = r.value.result.outcome
          m.closed = r.value.closed
        } else m.errorType = errorClass(r.error)
      },
    )
    settled.push(one)
  }
  return settled
}

/** Settles one open intent by its lookup and closes it when its outcome is definite. */
async function settleOne(
  journal: IntentStore,
  intent: Intent,
  reconcile: (intent: Intent) => Promise<Reconciled>,
): Promise<IntentReconciled> {
  const result = intent.reconciliation
    ? await reconcile(intent).catch(
        (error: unknown): Reconciled => ({
          outcome: 'still_unknown',
          operation: intent.operation,
          key: intent.reconciliation as Reconciliation,
          state: undefined,
          ...(error instanceof RequestValidationError
            ? {
                // Refused before any lookup: another gateway's call, or an intent edited by hand.
                evidence: `this client cannot settle it: ${error.message}`,
                next: 'reconcile it with a client of the gateway it was sent to, or settle it by hand, then close it in the journal',
              }
            : {
                evidence: `the lookup failed: ${error instanceof Error ? error.message : String(error)}`,
                next: 'run reconcileAll() again once the service answers',
              }),
        }),
      )
    : {
        outcome: 'not_reconcilable' as const,
        operation: intent.operation,
        key: { key: 'intent', value: intent.id, lookup: 'none' },
        state: undefined,
        evidence: `${intent.operation} was sent without a key any lookup could find it by`,
        next: 'settle it by hand with the service, then close it in the journal',
      }
  let closed = false
  if (result.outcome === 'applied' || result.outcome === 'not_applied') {
    // One close the store did not acknowledge must not fail the run: the intents closed before it
    // would have their outcomes reach no one. This one stays open, with its outcome returned.
    closed = await journal.close(intent.id, result.outcome).then(
      () => true,
      () => false,
    )
    if (closed) forgetIntentMark(intent.id)
  }
  return { intent, result, closed }
}
