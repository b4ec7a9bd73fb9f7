/**
 * Reconciling a partial CREDITVOID whose answer was lost. A partial refund leaves the payment
 * SETTLED, and a payment is REFUND once everything is refunded by whichever refunds: the status
 * lookup shows the payment, never this refund, so it can prove neither that this refund was made
 * nor that it was not. The answer must stay open, with that reason, and never say applied.
 */

import { MemoryIntentStore, PaywireError } from '@paywire/core'
import { describe, expect, it } from 'vitest'
import { paidPayment, rejection, type Setup, setup } from './helpers.js'

async function journaled() {
  const journal = new MemoryIntentStore()
  return setup({ client: { journal } })
}

/** The call's answer is lost after the gateway acted (or refused): its error and its journal intent. */
async function lostAnswer(ctx: Setup, call: () => Promise<unknown>) {
  ctx.simulator.failNext({ when: 'after' })
  const error = await rejection(call())
  expect(error).toBeInstanceOf(PaywireError)
  expect((error as PaywireError).outcomeUnknown).toBe(true)
  const intents = await ctx.gw.pendingIntents()
  const intent = intents.at(-1)
  expect(intent?.operation).toBe('s2s.creditVoid')
  return { error: error as PaywireError, intent: intent as NonNullable<typeof intent> }
}

describe('gw.reconcile on a partial CREDITVOID whose answer was lost', () => {
  it('made, the payment still SETTLED: still_unknown from the error and from the intent, saying why', async () => {
    const ctx = await journaled()
    const { trans_id } = await paidPayment(ctx, { capture: true, amount: '10.00' })
    const { error, intent } = await lostAnswer(ctx, () => ctx.gw.s2s.creditVoid({ trans_id, amount: '3.00' }))
    expect(ctx.simulator.payment(trans_id)).toMatchObject({ status: 'settled', refundedAmount: '3.00' })
    const fromIntent = await ctx.gw.reconcile(intent, { settleAfterMs: 0 })
    expect(fromIntent.outcome).toBe('still_unknown')
    expect(fromIntent.evidence).toMatch(
      /a partial refund of 3\.00 leaves the payment SETTLED, so the status lookup cannot tell/,
    )
    expect(fromIntent.next).toMatch(/callback \(a refund with amount 3\.00\).*admin portal.*do not send it again/)
    const fromError = await ctx.gw.reconcile(error, { settleAfterMs: 0 })
    expect(fromError.outcome).toBe('still_unknown')
    expect(fromError.evidence).toMatch(/whose amount the error does not record leaves the payment SETTLED/)
    expect(fromError.next).toMatch(/journal intent/)
  })

  it('refused (above what was left), then the rest refunded from the portal: REFUND is not proof this refund was made', async () => {
    const ctx = await journaled()
    const { trans_id } = await paidPayment(ctx, { capture: true, amount: '10.00' })
    await ctx.gw.s2s.creditVoid({ trans_id, amount: '5.00' })
    const { error, intent } = await lostAnswer(ctx, () => ctx.gw.s2s.creditVoid({ trans_id, amount: '6.00' }))
    // The gateway refused the 6.00 (only 5.00 was left): nothing was refunded by this call.
    expect(ctx.simulator.payment(trans_id)).toMatchObject({ status: 'settled', refundedAmount: '5.00' })
    ctx.simulator.setStatus(trans_id, 'refund')
    for (const subject of [intent, error]) {
      const result = await ctx.gw.reconcile(subject, { settleAfterMs: 0 })
      expect(result.outcome).toBe('still_unknown')
      expect(result.evidence).toMatch(/as REFUND: the payment is fully refunded, by this refund .* or by others/)
      expect(result.next).toMatch(/nothing is left to refund.*do not send it again/)
    }
  })

  it('a CREDITVOID of the whole captured amount, or without amount, is applied from its intent once the payment shows REFUND', async () => {
    for (const amount of ['10.00', undefined]) {
      const ctx = await journaled()
      const { trans_id } = await paidPayment(ctx, { capture: true, amount: '10.00' })
      const { intent } = await lostAnswer(ctx, () =>
        ctx.gw.s2s.creditVoid({ trans_id, ...(amount === undefined ? {} : { amount }) }),
      )
      expect(await ctx.gw.reconcile(intent, { settleAfterMs: 0 })).toMatchObject({
        outcome: 'applied',
        state: { status: 'REFUND' },
      })
    }
  })

  it('a payment never captured (PENDING) proves the partial refund was not made', async () => {
    const ctx = await journaled()
    const { trans_id } = await paidPayment(ctx, { capture: false, amount: '10.00' })
    const { error, intent } = await lostAnswer(ctx, () => ctx.gw.s2s.creditVoid({ trans_id, amount: '3.00' }))
    expect(await ctx.gw.reconcile(error, { settleAfterMs: 0 })).toMatchObject({ outcome: 'not_applied' })
    // The intent's call could still be on its way (its call limit has not passed): absence waits.
    expect(await ctx.gw.reconcile(intent, { settleAfterMs: 0 })).toMatchObject({
      outcome: 'still_unknown',
      evidence: expect.stringMatching(/as PENDING, but the call is recent enough to still arrive/),
    })
  })
})
