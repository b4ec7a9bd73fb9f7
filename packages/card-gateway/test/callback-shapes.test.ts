/**
 * Hostile callback shapes, from the attacker's side: bodies nested thousands of levels deep and
 * bodies of thousands of tiny fields, all under the size cap. Each is refused with a typed
 * `SignatureVerificationError` (so the inbox answers 400, never 500) before any deep work: the whole
 * body is never handed to `JSON.parse` or decoded field by field. Hashes come from the independent
 * vectors in fixtures/ (coreutils md5sum/sha1sum), never from the code under test.
 */

import { once } from 'node:events'
import { readFileSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { SignatureVerificationError } from '@paywire/core'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { type CallbackEvent, CardGateway, MAX_CALLBACK_DEPTH, MAX_CALLBACK_FIELDS } from '../src/index.js'

type Vector = { name: string; values: string[]; password: string; hash: string }
const vectors: Vector[] = JSON.parse(
  readFileSync(new URL('./fixtures/signature-vectors.json', import.meta.url), 'utf8'),
)
/** A legitimate callback: id, order_number, order_amount, order_currency, order_description. */
const callback = vectors.find((v) => v.name === 'callback') as Vector
const [id, order_number, order_amount, order_currency, order_description] = callback.values as [
  string,
  string,
  string,
  string,
  string,
]
const SIGNED = { id, order_number, order_amount, order_currency, order_description, hash: callback.hash }

/** The limits this file holds the code to (the exported constants must say the same). */
const DEPTH = 16
const FIELDS = 256

const gw = new CardGateway({
  checkoutUrl: 'https://checkout.example',
  s2sUrl: 'https://s2s.example',
  merchantKey: 'mk',
  clientKey: 'ck',
  password: callback.password,
})

/** A signed JSON callback whose extra members are spliced in as raw JSON text, before the signed ones. */
function jsonBody(extra: string): string {
  const signed = JSON.stringify({ ...SIGNED, type: 'sale', status: 'success' }).slice(1)
  return extra === '' ? `{${signed}` : `{${extra},${signed}`
}

/** A signed form callback with extra raw `name=value` pairs in front. */
function formBody(extra: string): string {
  const signed = new URLSearchParams({ ...SIGNED, type: 'sale', status: 'success' }).toString()
  return extra === '' ? signed : `${extra}&${signed}`
}

/** `levels` nested arrays (`[[…]]`) as a member value: the body's depth is `levels + 1`. */
const nestedArrays = (levels: number) => `${'['.repeat(levels)}${']'.repeat(levels)}`
/** `levels` nested objects (`{"a":{"a":…}}`) as a member value: the body's depth is `levels + 1`. */
const nestedObjects = (levels: number) => `${'{"a":'.repeat(levels - 1)}{}${'}'.repeat(levels - 1)}`
/** `count` tiny top-level members. */
const tinyMembers = (count: number) => Array.from({ length: count }, (_, i) => `"k${i}":${i}`).join(',')
/** `count` tiny form pairs. */
const tinyPairs = (count: number) => Array.from({ length: count }, (_, i) => `k${i}=${i}`).join('&')

function refusal(body: string | Buffer): SignatureVerificationError {
  try {
    gw.callbacks.verify(body)
  } catch (error) {
    if (error instanceof SignatureVerificationError) return error
    throw new Error(`expected SignatureVerificationError, got ${String(error)}`)
  }
  throw new Error('expected the callback to be refused')
}

afterEach(() => {
  vi.restoreAllMocks()
})

describe('the limits are exported, with the values a real callback never meets', () => {
  it(`MAX_CALLBACK_DEPTH is ${DEPTH} and MAX_CALLBACK_FIELDS is ${FIELDS}`, () => {
    expect(MAX_CALLBACK_DEPTH).toBe(DEPTH)
    expect(MAX_CALLBACK_FIELDS).toBe(FIELDS)
  })
})

describe('JSON nested too deep', () => {
  it('a 10 KB body nested 5 000 levels deep is refused as too_deep, not a RangeError', () => {
    const body = jsonBody(`"custom_data":${nestedArrays(5_000)}`)
    expect(body.length).toBeGreaterThan(10_000)
    const error = refusal(body)
    expect(error.reason).toBe('too_deep')
    expect(error.message).toContain(`${DEPTH} levels`)
    expect(error.diagnostic).toEqual({ limitDepth: DEPTH })
  })

  it.each([
    ['arrays', nestedArrays],
    ['objects', nestedObjects],
  ])('nested %s: the limit depth verifies, one level more is refused', (_, nest) => {
    // The body's own braces are level 1, so the member value may nest DEPTH - 1 levels.
    const atLimit = jsonBody(`"custom_data":${nest(DEPTH - 1)}`)
    expect(gw.callbacks.verify(atLimit).custom_data).toBe(JSON.stringify(JSON.parse(nest(DEPTH - 1))))
    expect(refusal(jsonBody(`"custom_data":${nest(DEPTH)}`)).reason).toBe('too_deep')
  })

  it('is refused before the body reaches JSON.parse, even when the rest of the body is not JSON', () => {
    const parse = vi.spyOn(JSON, 'parse')
    expect(refusal(`{"custom_data":${'['.repeat(5_000)}`).reason).toBe('too_deep')
    expect(refusal(`{"a":${'{"a":'.repeat(5_000)}`).reason).toBe('too_deep')
    expect(parse).not.toHaveBeenCalled()
  })

  it('brackets inside strings are text, not depth (escaped quotes included)', () => {
    const text = `${'['.repeat(5_000)}\\"${'{'.repeat(5_000)}`
    const event = gw.callbacks.verify(jsonBody(`"note":"${text}"`))
    expect(event.note).toBe(JSON.parse(`"${text}"`))
  })

  it('refuses the 5 000-deep body with 400 too_deep through the node:http inbox, and runs nothing', async () => {
    const runs: CallbackEvent[] = []
    const handler = gw.callbacks.handler({ onEvent: (event) => void runs.push(event) })
    const server = createServer(handler.node).listen(0, '127.0.0.1')
    await once(server, 'listening')
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/callbacks/card`
      const post = (body: string) =>
        fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body }).then(async (r) => ({
          status: r.status,
          body: await r.text(),
        }))
      expect(await post(jsonBody(`"custom_data":${nestedArrays(5_000)}`))).toEqual({ status: 400, body: 'too_deep' })
      expect(await post(jsonBody(tinyMembers(5_000)))).toEqual({ status: 400, body: 'too_many_fields' })
      // The same inbox still takes a real callback.
      expect(await post(jsonBody(''))).toEqual({ status: 200, body: 'OK' })
      await handler.drain()
      expect(runs.map((event) => event.id)).toEqual([id])
    } finally {
      await new Promise((resolve) => server.close(resolve))
    }
  })
})

describe('too many fields', () => {
  // The callback above has 8 members of its own (5 signed, hash, type, status).
  const OWN = 8

  it(`JSON: ${FIELDS} members verify, one more is refused as too_many_fields`, () => {
    expect(gw.callbacks.verify(jsonBody(tinyMembers(FIELDS - OWN))).k0).toBe('0')
    const error = refusal(jsonBody(tinyMembers(FIELDS - OWN + 1)))
    expect(error.reason).toBe('too_many_fields')
    expect(error.message).toContain(`${FIELDS} fields`)
    expect(error.diagnostic).toEqual({ limitFields: FIELDS })
  })

  it('JSON: members of nested objects count too (each is a field to build)', () => {
    const nested = `"custom_data":{${tinyMembers(FIELDS)}}`
    expect(refusal(jsonBody(nested)).reason).toBe('too_many_fields')
  })

  it('JSON: array elements count too: 30 000 numbers in one member are refused before JSON.parse', () => {
    const parse = vi.spyOn(JSON, 'parse')
    const body = jsonBody(`"custom_data":[${Array.from({ length: 30_000 }, () => '7').join(',')}]`)
    expect(body.length).toBeLessThan(65_536)
    expect(refusal(body).reason).toBe('too_many_fields')
    expect(parse).not.toHaveBeenCalled()
    // Within the limit (8 own members, custom_data, its elements), an array is read as JSON text.
    const few = `[${Array.from({ length: FIELDS - 9 }, () => '7').join(',')}]`
    expect(gw.callbacks.verify(jsonBody(`"custom_data":${few}`)).custom_data).toBe(few)
  })

  it('JSON: a 60 KiB body of 4 500 tiny members is refused before JSON.parse sees it', () => {
    const body = jsonBody(tinyMembers(4_500))
    expect(body.length).toBeGreaterThan(55_000)
    expect(body.length).toBeLessThan(65_536)
    const parse = vi.spyOn(JSON, 'parse')
    expect(refusal(body).reason).toBe('too_many_fields')
    expect(parse).not.toHaveBeenCalled()
  })

  it(`form: ${FIELDS} pairs verify, one more is refused as too_many_fields; empty pairs are not fields`, () => {
    expect(gw.callbacks.verify(formBody(tinyPairs(FIELDS - OWN))).k0).toBe('0')
    expect(gw.callbacks.verify(formBody(`${tinyPairs(FIELDS - OWN)}&&&&`)).k0).toBe('0')
    expect(refusal(formBody(tinyPairs(FIELDS - OWN + 1))).reason).toBe('too_many_fields')
  })

  it('form: a 60 KiB body of 6 000 tiny pairs is refused before any pair is decoded', () => {
    const body = formBody(tinyPairs(6_000))
    expect(body.length).toBeGreaterThan(45_000)
    expect(body.length).toBeLessThan(65_536)
    const decoded = vi.spyOn(URLSearchParams.prototype, 'entries')
    const iterated = vi.spyOn(URLSearchParams.prototype, Symbol.iterator)
    expect(refusal(Buffer.from(body)).reason).toBe('too_many_fields')
    expect(decoded).not.toHaveBeenCalled()
    expect(iterated).not.toHaveBeenCalled()
  })
})

describe('form bodies do not nest', () => {
  it('a 5 000-level bracketed name (a[b][b]…) is one flat field: it verifies, nothing is built from it', () => {
    const name = `a${'[b]'.repeat(5_000)}`
    const event = gw.callbacks.verify(formBody(`${encodeURIComponent(name)}=1`))
    expect(event[name]).toBe('1')
    expect(Object.keys(event)).not.toContain('a')
  })

  it('the same name unencoded is still one flat field', () => {
    const name = `a${'[b]'.repeat(5_000)}`
    expect(gw.callbacks.verify(formBody(`${name}=1`))[name]).toBe('1')
  })

  it(`bracketed names count as fields: ${FIELDS + 1} of them are too many`, () => {
    const pairs = Array.from({ length: FIELDS + 1 }, (_, i) => `a[${i}]=1`).join('&')
    expect(refusal(formBody(pairs)).reason).toBe('too_many_fields')
  })
})
