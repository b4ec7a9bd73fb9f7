/**
 * One refund callback redelivered in every way a sender could write it, through two callback
 * handlers sharing a store: the same check for each claim store (Redis, PostgreSQL).
 */

import { type CallbackEvent, CardGateway } from '@paywire/card-gateway'
import { signCallback } from '@paywire/card-gateway/testing'
import type { ClaimStore } from '@paywire/core'
import { expect } from 'vitest'

/**
 * One refund callback as a sender could redeliver it: fields reordered, the amount written `5.0`,
 * `05.00` or percent-encoded (`5%2E00`), the names percent-encoded too. The amount is outside the
 * Checkout hash, so every variant verifies.
 */
export function oneRefundWrittenManyWays(id: string): string[] {
  const fields = {
    id,
    order_number: `order-${id}`,
    order_amount: '10.00',
    order_currency: 'USD',
    order_description: 'Filters',
    order_status: 'settled',
    type: 'refund',
    status: 'success',
    amount: '5.00',
    creditvoid_date: '2026-11-26 05:00:00',
  }
  const body = signCallback(fields, 'simulator-password')
  const reordered = body.split('&').reverse().join('&')
  return [
    body,
    reordered,
    body.replace('amount=5.00', 'amount=5.0'),
    reordered.replace('amount=5.00', 'amount=05.00'),
    body.replace('amount=5.00', 'amount=5%2E00'),
    body.replace('&amount=5.00', '&%61mount=5%2e0'),
  ]
}

/**
 * Delivers `oneRefundWrittenManyWays` at once, alternating between one handler per store (each
 * store a separate connection to the same backend); resolves with how many times onEvent ran.
 */
export async function runsOfOneRefundWrittenManyWays(stores: readonly ClaimStore[]): Promise<number> {
  const gw = new CardGateway({
    checkoutUrl: 'https://checkout.example',
    s2sUrl: 'https://s2s.example',
    merchantKey: 'm',
    clientKey: 'c',
    password: 'simulator-password',
  })
  const runs: CallbackEvent[] = []
  const handlers = stores.map((store) =>
    gw.callbacks.handler({
      store,
      recoverEveryMs: 0,
      onEvent: (event) => {
        runs.push(event)
      },
    }),
  )
  try {
    const bodies = oneRefundWrittenManyWays(`pay-ways-${Date.now()}`)
    const answers = await Promise.all(
      bodies.map((body, i) => (handlers[i % handlers.length] as (typeof handlers)[number]).handle(body)),
    )
    await Promise.all(handlers.map((h) => h.drain()))
    // Each delivery finds the event recorded, by itself or the other handler: acknowledged.
    for (const answer of answers) expect(answer.status).toBe(200)
    return runs.length
  } finally {
    await Promise.all(handlers.map((h) => h.close()))
    await gw.close()
  }
}
