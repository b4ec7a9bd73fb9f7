/**
 * The callback's form body is read by a fast path for ASCII text (callbacks/body.ts): it must read
 * exactly what `URLSearchParams` reads, for every body a hostile sender can write, since the signature
 * is checked over the values read. Property tests over an alphabet of the characters that matter
 * (`%`, `+`, `=`, `&`, `?`, hex digits, percent-encoded UTF-8 and broken sequences, non-ASCII and a
 * lone surrogate), against `URLSearchParams` itself.
 */

import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { parseRawBody } from '../src/callbacks/body.js'

const PIECES = [
  'a',
  'B',
  '0',
  '9',
  'f',
  'F',
  '%',
  '+',
  '=',
  '&',
  '?',
  ' ',
  '.',
  '_',
  '%41',
  '%2B',
  '%26',
  '%3D',
  '%25',
  '%20',
  '%C3%A9',
  '%E2%82%AC',
  '%F0%9F%92%B3',
  '%EF%BB%BF',
  '%C3',
  '%E2%82',
  '%ED%A0%80',
  '%FF',
  '%G1',
  '%4',
  '%00',
  'é',
  '€',
  '\uD800',
  '\uDC00',
] as const

const body = fc.array(fc.constantFrom(...PIECES), { minLength: 1, maxLength: 40 }).map((parts) => parts.join(''))
/** ASCII with valid percent-encoding only: every one of these is read by the fast path. */
const FAST = PIECES.filter(
  (p) => !['%', '%C3', '%E2%82', '%ED%A0%80', '%FF', '%G1', '%4', 'é', '€', '\uD800', '\uDC00'].includes(p),
)
const fastBody = fc.array(fc.constantFrom(...FAST), { minLength: 1, maxLength: 40 }).map((parts) => parts.join(''))

/** What `URLSearchParams` reads, with the callback's refusal of a repeated field. */
function reference(text: string): Record<string, string> | 'duplicate_field' {
  const out: Record<string, string> = {}
  for (const [name, value] of new URLSearchParams(text)) {
    if (Object.hasOwn(out, name)) return 'duplicate_field'
    out[name] = value
  }
  return out
}

function read(text: string): Record<string, string> | string {
  try {
    return parseRawBody(text)
  } catch (error) {
    return (error as { reason?: string }).reason ?? String(error)
  }
}

describe('the form body: the fast path reads what URLSearchParams reads', () => {
  it('over 20,000 hostile bodies', () => {
    fc.assert(
      fc.property(body, (text) => {
        // Bodies the form reader never sees: blank ones, and JSON.
        fc.pre(text.trim() !== '' && !text.trimStart().startsWith('{'))
        expect(read(text)).toEqual(reference(text))
      }),
      { numRuns: 20_000, seed: 39 },
    )
  })

  it('over 20,000 ASCII bodies the fast path reads itself', () => {
    fc.assert(
      fc.property(fastBody, (text) => {
        fc.pre(text.trim() !== '' && !text.trimStart().startsWith('{'))
        expect(read(text)).toEqual(reference(text))
      }),
      { numRuns: 20_000, seed: 40 },
    )
  })

  it('reads the cases where the two decoders differ as URLSearchParams does', () => {
    expect(read('a=%G1&b=%C3&c=%ED%A0%80&d=\uD800')).toEqual({
      a: '%G1',
      b: '\uFFFD',
      c: '\uFFFD\uFFFD\uFFFD',
      d: '\uFFFD',
    })
    expect(read('?a=1+2%2B3&&=&b')).toEqual({ a: '1 2+3', '': '', b: '' })
  })
})
