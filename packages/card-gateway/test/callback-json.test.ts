/**
 * The JSON callback reader is one hand-written pass (so no body can make it recurse or build
 * thousands of objects): it must accept exactly what `JSON.parse` accepts, and read every top-level
 * member as `JSON.parse` would. Checked on a table of edge cases and on mutated bodies against
 * `JSON.parse` itself (seeded, so every run tests the same bodies).
 */

import { SignatureVerificationError } from '@paywire/core'
import { describe, expect, it } from 'vitest'
import { parseRawBody } from '../src/callbacks/body.js'

function read(body: string): Record<string, string> | string {
  try {
    return parseRawBody(body)
  } catch (error) {
    if (error instanceof SignatureVerificationError) return error.reason
    throw error
  }
}

/** What the reader must give for a body JSON.parse accepts: numbers keep their source text. */
function expected(body: string, numbers: Record<string, string> = {}): Record<string, string> {
  const parsed = JSON.parse(body) as Record<string, unknown>
  return Object.fromEntries(
    Object.entries(parsed).map(([key, value]) => [
      key,
      typeof value === 'string' ? value : typeof value === 'number' ? (numbers[key] as string) : JSON.stringify(value),
    ]),
  )
}

describe('accepts what JSON.parse accepts, reading the same values', () => {
  it.each([
    ['an empty object', '{}', {}],
    ['JSON whitespace everywhere', ' \n\t\r{ "a" : 1 , "b" : [ ] , "c" : { } }\r\n', { a: '1' }],
    [
      'numbers as written',
      '{"a":-0.50e+10,"b":0,"c":-0,"d":1E5,"e":10.00}',
      { a: '-0.50e+10', b: '0', c: '-0', d: '1E5', e: '10.00' },
    ],
    ['escapes decoded', String.raw`{"a":"\\","b":"\"","c":"\/\b\f\n\r\t","d":"\u0041\u00e9"}`, {}],
    ['an escaped lone surrogate', String.raw`{"a":"\ud800x"}`, {}],
    ['a raw lone surrogate and DEL', '{"a":"\ud800\u007f"}', {}],
    ['an escaped NUL', String.raw`{"a":"x\u0000y"}`, {}],
    ['"__proto__" as a plain field', '{"__proto__":"x","constructor":"y"}', {}],
    ['literals as JSON text', '{"a":true,"b":false,"c":null}', {}],
    ['nested values as JSON text', String.raw`{"a":{"b":[1, {"c":"\u0041"}], "d" : "e"},"f":[]}`, {}],
    ['integer-like keys', '{"2":"b","1":"a","x":"c"}', {}],
    ['a key with an escaped quote', String.raw`{"a\"b":"c"}`, {}],
  ])('%s', (_, body, numbers) => {
    const fields = read(body)
    expect(fields).toEqual(expected(body, numbers))
    if (typeof fields !== 'string') {
      expect(Object.getPrototypeOf(fields)).toBe(Object.prototype)
      expect(Object.keys(fields)).toEqual(Object.keys(JSON.parse(body)))
    }
  })
})

describe('refuses what JSON.parse refuses, as unreadable_body', () => {
  it.each([
    '{"a":01}',
    '{"a":-}',
    '{"a":1.}',
    '{"a":.5}',
    '{"a":1e}',
    '{"a":1e+}',
    '{"a":+1}',
    '{"a":NaN}',
    '{"a":Infinity}',
    '{"a":tru}',
    '{"a":nul}',
    String.raw`{"a":"\x"}`,
    String.raw`{"a":"\u12"}`,
    String.raw`{"a":"\"}`,
    '{"a":"tab\there"}',
    '{"a":"new\nline"}',
    '{"a":"unterminated}',
    "{'a':1}",
    '{a:1}',
    '{"a" 1}',
    '{"a":1,}',
    '{,}',
    '{"a":1 "b":2}',
    '{"a":1}}',
    '{"a":1} x',
    '{"a":1}{}',
    '{"a":[1,]}',
    '{"a":[1 2]}',
    '{"a":[}',
    '{"a":{]}',
    '{"a":{"b"}}',
    '{"a":{"b":}}',
    '{"a":1',
    '{',
    '\uFEFF{"a":1}',
    '\u00a0{"a":1}',
    '{"a":1}\u00a0',
  ])('%j', (body) => {
    expect(() => JSON.parse(body)).toThrow(SyntaxError)
    expect(read(body)).toBe('unreadable_body')
  })
})

/** A small seeded generator (mulberry32): the same bodies on every run. */
function random(seed: number): () => number {
  let a = seed
  return () => {
    a = (a + 0x6d2b79f5) | 0
    let t = Math.imul(a ^ (a >>> 15), 1 | a)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296
  }
}

const SEEDS = [
  '{"id":"pay-1","order_amount":10.00,"custom_data":{"a":[1,2,{"b":null}]},"ok":true}',
  String.raw`{"a":"x\"y\\","b":-1.5e-3,"c":[],"d":{},"e":"\u00e9"}`,
  '{ "k" : [ [ ] , { "x" : false } ] , "n" : 0 }',
]
const ALPHABET = [
  '{',
  '}',
  '[',
  ']',
  '"',
  ':',
  ',',
  '\\',
  '0',
  '1',
  '-',
  '+',
  '.',
  'e',
  ' ',
  '\n',
  'u',
  'a',
  't',
  'n',
  '\u0001',
]

describe('mutated bodies: the reader and JSON.parse agree on every one', () => {
  it('5 000 seeded mutations (insert, delete, replace one to three characters)', () => {
    const next = random(26_14)
    const pick = <T>(items: readonly T[]) => items[Math.floor(next() * items.length)] as T
    let valid = 0
    let invalid = 0
    for (let n = 0; n < 5_000; n++) {
      let body = pick(SEEDS)
      for (let edits = 1 + Math.floor(next() * 3); edits > 0; edits--) {
        const at = 1 + Math.floor(next() * (body.length - 1)) // keep the opening brace: the JSON path
        const kind = next()
        if (kind < 0.33) body = body.slice(0, at) + pick(ALPHABET) + body.slice(at)
        else if (kind < 0.66) body = body.slice(0, at) + body.slice(at + 1)
        else body = body.slice(0, at) + pick(ALPHABET) + body.slice(at + 1)
      }
      let parsed: unknown
      try {
        parsed = JSON.parse(body)
      } catch {
        expect(read(body), body).toBe('unreadable_body')
        invalid++
        continue
      }
      const fields = read(body)
      if (fields === 'duplicate_field') continue // JSON.parse keeps the last; the reader refuses both
      expect(typeof fields, body).toBe('object')
      const object = parsed as Record<string, unknown>
      const own = fields as Record<string, string>
      expect(Object.keys(own), body).toEqual(Object.keys(object))
      for (const [key, value] of Object.entries(object)) {
        if (typeof value === 'number') expect(Number(own[key]), body).toBe(value)
        else expect(own[key], body).toBe(typeof value === 'string' ? value : JSON.stringify(value))
      }
      valid++
    }
    // Both sides of the comparison were exercised.
    expect(valid).toBeGreaterThan(100)
    expect(invalid).toBeGreaterThan(1_000)
  })
})
