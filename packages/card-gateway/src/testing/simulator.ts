/** A stateful card gateway that follows every card gateway rule, served as msw handlers; its ledger records side effects. */

import { http, type RequestHandler } from 'msw'
import { formatAmountLike, toMinorUnits } from '../amount.js'
import { SimulatedGateway } from './gateway.js'
import { ACTIONS, REQUIRED, Reply, readPath, S2S_STATUS, type SimulatedPayment, tokensOf, UUID } from './rules.js'

/**
 * The stateful simulator. `handlers` are msw handlers (serve them with `startMockServer`, or use
 * `startCardGatewaySimulator`); `ledger`, `payments`, `schedules` and `callbacks` are inspectable.
 */
export class CardGatewaySimulator extends SimulatedGateway {
  /** msw handlers: Checkout (JSON) under `/api/v1/…`, S2S CARD (form) at `/post`. */
  get handlers(): RequestHandler[] {
    return [
      http.post('*/api/v1/session', ({ request }) =>
        this.serve(request, 'checkout', (b) => this.#purchase(b, request)),
      ),
      http.post('*/api/v1/payment/card/credit', ({ request }) =>
        this.serve(request, 'checkout', (b) => this.#credit(b)),
      ),
      http.post('*/api/v1/payment/status', ({ request }) => this.serve(request, 'checkout', (b) => this.#status(b))),
      http.post('*/post', ({ request }) => this.serve(request, 's2s', (b) => this.#s2s(b))),
    ]
  }
  // ── Checkout ─────────────────────────────────────────────────────────────────────────────────

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
      const refused = this.#refundRefusal('checkout', original, 100000, 'Refund is not allowed')
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

  /** Refunds need a settled payment (rule States 2) and refunds enabled on the account. */
  #refundRefusal(api: 'checkout' | 's2s', p: SimulatedPayment, code: number, message: string): Reply | undefined {
    if (this.refunds === 'disabled') return this.error(api, 100000, 'Refund is not allowed')
    if (this.refunds === 'portal-only') {
      return this.error(api, 210002, 'Refund via API is not supported. Only from the connector admin portal.')
    }
    if (p.status !== 'settled') return this.error(api, code, message)
    return undefined
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

  // ── S2S CARD ─────────────────────────────────────────────────────────────────────────────────

  #s2s(body: Record<string, unknown>): Reply {
    const f = body as Record<string, string>
    const action = f['action'] ?? ''
    if (!ACTIONS.has(action)) return this.route() // rule S2S 1: any other action name → 404, 0
    if (this.unsupportedActions.includes(action)) return this.error('s2s', 204005, 'Payment action not supported')
    const keyProblem = this.checkKey('s2s', 'client_key', f['client_key'], this.clientKey)
    if (keyProblem) return keyProblem
    const missing = this.missing(body, [...(REQUIRED[action] ?? []), 'hash'])
    if (action === 'CREATE_SCHEDULE' || action === 'UPDATE_SCHEDULE') missing.push(...this.#scheduleProblems(f))
    if (missing.length > 0) return this.invalid('s2s', missing) // S2S rule 3
    const hashProblem = this.checkHash('s2s', action, body)
    if (hashProblem) return hashProblem
    // S2S rule 2: the UUID check comes before any existence check.
    if (f['schedule_id'] !== undefined && !UUID.test(f['schedule_id'])) {
      return this.error('s2s', 100000, 'This is not a valid UUID.')
    }
    switch (action) {
      case 'GET_TRANS_STATUS': {
        const p = this.payments.find((x) => x.trans_id === f['trans_id'])
        return p ? this.#transReply(action, this.expire(p)) : this.notFound('s2s', 'Transaction does not exist.')
      }
      case 'GET_TRANS_STATUS_BY_ORDER': {
        const p = this.payments.findLast((x) => x.order_id === f['order_id'])
        return p ? this.#transReply(action, this.expire(p)) : this.notFound('s2s', 'Order does not exist.')
      }
      case 'CAPTURE':
        return this.#capture(f)
      case 'VOID':
        return this.#void(f)
      case 'CREDITVOID':
        return this.#creditVoid(f)
      case 'RECURRING_SALE':
        return this.#recurringSale(f)
      default:
        return this.#schedule(action, f)
    }
  }

  #scheduleProblems(f: Record<string, string>): string[] {
    const problems: string[] = []
    const unit = f['interval_unit']
    if (unit !== undefined && unit !== 'day' && unit !== 'month') {
      problems.push('interval_unit: The value you selected is not a valid choice.')
    }
    for (const name of ['interval_length', 'payments_count']) {
      const value = f[name]
      if (value !== undefined && !/^[1-9]\d*$/.test(value)) problems.push(`${name}: This value should be positive.`)
    }
    return problems
  }

  #transReply(action: string, p: SimulatedPayment, extra: Record<string, unknown> = {}): Reply {
    return new Reply(200, {
      action,
      result: 'SUCCESS',
      status: S2S_STATUS[p.status],
      order_id: p.order_id,
      trans_id: p.trans_id,
      trans_date: new Date(p.createdAt).toISOString(),
      amount: p.capturedAmount ?? p.amount,
      currency: p.currency,
      ...tokensOf(p),
      ...extra,
    })
  }

  #capture(f: Record<string, string>): Reply {
    const p = this.payments.find((x) => x.trans_id === f['trans_id'])
    if (!p) return this.notFound('s2s', 'Transaction does not exist.')
    if (this.expire(p).status !== 'pending') {
      return this.error('s2s', 208003, 'capture requested for a payment not in pending status') // rule States 1
    }
    const amount = f['amount'] ?? p.amount
    if (Number(amount) > Number(p.amount)) return this.invalid('s2s', ['amount: This value is too high.'])
    if (p.captureFails) {
      this.record({ kind: 'capture_declined', trans_id: p.trans_id, order_id: p.order_id, amount })
      return this.#transReply('CAPTURE', p, { result: 'DECLINED', decline_reason: 'Capture declined by the acquirer' })
    }
    p.status = 'settled'
    p.capturedAmount = amount
    this.record({ kind: 'capture', trans_id: p.trans_id, order_id: p.order_id, amount })
    this.actionCallback(p, 'CAPTURE', 'capture', 'success', 'SETTLED')
    return this.#transReply('CAPTURE', p)
  }

  #void(f: Record<string, string>): Reply {
    const p = this.payments.find((x) => x.trans_id === f['trans_id'])
    if (!p) return this.error('s2s', 100000, 'Payment not found.') // payment entity: 100000
    if (this.expire(p).status !== 'pending') return this.error('s2s', 204005, 'Payment action not supported')
    p.status = 'void'
    this.record({ kind: 'void', trans_id: p.trans_id, order_id: p.order_id, amount: p.amount })
    this.actionCallback(p, 'VOID', 'void', 'success', 'VOID')
    return this.#transReply('VOID', p)
  }

  #creditVoid(f: Record<string, string>): Reply {
    const p = this.payments.find((x) => x.trans_id === f['trans_id'])
    if (!p) return this.error('s2s', 100000, 'Payment not found.')
    const refused = this.#refundRefusal('s2s', this.expire(p), 208005, 'associated with the settled state')
    if (refused) return refused
    const refund = this.refund('s2s', p, 'amount', f['amount'])
    if (refund instanceof Reply) return refund
    const { amount, full } = refund
    this.record({ kind: 'refund', trans_id: p.trans_id, order_id: p.order_id, amount })
    // The platform's CREDITVOID callback: this refund's amount and date, and the payment's state
    // after it (SETTLED while something is left to refund, REFUND once all is).
    this.actionCallback(p, 'CREDITVOID', 'refund', 'success', full ? 'REFUND' : 'SETTLED', {
      amount,
      creditvoid_date: this.platformDate(),
    })
    // CREDITVOID answers ACCEPTED at once; the outcome follows by callback (rule Platform 11).
    return new Reply(200, { action: 'CREDITVOID', result: 'ACCEPTED', order_id: p.order_id, trans_id: p.trans_id })
  }

  #recurringSale(f: Record<string, string>): Reply {
    return this.dedup('s2s', 'RECURRING_SALE', f['order_id'] as string, () => {
      const first = this.payments.find((x) => x.trans_id === f['recurring_first_trans_id'])
      const valid = first?.recurring_token !== undefined && first.recurring_token === f['recurring_token']
      if (!first || !valid) return this.error('s2s', 100000, 'Incorrect transaction') // rule S2S 4
      const p: SimulatedPayment = {
        payment_id: this.uuid(),
        trans_id: this.uuid(),
        order_id: f['order_id'] as string,
        amount: f['order_amount'] as string,
        currency: f['order_currency'] ?? first.currency,
        description: f['order_description'] as string,
        status: 'settled',
        card_token: first.card_token,
        recurring_token: first.recurring_token,
        tokenise: first.tokenise,
        recurringInit: false,
        captureFails: false,
        captureOnSuccess: true,
        declineAfter3ds: false,
        capturedAmount: f['order_amount'],
        createdAt: this.date(),
        payerEmail: first.payerEmail,
        cardDigits: first.cardDigits,
      }
      this.payments.push(p)
      this.record({ kind: 'recurring_sale', trans_id: p.trans_id, order_id: p.order_id, amount: p.amount })
      // The platform reports a recurring sale by an S2S callback (rule Platform 17): sent with
      // s2sCallbackShape 's2s' (on card-md5-strrev, as before, none follows it).
      if (this.signature === 'seed' && this.s2sShaped) {
        this.actionCallback(p, 'RECURRING_SALE', 'recurring', 'success', 'SETTLED', recurringFields(p))
      }
      return this.#transReply('RECURRING_SALE', p)
    })
  }

  #schedule(action: string, f: Record<string, string>): Reply {
    if (action === 'CREATE_SCHEDULE') {
      const id = f['schedule_id'] ?? this.uuid()
      this.schedules.set(id, {
        schedule_id: id,
        name: f['name'] as string,
        interval_length: f['interval_length'] as string,
        interval_unit: f['interval_unit'] as string,
        payments_count: f['payments_count'] as string,
      })
      this.record({ kind: 'schedule_created', schedule_id: id })
      return new Reply(200, { action, result: 'SUCCESS', schedule_id: id })
    }
    const id = f['schedule_id'] as string
    const schedule = this.schedules.get(id)
    if (!schedule) return this.error('s2s', 100000, 'Schedule not found') // schedule entity: 100000
    if (action === 'DELETE_SCHEDULE') {
      this.schedules.delete(id)
      this.record({ kind: 'schedule_deleted', schedule_id: id })
    } else {
      for (const name of ['name', 'interval_length', 'interval_unit', 'payments_count'] as const) {
        const value = f[name]
        if (value !== undefined) schedule[name] = value
      }
      this.record({ kind: 'schedule_updated', schedule_id: id })
    }
    return new Reply(200, { action, result: 'SUCCESS', schedule_id: id })
  }
}

/** What a recurring sale's S2S callback adds: the token it was charged with. */
function recurringFields(p: SimulatedPayment): Record<string, string> {
  return p.recurring_token !== undefined ? { recurring_token: p.recurring_token } : {}
}
