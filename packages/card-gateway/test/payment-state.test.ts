/**
 * The forward-only fold: any order and any repetition of a payment's deliveries fold to the same
 * state, a late weaker report never moves the payment back, and an open 3DS challenge is stuck only
 * after its time.
 */

import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { type CallbackEvent, type Delivery, foldPayment } from '../src/index.js'

const event = (
  order_status: string,
  type: string,
  status: string,
  extra: Partial<CallbackEvent> = {},
): CallbackEvent => ({
  id: 'pay-1',
  order_number: 'order-1',
  order_status,
  type,
  status,
  hash: 'h',
  ...extra,
})

const HISTORY: readonly CallbackEvent[] = [
  event('prepare', 'sale', 'waiting'),
  event('3ds', '3ds', 'waiting', { transStatus: 'C', trans_id: 't-1' }),
  event('pending', 'sale', 'success', { transStatus: 'Y', trans_id: 't-2' }),
  event('settled', 'capture', 'success', { trans_id: 't-2' }),
  event('refund', 'refund', 'success', { trans_id: 't-2' }),
]

describe('foldPayment', () => {
  it('folds a history in order to its furthest state, final, with every trans_id', () => {
    const state = foldPayment(
      HISTORY.map((e, at) => ({ event: e, at })),
      { now: 10 },
    )
    expect(state).toMatchObject({ status: 'refund', final: true, transIds: ['t-1', 't-2'], stuckChallenge: false })
  })

  it('any permutation with duplicates folds to the same state (property)', () => {
    const reference = foldPayment(
      HISTORY.map((e, at) => ({ event: e, at })),
      { now: 10 },
    )
    fc.assert(
      fc.property(
        fc.shuffledSubarray([...HISTORY.keys(), ...HISTORY.keys()], { minLength: HISTORY.length * 2 }),
        fc.array(fc.integer({ min: 0, max: HISTORY.length - 1 }), { maxLength: 5 }),
        (order, extra) => {
          const deliveries: Delivery[] = [...order, ...extra].map((i, at) => ({
            event: HISTORY[i] as CallbackEvent,
            at,
          }))
          const state = foldPayment(deliveries, { now: 1_000 })
          expect([state.status, state.final, state.transIds]).toEqual([
            reference.status,
            reference.final,
            reference.transIds,
          ])
        },
      ),
      { numRuns: 300 },
    )
  })

  const PAID = { order_amount: '10.00', order_currency: 'USD' }
  const PARTIAL_HISTORY: readonly CallbackEvent[] = [
    event('settled', 'sale', 'success', PAID),
    event('settled', 'refund', 'success', { ...PAID, amount: '3.00', creditvoid_date: '2026-11-26 05:00:00' }),
    event('settled', 'refund', 'success', { ...PAID, amount: '3.00', creditvoid_date: '2026-11-26 05:00:01' }),
    event('refund', 'refund', 'success', { ...PAID, amount: '4.00', creditvoid_date: '2026-11-26 05:00:02' }),
  ]

  it('sums partial refunds in any order and with any repetition (property): 3.00 + 3.00 + 4.00 of 10.00', () => {
    const partial = foldPayment(
      PARTIAL_HISTORY.slice(0, 3).map((e, at) => ({ event: e, at })),
      { now: 10 },
    )
    expect(partial).toMatchObject({ status: 'settled', refundedAmount: '6.00', refund: 'partial' })
    fc.assert(
      fc.property(
        fc.shuffledSubarray([...PARTIAL_HISTORY.keys(), ...PARTIAL_HISTORY.keys()], {
          minLength: PARTIAL_HISTORY.length * 2,
        }),
        (order) => {
          const deliveries = order.map((i, at) => ({ event: PARTIAL_HISTORY[i] as CallbackEvent, at }))
          const state = foldPayment(deliveries, { now: 1_000 })
          expect([state.status, state.refundedAmount, state.refund]).toEqual(['refund', '10.00', 'full'])
        },
      ),
      { numRuns: 300 },
    )
  })

  it('shows no refund before one, and a refund callback without an amount as the whole payment', () => {
    const sale = { event: event('settled', 'sale', 'success', PAID), at: 0 }
    expect(foldPayment([sale], { now: 0 })).toMatchObject({ refundedAmount: undefined, refund: 'none' })
    const whole = { event: event('refund', 'refund', 'success', PAID), at: 1 }
    expect(foldPayment([sale, whole], { now: 1 })).toMatchObject({ refundedAmount: '10.00', refund: 'full' })
    const failed = { event: event('settled', 'refund', 'fail', { ...PAID, amount: '5.00' }), at: 2 }
    expect(foldPayment([sale, failed], { now: 2 })).toMatchObject({ refundedAmount: undefined, refund: 'none' })
  })

  it('sums S2S CREDITVOID callbacks (status SETTLED while partial) in minor units, per currency', () => {
    const s2s = (status: string, amount: string, date: string): Delivery => ({
      event: {
        action: 'CREDITVOID',
        result: 'SUCCESS',
        status,
        trans_id: 't',
        amount,
        creditvoid_date: date,
        hash: 'h',
      },
      at: 0,
    })
    const state = foldPayment([s2s('SETTLED', '0.10', 'a'), s2s('SETTLED', '0.20', 'b')], { now: 0 })
    expect(state).toMatchObject({ refundedAmount: '0.30', refund: 'partial' })
  })

  it('a late 3DS callback after settled does not regress the payment, nor reopen a challenge', () => {
    const settled = event('settled', 'sale', 'success')
    const late3ds = event('3ds', '3ds', 'success', { transStatus: 'C' })
    const state = foldPayment(
      [
        { event: settled, at: 1 },
        { event: late3ds, at: 2 },
      ],
      { now: 10_000_000 },
    )
    expect(state).toMatchObject({ status: 'settled', final: true, stuckChallenge: false })
  })

  it('an open challenge is stuck only once stuckAfterMs has passed since it arrived', () => {
    const deliveries = [
      { event: event('prepare', 'sale', 'waiting'), at: 0 },
      { event: event('3ds', '3ds', 'waiting', { transStatus: 'C' }), at: 1_000 },
    ]
    expect(foldPayment(deliveries, { now: 1_000 + 59_999, stuckAfterMs: 60_000 }).stuckChallenge).toBe(false)
    expect(foldPayment(deliveries, { now: 1_000 + 60_000, stuckAfterMs: 60_000 }).stuckChallenge).toBe(true)
    expect(foldPayment(deliveries, { now: 1_000 + 15 * 60_000 }).stuckChallenge).toBe(true)
  })

  it('a 3ds callback with success is not final (rule Platform 16)', () => {
    expect(foldPayment([{ event: event('3ds', '3ds', 'success'), at: 0 }], { now: 0 }).final).toBe(false)
  })
})
