/** What the endpoint examples of every group use: their setup, and the state a call needs made first. */

import { randomUUID } from 'node:crypto'
import type { CardGateway } from '../client.js'
import type { SimulatedGateway } from './gateway.js'
import { TEST_CARDS } from './rules.js'

/** What an example may use to create the state its call needs: a client, and the simulator the payer pays on. */
export interface ExampleSetup {
  readonly gw: CardGateway
  readonly simulator: SimulatedGateway
}

/** A fresh order number per call: the gateway dedups repeats of one for 15 s (rule Limits 1). */
export function orderNumber(): string {
  return `example-${randomUUID()}`
}

/** A purchase the payer has paid: authorised (`pending`), or captured (`settled`) with `capture`. */
export async function paidPurchase(
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
