/** What several card examples start from: a payment the payer has just authorised (status PENDING). */
import { randomUUID } from 'node:crypto'
import type { CardGateway } from '@paywire/card-gateway'
import type { CardConnection } from '../shared/connect.js'

export interface AuthorisedPayment {
  readonly order_id: string
  readonly trans_id: string
}

/** Purchase → the payer pays on the hosted page → the S2S lookup by order gives the `trans_id`. */
export async function authorisedPayment(
  gw: CardGateway,
  connection: CardConnection,
  options: { amount?: string; capture?: boolean; recurring?: boolean; reqToken?: boolean } = {},
): Promise<AuthorisedPayment> {
  const order_id = `order-${randomUUID().slice(0, 8)}`
  const { redirect_url } = await gw.checkout.purchase({
    order: { number: order_id, amount: options.amount ?? '25.00', currency: 'USD', description: 'Espresso machine' },
    success_url: 'https://shop.example/paid',
    cancel_url: 'https://shop.example/cancelled',
    ...(options.recurring ? { recurring_init: true } : {}),
    ...(options.reqToken ? { req_token: true } : {}), // ask for the card_token a refund needs
  })
  await connection.payAsPayer(order_id, String(redirect_url), { capture: options.capture ?? false })
  const { trans_id } = await gw.s2s.getTransStatusByOrder({ order_id })
  if (!trans_id) throw new Error(`no transaction for ${order_id} yet`)
  return { order_id, trans_id }
}
