/**
 * A gateway callback: its fields, the options that verify it (which fields are signed and how), and
 * what it says: whether its state is final, its dedupe key, a stuck 3DS challenge.
 */

import type { PayerCard } from '../signing/presets.js'
import type { DigestName, UppercaseMode } from '../signing/signature.js'

/** Checkout callback hash input order (platform rule); the password is appended last. */
export const CHECKOUT_CALLBACK_FIELDS: readonly string[] = Object.freeze([
  'id',
  'order_number',
  'order_amount',
  'order_currency',
  'order_description',
])

/** Callback `type` values (rule Platform 14); unknown values still parse. */
export type CallbackType =
  | 'sale'
  | '3ds'
  | 'redirect'
  | 'capture'
  | 'refund'
  | 'void'
  | 'recurring'
  | 'chargeback'
  | 'debit'
  | 'transfer'
  | 'credit'
  | (string & {})

/** Callback `status` values (rule Platform 14); unknown values still parse. */
export type CallbackStatus = 'success' | 'fail' | 'waiting' | 'undefined' | (string & {})

/**
 * A verified callback: every received field as its exact string, the known ones typed
 * (rules Platform 14, Events 3: `transStatus`, `eci`, `protocolVersion` after 3DS).
 */
export interface CallbackEvent {
  readonly id?: string
  readonly order_number?: string
  readonly order_amount?: string
  readonly order_currency?: string
  readonly order_description?: string
  readonly order_status?: string
  readonly type?: CallbackType
  readonly status?: CallbackStatus
  readonly reason?: string
  /**
   * The card's token, when the purchase asked `req_token: true` (rule Platform 26). Not covered by
   * the callback hash (rule Platform 15): store the one the status answer gives for refunds.
   */
  readonly card_token?: string
  /** The token of an initial recurring payment (`recurring_init: true`), for `s2s.recurringSale`. */
  readonly recurring_token?: string
  /** 3DS transaction status; `C` (challenge) with no later callback means a stuck challenge. */
  readonly transStatus?: string
  readonly eci?: string
  readonly protocolVersion?: string
  /** S2S CARD callbacks carry these (rule Platform 17). */
  readonly action?: string
  readonly result?: string
  readonly order_id?: string
  readonly trans_id?: string
  /**
   * On a refund callback (S2S `CREDITVOID`): the amount of this refund, not the refunded total; the
   * payment's `order_status` (S2S `status`) stays `settled` after a partial refund and becomes
   * `refund` once everything is refunded. Outside the callback hash: `foldPayment` sums it.
   */
  readonly amount?: string
  /** On a refund callback: when this refund was made; with `amount`, what tells two refunds apart. */
  readonly creditvoid_date?: string
  readonly hash: string
  /**
   * Set by verification, never read from the body: `'transaction-only'` on an S2S callback verified
   * by the card-md5-strrev formula, whose hash covers only the trans_id (and the payer data), not
   * `status`, `result`, `action`, `amount` or `order_id`. Confirm such a callback's state with
   * `gw.s2s.getTransStatus({ trans_id })` before acting on it (the inbox, `gw.callbacks.handler`,
   * does). Absent when every field the scheme signs was checked.
   */
  readonly authenticated?: 'transaction-only'
  /**
   * Set by the inbox, never read from the body: `'lookup'` when the event's `status` (and
   * `order_id`, `amount`, `currency` when the lookup answers them) is the gateway's answer to a
   * status lookup rather than the callback's claim (card-md5-strrev S2S callbacks). `action` and
   * `result` stay the callback's unauthenticated words: act on `status`.
   */
  readonly confirmedBy?: 'lookup'
  /**
   * Set by verification, never read from the body: during a password rotation, the index in
   * `callbackPasswords` of the password that verified this callback, as a decimal string (`'1'`),
   * when it is not the first. Absent when the first (current) password verified it: once no event
   * carries it any more, the old passwords can be dropped from the list.
   */
  readonly passwordIndex?: string
  /**
   * Set by the inbox, never read from the body: on a refund callback (S2S `CREDITVOID`), why its
   * amount cannot be taken as it is. A refund's `amount` and `creditvoid_date` are outside every
   * callback signature, so a genuine body replayed with another amount verifies: when no CREDITVOID
   * this client sent (this process's record of them, and the journal's open intents) names the
   * transaction and amount, this says so. Check the refund against your own refund records.
   */
  readonly refundDoubt?: string
  readonly [field: string]: string | undefined
}

export interface CallbackOptions {
  /** Hash input field order; default `CHECKOUT_CALLBACK_FIELDS` (the platform's callback order). */
  readonly fields?: readonly string[]
  readonly digest?: DigestName
  /** Uppercasing of the callback hash input; default `ascii` (the platform signs callbacks with PHP `strtoupper`). */
  readonly uppercase?: UppercaseMode
  /**
   * Largest body verified, in bytes, checked before any parsing; default 65 536 (64 KiB). A
   * callback is a few hundred bytes: anything near the cap is an attack or a misrouted request.
   */
  readonly maxBodyBytes?: number
  /**
   * With `signature: 'card-md5-strrev'`: the payer data of this S2S callback's payment, when you
   * loaded it yourself (e.g. asynchronously, by the callback's `trans_id`) instead of `payerLookup`.
   */
  readonly payer?: PayerCard
}

const FINAL_ORDER_STATUS: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  success: {
    sale: 'settled',
    capture: 'settled',
    recurring: 'settled',
    debit: 'settled',
    transfer: 'settled',
    credit: 'settled',
    refund: 'refund',
    void: 'void',
    chargeback: 'chargeback',
  },
  fail: { sale: 'decline', recurring: 'decline', debit: 'decline' },
}

/** The S2S states a payment ends in (rule Platform 9), and the `result` that reports each. */
const FINAL_S2S_STATUS: Readonly<Record<string, string>> = {
  SETTLED: 'SUCCESS',
  VOID: 'SUCCESS',
  REFUND: 'SUCCESS',
  REVERSAL: 'SUCCESS',
  CHARGEBACK: 'SUCCESS',
  DECLINED: 'DECLINED',
}

/**
 * Whether a callback reports a final payment state. Checkout: `type`, `status` and `order_status`
 * must agree (rule Platform 16: a `3ds` callback with `success` is not final). S2S CARD (it carries
 * `action` and no `type`): a final `status` reported by its `result` (`SETTLED` by `SUCCESS`,
 * `DECLINED` by `DECLINED`, rule Platform 9); on card-md5-strrev, whose S2S hash leaves the state
 * unsigned, only once a status lookup confirmed it (`confirmedBy: 'lookup'`, set by the inbox).
 */
export function isFinal(event: CallbackEvent): boolean {
  if (event.type === undefined && event.action !== undefined) {
    if (event.authenticated === 'transaction-only' && event.confirmedBy !== 'lookup') return false
    const status = event.status?.toUpperCase()
    return status !== undefined && FINAL_S2S_STATUS[status] === event.result?.toUpperCase()
  }
  if (event.type === undefined || event.status === undefined || event.order_status === undefined) return false
  const expected = FINAL_ORDER_STATUS[event.status]?.[event.type]
  return expected !== undefined && expected === event.order_status
}

/**
 * The payment state a callback reports, in the Checkout words (`settled`, `decline`…): its
 * `order_status`, or an S2S callback's `status` in lower case (`DECLINED` is `decline`).
 */
export function reportedState(event: CallbackEvent): string | undefined {
  if (event.order_status !== undefined) return event.order_status
  if (event.type !== undefined || event.action === undefined || event.status === undefined) return undefined
  const status = event.status.toLowerCase()
  return status === 'declined' ? 'decline' : status
}

/**
 * Whether a callback reports a refund: Checkout `type: 'refund'`, or an S2S `CREDITVOID`. A payment
 * can be refunded in several parts, each reported by its own callback. Read like the dedupe key
 * reads the kind (`type`, else `action`): a Checkout callback's `action` is no field of it, and
 * outside its hash, so a sale replayed with `action=CREDITVOID` appended is still that sale (same
 * key, no refund), not a new event that runs again.
 */
export function isRefundEvent(event: CallbackEvent): boolean {
  return event.type !== undefined ? event.type === 'refund' : event.action === 'CREDITVOID'
}

/**
 * Deliveries can repeat: deduplicate on `id + type + status` (S2S: `trans_id + action + status`,
 * rule Platform 16), encoded as a JSON array so no two different events share a key. A refund is
 * the exception: one payment can be refunded in parts, and each part's callback carries the same
 * `id + type + status`, so a refund's key adds what tells two refunds apart — the payment's state
 * after it (`order_status`; S2S `status` is already in), the S2S `result`, this refund's `amount`
 * and its date (`creditvoid_date`). A repeated delivery of one refund repeats all of them and still
 * runs once; two refunds of one payment run once each.
 */
export function dedupeKey(event: CallbackEvent): string {
  const key = [event.id ?? event.trans_id ?? '', event.type ?? event.action ?? '', event.status ?? '']
  if (!isRefundEvent(event)) return JSON.stringify(key)
  return JSON.stringify([
    ...key,
    'refund',
    event.order_status ?? '',
    event.result ?? '',
    refundAmountKey(event.amount),
    event.creditvoid_date ?? '',
  ])
}

/**
 * A refund's amount as its dedupe key holds it: a plain decimal without its leading zeros or
 * trailing zero decimals (`05.00`, `5.0` and `5.00` are the one refund of `5`), so a redelivery
 * that writes the amount another way is still a repeat. Any other text is kept as it is.
 */
export function refundAmountKey(amount: string | undefined): string {
  if (amount === undefined) return ''
  const match = /^(\d+)(?:\.(\d*))?$/.exec(amount)
  if (match === null) return amount
  const units = (match[1] as string).replace(/^0+(?=\d)/, '')
  const fraction = (match[2] ?? '').replace(/0+$/, '')
  return fraction === '' ? units : `${units}.${fraction}`
}

/**
 * A stuck 3DS challenge (rule Events 3): the latest callback of a payment carries `transStatus`
 * `C` and nothing came after it. Pass the payment's callbacks in the order they arrived.
 */
export function isStuckChallenge(history: CallbackEvent | readonly CallbackEvent[]): boolean {
  const events: readonly CallbackEvent[] = Array.isArray(history) ? history : [history as CallbackEvent]
  return events.at(-1)?.transStatus === 'C'
}
