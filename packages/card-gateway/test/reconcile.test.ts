/**
 * Reconciling lost answers from the attacker's side: the simulator books the call and loses its
 * answer (`failNext({ when: 'after' })`), the client reports outcomeUnknown, and `reconcile` must
 * give the definite answer the ledger proves, by lookups only (no money-moving request is sent again).
 * With a journal, the intent is written before the call leaves and stays open exactly as long as
 * the outcome is unknown.
 */

import { type Intent, type IntentStore, MemoryIntentStore, PaywireError, RequestValidationError } from '@paywire/core'
import { createTestClock } from '@paywire/core/testing'
import { describe, expect, it } from 'vitest'
import { formatAmount } from '../src/index.js'
import { orderId, paidPayment, rejection, type Setup, setup } from './helpers.js'

const urls = { success_url: 'https://shop.example/ok', cancel_url: 'https://shop.example/cancel' }

/** The S2S actions and Checkout paths sent after `from`: a reconcile must add lookups only. */
function sentAfter(ctx: Setup, from: number): string[] {
  return ctx.server.requests.slice(from).map((r) => {
    const action = new URLSearchParams(r.body ?? '').get('action')
    return action ?? r.url ?? ''
  })
}

async function lostAnswer(ctx: Setup, call: () => Promise<unknown>): Promise<PaywireError> {
  ctx.simulator.failNext({ when: 'after' })
  const error = await rejection(call())
  expect(error).toBeInstanceOf(PaywireError)
  expect((error as PaywireError).outcomeUnknown).toBe(true)
  return error as PaywireError
}

describe('gw.reconcile(error): a definite answer from the lookups', () => {
  it('a CAPTURE whose answer was lost is applied, proven by GET_TRANS_STATUS, and nothing is captured twice', async () => {
    const ctx = await setup()
    const { trans_id } = await paidPayment(ctx)
    const error = await lostAnswer(ctx, () => ctx.gw.s2s.capture({ trans_id }))
    const before = ctx.server.requests.length
    const result = await ctx.gw.reconcile(error)
    expect(result).toMatchObject({
      outcome: 'applied',
      operation: 's2s.capture',
      key: { key: 'trans_id', value: trans_id },
    })
    expect(result.state).toMatchObject({ status: 'SETTLED' })
    expect(result.evidence).toMatch(/GET_TRANS_STATUS shows .* as SETTLED/)
    expect(sentAfter(ctx, before)).toEqual(['GET_TRANS_STATUS'])
    expect(ctx.simulator.ledger.filter((e) => e.kind === 'capture')).toHaveLength(1)
  })

  it('a CAPTURE that never arrived is not_applied: the payment is still PENDING', async () => {
    const ctx = await setup()
    const { trans_id } = await paidPayment(ctx)
    ctx.simulator.failNext({ status: 500 }) // refused before acting: the error says outcomeUnknown all the same
    const error = await rejection(ctx.gw.s2s.capture({ trans_id }))
    expect((error as PaywireError).outcomeUnknown).toBe(true)
    // Right after the error the capture could still be on its way: PENDING proves nothing yet.
    const early = await ctx.gw.reconcile(error as PaywireError)
    expect(early).toMatchObject({ outcome: 'still_unknown', state: { status: 'PENDING' } })
    expect(early.next).toMatch(/reconcile again after \d{4}-\d\d-\d\dT.* \(settleAfterMs\)/)
    const result = await ctx.gw.reconcile(error as PaywireError, { settleAfterMs: 0 })
    expect(result).toMatchObject({ outcome: 'not_applied', state: { status: 'PENDING' } })
    expect(ctx.simulator.ledger.filter((e) => e.kind === 'capture')).toHaveLength(0)
  })

  it('a VOID whose answer was lost is applied', async () => {
    const ctx = await setup()
    const { trans_id } = await paidPayment(ctx)
    const error = await lostAnswer(ctx, () => ctx.gw.s2s.void({ trans_id }))
    expect(await ctx.gw.reconcile(error)).toMatchObject({ outcome: 'applied', state: { status: 'VOID' } })
  })

  it('a CREDITVOID whose answer was lost is applied once the refund shows, never guessed before', async () => {
    const ctx = await setup()
    const { trans_id } = await paidPayment(ctx, { capture: true })
    const error = await lostAnswer(ctx, () => ctx.gw.s2s.creditVoid({ trans_id }))
    const result = await ctx.gw.reconcile(error)
    // The simulator settles a credit-void at once; a SETTLED status would be still_unknown instead.
    expect(['applied', 'still_unknown']).toContain(result.outcome)
    if (result.outcome === 'still_unknown') expect(result.next).toMatch(/callback|again/)
  })

  it('a purchase whose answer was lost is applied (the order exists); one that never arrived is not_applied', async () => {
    const ctx = await setup()
    const number = orderId()
    const purchase = () =>
      ctx.gw.checkout.purchase({
        order: { number, amount: formatAmount(1000, 'USD'), currency: 'USD', description: 'Lost answer' },
        ...urls,
      })
    ctx.simulator.failNext({ path: '/api/v1/session', when: 'after' })
    const lost = await rejection(purchase())
    expect((lost as PaywireError).outcomeUnknown).toBe(true)
    expect(await ctx.gw.reconcile(lost as PaywireError)).toMatchObject({
      outcome: 'applied',
      key: { key: 'order_id', value: number },
    })

    const fresh = await setup()
    const other = orderId()
    fresh.simulator.failNext({ path: '/api/v1/session', status: 502, count: 3 })
    const never = await rejection(
      fresh.gw.checkout.purchase({
        order: { number: other, amount: '10.00', currency: 'USD', description: 'Never arrived' },
        ...urls,
      }),
    )
    expect((never as PaywireError).outcomeUnknown).toBe(true)
    expect(await fresh.gw.reconcile(never as PaywireError)).toMatchObject({ outcome: 'still_unknown' })
    expect(await fresh.gw.reconcile(never as PaywireError, { settleAfterMs: 0 })).toMatchObject({
      outcome: 'not_applied',
    })
  })

  describe("a purchase reconciled as applied says how to get the payer's redirect_url back (issue 26, item 10)", () => {
    const purchaseOf = (number: string) => ({
      order: { number, amount: '10.00', currency: 'USD', description: 'Lost redirect' },
      ...urls,
    })

    it('inside the 15 s window: next says to resend the identical purchase, which answers the same session', async () => {
      const ctx = await setup()
      const number = orderId()
      ctx.simulator.failNext({ path: '/api/v1/session', when: 'after' })
      const lost = (await rejection(ctx.gw.checkout.purchase(purchaseOf(number)))) as PaywireError
      const result = await ctx.gw.reconcile(lost)
      expect(result.outcome).toBe('applied')
      expect(result.next).toMatch(/redirect_url/)
      expect(result.next).toMatch(/identical purchase/)
      expect(result.next).toMatch(/same session/)
      expect(result.next).toMatch(/at the latest \d{4}-\d\d-\d\dT/)
      // Following the advice: the identical resend gives the session back, and opens no second one.
      const again = await ctx.gw.checkout.purchase(purchaseOf(number))
      expect(again.redirect_url).toMatch(/^https?:\/\//)
      expect(ctx.simulator.ledger.filter((e) => e.kind === 'session')).toHaveLength(1)
    })

    it('after the window: next says plainly the redirect_url cannot be got back and a resend can be refused', async () => {
      const clock = createTestClock(Date.UTC(2026, 10, 24, 12))
      const ctx = await setup({ sim: { clock }, client: { clock } })
      const number = orderId()
      ctx.simulator.failNext({ path: '/api/v1/session', when: 'after' })
      const lost = (await rejection(ctx.gw.checkout.purchase(purchaseOf(number)))) as PaywireError
      clock.advance(16_000)
      const result = await ctx.gw.reconcile(lost)
      expect(result.outcome).toBe('applied')
      expect(result.next).toMatch(/15 s dedup window.*has passed/)
      expect(result.next).toMatch(/Duplicate payment/)
      expect(result.next).toMatch(/new order_id/)
    })
  })

  it('a credit whose answer was lost is applied, found under its own order_id', async () => {
    const ctx = await setup()
    const { order_id } = await paidPayment(ctx, { capture: true, reqToken: true })
    const { card_token } = await ctx.gw.checkout.status({ order_id })
    const refundId = orderId('refund')
    ctx.simulator.failNext({ path: '/api/v1/payment/card/credit', when: 'after' })
    const error = await rejection(
      ctx.gw.checkout.credit({
        order_id: refundId,
        order_amount: '5.00',
        order_currency: 'USD',
        order_description: 'Refund',
        card_token: card_token as string,
        name: 'Ada Lovelace',
      }),
    )
    const result = await ctx.gw.reconcile(error as PaywireError)
    expect(result).toMatchObject({ outcome: 'applied', state: { status: 'refund' } })
    expect(ctx.simulator.ledger.filter((e) => e.kind === 'credit')).toHaveLength(1)
  })

  it('a call still in flight at the gateway is never not_applied: the late booking is found afterwards', async () => {
    const ctx = await setup()
    const { trans_id } = await paidPayment(ctx)
    // The capture is booked only after the client gave up: the lookup in between sees PENDING.
    ctx.simulator.failNext({ path: '/post', status: 504 })
    const error = (await rejection(ctx.gw.s2s.capture({ trans_id }))) as PaywireError
    const during = await ctx.gw.reconcile(error)
    expect(during.outcome).toBe('still_unknown')
    await ctx.gw.s2s.capture({ trans_id }) // stands in for the queued request landing late
    expect(await ctx.gw.reconcile(error)).toMatchObject({ outcome: 'applied' })
  })

  it('a DELETE_SCHEDULE or UPDATE_SCHEDULE has no lookup: not_reconcilable, saying the same call is harmless to repeat', async () => {
    const ctx = await setup()
    const schedule_id = '9b0c6e1a-3f7d-4c2e-8a51-7d2f0e4b9c13'
    ctx.simulator.failNext({ status: 500 })
    const deleted = await rejection(ctx.gw.s2s.deleteSchedule({ schedule_id }))
    const before = ctx.server.requests.length
    const result = await ctx.gw.reconcile(deleted as PaywireError)
    expect(result).toMatchObject({ outcome: 'not_reconcilable', key: { key: 'schedule_id', value: schedule_id } })
    expect(result.evidence).toMatch(/no action reads a schedule/)
    expect(result.next).toMatch(/DELETE_SCHEDULE again.*Schedule not found/)
    ctx.simulator.failNext({ status: 500 })
    const updated = await rejection(ctx.gw.s2s.updateSchedule({ schedule_id, name: 'Weekly' }))
    expect(await ctx.gw.reconcile(updated as PaywireError)).toMatchObject({ outcome: 'not_reconcilable' })
    expect(ctx.server.requests.length).toBe(before + 1) // the update only: reconcile looked nothing up
  })

  describe('CREATE_SCHEDULE whose answer was lost (issue 26, item 6)', () => {
    const schedule = { name: 'Monthly plan', interval_length: 1, interval_unit: 'month', payments_count: 12 } as const
    const client = { hashInputs: { 's2s.createSchedule': ['name'] } }
    const sim = { hashInputs: { CREATE_SCHEDULE: ['name'] } }

    it('without a schedule_id: the error carries a key and points at no lookup; reconcile says plainly nothing is reconcilable', async () => {
      const journal = new MemoryIntentStore()
      const ctx = await setup({ sim, client: { ...client, journal } })
      const error = await lostAnswer(ctx, () => ctx.gw.s2s.createSchedule(schedule))
      expect(error.reconciliation).toMatchObject({ key: 'name', value: 'Monthly plan' })
      expect(error.message).not.toMatch(/status lookup/)
      expect(error.message).toMatch(/admin portal/)
      expect(error.message).toMatch(/second schedule/)
      const before = ctx.server.requests.length
      const result = await ctx.gw.reconcile(error)
      expect(result.outcome).toBe('not_reconcilable')
      expect(result.evidence).toMatch(/without a schedule_id/)
      expect(result.evidence).toMatch(/nothing can be reconciled/)
      expect(result.next).toMatch(/"Monthly plan"/)
      expect(result.next).toMatch(/may create a second schedule/)
      expect(result.next).toMatch(/schedule_id next time/)
      expect(ctx.server.requests.length).toBe(before)
      const [fromJournal] = await ctx.gw.reconcileAll()
      expect(fromJournal?.result.outcome).toBe('not_reconcilable')
      expect(await ctx.gw.pendingIntents()).toHaveLength(1) // left open for a person to close
      expect(ctx.simulator.ledger.filter((e) => e.kind === 'schedule_created')).toHaveLength(1)
    })

    it('with a schedule_id: not_reconcilable, naming the schedule_id and how to make sure', async () => {
      const ctx = await setup({ sim, client })
      const schedule_id = '0f6e7a0c-1d2b-4c3d-9e8f-a1b2c3d4e5f6'
      const error = await lostAnswer(ctx, () => ctx.gw.s2s.createSchedule({ ...schedule, schedule_id }))
      expect(error.reconciliation).toMatchObject({ key: 'schedule_id', value: schedule_id })
      expect(error.message).toMatch(/second schedule/)
      const result = await ctx.gw.reconcile(error)
      expect(result.outcome).toBe('not_reconcilable')
      expect(result.next).toContain(schedule_id)
      expect(result.next).toMatch(/DELETE_SCHEDULE/)
    })
  })

  it('refuses what has nothing to reconcile: a definite error, a lookup error, not an error at all', async () => {
    const ctx = await setup()
    const definite = await rejection(ctx.gw.s2s.capture({ trans_id: 'no-such-transaction' }))
    expect((definite as PaywireError).outcomeUnknown).toBe(false)
    await expect(ctx.gw.reconcile(definite as PaywireError)).rejects.toThrow(RequestValidationError)
    await expect(ctx.gw.reconcile(new Error('x') as unknown as PaywireError)).rejects.toThrow(/outcomeUnknown/)
  })
})

describe('the intent journal', () => {
  /** A store that records the order of its writes, to check the intent is durable before sending. */
  function recordingStore(requestsSoFar: () => number): { store: IntentStore; log: string[] } {
    const memory = new MemoryIntentStore()
    const log: string[] = []
    const store: IntentStore = {
      open: async (intent) => {
        log.push(`open ${intent.operation} (requests so far: ${requestsSoFar()})`)
        await memory.open(intent)
      },
      close: async (id, outcome) => {
        log.push(`close ${outcome}`)
        await memory.close(id, outcome)
      },
      openIntents: (service) => memory.openIntents(service),
    }
    return { store, log }
  }

  it('writes a money-moving call before it is sent and closes it on a definite outcome; lookups are not written', async () => {
    let requests = () => 0
    const { store, log } = recordingStore(() => requests())
    const ctx = await setup({ client: { journal: store } })
    requests = () => ctx.server.requests.length
    const { trans_id } = await paidPayment(ctx)
    const sent = ctx.server.requests.length
    await ctx.gw.s2s.getTransStatus({ trans_id })
    await ctx.gw.s2s.capture({ trans_id })
    expect(log).toEqual([
      expect.stringMatching(/^open checkout.purchase \(requests so far: 0\)$/),
      'close applied',
      `open s2s.capture (requests so far: ${sent + 1})`,
      'close applied',
    ])
    expect(await ctx.gw.pendingIntents()).toEqual([])
  })

  it('closes as not_applied a call the gateway refused (a documented error), and keeps no secret', async () => {
    const journal = new MemoryIntentStore()
    const ctx = await setup({ client: { journal } })
    await rejection(ctx.gw.s2s.capture({ trans_id: 'no-such-transaction' }))
    expect(await ctx.gw.pendingIntents()).toEqual([])
  })

  it('keeps an unknown outcome open; reconcileAll settles and closes it, by lookups only', async () => {
    const journal = new MemoryIntentStore()
    const ctx = await setup({ client: { journal } })
    const { trans_id } = await paidPayment(ctx)
    await lostAnswer(ctx, () => ctx.gw.s2s.capture({ trans_id, amount: '4.00' }))
    const [open] = (await ctx.gw.pendingIntents()) as [Intent]
    expect(open).toMatchObject({
      service: 'card-gateway',
      operation: 's2s.capture',
      params: { trans_id, amount: '4.00' },
      reconciliation: { key: 'trans_id', value: trans_id },
    })
    const text = JSON.stringify(open)
    for (const secret of ['client_key', 'merchant_key', 'hash', ctx.clientOptions.password as string]) {
      expect(text).not.toContain(secret)
    }
    const before = ctx.server.requests.length
    const settled = await ctx.gw.reconcileAll()
    expect(settled.map((s) => s.result.outcome)).toEqual(['applied'])
    expect(sentAfter(ctx, before)).toEqual(['GET_TRANS_STATUS'])
    expect(await ctx.gw.pendingIntents()).toEqual([])
  })

  it("gw.reconcile(error) of a journaled call closes its intent when it answers applied (before: it stayed open, as going-live's catch block left it)", async () => {
    const journal = new MemoryIntentStore()
    const ctx = await setup({ client: { journal } })
    const { trans_id } = await paidPayment(ctx)
    const error = await lostAnswer(ctx, () => ctx.gw.s2s.capture({ trans_id }))
    expect(error.intentId).toEqual(expect.any(String))
    expect(await ctx.gw.pendingIntents()).toHaveLength(1)
    expect((await ctx.gw.reconcile(error)).outcome).toBe('applied')
    expect(await ctx.gw.pendingIntents()).toEqual([])
    // reconcileAll finds nothing left to settle: the one close was the reconcile's.
    expect(await ctx.gw.reconcileAll()).toEqual([])
  })

  it('gw.reconcile(intent) closes it on not_applied too, and leaves a still_unknown one open', async () => {
    const clock = createTestClock()
    const journal = new MemoryIntentStore()
    const ctx = await setup({ client: { journal, clock } })
    const { trans_id } = await paidPayment(ctx)
    ctx.simulator.failNext({ status: 500 }) // refused before acting, yet an unknown outcome to the client
    await rejection(ctx.gw.s2s.capture({ trans_id }))
    const [open] = (await ctx.gw.pendingIntents()) as [Intent]
    expect((await ctx.gw.reconcile(open)).outcome).toBe('still_unknown')
    expect(await ctx.gw.pendingIntents()).toHaveLength(1)
    clock.advance(3 * 60_000)
    expect((await ctx.gw.reconcile(open)).outcome).toBe('not_applied')
    expect(await ctx.gw.pendingIntents()).toEqual([])
  })

  it('a journal that cannot record refuses the call: nothing is sent', async () => {
    const failing: IntentStore = {
      open: async () => {
        throw new Error('disk full')
      },
      close: async () => {},
      openIntents: async () => [],
    }
    const ctx = await setup({ client: { journal: failing } })
    const error = await rejection(ctx.gw.s2s.capture({ trans_id: 't' }))
    expect((error as Error).message).toMatch(/intent journal did not record the call, so nothing was sent.*disk full/)
    expect(ctx.server.requests).toHaveLength(0)
  })

  it('refuses a journal that is not an intent store, at construction', async () => {
    await expect(setup({ client: { journal: {} as IntentStore } })).rejects.toThrow(
      /invalid client options\. journal: must be an intent store/,
    )
  })
})
