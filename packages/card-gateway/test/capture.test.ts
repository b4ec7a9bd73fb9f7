import { HttpResponse, http } from 'msw'
import { describe, expect, it } from 'vitest'
import { CardGatewayError } from '../src/index.js'
import { TEST_CARDS } from '../src/testing/index.js'
import { paidPayment, secondClient, setup } from './helpers.js'

describe('payment states: pending → capture → settled', () => {
  it('a test-card authorization is pending, CAPTURE settles it', async () => {
    const ctx = await setup()
    const paid = await paidPayment(ctx)
    expect((await ctx.gw.s2s.getTransStatus({ trans_id: paid.trans_id })).status).toBe('PENDING')
    const capture = await ctx.gw.s2s.capture({ trans_id: paid.trans_id })
    expect(capture).toMatchObject({ result: 'SUCCESS', status: 'SETTLED' })
    expect((await ctx.gw.checkout.status({ payment_id: paid.payment_id })).status).toBe('settled')
    expect(ctx.simulator.ledger.map((e) => e.kind)).toEqual(['session', 'charge', 'capture'])
  })

  it('rule States 1: CAPTURE of a payment that is not pending fails with 208003, and nothing is captured twice', async () => {
    const ctx = await setup()
    const paid = await paidPayment(ctx)
    await ctx.gw.s2s.capture({ trans_id: paid.trans_id })
    // A connection of its own: the 208003 is the call's own answer.
    await expect(secondClient(ctx).s2s.capture({ trans_id: paid.trans_id })).rejects.toMatchObject({ code: 208003 })
    expect(ctx.simulator.ledger.filter((e) => e.kind === 'capture')).toHaveLength(1)
  })

  it('on a kept-alive connection the 208003 cannot be told from a stale answer: the lookup shows the payment captured, and the call resolves with it', async () => {
    const ctx = await setup()
    const paid = await paidPayment(ctx)
    await ctx.gw.s2s.capture({ trans_id: paid.trans_id })
    const again = await ctx.gw.s2s.capture({ trans_id: paid.trans_id }).withResponse()
    expect(again.data).toMatchObject({ action: 'GET_TRANS_STATUS', status: 'SETTLED', trans_id: paid.trans_id })
    expect(ctx.simulator.ledger.filter((e) => e.kind === 'capture')).toHaveLength(1)
  })

  it("on a kept-alive connection a 208003 for a voided payment is the call's refusal: the lookup shows VOID, which no capture can change", async () => {
    const ctx = await setup()
    const paid = await paidPayment(ctx)
    await ctx.gw.s2s.void({ trans_id: paid.trans_id })
    await expect(ctx.gw.s2s.capture({ trans_id: paid.trans_id })).rejects.toMatchObject({
      code: 208003,
      outcomeUnknown: false,
    })
    expect(ctx.simulator.ledger.filter((e) => e.kind === 'capture')).toHaveLength(0)
  })

  it('rule States 2: a refund needs a settled payment; a pending authorization is cancelled with VOID', async () => {
    const ctx = await setup()
    const paid = await paidPayment(ctx)
    await expect(ctx.gw.s2s.creditVoid({ trans_id: paid.trans_id })).rejects.toMatchObject({
      reason: 'refund_requires_settled',
    })
    const voided = await ctx.gw.s2s.void({ trans_id: paid.trans_id })
    expect(voided.status).toBe('VOID')
    expect(ctx.simulator.ledger.map((e) => e.kind)).toEqual(['session', 'charge', 'void'])
  })

  it('card 03/2038: authorisation succeeds, then the capture is declined', async () => {
    const ctx = await setup()
    const paid = await paidPayment(ctx, { expiry: TEST_CARDS.captureFails })
    const capture = await ctx.gw.s2s.capture({ trans_id: paid.trans_id })
    expect(capture.result).toBe('DECLINED')
    expect(capture.decline_reason).toBeTruthy()
    expect(ctx.simulator.ledger.at(-1)?.kind).toBe('capture_declined')
  })
})

describe('rule States 3: status lookup before capture (captureIfPending)', () => {
  it('captures a pending payment after looking it up', async () => {
    const ctx = await setup()
    const paid = await paidPayment(ctx)
    const outcome = await ctx.gw.s2s.captureIfPending({ trans_id: paid.trans_id })
    expect(outcome.captured).toBe(true)
    expect(ctx.server.requests.slice(-2).map((r) => new URLSearchParams(r.body).get('action'))).toEqual([
      'GET_TRANS_STATUS',
      'CAPTURE',
    ])
  })

  it('does not send CAPTURE when the payment is already settled, so it can never capture twice', async () => {
    const ctx = await setup()
    const paid = await paidPayment(ctx)
    await ctx.gw.s2s.captureIfPending({ trans_id: paid.trans_id })
    const second = await ctx.gw.s2s.captureIfPending({ trans_id: paid.trans_id })
    expect(second).toMatchObject({ captured: false, status: 'SETTLED' })
    expect(ctx.simulator.ledger.filter((e) => e.kind === 'capture')).toHaveLength(1)
    const actions = ctx.server.requests.map((r) => new URLSearchParams(r.body).get('action')).filter(Boolean)
    expect(actions).toEqual(['GET_TRANS_STATUS', 'CAPTURE', 'GET_TRANS_STATUS'])
  })

  it('the status lookup is safe to repeat', async () => {
    const ctx = await setup()
    const paid = await paidPayment(ctx)
    const a = await ctx.gw.s2s.getTransStatus({ trans_id: paid.trans_id })
    const b = await ctx.gw.s2s.getTransStatus({ trans_id: paid.trans_id })
    expect(a.status).toBe(b.status)
    expect(ctx.simulator.ledger.map((e) => e.kind)).toEqual(['session', 'charge'])
  })

  it('a CAPTURE answered DECLINED is not captured (issue 26, item 4): captured is false, with the answer', async () => {
    const ctx = await setup()
    const paid = await paidPayment(ctx, { expiry: TEST_CARDS.captureFails })
    const outcome = await ctx.gw.s2s.captureIfPending({ trans_id: paid.trans_id })
    expect(outcome.captured).toBe(false)
    expect(outcome).toMatchObject({ captured: false, capture: { result: 'DECLINED' } })
    expect(ctx.simulator.ledger.filter((e) => e.kind === 'capture')).toHaveLength(0)
  })

  it.each(['UNDEFINED', 'ACCEPTED', 'REDIRECT', 'SOMETHING_NEW', ''])(
    'a CAPTURE answered 200 with result %j is not captured: only SUCCESS is',
    async (result) => {
      const ctx = await setup()
      const paid = await paidPayment(ctx)
      // A gateway that answers the CAPTURE (and only it) with another result; the lookup is the simulator's.
      ctx.server.use(
        http.post('*/post', async ({ request }) => {
          const body = new URLSearchParams(await request.clone().text())
          if (body.get('action') !== 'CAPTURE') return undefined
          return HttpResponse.json({ action: 'CAPTURE', result, status: 'PENDING', trans_id: paid.trans_id })
        }),
      )
      const outcome = await ctx.gw.s2s.captureIfPending({ trans_id: paid.trans_id })
      expect(outcome).toMatchObject({ captured: false, capture: { result } })
    },
  )

  it('propagates a not-found lookup without capturing', async () => {
    const ctx = await setup()
    const error = await ctx.gw.s2s.captureIfPending({ trans_id: 'missing' }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(CardGatewayError)
    expect((error as CardGatewayError).isNotFound).toBe(true)
  })
})
