/**
 * What `reconcile()` accepts and how it times the settle delay (issue 26, items 8 and 9): the real
 * error or a journal intent, nothing that merely looks like one; the time since the call measured in
 * real time, whatever the wall clock did.
 */

import { type Clock, type Intent, PaywireError, RequestValidationError } from '@paywire/core'
import { describe, expect, it } from 'vitest'
import { anchoredDate } from '../src/clock.js'
import { markCallEnded } from '../src/errors/errors.js'
import { reconcileSubject } from '../src/journal/reconcile.js'

function steppingClock(): Clock & { advance(ms: number): void; stepWall(ms: number): void } {
  let mono = 5_000
  let wall = Date.UTC(2026, 10, 24, 12)
  return {
    now: () => mono,
    date: () => wall,
    sleep: async () => {},
    advance(ms) {
      mono += ms
      wall += ms
    },
    stepWall(ms) {
      wall += ms
    },
  }
}

const key = { key: 'trans_id', value: 't-1', lookup: 'gw.s2s.getTransStatus({ trans_id: "t-1" })' }

function unknownError(): PaywireError & { operation: string } {
  const error = new PaywireError('lost', { outcomeUnknown: true, reconciliation: key }) as PaywireError & {
    operation: string
  }
  error.operation = 's2s.capture'
  return error
}

function intentOf(fields: Partial<Intent> = {}): Intent {
  return {
    id: 'b7c3a1e2-0d4f-4e59-9a57-3f1c2d8e6b10',
    service: 'card-gateway',
    operation: 's2s.capture',
    params: { trans_id: 't-1' },
    reconciliation: key,
    idempotencyKey: undefined,
    createdAt: Date.UTC(2026, 10, 24, 12),
    ...fields,
  }
}

const scope = (service = 'card-gateway') => ({
  client: 'Test',
  service,
  keys: { 's2s.capture': ['trans_id'], 'checkout.purchase': ['order_id'] },
  bases: ['https://s2s.example'],
  account: undefined,
})

const refused = (subject: unknown, service?: string) => {
  try {
    reconcileSubject(subject as PaywireError, scope(service))
  } catch (error) {
    expect(error).toBeInstanceOf(RequestValidationError)
    return (error as RequestValidationError).issues[0]?.message
  }
  throw new Error('accepted')
}

describe('reconcileSubject: only what was made for it', () => {
  it('refuses an error saved as JSON: its settle time and its definiteness are lost', () => {
    const error = unknownError()
    expect(refused(JSON.parse(JSON.stringify(error)))).toMatch(/error saved as JSON.*reconcile the error object itself/)
    // Even one that lost outcomeUnknown on the way: it is still no intent.
    const { outcomeUnknown: _u, occurredAt: _o, ...bare } = JSON.parse(JSON.stringify(error))
    expect(refused(bare)).toMatch(/intent from pendingIntents\(\) \(id, service/)
  })

  it('refuses an error with a definite outcome, and a copy of it', () => {
    const definite = new PaywireError('refused', { outcomeUnknown: false, reconciliation: key })
    expect(refused(definite)).toMatch(/definite outcome/)
    expect(refused({ ...JSON.parse(JSON.stringify(definite)), operation: 's2s.capture' })).toMatch(/saved as JSON/)
  })

  it('refuses an intent with a field of the wrong type, or of another service', () => {
    expect(refused({ ...intentOf(), createdAt: '2026-11-24' })).toMatch(/createdAt/)
    expect(refused({ ...intentOf(), id: 7 })).toMatch(/pendingIntents/)
    expect(refused({ ...intentOf(), reconciliation: { key: 'trans_id' } })).toMatch(/pendingIntents/)
    expect(refused(intentOf(), 'remittance')).toMatch(/intent of card-gateway, not of remittance/)
  })

  it('refuses an error or intent keyed by a kind this client never keys by: another service raised it', () => {
    const foreign = { key: 'agentTransactionRef', value: 'ref-1', lookup: 'remit.lookup.transactionStatus' }
    const error = new PaywireError('lost', { outcomeUnknown: true, reconciliation: foreign })
    Object.assign(error, { operation: 'transactions.mobileTransfer' })
    expect(refused(error)).toBe(
      'is keyed by agentTransactionRef, which no operation of this client is keyed by (trans_id, order_id): reconcile it with the client of the service that raised it',
    )
    expect(refused(intentOf({ reconciliation: foreign }))).toMatch(/keyed by agentTransactionRef/)
  })

  it('refuses an intent or error of a call sent to another origin than the client sends to', () => {
    expect(refused(intentOf({ target: 'https://s2s.production.example' }))).toBe(
      "was sent to https://s2s.production.example, not below this client's https://s2s.example: its lookups would ask the wrong gateway or account; reconcile it with a client of https://s2s.production.example",
    )
    const error = Object.assign(unknownError(), { url: 'https://s2s.production.example/post' })
    expect(refused(error)).toMatch(/was sent to https:\/\/s2s.production.example/)
    // Its own origin, and an intent written before the origin was recorded, are accepted.
    expect(reconcileSubject(intentOf({ target: 'https://s2s.example' }), scope()).operation).toBe('s2s.capture')
    expect(reconcileSubject(intentOf(), scope()).operation).toBe('s2s.capture')
  })

  it('an intent carries its call limit and params to the lookup; an error has ended (limit 0)', () => {
    const subject = reconcileSubject(intentOf({ callLimitMs: 300_000 }), scope())
    expect(subject).toMatchObject({ callLimitMs: 300_000, params: { trans_id: 't-1' } })
    expect(reconcileSubject(unknownError(), scope())).toMatchObject({ callLimitMs: 0, params: undefined })
  })

  it('refuses an operation keyed by another of the client kinds than its own (edited by hand)', () => {
    const byOrder = { key: 'order_id', value: 'order-1', lookup: 'x' }
    expect(refused(intentOf({ reconciliation: byOrder }))).toBe(
      'is s2s.capture keyed by order_id, but s2s.capture is keyed by trans_id: it was edited or written by something else; settle it by hand',
    )
    // An operation the table does not list (a raw request) may carry any kind of the client.
    expect(reconcileSubject(intentOf({ operation: 'raw', reconciliation: byOrder }), scope())).toMatchObject({
      operation: 'raw',
    })
  })

  it('accepts the error object and an intent (a copy, as a journal store returns it)', () => {
    expect(reconcileSubject(unknownError(), scope())).toMatchObject({ operation: 's2s.capture', reconciliation: key })
    const copy = structuredClone(intentOf())
    expect(reconcileSubject(copy, scope())).toMatchObject({ operation: 's2s.capture' })
  })
})

describe('reconcileSubject: the settle delay is real time', () => {
  it('an error: on the monotonic clock its call ended on; a wall step moves nothing', () => {
    const clock = steppingClock()
    const error = unknownError()
    markCallEnded(error, clock)
    clock.advance(1_000)
    clock.stepWall(5 * 60_000)
    const subject = reconcileSubject(error, scope())
    expect(subject.elapsedMs).toBe(1_000)
    expect(Date.now() - subject.since).toBeGreaterThanOrEqual(1_000)
    expect(Date.now() - subject.since).toBeLessThan(60_000)
  })

  it('an intent another process wrote: its anchored createdAt against this process anchored date', () => {
    const clock = steppingClock()
    // The other process wrote it 30 s ago in the anchored frame (wall at its anchor + monotonic since).
    const intent = intentOf({ createdAt: anchoredDate(clock) - 30_000 })
    clock.stepWall(5 * 60_000) // this host's wall clock steps after its anchor: not seen
    clock.advance(10_000)
    expect(reconcileSubject(intent, { ...scope(), clock }).elapsedMs).toBe(40_000)
  })
})
