/**
 * `BoundRequest` (answer-binding.ts), from an independent review: it must refuse exactly what the per-call functions it
 * replaced refused (20ae17a), word for word. The former functions are kept below verbatim as the
 * reference, and both are run over every combination of the attacker's favourite variants: case and
 * space, numbers against their text, nested paths, missing fields, null, arrays, objects, non-finite
 * numbers, own-property tricks. Plus: one row's binding shared by many requests (the binding's reading
 * is cached per row) never mixes their values.
 */

import { describe, expect, it } from 'vitest'
import { BoundRequest } from '../src/operations/answer-binding.js'
import { type AnswerBinding, bindAnswer, type SentRequest } from '../src/operations/operation.js'

// ---- The reference: 20ae17a:packages/core/src/answer-binding.ts, unchanged. ----

interface Pair {
  readonly sent: string
  readonly answer: readonly string[]
}

function at(record: unknown, path: string): unknown {
  let value = record
  for (const part of path.split('.')) {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined
    value = Object.hasOwn(value, part) ? (value as Record<string, unknown>)[part] : undefined
  }
  return value
}

function asText(value: unknown): string | undefined {
  if (typeof value === 'string') return value
  if (typeof value === 'number' && Number.isFinite(value)) return String(value)
  return undefined
}

function pairsOf(binding: AnswerBinding, sent: SentRequest): Pair[] {
  const pairs: Pair[] = []
  const add = (value: unknown, answer: readonly string[]) => {
    const text = asText(value)
    if (text !== undefined) pairs.push({ sent: text, answer })
  }
  for (const [field, answer] of Object.entries(binding.wire ?? {})) add(at(sent.wire, field), answer)
  for (const [name, answer] of Object.entries(binding.path ?? {})) add(sent.path[name], answer)
  if (binding.idempotencyKey) add(sent.idempotencyKey, binding.idempotencyKey)
  return pairs
}

function list(items: readonly string[], word: 'and' | 'or'): string {
  if (items.length <= 1) return items.join('')
  return `${items.slice(0, -1).join(', ')} ${word} ${items.at(-1)}`
}

function naming(field: string, value: unknown): string {
  if (typeof value === 'string') return `${field} ${JSON.stringify(value)}`
  if (typeof value === 'number' || typeof value === 'boolean') return `${field} ${String(value)}`
  return `${field} as ${Array.isArray(value) ? 'an array' : 'an object'}`
}

function isRecord(value: unknown): value is object {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function unboundAnswer(binding: AnswerBinding, sent: SentRequest, answer: unknown): string | undefined {
  const advice = binding.kind === 'lookup' ? 'act on none of it, and look the subject up again' : 'act on none of it'
  const refuse = (problem: string) => `${problem} (rule ${binding.rule}); ${advice}`
  for (const pair of pairsOf(binding, sent)) {
    const value = JSON.stringify(pair.sent)
    const named = isRecord(answer)
      ? pair.answer
          .map((field) => [field, at(answer, field)] as const)
          .filter(([, shown]) => shown !== undefined && shown !== null)
      : []
    if (named.length === 0) {
      if (binding.kind === 'action') continue
      if (!isRecord(answer)) return refuse(`it holds no record, so nothing binds it to the ${value} this call sent`)
      return refuse(`it names no ${list(pair.answer, 'or')}, so nothing binds it to the ${value} this call sent`)
    }
    if (named.some(([, shown]) => asText(shown) === pair.sent)) continue
    const shown = named.map(([field, v]) => naming(field, v))
    return refuse(`it names ${list(shown, 'and')}, not the ${value} this call sent`)
  }
  return undefined
}

function unboundOnReuse(
  binding: AnswerBinding,
  sent: SentRequest,
  status: number,
  answer: unknown,
): string | undefined {
  if (status < 200 || status >= 300)
    return `a ${status} answer names no subject that binds it to this call (rule ${binding.rule})`
  for (const pair of pairsOf(binding, sent)) {
    const shown = isRecord(answer) ? pair.answer.map((field) => at(answer, field)) : []
    if (shown.some((value) => asText(value) === pair.sent)) continue
    return `it does not name the ${JSON.stringify(pair.sent)} this call sent in ${list(pair.answer, 'or')} (rule ${binding.rule})`
  }
  return undefined
}

function subjectOf(operation: string, binding: AnswerBinding, sent: SentRequest): string {
  return [operation, ...pairsOf(binding, sent).map((pair) => pair.sent)].join('\u0000')
}

// ---- The variants. ----

/** Values a request or an answer may hold where a bound value is expected. */
const VALUES: readonly unknown[] = [
  'T1',
  't1',
  'T1 ',
  ' T1',
  'T2',
  '',
  '1002',
  '1002.0',
  '01002',
  1002,
  1002.5,
  -0,
  0,
  '0',
  Number.NaN,
  Number.POSITIVE_INFINITY,
  'Infinity',
  1e21,
  '1e+21',
  true,
  'true',
  null,
  undefined,
  ['T1'],
  { value: 'T1' },
]

/** A small deterministic generator (mulberry32): the same cases every run. */
function random(seed: number): () => number {
  let a = seed
  return () => {
    a = (a + 0x6d2b79f5) | 0
    let t = Math.imul(a ^ (a >>> 15), 1 | a)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const pick = <T>(next: () => number, items: readonly T[]): T => items[Math.floor(next() * items.length)] as T

/** An answer shaped like the bindings below name it: flat, nested, half-missing, or not a record. */
function answerOf(next: () => number): unknown {
  const shape = next()
  if (shape < 0.05) return pick(next, [null, 'T1', ['T1'], 1002, undefined])
  const answer: Record<string, unknown> = {}
  for (const field of ['ref', 'reference', 'transferId', 'key', 'idempotencyKey']) {
    if (next() < 0.6) answer[field] = pick(next, VALUES)
  }
  if (next() < 0.7) {
    const order: Record<string, unknown> = {}
    if (next() < 0.7) order.number = pick(next, VALUES)
    answer.order = next() < 0.1 ? [order] : order
  }
  if (next() < 0.1) answer.order = pick(next, VALUES)
  return answer
}

function sentOf(next: () => number): SentRequest {
  const wire: Record<string, unknown> = {}
  if (next() < 0.8) wire.ref = pick(next, VALUES)
  if (next() < 0.7) wire.order = next() < 0.8 ? { number: pick(next, VALUES) } : pick(next, VALUES)
  return {
    wire: next() < 0.1 ? undefined : wire,
    path: next() < 0.8 ? { id: pick(next, VALUES) as string } : {},
    idempotencyKey: next() < 0.7 ? (pick(next, VALUES) as string) : undefined,
  }
}

const BINDINGS: readonly AnswerBinding[] = [
  bindAnswer('lookup', { wire: { ref: ['ref', 'reference'] }, rule: 'R1' }),
  bindAnswer('action', { wire: { ref: ['ref', 'reference'] }, rule: 'R2' }),
  bindAnswer('lookup', { wire: { 'order.number': ['order.number', 'transferId'] }, rule: 'R3' }),
  bindAnswer('action', { wire: { 'order.number': ['order.number'], ref: ['reference'] }, rule: 'R4' }),
  bindAnswer('lookup', { path: { id: ['transferId', 'order.number'] }, rule: 'R5' }),
  bindAnswer('action', { idempotencyKey: ['idempotencyKey', 'key'], rule: 'R6' }),
  bindAnswer('lookup', {
    wire: { ref: ['ref'], 'order.number': ['order.number'] },
    path: { id: ['transferId'] },
    idempotencyKey: ['key'],
    rule: 'R7',
  }),
  bindAnswer('action', {
    wire: { ref: ['ref'], 'order.number': ['order.number'] },
    path: { id: ['transferId'] },
    idempotencyKey: ['key'],
    rule: 'R8',
  }),
  bindAnswer('lookup', { wire: { missing: ['ref'] }, path: { nope: ['ref'] }, rule: 'R9' }),
]

describe('BoundRequest refuses exactly what the former per-call functions refused', () => {
  it('over 20 000 generated requests and answers: the same refusal, word for word, the same subject', () => {
    const next = random(20_260_127)
    let refused = 0
    for (let i = 0; i < 20_000; i++) {
      const binding = pick(next, BINDINGS)
      const sent = sentOf(next)
      const answer = answerOf(next)
      const status = next() < 0.9 ? 200 : pick(next, [199, 204, 299, 300, 404, 500])
      const bound = new BoundRequest(binding, sent)
      const expected = unboundAnswer(binding, sent, answer)
      if (expected !== undefined) refused++
      const context = JSON.stringify({ rule: binding.rule, sent, answer, status })
      expect(bound.unbound(answer), context).toBe(expected)
      expect(bound.unboundOnReuse(status, answer), context).toBe(unboundOnReuse(binding, sent, status, answer))
      expect(bound.subject('op.name'), context).toBe(subjectOf('op.name', binding, sent))
    }
    // The generator exercises both sides.
    expect(refused).toBeGreaterThan(2_000)
    expect(refused).toBeLessThan(18_000)
  })

  it('hand-picked variants: case, trailing space, number against its text, nested, arrays, inherited names', () => {
    const binding = bindAnswer('lookup', { wire: { 'order.number': ['order.number'] }, rule: 'R' })
    const sent = (value: unknown): SentRequest => ({
      wire: { order: { number: value } },
      path: {},
      idempotencyKey: undefined,
    })
    const cases: Array<[unknown, unknown]> = [
      ['A1', { order: { number: 'a1' } }],
      ['A1', { order: { number: 'A1 ' } }],
      [1002, { order: { number: '1002' } }],
      ['1002', { order: { number: 1002 } }],
      ['1002', { order: { number: 1002.0 } }],
      ['1002', { order: { number: '1002.0' } }],
      ['A1', { order: [{ number: 'A1' }] }],
      ['A1', { 'order.number': 'A1' }],
      ['A1', { order: Object.create({ number: 'A1' }) }],
      ['A1', { order: { number: ['A1'] } }],
      ['A1', { order: { number: null } }],
      [Number.NaN, { order: { number: 'NaN' } }],
      ['__proto__', { order: { number: '__proto__' } }],
    ]
    for (const [value, answer] of cases) {
      const request = sent(value)
      expect(new BoundRequest(binding, request).unbound(answer), JSON.stringify([value, answer])).toBe(
        unboundAnswer(binding, request, answer),
      )
    }
  })

  it("one row's binding shared by concurrent requests: each checks its own values, never another's", () => {
    const binding = bindAnswer('action', { path: { id: ['transferId'] }, idempotencyKey: ['key'], rule: 'R' })
    const a = new BoundRequest(binding, { wire: undefined, path: { id: 'A' }, idempotencyKey: 'k-a' })
    const b = new BoundRequest(binding, { wire: undefined, path: { id: 'B' }, idempotencyKey: 'k-b' })
    expect(a.unbound({ transferId: 'A', key: 'k-a' })).toBeUndefined()
    expect(b.unbound({ transferId: 'A', key: 'k-a' })).toContain('not the "B" this call sent')
    expect(a.unboundOnReuse(200, { transferId: 'B', key: 'k-b' })).toContain('"A"')
    expect([a.subject('x'), b.subject('x')]).toEqual(['x\u0000A\u0000k-a', 'x\u0000B\u0000k-b'])
  })
})
