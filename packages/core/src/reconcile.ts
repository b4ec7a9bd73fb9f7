/**
 * Reconciliation: an unknown outcome settled by the operation's safe lookup, never by sending the
 * call again. One result shape for every service, and one `reconcileAll` over the intent journal.
 */

import { PaywireError, type Reconciliation, RequestValidationError } from './errors.js'
import type { HttpClient } from './http-client.js'
import type { Intent } from './stores.js'

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
  /** For `still_unknown` and `not_reconcilable`: what to do next, and when. */
  readonly next?: string
}

/** The outcomes of `Reconciled`: only `applied` and `not_applied` close an intent. */
export type ReconciledOutcome = 'applied' | 'not_applied' | 'still_unknown' | 'not_reconcilable'

/** What reconciliation needs of an unknown outcome: the operation, its key, and when it was left unknown. */
export interface ReconcileSubject {
  readonly operation: string
  readonly reconciliation: Reconciliation
  /** Wall-clock ms: when the error was raised, or when the intent was written. */
  readonly since: number
}

/** Options of `reconcile` and `reconcileAll`. */
export interface ReconcileOptions {
  /**
   * How long after the call a lookup that finds nothing proves that nothing happened, in ms (default
   * 120 000, the default total deadline of a call): before that, the request may still be on its way
   * to the service, so "not found" gives `still_unknown` with when to look again.
   */
  readonly settleAfterMs?: number
}

/** The default of `ReconcileOptions.settleAfterMs`. */
export const DEFAULT_SETTLE_AFTER_MS = 120_000

/**
 * The operation and key of an error with `outcomeUnknown`, or of a journal intent; anything else
 * is refused (a definite outcome, or a call without a key, has nothing to reconcile).
 */
export function reconcileSubject(subject: PaywireError | Intent, client: string): ReconcileSubject {
  const refuse = (message: string): never => {
    throw new RequestValidationError(`${client}.reconcile`, [{ path: 'subject', message }])
  }
  if (subject instanceof PaywireError) {
    if (!subject.outcomeUnknown) {
      return refuse('has a definite outcome (outcomeUnknown is false): there is nothing to reconcile')
    }
    const operation = (subject as { operation?: unknown }).operation
    if (typeof operation !== 'string' || subject.reconciliation === undefined) {
      return refuse('carries no operation and reconciliation key to look up')
    }
    return { operation, reconciliation: subject.reconciliation, since: subject.occurredAt }
  }
  if (typeof subject !== 'object' || subject === null || typeof subject.operation !== 'string') {
    return refuse('must be an error with outcomeUnknown, or an intent from pendingIntents()')
  }
  if (subject.reconciliation === undefined) {
    return refuse(`is an intent of ${subject.operation} without a reconciliation key: settle it by hand`)
  }
  return { operation: subject.operation, reconciliation: subject.reconciliation, since: subject.createdAt }
}

/** The open intents of the client's journal, oldest first (none without a journal). */
export async function openIntentsOf(http: HttpClient): Promise<Intent[]> {
  return http.journal ? http.journal.openIntents(http.service) : []
}

/** One open intent and what its lookup showed. */
export interface IntentReconciled {
  readonly intent: Intent
  readonly result: Reconciled
}

/**
 * Settles every open intent of the client's journal by its lookup, oldest first, and closes those
 * whose outcome is now definite. `still_unknown` ones stay open for a later run, `not_reconcilable`
 * ones for a person to settle. Lookups only: no
 * call is sent again. An intent without a key, or whose lookup fails, is reported and stays open.
 */
export async function reconcileJournal(
  http: HttpClient,
  client: string,
  reconcile: (intent: Intent) => Promise<Reconciled>,
): Promise<IntentReconciled[]> {
  const journal = http.journal
  if (journal === undefined) {
    throw new RequestValidationError(`${client}.reconcileAll`, [
      { path: 'journal', message: 'is not configured: pass an intent store as the client option journal' },
    ])
  }
  const settled: IntentReconciled[] = []
  for (const intent of await journal.openIntents(http.service)) {
    const result = intent.reconciliation
      ? await reconcile(intent).catch(
          (error: unknown): Reconciled => ({
            outcome: 'still_unknown',
            operation: intent.operation,
            key: intent.reconciliation as Reconciliation,
            state: undefined,
            evidence: `the lookup failed: ${error instanceof Error ? error.message : String(error)}`,
            next: 'run reconcileAll() again once the service answers',
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
    if (result.outcome === 'applied' || result.outcome === 'not_applied') await journal.close(intent.id, result.outcome)
    settled.push({ intent, result })
  }
  return settled
}
