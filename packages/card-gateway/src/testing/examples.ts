/**
 * One sample call of each endpoint, for the package's endpoint checklist and the reliability suites:
 * each succeeds on the simulator (`startCardGatewaySimulator`, with the client options it gives, which
 * name the CREATE_SCHEDULE hash inputs). Not exported: the kit's own tests use it.
 */

import { randomUUID } from 'node:crypto'
import type { EndpointExamples } from '@paywire/core/engine'
import type { CardGateway } from '../client.js'
import type { ENDPOINTS } from '../endpoints.js'
import { TEST_CARDS } from './rules.js'
import type { CardGatewaySimulator } from './simulator.js'

/** What an example may use to create the state its call needs: a client, and the simulator the payer pays on. */
export interface ExampleSetup {
  readonly gw: CardGateway
  readonly simulator: CardGatewaySimulator
}

type Examples = { readonly [G in keyof typeof ENDPOINTS]: EndpointExamples<(typeof ENDPOINTS)[G], ExampleSetup> }

/** A fresh order number per call: the gateway dedups repeats of one for 15 s (rule Limits 1). */
function orderNumber(): string {
  return `example-${randomUUID()}`
}

/** A purchase the payer has paid: authorised (`pending`), or captured (`settled`) with `capture`. */
async function paidPurchase(
  { gw, simulator }: ExampleSetup,
  options: { capture?: boolean; recurring?: boolean; token?: boolean } = {},
) {
  const number = orderNumber()
  await gw.checkout.purchase({
    order: { number, amount: '10.00', currency: 'USD', description: 'Example order' },
    success_url: 'https://shop.example/ok',
    cancel_url: 'https://shop.example/cancel',
    ...(options.recurring ? { recurring_init: true } : {}),
    ...(options.token ? { req_token: true } : {}),
  })
  return simulator.pay(number, { card: TEST_CARDS.number, expiry: TEST_CARDS.success, capture: options.capture })
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

/** A call per row; a missing row is a type error, so a new endpoint cannot go without one. */
export const EXAMPLES: Examples = {
  checkout: {
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
  },
  s2s: {
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
  },
}
