/**
 * The callback inbox on card-md5-strrev from the attacker's side: that scheme's S2S callback hash
 * covers only the trans_id and the payer, so a genuine body replayed with an edited status, result or
 * action verifies. The inbox must act on the gateway's state (a status lookup through the real
 * transport against the simulator), never the claimed one. The lookup runs after the 200 (five
 * time-outs block the callback URL), from the record: one that cannot be made is tried again with
 * backoff, one the gateway refuses is counted and set aside; `onEvent` runs for neither.
 */

import { once } from 'node:events'
import { createServer } from 'node:net'
import { createTestClock } from '@paywire/core/testing'
import { describe, expect, it } from 'vitest'
import {
  type CallbackEvent,
  CardGateway,
  type CardGatewayOptions,
  DeadLetterError,
  type PayerCard,
} from '../src/index.js'
import { TEST_CARDS } from '../src/testing/index.js'
import { orderId, setup } from './helpers.js'

const EMAIL = 'payer@shop.example'
const CARD: PayerCard = { email: EMAIL, cardFirst6: '411111', cardLast4: '1111' }

/** A strrev simulator, a client of it with no retries (a failed lookup fails at once), and a paid, authorised payment. */
async function strrevPayment(client: Partial<CardGatewayOptions> = {}) {
  const ctx = await setup({ sim: { signature: 'card-md5-strrev' } })
  const gw = new CardGateway({ ...ctx.clientOptions, maxRetries: 0, ...client })
  const number = orderId('confirm')
  await gw.checkout.purchase({
    order: { number, amount: '10.00', currency: 'USD', description: 'Test order' },
    customer: { name: 'Payer', email: EMAIL },
    success_url: 'https://shop.example/ok',
    cancel_url: 'https://shop.example/cancel',
  })
  const paid = ctx.simulator.pay(number, { card: TEST_CARDS.number, expiry: TEST_CARDS.success })
  return { ...ctx, gw, paid }
}

/** The last S2S callback the simulator signed (a genuine body an attacker can capture and replay). */
function lastS2sCallback(callbacks: readonly string[]): string {
  const body = callbacks.findLast((b) => b.startsWith('action='))
  expect(body).toBeDefined()
  return body as string
}

/** The same body with some fields edited, the hash kept. */
function edited(body: string, changes: Record<string, string>): string {
  const params = new URLSearchParams(body)
  for (const [name, value] of Object.entries(changes)) params.set(name, value)
  return params.toString()
}

function inbox(gw: CardGateway, maxAttempts?: number) {
  const events: CallbackEvent[] = []
  const errors: { error: unknown; event: CallbackEvent | undefined }[] = []
  const clock = createTestClock()
  const handler = gw.callbacks.handler({
    clock,
    recoverEveryMs: 0,
    ...(maxAttempts === undefined ? {} : { maxAttempts }),
    onEvent: (event) => {
      events.push(event)
    },
    onError: (error, event) => errors.push({ error, event }),
  })
  return { handler, events, errors, clock }
}

/** The messages of what `onError` heard. */
const messages = (errors: { error: unknown }[]) => errors.map(({ error }) => String((error as Error).message))

describe('the inbox confirms card-md5-strrev S2S callbacks by a status lookup before it acts', () => {
  it('a genuine callback, then replays with an edited status, action or result: onEvent runs once, with the gateway’s state', async () => {
    const ctx = await strrevPayment()
    await ctx.gw.s2s.capture({ trans_id: ctx.paid.trans_id })
    const genuine = lastS2sCallback(ctx.simulator.callbacks)
    const { handler, events } = inbox(ctx.gw)
    expect(await handler.handle(genuine)).toMatchObject({ status: 200, body: 'OK' })
    await handler.drain()
    const replays: Record<string, string>[] = [
      { status: 'REFUND' },
      { status: 'VOID', action: 'VOID' },
      { result: 'DECLINED', status: 'DECLINED' },
      { status: 'PENDING', amount: '9999.00', order_id: 'VICTIM-9' },
    ]
    for (const changes of replays) {
      expect(await handler.handle(edited(genuine, changes))).toMatchObject({ status: 200, body: 'OK' })
      await handler.drain()
    }
    expect(events).toHaveLength(1)
    expect(events[0]).toMatchObject({
      trans_id: ctx.paid.trans_id,
      status: 'SETTLED',
      order_id: ctx.paid.order_id,
      confirmedBy: 'lookup',
      authenticated: 'transaction-only',
    })
    await ctx.gw.close()
  })

  it('a replay claiming SETTLED for a DECLINED transaction: onEvent sees DECLINED, the disagreement is reported by field name only', async () => {
    const ctx = await strrevPayment()
    await ctx.gw.s2s.void({ trans_id: ctx.paid.trans_id })
    const genuine = lastS2sCallback(ctx.simulator.callbacks)
    ctx.simulator.setStatus(ctx.paid.trans_id, 'decline')
    const { handler, events, errors } = inbox(ctx.gw)
    const forged = edited(genuine, { action: 'CAPTURE', result: 'SUCCESS', status: 'SETTLED', amount: '9999.00' })
    expect(await handler.handle(forged)).toMatchObject({ status: 200 })
    await handler.drain()
    expect(events).toHaveLength(1)
    expect(events[0]?.status).toBe('DECLINED')
    expect(events[0]?.amount).toBe('10.00')
    expect(events[0]?.confirmedBy).toBe('lookup')
    expect(errors).toHaveLength(1)
    const message = String((errors[0]?.error as Error | undefined)?.message)
    expect(message).toMatch(/status, amount differ from the gateway's status lookup/)
    expect(message).not.toMatch(/SETTLED|9999/)
    expect(errors[0]?.event?.status).toBe('DECLINED')
    // The genuine VOID body now maps to the same confirmed state: processed once.
    expect(await handler.handle(genuine)).toMatchObject({ status: 200 })
    await handler.drain()
    expect(events).toHaveLength(1)
    await ctx.gw.close()
  })

  it('the lookup fails (gateway error): answered 200 at once, onEvent not run; the lookup is tried again from the record and then runs it once', async () => {
    const ctx = await strrevPayment()
    await ctx.gw.s2s.capture({ trans_id: ctx.paid.trans_id })
    const genuine = lastS2sCallback(ctx.simulator.callbacks)
    const { handler, events, errors, clock } = inbox(ctx.gw)
    ctx.simulator.failNext({ path: '/post' })
    expect(await handler.handle(genuine)).toMatchObject({ status: 200, body: 'OK' })
    await handler.drain()
    expect(events).toHaveLength(0)
    expect(messages(errors)).toEqual([expect.stringMatching(/the status lookup confirming this callback failed/)])
    // No redelivery needed: recovery tries the lookup again once its backoff ends.
    clock.advance(1_200)
    expect(await handler.recover()).toBe(1)
    expect(events.map((e) => e.status)).toEqual(['SETTLED'])
    await ctx.gw.close()
  })

  it('the lookup answers another transaction’s record (T2 REFUNDED, another order and amount): onEvent not run, tried again, then runs with this transaction’s state', async () => {
    const ctx = await strrevPayment()
    await ctx.gw.s2s.capture({ trans_id: ctx.paid.trans_id })
    const genuine = lastS2sCallback(ctx.simulator.callbacks)
    const { handler, events, errors, clock } = inbox(ctx.gw)
    const t2 = { action: 'GET_TRANS_STATUS', result: 'SUCCESS', status: 'REFUND', trans_id: 'T2', order_id: 'VICTIM-9' }
    ctx.simulator.failNext({
      action: 'GET_TRANS_STATUS',
      status: 200,
      body: { ...t2, amount: '9999.00', currency: 'USD' },
    })
    expect(await handler.handle(genuine)).toMatchObject({ status: 200, body: 'OK' })
    await handler.drain()
    expect(events).toHaveLength(0)
    expect(messages(errors)).toEqual([expect.stringMatching(/the status lookup confirming this callback failed/)])
    expect((errors[0]?.error as Error | undefined)?.cause).toMatchObject({
      name: 'CardGatewayError',
      reason: 'unbound_response',
    })
    clock.advance(1_200)
    expect(await handler.recover()).toBe(1)
    expect(events).toEqual([
      expect.objectContaining({
        trans_id: ctx.paid.trans_id,
        status: 'SETTLED',
        order_id: ctx.paid.order_id,
        amount: '10.00',
        confirmedBy: 'lookup',
      }),
    ])
    await ctx.gw.close()
  })

  it('the lookup cannot connect (closed port): answered 200, not counted as an attempt, tried again for as long as it fails', async () => {
    const ctx = await strrevPayment()
    await ctx.gw.s2s.capture({ trans_id: ctx.paid.trans_id })
    const genuine = lastS2sCallback(ctx.simulator.callbacks)
    const closed = createServer().listen(0, '127.0.0.1')
    await once(closed, 'listening')
    const { port } = closed.address() as { port: number }
    closed.close()
    await once(closed, 'close')
    const gw = new CardGateway({ ...ctx.clientOptions, maxRetries: 0, s2sUrl: `http://127.0.0.1:${port}` })
    const { handler, events, errors, clock } = inbox(gw, 1)
    expect(await handler.handle(genuine)).toMatchObject({ status: 200, body: 'OK' })
    await handler.drain()
    for (let round = 0; round < 3; round++) {
      clock.advance(15 * 60 * 1000)
      expect(await handler.recover()).toBe(1)
    }
    expect(events).toHaveLength(0)
    expect(await handler.failedEvents()).toEqual([]) // one attempt allowed, none used up
    expect(errors).toHaveLength(4)
    await gw.close()
    await ctx.gw.close()
  })

  it('a callback whose confirming lookup the gateway refuses (its hash: a configuration fault): 200, loud onError, counted, set aside after maxAttempts; never 400, onEvent never runs', async () => {
    const ctx = await strrevPayment({ payerLookup: () => CARD })
    await ctx.gw.s2s.capture({ trans_id: ctx.paid.trans_id })
    const genuine = lastS2sCallback(ctx.simulator.callbacks)
    // The gateway forgets the payment; the merchant's own records still verify the callback.
    ctx.simulator.payments.splice(ctx.simulator.payments.indexOf(ctx.paid), 1)
    const { handler, events, errors, clock } = inbox(ctx.gw, 2)
    expect(ctx.gw.callbacks.verify(genuine).trans_id).toBe(ctx.paid.trans_id)
    expect(await handler.handle(genuine)).toMatchObject({ status: 200, body: 'OK' })
    await handler.drain()
    clock.advance(1_200)
    expect(await handler.recover()).toBe(1)
    expect(events).toHaveLength(0)
    expect(messages(errors)).toEqual([
      expect.stringMatching(/refused the confirming status lookup's hash: a configuration fault/),
      expect.stringMatching(/refused the confirming status lookup's hash: a configuration fault/),
      expect.stringMatching(/set aside after 2 attempts/),
    ])
    expect(errors[2]?.error).toBeInstanceOf(DeadLetterError)
    expect((await handler.failedEvents()).map((f) => f.event?.trans_id)).toEqual([ctx.paid.trans_id])
    await ctx.gw.close()
  })

  it('a lookup answered "Transaction does not exist.": 200, counted, set aside after maxAttempts; onEvent never runs', async () => {
    const ctx = await strrevPayment()
    await ctx.gw.s2s.capture({ trans_id: ctx.paid.trans_id })
    const genuine = lastS2sCallback(ctx.simulator.callbacks)
    const gw = new CardGateway({
      ...ctx.clientOptions,
      maxRetries: 0,
      fetch: async () =>
        Response.json(
          { result: 'ERROR', error_code: 101000, error_message: 'Transaction does not exist.' },
          { status: 400 },
        ),
    })
    const { handler, events, errors } = inbox(gw, 1)
    expect(await handler.handle(genuine)).toMatchObject({ status: 200, body: 'OK' })
    await handler.drain()
    expect(events).toHaveLength(0)
    expect(messages(errors)).toEqual([
      expect.stringMatching(/knows no transaction by this callback trans_id/),
      expect.stringMatching(/set aside after 1 attempt /),
    ])
    await gw.close()
    await ctx.gw.close()
  })

  it('seed: nothing changes (its callback hash signs the state): no lookup is sent, the event is not marked', async () => {
    const ctx = await setup({ sim: { signature: 'seed' } })
    const number = orderId('seed')
    await ctx.gw.checkout.purchase({
      order: { number, amount: '10.00', currency: 'USD', description: 'Test order' },
      success_url: 'https://shop.example/ok',
      cancel_url: 'https://shop.example/cancel',
    })
    ctx.simulator.pay(number, { card: TEST_CARDS.number, expiry: TEST_CARDS.success })
    const before = ctx.server.requests.length
    const { handler, events } = inbox(ctx.gw)
    expect(await handler.handle(ctx.simulator.callbacks.at(-1) as string)).toMatchObject({ status: 200 })
    await handler.drain()
    expect(events).toHaveLength(1)
    expect(events[0]?.confirmedBy).toBeUndefined()
    expect(events[0]?.authenticated).toBeUndefined()
    expect(ctx.server.requests.length).toBe(before)
  })
})
