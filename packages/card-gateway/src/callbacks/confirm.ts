/**
 * Confirming an S2S callback on the card-md5-strrev scheme by a status lookup. That scheme's callback
 * hash covers only the password, the trans_id and the payer data, so its `status`, `result`,
 * `action`, `amount` and `order_id` can be edited on a replayed genuine body: the inbox acts on the
 * state the gateway answers to `GET_TRANS_STATUS`, never on the state the callback claims.
 */

import { PaywireError } from '@paywire/core'
import type { Acceptance, RunOutcome } from '@paywire/core/engine'
import { CardGatewayError } from '../errors.js'
import { compareStates } from '../resources/payment-state.js'
import type { S2sActionResult } from '../resources/s2s-action.js'
import { type CallbackEvent, isRefundEvent, refundAmountKey, reportedState } from './event.js'

/** Looks a transaction up by its trans_id (the client's own `s2s.getTransStatus`). */
export type TransStatusLookup = (transId: string) => Promise<S2sActionResult>

/** The fields a confirmed event takes from the lookup's answer, when the answer carries them. */
const CONFIRMED_FIELDS = ['status', 'order_id', 'amount', 'currency'] as const

/** What the lookup said of a callback's transaction. */
export type Confirmation =
  | {
      readonly kind: 'confirmed'
      readonly event: CallbackEvent
      /** The confirmed fields the callback claimed otherwise (names only: never their values). */
      readonly disagreements: readonly string[]
    }
  /** The gateway knows no such transaction (or refuses to sign for it): the callback is not its. */
  | { readonly kind: 'unknown'; readonly error: unknown }
  /** The lookup failed (network, timeout, gateway error, an answer without a status): try again later. */
  | { readonly kind: 'failed'; readonly error: unknown }

/**
 * Whether `event` must be confirmed before it is acted on: an S2S callback verified by the
 * card-md5-strrev formula, whose hash authenticates the transaction only, and not yet confirmed.
 */
export function needsConfirmation(event: CallbackEvent): boolean {
  return event.authenticated === 'transaction-only' && event.confirmedBy === undefined
}

/**
 * The event with its state as the gateway answers it: `status` (and `order_id`, `amount`,
 * `currency` when the answer carries them) from the lookup, `confirmedBy: 'lookup'`. A not-found
 * answer, or the gateway refusing the lookup's hash for this trans_id (it knows no payment to sign
 * it with), makes the callback unknown; any other failure leaves it unconfirmed for now.
 */
export async function confirmByLookup(event: CallbackEvent, lookup: TransStatusLookup): Promise<Confirmation> {
  let answer: S2sActionResult
  try {
    answer = await lookup(event.trans_id ?? '')
  } catch (error) {
    const unknown = error instanceof CardGatewayError && (error.isNotFound || error.reason === 'hash_invalid')
    return { kind: unknown ? 'unknown' : 'failed', error }
  }
  const confirmed: Record<string, string | undefined> = { ...event }
  const disagreements: string[] = []
  // A refund callback's `amount` is that refund's; the lookup's is the payment's: never one for the other.
  const refund = isRefundEvent(event)
  for (const name of CONFIRMED_FIELDS) {
    if (refund && name === 'amount') continue
    const value = answer[name]
    if (typeof value !== 'string' || value === '') continue
    if (event[name] !== undefined && event[name] !== value) disagreements.push(name)
    confirmed[name] = value
  }
  if (typeof answer.status !== 'string' || answer.status === '') {
    return { kind: 'failed', error: new Error('the status lookup answered without a status') }
  }
  confirmed['confirmedBy'] = 'lookup'
  return { kind: 'confirmed', event: confirmed as CallbackEvent, disagreements }
}

/**
 * The dedupe key of a confirmed event: the trans_id and its confirmed status. The callback's
 * `action` is left out because the hash does not cover it, so a replay with an edited action or
 * status maps to the key of the state it really reports, and each confirmed state runs once.
 * A refund (`CREDITVOID`) is the exception: a partial refund leaves the payment `SETTLED`, the
 * state its capture already reported, so with that key every partial refund would be dropped as a
 * repeat of the capture. Its key adds this refund's `amount` and `creditvoid_date`. These are
 * unsigned on this scheme, so a replayed body with them edited is a new refund event: losing
 * genuine refunds silently is the worse failure, and the refunded total to act on comes from your
 * own refund requests.
 */
export function confirmedDedupeKey(event: CallbackEvent): string {
  const key = [event.trans_id ?? '', 'confirmed', event.status ?? '']
  if (!isRefundEvent(event)) return JSON.stringify(key)
  return JSON.stringify([...key, 'refund', refundAmountKey(event.amount), event.creditvoid_date ?? ''])
}

/**
 * Confirms an S2S callback on card-md5-strrev by a status lookup, after the answer (its hash
 * leaves the state unsigned, so a replayed genuine body with an edited status would otherwise
 * pass), and files the confirmed event under the key of the state the gateway reports: that
 * record is what runs `onEvent`, once per confirmed state. A lookup that cannot be made is tried
 * again with backoff (not counted); one the gateway refuses (no such transaction, or the lookup's
 * own hash refused: a configuration fault) is counted, and set aside after `maxAttempts`.
 */
export async function confirmAndFile(
  event: CallbackEvent,
  lookup: TransStatusLookup | undefined,
  inbox: { file(confirmed: CallbackEvent): Promise<Acceptance>; report(error: unknown, event: CallbackEvent): void },
): Promise<RunOutcome> {
  const confirmation = lookup
    ? await confirmByLookup(event, lookup)
    : { kind: 'failed' as const, error: new PaywireError('no status lookup is configured') }
  if (confirmation.kind === 'confirmed') {
    const confirmed = reportedState(confirmation.event)
    if (isRefundEvent(event) && confirmed !== 'settled' && confirmed !== 'refund') {
      // A refund needs a settled payment (rule States 2): a refund claimed of a payment the gateway
      // shows in any other state is an edited replay, never run as a refund.
      inbox.report(
        new PaywireError(
          `callbacks.handler: a refund callback of a payment the gateway's status lookup shows as ${confirmation.event.status}: not a refund (a refund needs a settled payment; an edited replay?); nothing run`,
        ),
        confirmation.event,
      )
      return { kind: 'done' }
    }
    const claimed = reportedState(event)
    // A decline ends its trans_id (with cascading, a retry is another trans_id, rule Platform 24):
    // nothing later can come, so the declined state is filed. Any other state may still move on.
    if (!isRefundEvent(event) && confirmed !== 'decline' && compareStates(claimed, confirmed) > 0) {
      // Never filed under the key of the state the gateway still shows (done already, most often):
      // the claim is looked up again until the gateway's state catches up, or set aside as stuck.
      return {
        kind: 'later',
        counted: true,
        error: new PaywireError(
          `callbacks.handler: the callback claims ${String(claimed).toUpperCase()}, and the gateway's status lookup still says ${String(confirmed).toUpperCase()}: looked up again with backoff until the gateway catches up; set aside as stuck after maxAttempts`,
        ),
      }
    }
    if (confirmation.disagreements.length > 0) {
      // Names only: the claimed values are an attacker's or a stale delivery's, never repeated.
      const fields = confirmation.disagreements.join(', ')
      inbox.report(
        new PaywireError(
          `callbacks.handler: the callback's ${fields} differ from the gateway's status lookup; the event carries the confirmed state`,
        ),
        confirmation.event,
      )
    }
    const filed = await inbox.file(confirmation.event)
    if (filed === 'recorded' || filed === 'done') return { kind: 'done' }
    return {
      kind: 'later',
      counted: false,
      error: new PaywireError(`callbacks.handler: the confirmed event could not be filed (${filed}); tried again`),
    }
  }
  if (confirmation.kind === 'failed') {
    return {
      kind: 'later',
      counted: false,
      error: new PaywireError(
        'callbacks.handler: the status lookup confirming this callback failed; it is tried again with backoff',
        { cause: confirmation.error },
      ),
    }
  }
  const hashRefused = confirmation.error instanceof CardGatewayError && confirmation.error.reason === 'hash_invalid'
  return {
    kind: 'later',
    counted: true,
    error: new PaywireError(
      hashRefused
        ? "callbacks.handler: the gateway refused the confirming status lookup's hash: a configuration fault (the password, the signature scheme, or payerLookup's data for this transaction); tried again, and set aside after maxAttempts"
        : 'callbacks.handler: the gateway knows no transaction by this callback trans_id; tried again, and set aside after maxAttempts',
      { cause: confirmation.error },
    ),
  }
}
