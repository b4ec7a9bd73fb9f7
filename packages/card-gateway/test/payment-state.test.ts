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
