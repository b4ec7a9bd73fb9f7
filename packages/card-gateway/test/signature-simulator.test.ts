/**
 * Each signature preset end to end: the client through the real undici transport against the
 * simulator configured with the same preset (purchase, payment, capture, callback verify), and a
 * simulator on the strrev scheme refusing a request signed with the seed formula.
 */

import { describe, expect, it } from 'vitest'
import { CardGateway, type PayerCard, type PayerRef } from '../src/index.js'
import { TEST_CARDS } from '../src/testing/index.js'
import { gatewayError, orderId, setup } from './helpers.js'

const EMAIL = 'zoë@shop.example'

async function purchaseAndPay(ctx: Awaited<ReturnType<typeof setup>>, recurring = false) {
  const number = orderId('sig')
  await ctx.gw.checkout.purchase({
    order: { number, amount: '10.00', currency: 'USD', description: 'Test order' },
    ...(recurring ? { recurring_init: true } : {}),
    customer: { name: 'Zoë', email: EMAIL },
    success_url: 'https://shop.example/ok',
    cancel_url: 'https://shop.example/cancel',
  })
  return ctx.simulator.pay(number, { card: TEST_CARDS.number, expiry: TEST_CARDS.success })
}

describe('signature presets against the simulator (real transport)', () => {
  it('seed: purchase, capture, and every callback verifies', async () => {
    const ctx = await setup({ sim: { signature: 'seed' }, client: { signature: 'seed' } })
    const paid = await purchaseAndPay(ctx)
    const captured = await ctx.gw.s2s.capture({ trans_id: paid.trans_id })
    expect(captured.status).toBe('SETTLED')
    expect(ctx.simulator.callbacks.length).toBeGreaterThanOrEqual(2)
    for (const body of ctx.simulator.callbacks) expect(ctx.gw.callbacks.verify(body).order_number).toBe(paid.order_id)
  })

  it('card-md5-strrev: purchase, capture, status and creditvoid pass the gateway; its S2S callbacks verify with the merchant’s own records', async () => {
    // The merchant's records of what it sent with each payment, keyed as the lookup is asked.
    const records = new Map<string, PayerCard>()
    const asked: PayerRef[] = []
    const ctx = await setup({
      sim: { signature: 'card-md5-strrev' },
      client: {
        signature: 'card-md5-strrev',
        payerLookup: (ref) => {
          asked.push(ref)
          return ref.transId === undefined ? undefined : records.get(ref.transId)
        },
      },
    })
    const paid = await purchaseAndPay(ctx)
    records.set(paid.trans_id, { email: EMAIL, cardFirst6: '411111', cardLast4: '1111' })
    expect((await ctx.gw.s2s.getTransStatus({ trans_id: paid.trans_id })).status).toBe('PENDING')
    expect((await ctx.gw.s2s.capture({ trans_id: paid.trans_id })).status).toBe('SETTLED')
    expect((await ctx.gw.s2s.creditVoid({ trans_id: paid.trans_id })).result).toBe('ACCEPTED')

    const s2sCallbacks = ctx.simulator.callbacks.filter((body) => body.startsWith('action='))
    expect(s2sCallbacks).toHaveLength(2) // after CAPTURE and CREDITVOID
    for (const body of s2sCallbacks) expect(ctx.gw.callbacks.verify(body).trans_id).toBe(paid.trans_id)
    // Checkout callbacks (the sale) keep the seed formula and verify too.
    const checkoutCallbacks = ctx.simulator.callbacks.filter((body) => !body.startsWith('action='))
    for (const body of checkoutCallbacks) expect(ctx.gw.callbacks.verify(body).order_number).toBe(paid.order_id)
    expect(asked.every((ref) => ref.transId === paid.trans_id)).toBe(true)

    // A callback the merchant has no record of is refused, not passed.
    records.clear()
    expect(() => ctx.gw.callbacks.verify(s2sCallbacks[0] as string)).toThrow(/knows no payer/)
  })

  it('card-md5-strrev: the testing kit’s clientOptions carry the preset, schedules and a void work', async () => {
    const ctx = await setup({ sim: { signature: 'card-md5-strrev' } })
    const gw = new CardGateway(ctx.clientOptions)
    try {
      const paid = await purchaseAndPay({ ...ctx, gw })
      expect((await gw.s2s.void({ trans_id: paid.trans_id })).status).toBe('VOID')
      const created = await gw.s2s.createSchedule({
        name: 'Monthly',
        interval_length: 1,
        interval_unit: 'month',
        payments_count: 3,
      })
      await gw.s2s.deleteSchedule({ schedule_id: created.schedule_id as string })
      const last = ctx.simulator.callbacks.at(-1) as string
      expect(last.startsWith('action=VOID')).toBe(true)
      expect(gw.callbacks.verify(last).status).toBe('VOID')
    } finally {
      await gw.close()
    }
  })

  it('card-md5-strrev: a recurring sale is signed with the initial payment’s payer and accepted', async () => {
    const ctx = await setup({ sim: { signature: 'card-md5-strrev' } })
    const gw = new CardGateway(ctx.clientOptions)
    try {
      const first = await purchaseAndPay({ ...ctx, gw }, true)
      const sale = await gw.s2s.recurringSale({
        order_id: orderId('rec'),
        order_amount: '10.00',
        order_description: 'Monthly',
        recurring_first_trans_id: first.trans_id,
        recurring_token: first.recurring_token as string,
      })
      expect(sale.result).toBe('SUCCESS')
    } finally {
      await gw.close()
    }
  })

  it('card-md5-strrev simulator refuses a request signed with the seed formula, with the gateway’s hash error', async () => {
    const ctx = await setup({ sim: { signature: 'card-md5-strrev' } }) // the client signs with the seed formula
    const paid = await purchaseAndPay(ctx)
    const error = await gatewayError(ctx.gw.s2s.capture({ trans_id: paid.trans_id }))
    expect(error).toMatchObject({ code: 100000, reason: 'hash_invalid', errorMessage: 'Hash is not valid' })
    expect(ctx.simulator.ledger.some((e) => e.kind === 'capture')).toBe(false)
  })
})
