/**
 * The simulated Checkout API (JSON under `/api/v1/…`): a purchase session, a credit to a card, a
 * payment's status; and one example call of each Checkout endpoint (the endpoint checklist's).
 */

import type { EndpointExamples } from '@paywire/core/engine'
import { http, type RequestHandler } from 'msw'
import { formatAmountLike, toMinorUnits } from '../amount.js'
import type { CHECKOUT } from '../resources/checkout.js'
import { type ExampleSetup, orderNumber, paidPurchase } from './example-setup.js'
import { SimulatedGateway } from './gateway.js'
import { Reply, readPath, type SimulatedPayment, tokensOf } from './rules.js'

/** The gateway with its Checkout API: `checkoutRoutes()` are its msw handlers. */
export abstract class CheckoutSimulation extends SimulatedGateway {
  /** Checkout (JSON): the session (purchase), a credit, and the status lookup. */
  protected checkoutRoutes(): RequestHandler[] {
    return [
      http.post('*/api/v1/session', ({ request }) =>
        this.serve(request, 'checkout', (b) => this.#purchase(b, request)),
      ),
      http.post('*/api/v1/payment/card/credit', ({ request }) =>
        this.serve(request, 'checkout', (b) => this.#credit(b)),
      ),
      http.post('*/api/v1/payment/status', ({ request }) => this.serve(request, 'checkout', (b) => this.#status(b))),
    ]
  }

  #purchase(body: Record<string, unknown>, request: Request): Reply {
    const keyProblem = this.checkKey('checkout', 'merchant_key', body['merchant_key'], this.merchantKey)
    if (keyProblem) return keyProblem
    const missing = this.missing(body, [
      'order.number',
      'order.amount',
      'order.currency',
      'order.description',
      'success_url',
      'cancel_url',
      'hash',
    ])
    if (this.signature === 'card-md5-strrev') missing.push(...this.missing(body, ['customer.email']))
    if (missing.length > 0) return this.invalid('checkout', missing)
    const hashProblem = this.checkHash('checkout', 'purchase', body)
    if (hashProblem) return hashProblem
    const order = body['order'] as Record<string, string>
    return this.dedup('checkout', 'purchase', order['number'] as string, () => {
      const payment: SimulatedPayment = {
        payment_id: this.uuid(),
        trans_id: this.uuid(),
        order_id: String(order['number']),
        amount: String(order['amount']),
        currency: String(order['currency']),
        description: String(order['description']),
        status: 'prepare',
        card_token: undefined,
        recurring_token: undefined,
        tokenise: body['req_token'] === true,
        recurringInit: body['recurring_init'] === true,
        captureFails: false,
        captureOnSuccess: false,
        declineAfter3ds: false,
        capturedAmount: undefined,
        createdAt: this.date(),
        payerEmail: readPath(body, 'customer.email'),
        returnUrls: {
          success: readPath(body, 'success_url'),
          cancel: readPath(body, 'cancel_url'),
          error: readPath(body, 'error_url'),
        },
      }
      this.payments.push(payment)
      this.record({ kind: 'session', trans_id: payment.trans_id, order_id: payment.order_id, amount: payment.amount })
      // The hosted page sits beside the API, under whatever prefix serves it (`paywire sim` mounts /card).
      // The route is served in any letter case (`/API/V1/session`): its prefix is found the same way.
      const base = request.url.slice(0, request.url.toLowerCase().lastIndexOf('/api/v1/'))
      return new Reply(200, { redirect_url: `${base}/checkout/${payment.payment_id}` })
    })
  }

  #credit(body: Record<string, unknown>): Reply {
    const keyProblem = this.checkKey('checkout', 'merchant_key', body['merchant_key'], this.merchantKey)
    if (keyProblem) return keyProblem
    const problems = this.missing(body, [
      'order_id',
      'order_amount',
      'order_currency',
      'order_description',
      'card_token',
      'hash',
    ])
    if (body['order'] !== undefined) problems.push('order: This field was not expected.')
    if (Array.isArray(body['card_token'])) problems.push('card_token: This value should be of type string.')
    // order_amount's form is judged by the strict checks, with the rule a session's amount has (two
    // decimals, or the currency's own form the SDK writes with amountForm 'per-currency'); lenient
    // lets any amount through here as it does there.
    if (body['operation'] !== 'credit') problems.push('operation: This value is not valid.')
    if (problems.length > 0) return this.invalid('checkout', problems)
    const hashProblem = this.checkHash('checkout', 'credit', body)
    if (hashProblem) return hashProblem
    return this.dedup('checkout', 'credit', String(body['order_id']), () => {
      const original = this.payments.find((p) => p.card_token !== undefined && p.card_token === body['card_token'])
      if (!original) return this.error('checkout', 205005, 'Card token is invalid or not found.')
      this.expire(original)
      const refused = this.refundRefusal('checkout', original, 100000, 'Refund is not allowed')
      if (refused) return refused
      // A credit goes to the card, not to one payment: the service does not cap it by the sale's
      // amount. One in the sale's currency, within what is left, counts as a (partial) refund of the
      // sale; any other credit leaves the sale fully refunded, as before partial refunds were tracked.
      const requested = String(body['order_amount'])
      const withinSale = body['order_currency'] === original.currency
      let refund = withinSale ? this.refund('checkout', original, 'order_amount', requested) : undefined
      if (refund === undefined || refund instanceof Reply) {
        // The sale's callback speaks in the sale's currency: what this credit refunded of the sale is
        // what was left of it, never the credit's figure in another currency (or above the sale).
        const total = original.capturedAmount ?? original.amount
        const left =
          (toMinorUnits(total, original.currency) ?? 0n) -
          (original.refundedAmount === undefined
            ? 0n
            : (toMinorUnits(original.refundedAmount, original.currency) ?? 0n))
        original.status = 'refund'
        original.refundedAmount = total
        refund = { amount: formatAmountLike(left, original.currency, total), full: true }
      }
      this.record({
        kind: 'credit',
        trans_id: original.trans_id,
        order_id: String(body['order_id']),
        amount: requested,
      })
      this.callback(original, 'refund', 'success', { amount: refund.amount, creditvoid_date: this.platformDate() })
      return new Reply(200, {
        result: 'SUCCESS',
        payment_id: this.uuid(),
        order_id: body['order_id'],
        amount: body['order_amount'],
        currency: body['order_currency'],
      })
    })
  }

  #status(body: Record<string, unknown>): Reply {
    const keyProblem = this.checkKey('checkout', 'merchant_key', body['merchant_key'], this.merchantKey)
    if (keyProblem) return keyProblem
    const byPayment = typeof body['payment_id'] === 'string' && body['payment_id'] !== ''
    const byOrder = typeof body['order_id'] === 'string' && body['order_id'] !== ''
    const problems = this.missing(body, ['hash'])
    if (!byPayment && !byOrder) problems.push('payment_id: This value should not be blank.')
    if (problems.length > 0) return this.invalid('checkout', problems)
    const hashProblem = this.checkHash('checkout', 'status', body)
    if (hashProblem) return hashProblem
    const found = byPayment
      ? this.payments.find((x) => x.payment_id === body['payment_id'])
      : this.payments.find((x) => x.order_id === body['order_id'])
    const p = found && this.expire(found)
    if (!p) {
      // A credit is listed under its own order_id, as a refund (what a merchant's reconciliation reads).
      const credit = byOrder
        ? this.ledger.find((e) => e.kind === 'credit' && e.order_id === body['order_id'])
        : undefined
      if (credit) {
        return new Reply(200, {
          payment_id: credit.trans_id,
          status: 'refund',
          order: { number: credit.order_id, amount: credit.amount },
        })
      }
      return this.notFound('checkout', byPayment ? 'Payment does not exist.' : 'Order does not exist.')
    }
    return new Reply(200, {
      payment_id: p.payment_id,
      date: new Date(p.createdAt).toISOString(),
      status: p.status,
      order: { number: p.order_id, amount: p.amount, currency: p.currency, description: p.description },
      ...tokensOf(p),
    })
  }
}

/** A call per Checkout row, answered with success by the simulator. */
export const CHECKOUT_EXAMPLES: EndpointExamples<typeof CHECKOUT, ExampleSetup> = {
  purchase: () => [
    {
      order: { number: orderNumber(), amount: '10.00', currency: 'USD', description: 'Example order' },
      success_url: 'https://shop.example/ok',
      cancel_url: 'https://shop.example/cancel',
    },
  ],
  credit: async (setup) => {
    const sale = await paidPurchase(setup, { capture: true, token: true })
    return [
      {
        order_id: orderNumber(),
        order_amount: '10.00',
        order_currency: 'USD',
        order_description: 'Example refund',
        card_token: String(sale.card_token),
        name: 'Example Payer',
      },
    ]
  },
  status: async (setup) => [{ order_id: (await paidPurchase(setup)).order_id }],
}
