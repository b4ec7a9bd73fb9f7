/**
 * A payment's state from its callbacks, forward-only: deliveries arrive late, twice or out of order,
 * and a late `3ds` or `pending` after `settled` must not move the payment back (rules Platform 16, 24).
 */

import { formatAmountLike, toMinorUnits } from '../amount.js'
import { type CallbackEvent, dedupeKey, isFinal, isRefundEvent, reportedState } from '../callbacks/event.js'

/**
 * How far each state (`order_status`, or an S2S `status` in the same words) is along a payment's
 * life; later stages never give way to earlier ones.
 */
const STAGE: Readonly<Record<string, number>> = {
  prepare: 0,
  redirect: 1,
  '3ds': 1,
  // Below an authorisation: with cascading, a decline by one acquirer can be followed by a success
  // on another (rule Platform 24), never the other way round.
  decline: 2,
  pending: 3,
  settled: 4,
  void: 5,
  refund: 5,
  reversal: 5,
  chargeback: 6,
}

/** One delivered callback and when it arrived (ms, on one clock of your choice). */
export interface Delivery {
  readonly event: CallbackEvent
  readonly at: number
}

/** The folded state of one payment. */
export interface PaymentState {
  /**
   * The furthest state seen: a Checkout callback's `order_status`, an S2S callback's `status` in the
   * same words (`settled`, `decline`); unknown states rank below every known one.
   */
  readonly status: string | undefined
  /** The event that set it. */
  readonly event: CallbackEvent | undefined
  /**
   * Whether that event is final (`isFinal`: Checkout `type`, `status` and `order_status` agree, rule
   * Platform 16; an S2S state its `result` reports, confirmed by a lookup on card-md5-strrev). These
   * fields are outside the callback signature (rule Platform 15): confirm with the status lookup
   * before fulfilling an order.
   */
  readonly final: boolean
  /** Every `trans_id` seen: with cascading it can change within one payment (rule Platform 24). */
  readonly transIds: readonly string[]
  /**
   * A 3DS challenge (`transStatus: 'C'`) is the last thing that happened and nothing came for
   * `stuckAfterMs` (rule Events 3): look the payment up, or tell the payer.
   */
  readonly stuckChallenge: boolean
  /**
   * The total refunded, as a decimal string in the payment's currency (`"5.00"`), or `undefined`
   * when no successful refund callback arrived. The sum of the `amount` of each distinct successful
   * refund (a repeated delivery counts once); a refund callback without an `amount` (a full refund
   * reported the old way, or from the portal) counts as everything: the payment's `order_amount`.
   * These fields are outside the callback signature: confirm with a status lookup before paying out.
   */
  readonly refundedAmount: string | undefined
  /**
   * `'full'` once the payment's state is `refund` (S2S `REFUND`) or the refunds add up to its
   * amount; `'partial'` when something, but not all, was refunded (the payment stays `settled`);
   * `'none'` before any successful refund.
   */
  readonly refund: 'none' | 'partial' | 'full'
  /**
   * Why `refundedAmount` cannot be taken as it is, or `undefined`: a refund callback's `amount` that
   * is not an amount of the payment's currency or alone exceeds the payment (neither is summed), or
   * refunds that add up to more than the payment. Look the payment up before acting on the total.
   */
  readonly refundDoubt: string | undefined
}

/** A successful refund: Checkout `refund`/`success`, or an S2S `CREDITVOID` with result `SUCCESS`. */
function isRefundSuccess(event: CallbackEvent): boolean {
  if (!isRefundEvent(event)) return false
  return event.type === 'refund' ? event.status === 'success' : event.result === 'SUCCESS'
}

/**
 * The refunded total of distinct successful refunds, summed in minor units. For each dedupe key
 * one event counts (the furthest by \`ahead\`), so neither order nor repetition changes the sum.
 * An `amount` that is not an amount of the payment's currency (`1e3`, `-5.00`, `5.001` USD), or that
 * alone is above the payment's amount, is not summed and never makes the refund full: it is said in
 * `refundDoubt`, as is a total above the payment's amount. Nothing here throws on a callback's text.
 */
function refundedTotal(
  deliveries: readonly Delivery[],
  best: CallbackEvent | undefined,
): Pick<PaymentState, 'refundedAmount' | 'refund' | 'refundDoubt'> {
  const refunds = new Map<string, CallbackEvent>()
  for (const { event } of deliveries) {
    if (!isRefundSuccess(event)) continue
    const key = dedupeKey(event)
    const seen = refunds.get(key)
    if (seen === undefined || ahead(event, seen)) refunds.set(key, event)
  }
  const payment = best ?? [...refunds.values()][0]
  const currency = payment?.order_currency ?? payment?.['currency']
  const paymentAmount = payment?.order_amount ?? s2sPaymentAmount(deliveries)
  const totalMinor = paymentAmount === undefined ? undefined : toMinorUnits(paymentAmount, currency)
  const stateFull = best?.order_status === 'refund' || best?.status === 'REFUND'
  if (refunds.size === 0) {
    return stateFull && paymentAmount !== undefined
      ? { refundedAmount: paymentAmount, refund: 'full', refundDoubt: undefined }
      : { refundedAmount: undefined, refund: stateFull ? 'full' : 'none', refundDoubt: undefined }
  }
  const form = paymentAmount ?? '0.00'
  const write = (minor: bigint) => writeAmount(minor, currency, form)
  const doubts: string[] = []
  let sum = 0n
  let counted = false
  let whole = false
  // Sorted, so the doubt's words do not depend on delivery order either.
  for (const key of [...refunds.keys()].sort()) {
    const event = refunds.get(key) as CallbackEvent
    // The inbox's doubt about this refund (no CREDITVOID of the client explains it) stands here too.
    if (event.refundDoubt !== undefined && !doubts.includes(event.refundDoubt)) doubts.push(event.refundDoubt)
    if (event.amount === undefined) {
      whole = true
      continue
    }
    const minor = toMinorUnits(event.amount, currency)
    if (minor === undefined) {
      doubts.push(
        `a refund callback's amount ${quoted(event.amount)} is not an amount of ${currency ?? 'the payment'}: not counted`,
      )
      continue
    }
    if (totalMinor !== undefined && minor > totalMinor) {
      doubts.push(
        `a refund callback's amount ${quoted(event.amount)} is above the payment's ${paymentAmount}: not counted`,
      )
      continue
    }
    sum += minor
    counted = true
  }
  if (whole && totalMinor !== undefined && totalMinor > sum) {
    sum = totalMinor
    counted = true
  }
  if (totalMinor !== undefined && sum > totalMinor) {
    doubts.push(`the refunds add up to ${write(sum)}, above the payment's ${paymentAmount}`)
  }
  // The state says everything is refunded, the amounts say less: a partial capture (the callbacks'
  // order_amount is what was authorised), or refund callbacks missing or unreadable. The callbacks
  // cannot tell which, so the total stays what they show, and the doubt says so.
  if (stateFull && !whole && totalMinor !== undefined && totalMinor > sum) {
    doubts.push(
      `the payment's state says it is fully refunded, but its refund callbacks add up to ${write(sum)} of ${paymentAmount} (a partial capture, or refund callbacks not received or not readable)`,
    )
  }
  const full = stateFull || whole || (totalMinor !== undefined && sum >= totalMinor)
  return {
    refundedAmount: counted ? write(sum) : undefined,
    refund: full ? 'full' : 'partial',
    refundDoubt:
      doubts.length === 0
        ? undefined
        : `${doubts.join('; ')}. Look the payment up before acting on the refunded total.`,
  }
}

/**
 * The payment's amount from S2S callbacks, which carry no `order_amount`: the `amount` of a
 * `CAPTURE` callback (what was captured, so what can be refunded), else of another non-refund S2S
 * callback; the furthest by \`ahead\` when several, so delivery order does not matter.
 */
function s2sPaymentAmount(deliveries: readonly Delivery[]): string | undefined {
  let found: CallbackEvent | undefined
  const rank = (event: CallbackEvent) => (event.action === 'CAPTURE' ? 1 : 0)
  for (const { event } of deliveries) {
    if (event.type !== undefined || event.action === undefined || isRefundEvent(event) || event.amount === undefined) {
      continue
    }
    if (found === undefined || rank(event) > rank(found) || (rank(event) === rank(found) && ahead(event, found))) {
      found = event
    }
  }
  return found?.amount
}

/** A callback's text in a doubt: quoted, at most 24 characters (a 400-digit amount is not repeated whole). */
function quoted(text: string): string {
  return JSON.stringify(text.length > 24 ? `${text.slice(0, 24)}…` : text)
}

/** `minor` written like the payment's amount; in the platform's per-currency form when that form cannot hold it. */
function writeAmount(minor: bigint, currency: string | undefined, form: string): string {
  const code = currency ?? 'USD'
  try {
    return formatAmountLike(minor, code, form)
  } catch {
    // A 3-decimal amount (0.105 KWD) on a payment written with two decimals.
    return formatAmountLike(minor, code, '0.000')
  }
}

function stageOf(event: CallbackEvent): number {
  const state = reportedState(event)
  return state === undefined ? -1 : (STAGE[state] ?? -1)
}

/** How far `state` (lower case: `settled`, `3ds`) is along a payment's life; `undefined` for a state not known. */
export function paymentStage(state: string): number | undefined {
  return Object.hasOwn(STAGE, state) ? STAGE[state] : undefined
}

/**
 * How far `a` is along a payment's life against `b` (states in the words of `reportedState`):
 * positive when later. An unknown state ranks below every known one.
 */
export function compareStates(a: string | undefined, b: string | undefined): number {
  const rank = (state: string | undefined) => (state === undefined ? -1 : (STAGE[state] ?? -1))
  return rank(a) - rank(b)
}

/** A total order on events, so the fold does not depend on delivery order: stage, then final, then content. */
function ahead(a: CallbackEvent, b: CallbackEvent): boolean {
  if (stageOf(a) !== stageOf(b)) return stageOf(a) > stageOf(b)
  if (isFinal(a) !== isFinal(b)) return isFinal(a)
  return JSON.stringify(Object.entries(a).sort()) > JSON.stringify(Object.entries(b).sort())
}

/**
 * Folds the deliveries of one payment into its state; the order and repetition of deliveries do not
 * change the result. `now` and `stuckAfterMs` (default 15 minutes, a generous 3DS session) decide
 * whether an open challenge is stuck.
 */
export function foldPayment(
  deliveries: readonly Delivery[],
  options: { readonly now: number; readonly stuckAfterMs?: number },
): PaymentState {
  const stuckAfterMs = options.stuckAfterMs ?? 15 * 60 * 1000
  let best: CallbackEvent | undefined
  let last: Delivery | undefined
  const transIds = new Set<string>()
  for (const delivery of deliveries) {
    const { event, at } = delivery
    if (event.trans_id) transIds.add(event.trans_id)
    if (best === undefined || ahead(event, best)) best = event
    if (last === undefined || at > last.at || (at === last.at && ahead(event, last.event))) last = delivery
  }
  // Open: the latest delivery is a challenge and nothing further along the payment's life arrived.
  const challengeOpen = last?.event.transStatus === 'C' && best !== undefined && stageOf(best) <= stageOf(last.event)
  return {
    status: best === undefined ? undefined : reportedState(best),
    event: best,
    final: best !== undefined && isFinal(best),
    transIds: [...transIds].sort(),
    stuckChallenge: challengeOpen && last !== undefined && options.now - last.at >= stuckAfterMs,
    ...refundedTotal(deliveries, best),
  }
}
