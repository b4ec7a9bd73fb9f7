/**
 * A payment's state from its callbacks, forward-only: deliveries arrive late, twice or out of order,
 * and a late `3ds` or `pending` after `settled` must not move the payment back (rules Platform 16, 24).
 */

import { type CallbackEvent, isFinal } from './callback-event.js'

/** How far each `order_status` is along a payment's life; later stages never give way to earlier ones. */
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
  /** The furthest `order_status` seen (unknown statuses rank below every known one). */
  readonly status: string | undefined
  /** The event that set it. */
  readonly event: CallbackEvent | undefined
  /**
   * Whether that event is final: `type`, `status` and `order_status` agree (rule Platform 16). These
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
}

function stageOf(event: CallbackEvent): number {
  return event.order_status === undefined ? -1 : (STAGE[event.order_status] ?? -1)
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
    status: best?.order_status,
    event: best,
    final: best !== undefined && isFinal(best),
    transIds: [...transIds].sort(),
    stuckChallenge: challengeOpen && last !== undefined && options.now - last.at >= stuckAfterMs,
  }
}
