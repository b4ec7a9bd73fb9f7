/**
 * `gw.payments.follow()`: every card payment followed to its final state by order (rule Platform
 * 24: with cascading the `trans_id` can change, the order cannot). Checkout payments are looked up
 * with the Checkout status lookup by `order_id`, S2S ones with GET_TRANS_STATUS_BY_ORDER (rules
 * States 3, Limits 2: lookups are safe to repeat); callbacks only make the follower look now.
 */

import { type Follower, type FollowOptions, type FollowUpdate, RequestValidationError } from '@paywire/core'
import type { CallEffect, FollowedRef, Following, Observation, SettledCall } from '@paywire/core/engine'
import { CardGatewayError } from '../errors.js'
import type { Checkout, CheckoutStatusResult } from './checkout.js'
import { paymentStage } from './payment-state.js'
import type { S2s } from './s2s.js'
import type { S2sActionResult } from './s2s-action.js'

/** A confirmed change of a card payment's state: `state` in the Checkout status words, lower case (`pending`, `settled`, `decline`). */
export type CardPaymentUpdate = FollowUpdate<CheckoutStatusResult | S2sActionResult>

/** The options of `gw.payments.follow()`. */
export interface CardFollowOptions extends FollowOptions<CardPaymentUpdate> {
  /**
   * How long an authorisation (`pending`: authorised, awaiting capture, rule States) stays valid
   * before it expires, in ms, counted from when the follower first confirmed it. The gateway does
   * not publish it; card schemes allow about 7 days for most merchants. Default 7 days.
   */
  authorizationValidMs?: number
  /** How long before that `onAttention` says `authorization_expiring`, in ms. Default 24 h. */
  authorizationLeadMs?: number
  /**
   * A decline is final only when a lookup at least this long after the first that showed it still
   * shows it, in ms: with cascading the gateway may authorise the same order on another acquirer
   * (rule Platform 24). Default 60 000.
   */
  declineConfirmAfterMs?: number
}

const DAY = 24 * 60 * 60 * 1000

/** States a payment leaves no more on its own: followed no further once confirmed. */
const FINAL = new Set(['settled', 'decline', 'void', 'refund', 'reversal', 'chargeback'])

/** The default of `declineConfirmAfterMs`: a minute covers a cascade's retries on other acquirers. */
const DECLINE_CONFIRM_AFTER_MS = 60_000

/** The calls that start a payment, and where its order id is in what they sent. */
const STARTS: Readonly<
  Record<string, { api: 'checkout' | 's2s'; order: (params: Record<string, unknown>) => unknown }>
> = {
  'checkout.purchase': { api: 'checkout', order: (params) => (params['order'] as Record<string, unknown>)?.['number'] },
  's2s.recurringSale': { api: 's2s', order: (params) => params['order_id'] },
}

/** The calls that move an existing payment: the answer names its order. */
const MOVES = new Set(['s2s.capture', 's2s.void', 's2s.creditVoid'])

/** The payment a settled card call started or moved, if any. */
export function cardCallEffect(call: SettledCall): CallEffect | undefined {
  const params = (call.params ?? {}) as Record<string, unknown>
  const start = STARTS[call.operation]
  if (start !== undefined) {
    const order = start.order(params)
    return typeof order === 'string' && order !== ''
      ? { followed: { ref: order, api: start.api }, effect: 'started' }
      : undefined
  }
  if (MOVES.has(call.operation) && call.error === undefined) {
    const order = (call.data as Record<string, unknown> | undefined)?.['order_id']
    if (typeof order === 'string' && order !== '') return { followed: { ref: order, api: 's2s' }, effect: 'moved' }
  }
  return undefined
}

/** What a lookup answer shows of the payment. */
function observe(
  status: unknown,
  record: CheckoutStatusResult | S2sActionResult,
  declineConfirmAfterMs: number,
): Observation<CheckoutStatusResult | S2sActionResult> {
  const state = typeof status === 'string' ? status.toLowerCase() : ''
  const stage = paymentStage(state)
  if (stage === undefined) {
    return {
      kind: 'unknown',
      reason: `the status lookup shows a state the SDK does not rank (${JSON.stringify(state.slice(0, 40))})`,
    }
  }
  const final = FINAL.has(state)
  return {
    kind: 'state',
    state,
    stage,
    final,
    record,
    ...(state === 'decline' ? { settleMs: declineConfirmAfterMs } : {}),
  }
}

/** The card client's lookup of a followed payment: Checkout status or GET_TRANS_STATUS_BY_ORDER, by order. */
export async function lookupCardPayment(
  checkout: Checkout,
  s2s: S2s,
  followed: FollowedRef,
  declineConfirmAfterMs = DECLINE_CONFIRM_AFTER_MS,
): Promise<Observation<CheckoutStatusResult | S2sActionResult>> {
  try {
    if (followed.api === 's2s') {
      const record = await s2s.getTransStatusByOrder({ order_id: followed.ref })
      return observe(record.status, record, declineConfirmAfterMs)
    }
    const record = await checkout.status({ order_id: followed.ref })
    return observe(record.status, record, declineConfirmAfterMs)
  } catch (error) {
    // Not there yet (the payer has not reached the page), or an answer that shows nothing of this
    // order: look again on the schedule. Anything else is reported, and looked at again too.
    if (
      error instanceof CardGatewayError &&
      (error.isNotFound || error.reason === 'unreadable_response' || error.reason === 'unbound_response')
    ) {
      return { kind: 'unknown', reason: error.message }
    }
    throw error
  }
}

/** How the card client follows payments: `gw.payments`. */
export class Payments {
  readonly #following: Following<CheckoutStatusResult | S2sActionResult>
  readonly #checkout: Checkout
  readonly #s2s: S2s

  /** @internal */
  constructor(following: Following<CheckoutStatusResult | S2sActionResult>, checkout: Checkout, s2s: S2s) {
    this.#following = following
    this.#checkout = checkout
    this.#s2s = s2s
  }

  /**
   * Follows every payment this client starts (a Checkout purchase, a RECURRING_SALE; also when its
   * outcome is unknown), every payment a verified callback names, the payments of the journal's
   * open intents once reconciliation shows them applied, and any you `track(orderId)`, until each
   * is final. `onUpdate` receives one forward-only stream of states confirmed by a status lookup by
   * order; `onAttention` an authorisation nearing expiry or a payment stuck. Lookups stay within
   * `lookupsPerSecond`. Call `stop()` on shutdown.
   */
  follow(options: CardFollowOptions): Follower<CheckoutStatusResult | S2sActionResult> {
    const validMs = options?.authorizationValidMs ?? 7 * DAY
    const leadMs = options?.authorizationLeadMs ?? DAY
    const declineMs = options?.declineConfirmAfterMs ?? DECLINE_CONFIRM_AFTER_MS
    checkCardFollowOptions({
      authorizationValidMs: validMs,
      authorizationLeadMs: leadMs,
      declineConfirmAfterMs: declineMs,
    })
    return this.#following.follow(options, {
      authorization: { states: ['pending'], validMs, leadMs },
      lookup: (followed) => lookupCardPayment(this.#checkout, this.#s2s, followed, declineMs),
    })
  }
}

function checkCardFollowOptions(given: Readonly<Record<string, unknown>>): void {
  const issues = Object.entries(given)
    .filter(([, value]) => typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0)
    .map(([path]) => ({ path, message: 'must be a whole number of ms >= 0' }))
  if (issues.length > 0) throw new RequestValidationError('payments.follow', issues, 'options')
}
