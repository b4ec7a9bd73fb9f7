import { describe, expect, it } from 'vitest'
import { type FieldKinds, listAnswer, recordAnswer } from '../src/engine.js'

interface Payment {
  readonly amount?: string | null
  readonly status?: string | null
  readonly [field: string]: unknown
}

const KINDS: FieldKinds<Payment> = { amount: 'text', status: 'string' }
const reject = (message: string): never => {
  throw new Error(message)
}

describe('answer decoders: one policy for a known field of the wrong kind', () => {
  it('a text field reads a number as its decimal text, in a copy; the answer as given is untouched', () => {
    const answer = { amount: 10.5, status: 'SETTLED', extra: { kept: true } }
    const decoded = recordAnswer(KINDS)(answer, reject)
    expect(decoded).toEqual({ amount: '10.5', status: 'SETTLED', extra: { kept: true } })
    expect(answer.amount).toBe(10.5)
    expect(listAnswer(KINDS)([answer, { amount: '1.00' }], reject)).toEqual([decoded, { amount: '1.00' }])
  })

  it('an answer without a number in a text field is returned as it came (no copy)', () => {
    const answer = { amount: '10.50', status: null }
    expect(recordAnswer(KINDS)(answer, reject)).toBe(answer)
  })

  it.each([
    [{ amount: { value: 10 } }, 'amount is an object, not a text'],
    [{ amount: true }, 'amount is a boolean, not a text'],
    [{ status: 5 }, 'status is a number, not a string'],
  ])('%j is refused, never read with the field dropped', (answer, message) => {
    expect(() => recordAnswer(KINDS)(answer, reject)).toThrow(message)
    expect(() => listAnswer(KINDS)([answer], reject)).toThrow(`item 0: ${message}`)
  })
})
