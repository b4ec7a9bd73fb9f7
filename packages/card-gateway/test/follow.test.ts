/**
 * `gw.payments.follow()` from the merchant's side, through the real transport against the simulator
 * on loopback: the stream holds only states a lookup confirmed, only moves forward, ends with one
 * final update, survives a failing `onUpdate`, and follows payments whose callbacks never came.
 */

import { MemoryClaimStore, MemoryIntentStore, systemClock } from '@paywire/core'
import { createTestClock } from '@paywire/core/testing'
import { describe, expect, it } from 'vitest'
import { storeWith } from '../../../tests/support/store-with.js'
import type { CardFollowOptions, CardPaymentUpdate } from '../src/index.js'
import { TEST_CARDS } from '../src/testing/index.js'
import { orderId, setup } from './helpers.js'

const urls = { success_url: 'https://shop.example/ok', cancel_url: 'https://shop.example/cancel' }

async function followed(
  options: Partial<CardFollowOptions> = {},
  clock = createTestClock(Date.UTC(2026, 10, 27)),
  client: NonNullable<Parameters<typeof setup>[0]>['client'] = {},
) {
  const ctx = await setup({ sim: { clock }, client })
  const updates: CardPaymentUpdate[] = []
  const keys: string[] = []
  const attentions: unknown[] = []
  const errors: unknown[] = []
  const follower = ctx.gw.payments.follow({
    clock,
    tickEveryMs: 0,
    lookupsPerSecond: 1000,
    onUpdate: (update, context) => {
      updates.push(update)
      keys.push(`${context.key}#${context.attempt}`)
    },
    onAttention: (attention) => {
      attentions.push(attention)
    },
    onError: (error) => errors.push(error),
    ...options,
  })
  const statusLookups = () => ctx.server.requests.filter((r) => r.url.endsWith('/api/v1/payment/status')).length
  return { ...ctx, clock, follower, updates, keys, attentions, errors, statusLookups }
}

async function purchase(ctx: Awaited<ReturnType<typeof followed>>) {
  const number = orderId('follow')
  await ctx.gw.checkout.purchase({
    order: { number, amount: '10.00', currency: 'USD', description: 'Follow' },
    ...urls,
  })
  return number
}

describe('gw.payments.follow', () => {
  it('follows a payment the client started, though no callback ever arrives, to one final update', async () => {
    const ctx = await followed()
    const number = await purchase(ctx)
    // Nothing is looked up before the schedule's first wait: the payer is still on the page.
    expect(await ctx.follower.tick()).toBe(0)
    ctx.simulator.pay(number, { card: TEST_CARDS.number, expiry: TEST_CARDS.success, capture: true })
    ctx.clock.advance(30_000)
    expect(await ctx.follower.tick()).toBe(1)
    expect(ctx.updates).toEqual([
      expect.objectContaining({ ref: number, state: 'settled', previous: undefined, final: true, source: 'lookup' }),
    ])
    expect(ctx.keys).toEqual([`${number}:settled#1`])
    // Final: never looked up again, and a later track() of it is refused as final.
    const lookups = ctx.statusLookups()
    ctx.clock.advance(24 * 60 * 60 * 1000)
    await ctx.follower.tick()
    expect(ctx.statusLookups()).toBe(lookups)
    expect(await ctx.follower.track(number)).toBe('final')
    await ctx.follower.stop()
  })

  it('delivers each step forward once: pending, then settled after the capture', async () => {
    const ctx = await followed()
    const number = await purchase(ctx)
    ctx.simulator.pay(number, { card: TEST_CARDS.number, expiry: TEST_CARDS.success })
    ctx.clock.advance(30_000)
    await ctx.follower.tick()
    ctx.clock.advance(60_000)
    await ctx.follower.tick()
    ctx.simulator.setStatus(number, 'settled')
    ctx.clock.advance(120_000)
    await ctx.follower.tick()
    expect(ctx.updates.map((u) => [u.state, u.previous, u.final])).toEqual([
      ['pending', undefined, false],
      ['settled', 'pending', true],
    ])
    await ctx.follower.stop()
  })

  it('never moves backward: a lookup that shows an earlier state is not an update', async () => {
    const ctx = await followed()
    const number = await purchase(ctx)
    ctx.simulator.pay(number, { card: TEST_CARDS.number, expiry: TEST_CARDS.success })
    ctx.clock.advance(30_000)
    await ctx.follower.tick()
    // A stale replica answers 3ds after pending.
    ctx.simulator.setStatus(number, '3ds')
    ctx.clock.advance(60_000)
    await ctx.follower.tick()
    expect(ctx.updates.map((u) => u.state)).toEqual(['pending'])
    await ctx.follower.stop()
  })

  it('a callback claiming settled makes it look now, and only the state the lookup shows is delivered', async () => {
    const ctx = await followed()
    const number = await purchase(ctx)
    const handler = ctx.gw.callbacks.handler({ onEvent: () => {}, clock: ctx.clock, recoverEveryMs: 0 })
    ctx.simulator.pay(number, { card: TEST_CARDS.number, expiry: TEST_CARDS.success })
    // The authorisation's callback arrives with its type and status edited to claim a capture
    // (they are outside the signature): the follower looks up, and the gateway says pending.
    const body = ctx.simulator.callbacks.at(-1) as string
    const claimed = body.replace('order_status=pending', 'order_status=settled').replace('type=sale', 'type=capture')
    expect((await handler.handle(claimed)).status).toBe(200)
    await handler.drain()
    await ctx.follower.tick()
    expect(ctx.updates).toEqual([expect.objectContaining({ state: 'pending', final: false, source: 'callback' })])
    await handler.close()
    await ctx.follower.stop()
  })

  it('a decline is final only when a lookup a minute later still shows it (cascading may still authorise)', async () => {
    const ctx = await followed()
    const number = await purchase(ctx)
    ctx.simulator.pay(number, { card: TEST_CARDS.number, expiry: TEST_CARDS.decline })
    ctx.clock.advance(30_000)
    await ctx.follower.tick()
    expect(ctx.updates).toEqual([])
    // The gateway retries on another acquirer: the order authorises.
    ctx.simulator.setStatus(number, 'pending')
    ctx.clock.advance(60_000)
    await ctx.follower.tick()
    expect(ctx.updates.map((u) => [u.state, u.final])).toEqual([['pending', false]])

    const declined = await purchase(ctx)
    ctx.simulator.pay(declined, { card: TEST_CARDS.number, expiry: TEST_CARDS.decline })
    ctx.clock.advance(30_000)
    await ctx.follower.tick()
    ctx.clock.advance(60_000)
    await ctx.follower.tick()
    expect(ctx.updates.filter((u) => u.ref === declined).map((u) => [u.state, u.final])).toEqual([['decline', true]])
    await ctx.follower.stop()
  })

  it('an onUpdate that throws gets the same update again (attempt 2), and the state is not advanced until it returns', async () => {
    let fail = true
    const ctx = await followed({
      onUpdate: (update, context) => {
        ctx.keys.push(`${context.key}#${context.attempt}`)
        if (fail) {
          fail = false
          throw new Error('database down')
        }
        ctx.updates.push(update)
      },
    })
    const number = await purchase(ctx)
    ctx.simulator.pay(number, { card: TEST_CARDS.number, expiry: TEST_CARDS.success, capture: true })
    ctx.clock.advance(30_000)
    await ctx.follower.tick()
    expect(ctx.updates).toEqual([])
    ctx.clock.advance(15 * 60 * 1000)
    await ctx.follower.tick()
    expect(ctx.keys).toEqual([`${number}:settled#1`, `${number}:settled#2`])
    expect(ctx.updates.map((u) => u.state)).toEqual(['settled'])
    expect(ctx.errors).toEqual([expect.objectContaining({ message: 'database down' })])
    await ctx.follower.stop()
  })

  it('sets a payment aside after maxAttempts failed deliveries; retry(ref) follows it again', async () => {
    let failing = true
    const ctx = await followed({
      maxAttempts: 2,
      onUpdate: (update) => {
        if (failing) throw new Error('database down')
        ctx.updates.push(update)
      },
    })
    const number = await purchase(ctx)
    ctx.simulator.pay(number, { card: TEST_CARDS.number, expiry: TEST_CARDS.success, capture: true })
    for (let i = 0; i < 4; i++) {
      ctx.clock.advance(60 * 60 * 1000)
      await ctx.follower.tick()
    }
    expect(await ctx.follower.failed()).toEqual([
      expect.objectContaining({ ref: number, attempts: 2, lastError: 'Error: database down' }),
    ])
    expect(ctx.errors.some((e) => (e as Error).name === 'DeadLetterError')).toBe(true)
    failing = false
    expect(await ctx.follower.retry(number)).toBe(true)
    await ctx.follower.tick()
    expect(ctx.updates.map((u) => u.state)).toEqual(['settled'])
    await ctx.follower.stop()
  })

  it('warns before an uncaptured authorisation expires, once, then reports the payment stuck', async () => {
    const ctx = await followed({ authorizationValidMs: 7 * 86_400_000, authorizationLeadMs: 86_400_000 })
    const number = await purchase(ctx)
    ctx.simulator.pay(number, { card: TEST_CARDS.number, expiry: TEST_CARDS.success })
    ctx.clock.advance(30_000)
    await ctx.follower.tick()
    const authorizedAt = Date.parse(ctx.updates[0]?.confirmedAt as string)
    for (let hour = 0; hour < 24 * 7; hour++) {
      ctx.clock.advance(60 * 60 * 1000)
      await ctx.follower.tick()
    }
    const kinds = ctx.attentions.map((a) => (a as { kind: string }).kind)
    expect(kinds.filter((k) => k === 'authorization_expiring')).toHaveLength(1)
    expect(kinds.filter((k) => k === 'stuck')).toHaveLength(1)
    const warning = ctx.attentions.find((a) => (a as { kind: string }).kind === 'authorization_expiring') as {
      expiresAt: string
    }
    expect(Date.parse(warning.expiresAt)).toBe(authorizedAt + 7 * 86_400_000)
    await ctx.follower.stop()
  })

  it('stops following after followForMs with one attention, and the payer who abandoned the page is reported stuck first', async () => {
    const ctx = await followed({ stuckAfterMs: 60 * 60 * 1000, followForMs: 2 * 60 * 60 * 1000 })
    const number = await purchase(ctx)
    for (let i = 0; i < 20; i++) {
      ctx.clock.advance(15 * 60 * 1000)
      await ctx.follower.tick()
    }
    expect(ctx.attentions).toEqual([
      expect.objectContaining({ ref: number, kind: 'stuck', state: undefined }),
      expect.objectContaining({ ref: number, kind: 'stopped', state: undefined }),
    ])
    expect(ctx.updates).toEqual([])
    await ctx.follower.stop()
  })

  it('keeps lookups within lookupsPerSecond however many payments fall due together', async () => {
    const ctx = await followed({ lookupsPerSecond: 4 })
    for (let i = 0; i < 40; i++) await ctx.follower.track(orderId('budget'))
    ctx.clock.advance(30_000)
    const start = ctx.clock.now()
    await ctx.follower.tick()
    const lookups = ctx.statusLookups()
    expect(lookups).toBe(40)
    // One lookup at once, then four a second: 40 lookups take at least 9.75 s of the clock.
    expect(ctx.clock.now() - start).toBeGreaterThanOrEqual(9_750)
    await ctx.follower.stop()
  })

  it('refuses, loudly, records another runner filed in its store, and runs none of them', async () => {
    const clock = createTestClock(Date.UTC(2026, 10, 27))
    const store = new MemoryClaimStore({ clock })
    const ctx = await followed({ store }, clock)
    const handler = ctx.gw.callbacks.handler({ onEvent: () => {}, store, clock: ctx.clock, recoverEveryMs: 0 })
    const number = await purchase(ctx)
    ctx.simulator.pay(number, { card: TEST_CARDS.number, expiry: TEST_CARDS.success, capture: true })
    // The callback is recorded, not run (no free slot would run it here): leave it due.
    await store.record({ key: 'callback:v2:x', previousKeys: [], fields: '{}', ref: number }, 'tok', undefined)
    ctx.clock.advance(30_000)
    await ctx.follower.tick()
    expect(ctx.errors.some((e) => /shared/.test(String((e as Error).message)))).toBe(true)
    expect(ctx.updates.map((u) => u.state)).toEqual(['settled'])
    await handler.close()
    await ctx.follower.stop()
  })

  it('a purchase whose answer was lost (500 after the session was made) is followed all the same', async () => {
    const ctx = await followed()
    const number = orderId('lost')
    ctx.simulator.failNext({ operation: 'checkout.purchase', when: 'after', status: 500 })
    const lost = await ctx.gw.checkout
      .purchase({ order: { number, amount: '10.00', currency: 'USD', description: 'Lost' }, ...urls })
      .catch((error: unknown) => error)
    expect(lost).toMatchObject({ outcomeUnknown: true })
    ctx.simulator.pay(number, { card: TEST_CARDS.number, expiry: TEST_CARDS.success, capture: true })
    ctx.clock.advance(30_000)
    await ctx.follower.tick()
    expect(ctx.updates).toEqual([expect.objectContaining({ ref: number, state: 'settled', final: true })])
    await ctx.follower.stop()
  })

  it('a purchase refused for certain (400) is not followed', async () => {
    const ctx = await followed()
    ctx.simulator.failNext({ operation: 'checkout.purchase', status: 400 })
    const number = orderId('refused')
    await ctx.gw.checkout
      .purchase({ order: { number, amount: '10.00', currency: 'USD', description: 'Refused' }, ...urls })
      .catch(() => {})
    expect(await ctx.follower.track(number)).toBe('followed')
    await ctx.follower.stop()
  })

  it('the journal is a source: an intent left open by a crash is reconciled, and its payment followed', async () => {
    const journal = new MemoryIntentStore()
    const clock = createTestClock(Date.UTC(2026, 10, 27))
    // The process that sent the purchase died before its answer: its intent stays open.
    const crashed = await setup({ sim: { clock }, client: { journal } })
    const number = orderId('journal')
    crashed.simulator.failNext({ operation: 'checkout.purchase', when: 'after', status: 500 })
    await crashed.gw.checkout
      .purchase({ order: { number, amount: '10.00', currency: 'USD', description: 'Crash' }, ...urls })
      .catch(() => {})
    expect(await journal.openIntents('card-gateway')).toHaveLength(1)
    crashed.simulator.pay(number, { card: TEST_CARDS.number, expiry: TEST_CARDS.success, capture: true })
    // A new process, on the same gateway and journal: its follower knows nothing of the payment.
    const { CardGateway } = await import('../src/index.js')
    const gw = new CardGateway({ ...crashed.clientOptions, journal, clock })
    const updates: CardPaymentUpdate[] = []
    const follower = gw.payments.follow({ clock, tickEveryMs: 0, onUpdate: (u) => void updates.push(u) })
    clock.advance(10 * 60 * 1000)
    await follower.tick()
    await follower.tick()
    expect(updates).toEqual([
      expect.objectContaining({ ref: number, state: 'settled', final: true, source: 'journal' }),
    ])
    expect(await journal.openIntents('card-gateway')).toHaveLength(0)
    await follower.stop()
    await gw.close()
  })

  it('follows a RECURRING_SALE by GET_TRANS_STATUS_BY_ORDER', async () => {
    const ctx = await followed()
    const number = orderId('first')
    await ctx.gw.checkout.purchase({
      order: { number, amount: '10.00', currency: 'USD', description: 'First' },
      recurring_init: true,
      ...urls,
    })
    const first = ctx.simulator.pay(number, { card: TEST_CARDS.number, expiry: TEST_CARDS.success, capture: true })
    const monthly = orderId('monthly')
    await ctx.gw.s2s.recurringSale({
      order_id: monthly,
      order_amount: '9.90',
      order_description: 'Monthly plan',
      order_currency: 'USD',
      recurring_first_trans_id: first.trans_id,
      recurring_token: first.recurring_token as string,
    })
    ctx.clock.advance(30_000)
    await ctx.follower.tick()
    expect(ctx.updates.filter((u) => u.ref === monthly)).toEqual([
      expect.objectContaining({
        state: 'settled',
        final: true,
        record: expect.objectContaining({ action: 'GET_TRANS_STATUS_BY_ORDER' }),
      }),
    ])
    await ctx.follower.stop()
  })

  it('a capture by this client makes the follower look at once', async () => {
    const ctx = await followed()
    const number = await purchase(ctx)
    ctx.simulator.pay(number, { card: TEST_CARDS.number, expiry: TEST_CARDS.success })
    ctx.clock.advance(30_000)
    await ctx.follower.tick()
    const payment = ctx.simulator.payment(number)
    await ctx.gw.s2s.capture({ trans_id: payment?.trans_id as string })
    await ctx.follower.tick()
    expect(ctx.updates.map((u) => [u.state, u.source])).toEqual([
      ['pending', 'lookup'],
      ['settled', 'callback'],
    ])
    await ctx.follower.stop()
  })

  it('a follower whose store never answers holds a payment call no longer than the store deadline (5 s), and says why', async () => {
    const never = new Promise<never>(() => {})
    const hung = storeWith(new MemoryClaimStore(), { record: () => never, wake: () => never, release: () => never })
    const ctx = await followed({ store: hung, clock: systemClock })
    const started = performance.now()
    const number = orderId('hung')
    await ctx.gw.checkout.purchase({ order: { number, amount: '1.00', currency: 'USD', description: 'Hung' }, ...urls })
    const took = performance.now() - started
    expect(took).toBeGreaterThanOrEqual(4_900)
    expect(took).toBeLessThan(8_000)
    // What the follower reports names the hung store (other reports may come first under load).
    expect(ctx.errors.map((error) => String((error as Error).message))).toContainEqual(
      expect.stringMatching(/the store did not answer within \d+ ms/),
    )
    await ctx.follower.stop()
  }, 15_000)

  it('refuses bad options and a bad ref by name, before anything is kept', async () => {
    const ctx = await followed()
    expect(() =>
      ctx.gw.payments.follow({ onUpdate: 'x' as never, lookupsPerSecond: 0, schedule: [], stuckAfterMs: -1 }),
    ).toThrow(
      /^payments\.follow: invalid options\. onUpdate: must be a function; lookupsPerSecond: must be a number >= 0\.01; stuckAfterMs: must be a whole number >= 1; schedule: must be a non-empty list/,
    )
    await expect(ctx.follower.track('')).rejects.toThrow(/ref: must be a non-empty string/)
    await expect(ctx.follower.track('x'.repeat(513))).rejects.toThrow(/at most 512/)
    await ctx.follower.stop()
  })
})
