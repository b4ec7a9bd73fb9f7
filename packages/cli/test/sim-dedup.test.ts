/**
 * `paywire sim`'s 15 s duplicate-request window, from the attacker's side: one order_id sent to two
 * different operations. A repeat of the same operation is answered with the first answer; another
 * operation reusing the order_id is never answered from the first one's cache.
 */

import { describe, expect, it } from 'vitest'
import { coreutilsHash, type SimProcess, useSims } from './helpers.js'

const { sim } = useSims()
const PASSWORD = 'SIM-PASSWORD'

// biome-ignore lint/suspicious/noExplicitAny: answers are read ad hoc
type Answer = { status: number; body: any }

async function post(url: string, type: 'json' | 'form', body: Record<string, unknown>): Promise<Answer> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': type === 'json' ? 'application/json' : 'application/x-www-form-urlencoded' },
    body: type === 'json' ? JSON.stringify(body) : new URLSearchParams(body as Record<string, string>).toString(),
  })
  return { status: response.status, body: await response.json() }
}

function purchase(s: SimProcess, number: string) {
  const card = s.description.card
  if (!card) throw new Error('no card simulator')
  const order = { number, amount: '10.00', currency: 'USD', description: 'Shoes' }
  return post(`${card.checkoutUrl}/api/v1/session`, 'json', {
    merchant_key: card.merchantKey,
    order,
    success_url: 'https://shop.example/ok',
    cancel_url: 'https://shop.example/cancel',
    hash: coreutilsHash(`${number}10.00USDSHOES${PASSWORD}`.toUpperCase()),
  })
}

/** A RECURRING_SALE whose first transaction and recurring token are made up: an invalid pair. */
function recurringSale(s: SimProcess, order_id: string) {
  const card = s.description.card
  if (!card) throw new Error('no card simulator')
  return post(`${card.s2sUrl}/post`, 'form', {
    action: 'RECURRING_SALE',
    client_key: card.clientKey,
    order_id,
    order_amount: '99.00',
    order_description: 'Plan',
    recurring_first_trans_id: '00000000-0000-4000-8000-000000000000',
    recurring_token: 'rec_made_up',
    hash: coreutilsHash(`${order_id}${PASSWORD}`.toUpperCase()),
  })
}

function credit(s: SimProcess, order_id: string) {
  const card = s.description.card
  if (!card) throw new Error('no card simulator')
  return post(`${card.checkoutUrl}/api/v1/payment/card/credit`, 'json', {
    merchant_key: card.merchantKey,
    operation: 'credit',
    order_id,
    order_amount: '10.00',
    order_currency: 'USD',
    order_description: 'Refund',
    card_token: 'tok_made_up',
    hash: coreutilsHash(`${order_id}10.00USDREFUND${PASSWORD}`.toUpperCase()),
  })
}

describe('paywire sim: the 15 s duplicate window matches the operation, not only the order_id', () => {
  it('a RECURRING_SALE with an invalid pair, sent with the order_id of a purchase 1 s old, is not answered with the purchase session', async () => {
    const s = await sim('--services', 'card')
    const first = await purchase(s, 'ORD-1')
    expect(first).toMatchObject({ status: 200, body: { redirect_url: expect.any(String) } })
    await s.control('POST', '/clock/advance', { ms: 1_000 })
    const sale = await recurringSale(s, 'ORD-1')
    expect(sale.body).not.toHaveProperty('redirect_url')
    expect(sale).toMatchObject({
      status: 400,
      body: { result: 'ERROR', error_code: 100000, error_message: 'order_id: Duplicate payment.' },
    })
    // Nothing was booked for the recurring sale.
    const ledger = await s.control('GET', '/ledger')
    expect(ledger.body.card.filter((e: { kind: string }) => e.kind === 'recurring_sale')).toEqual([])
  })

  it("a purchase reusing the order_id of a refused RECURRING_SALE is not answered with the sale's error either", async () => {
    const s = await sim('--services', 'card')
    const sale = await recurringSale(s, 'ORD-2')
    expect(sale).toMatchObject({ status: 400, body: { error_message: 'Incorrect transaction' } })
    const again = await purchase(s, 'ORD-2')
    expect(again).toMatchObject({ status: 400, body: { error_message: 'order_id: Duplicate payment.' } })
  })

  it('a credit with the order_id of a purchase is refused as a duplicate, not given the purchase redirect_url', async () => {
    const s = await sim('--services', 'card')
    await purchase(s, 'ORD-3')
    const refund = await credit(s, 'ORD-3')
    expect(refund.body).not.toHaveProperty('redirect_url')
    expect(refund).toMatchObject({ status: 400, body: { error_message: 'order_id: Duplicate payment.' } })
  })

  it('the same operation repeated inside the window still gets its own first answer; after the window, a duplicate', async () => {
    const s = await sim('--services', 'card')
    const first = await recurringSale(s, 'ORD-4')
    await s.control('POST', '/clock/advance', { ms: 14_000 })
    expect(await recurringSale(s, 'ORD-4')).toEqual(first)
    const session = await purchase(s, 'ORD-5')
    expect(await purchase(s, 'ORD-5')).toEqual(session)
    await s.control('POST', '/clock/advance', { ms: 15_000 })
    expect(await recurringSale(s, 'ORD-4')).toMatchObject({
      status: 400,
      body: { error_message: 'order_id: Duplicate payment.' },
    })
  })
})
