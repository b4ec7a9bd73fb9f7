/**
 * Card gateway, following payments: no callback arrives, and the follower still reports each payment's
 * final state, confirmed by a status lookup (forward only: authorised, then settled after the capture).
 *
 * Run: npx tsx examples/card-gateway/follow-payments.ts
 * Env: PAYWIRE_CARD_* (see purchase-and-status.ts; else a local simulator)
 */
import { randomUUID } from 'node:crypto'
import { CardGateway, type CardPaymentUpdate } from '@paywire/card-gateway'
import { cardGatewayConnection } from '../shared/connect.js'
import { runIfMain, show } from '../shared/run.js'

export async function main(): Promise<void> {
  const connection = await cardGatewayConnection()
  const gw = new CardGateway(connection.options)
  const updates: CardPaymentUpdate[] = []
  let settle: (() => void) | undefined
  const settled = new Promise<void>((resolve) => {
    settle = resolve
  })
  // The schedule is compressed for the demo; the default looks after 30 s, then 1, 2, 5… minutes.
  const follower = gw.payments.follow({
    schedule: [500, 1_000, 2_000],
    tickEveryMs: 250,
    onUpdate: (update, { key }) => {
      updates.push(update)
      show(`onUpdate ${key} →`, {
        state: update.state,
        previous: update.previous,
        final: update.final,
        source: update.source,
      })
      if (update.final) settle?.()
    },
  })
  try {
    // The purchase is followed before its answer reaches this line: no track() needed.
    const order_id = `order-${randomUUID().slice(0, 8)}`
    const { redirect_url } = await gw.checkout.purchase({
      order: { number: order_id, amount: '25.00', currency: 'USD', description: 'Espresso machine' },
      success_url: 'https://shop.example/paid',
      cancel_url: 'https://shop.example/cancelled',
    })
    await connection.payAsPayer(order_id, String(redirect_url), { capture: false })
    // Authorised; the follower reports `pending`. Capture it, and it reports `settled`, final.
    while (!updates.some((u) => u.state === 'pending')) await new Promise((r) => setTimeout(r, 100))
    const { trans_id } = await gw.s2s.getTransStatusByOrder({ order_id })
    await gw.s2s.capture({ trans_id: String(trans_id) })
    await settled
    show(
      'the stream →',
      updates.map((u) => u.state),
    )
  } finally {
    await follower.stop()
    await gw.close()
    await connection.close()
  }
}

runIfMain(import.meta.url, main)
