/**
 * The simulated S2S CARD API (form posts to `/post`, one route dispatching on `action` through the
 * tables of `rules.ts`): lookups, CAPTURE, VOID, CREDITVOID, RECURRING_SALE and the schedule actions;
 * and one example call of each S2S endpoint (the endpoint checklist's).
 */

import { randomUUID } from 'node:crypto'
import type { EndpointExamples } from '@paywire/core/engine'
import { http, type RequestHandler } from 'msw'
import type { S2S } from '../resources/s2s.js'
import { CheckoutSimulation } from './checkout.js'
import { type ExampleSetup, orderNumber, paidPurchase } from './example-setup.js'
import { ACTIONS, REQUIRED, Reply, S2S_STATUS, type SimulatedPayment, tokensOf, UUID } from './rules.js'

/** The gateway with its Checkout and S2S APIs: `s2sRoutes()` are the S2S msw handlers. */
export abstract class S2sSimulation extends CheckoutSimulation {
  /** S2S CARD (form): every action at one path. */
  protected s2sRoutes(): RequestHandler[] {
    return [http.post('*/post', ({ request }) => this.serve(request, 's2s', (b) => this.#s2s(b)))]
  }

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
    const refused = this.refundRefusal('s2s', this.expire(p), 208005, 'associated with the settled state')
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

/** A schedule on the gateway, for the calls that change or cancel one. */
async function schedule({ gw }: ExampleSetup): Promise<string> {
  const schedule_id = randomUUID()
  await gw.s2s.createSchedule({
    name: 'Example plan',
    interval_length: 1,
    interval_unit: 'month',
    payments_count: 3,
    schedule_id,
  })
  return schedule_id
}

/** A call per S2S row, answered with success by the simulator (with the client options it gives). */
export const S2S_EXAMPLES: EndpointExamples<typeof S2S, ExampleSetup> = {
  getTransStatus: async (setup) => [{ trans_id: (await paidPurchase(setup)).trans_id }],
  getTransStatusByOrder: async (setup) => [{ order_id: (await paidPurchase(setup)).order_id }],
  capture: async (setup) => [{ trans_id: (await paidPurchase(setup)).trans_id }],
  void: async (setup) => [{ trans_id: (await paidPurchase(setup)).trans_id }],
  creditVoid: async (setup) => [{ trans_id: (await paidPurchase(setup, { capture: true })).trans_id }],
  recurringSale: async (setup) => {
    const first = await paidPurchase(setup, { capture: true, recurring: true })
    return [
      {
        order_id: orderNumber(),
        order_amount: '10.00',
        order_description: 'Example renewal',
        recurring_first_trans_id: first.trans_id,
        recurring_token: String(first.recurring_token),
      },
    ]
  },
  createSchedule: () => [
    {
      name: 'Example plan',
      interval_length: 1,
      interval_unit: 'month',
      payments_count: 3,
      schedule_id: randomUUID(),
    },
  ],
  deleteSchedule: async (setup) => [{ schedule_id: await schedule(setup) }],
  updateSchedule: async (setup) => [{ schedule_id: await schedule(setup), payments_count: 6 }],
}
