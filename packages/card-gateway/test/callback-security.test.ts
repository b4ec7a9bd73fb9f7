/**
 * Callback forgery and denial of service, from the attacker's side: bodies built by hand, hashes
 * from the independent vectors in fixtures/ (coreutils md5sum/sha1sum, never the code under test).
 */

import { readFileSync } from 'node:fs'
import { SignatureVerificationError } from '@paywire/core'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { CardGateway, isFinal } from '../src/index.js'

type Vector = { name: string; values: string[]; password: string; hash: string }
const vectors: Vector[] = JSON.parse(
  readFileSync(new URL('./fixtures/signature-vectors.json', import.meta.url), 'utf8'),
)
const byName = (name: string) => vectors.find((v) => v.name === name) as Vector
/** A legitimate callback: id, order_number, order_amount, order_currency, order_description. */
const callback = byName('callback')
/** sha1(md5(UPPER(password))): what every field absent (or empty) would hash to. */
const passwordOnly = byName('password-only-callback')

const gw = new CardGateway({
  checkoutUrl: 'https://checkout.example',
  s2sUrl: 'https://s2s.example',
  merchantKey: 'mk',
  clientKey: 'ck',
  password: callback.password,
})

const [id, order_number, order_amount, order_currency, order_description] = callback.values as [
  string,
  string,
  string,
  string,
  string,
]

function verifyError(body: string | Buffer, options?: Parameters<typeof gw.callbacks.verify>[1]) {
  try {
    gw.callbacks.verify(body, options)
  } catch (error) {
    expect(error).toBeInstanceOf(SignatureVerificationError)
    return error as SignatureVerificationError
  }
  throw new Error('expected the callback to be refused')
}

afterEach(() => {
  vi.restoreAllMocks()
})

describe('an empty callback request', () => {
  it.each([
    ['an empty string', ''],
    ['whitespace', ' \r\n'],
    ['an empty Buffer', Buffer.alloc(0)],
  ])('%s is refused as an empty body, without body-parser advice', (_, body) => {
    const error = verifyError(body)
    expect(error.reason).toBe('empty_body')
    expect(error.message).toMatch(/^callback body is empty/)
    expect(error.message).not.toMatch(/express|Fastify|raw request body/i)
  })

  it.each([
    ["Express 4's {} for a request without a body", {}],
    ["Express 5's undefined for a request without a body", undefined],
  ])('%s is refused as empty_body, saying both possible causes', (_, body) => {
    const error = verifyError(body as unknown as string)
    expect(error.reason).toBe('empty_body')
    expect(error.message).toMatch(/^callbacks\.verify got no body: the request had none/)
  })

  it('a parsed object with fields still gets the raw-body advice', () => {
    const error = verifyError({ id: 'p', hash: 'h' } as unknown as string)
    expect(error.reason).toBe('not_raw_body')
    expect(error.message).toMatch(/express\.raw/)
  })
})

describe('a callback must carry every signed field', () => {
  it('refuses a forged "settled sale" that carries none of the signed fields and the password-only hash', () => {
    const forged = `type=sale&status=success&order_status=settled&hash=${passwordOnly.hash}`
    const error = verifyError(forged)
    expect(error.reason).toBe('missing_signed_fields')
    expect(error.message).toContain('id, order_number, order_amount, order_currency, order_description')
    expect(error.diagnostic).toMatchObject({
      fieldsMissing: ['id', 'order_number', 'order_amount', 'order_currency', 'order_description'],
    })
  })

  it('refuses the same forgery in JSON', () => {
    const forged = JSON.stringify({ type: 'sale', status: 'success', order_status: 'settled', hash: passwordOnly.hash })
    expect(verifyError(forged).reason).toBe('missing_signed_fields')
  })

  it('refuses signed fields sent empty (they would hash like absent ones)', () => {
    const forged = new URLSearchParams({
      id: '',
      order_number: '',
      order_amount: '',
      order_currency: '',
      order_description: '',
      type: 'sale',
      status: 'success',
      order_status: 'settled',
      hash: passwordOnly.hash,
    }).toString()
    const error = verifyError(forged)
    expect(error.reason).toBe('missing_signed_fields')
    expect(error.message).toMatch(/empty/)
  })

  it('refuses a callback missing one signed field even when the hash would match without it', () => {
    // order_description absent: the concatenation of the rest is not what was signed either way.
    const body = new URLSearchParams({ id, order_number, order_amount, order_currency, hash: callback.hash }).toString()
    const error = verifyError(body)
    expect(error.reason).toBe('missing_signed_fields')
    expect(error.message).toContain('order_description')
  })

  it('still verifies the legitimate callback, and it is final', () => {
    const body = new URLSearchParams({
      id,
      order_number,
      order_amount,
      order_currency,
      order_description,
      type: 'sale',
      status: 'success',
      order_status: 'settled',
      hash: callback.hash,
    }).toString()
    expect(isFinal(gw.callbacks.verify(body))).toBe(true)
  })
})

describe('JSON callbacks: the signed value is the top-level member, as JSON.parse reads it', () => {
  it('a nested "order_amount" cannot stand in for the top-level one', () => {
    // Signed over 10.00; the top-level amount (what the merchant's JSON.parse sees) is 999.00.
    const body = `{"custom_data":{"order_amount":${order_amount}},"id":${JSON.stringify(id)},"order_number":${JSON.stringify(order_number)},"order_amount":999.00,"order_currency":"${order_currency}","order_description":${JSON.stringify(order_description)},"type":"sale","status":"success","order_status":"settled","hash":"${callback.hash}"}`
    expect((JSON.parse(body) as { order_amount: number }).order_amount).toBe(999)
    expect(verifyError(body).reason).toBe('hash_mismatch')
  })

  it('a top-level number keeps its exact source text (10.00, not 10)', () => {
    const body = `{"id":${JSON.stringify(id)},"order_number":${JSON.stringify(order_number)},"order_amount":${order_amount},"order_currency":"${order_currency}","order_description":${JSON.stringify(order_description)},"hash":"${callback.hash}","custom_data":{"order_amount":1}}`
    expect(gw.callbacks.verify(body).order_amount).toBe('10.00')
  })

  it('refuses a top-level key duplicated through an escape ("id" and "\\u0069d")', () => {
    const body = `{"id":"a","\\u0069d":${JSON.stringify(id)},"hash":"${callback.hash}"}`
    expect(verifyError(body).reason).toBe('duplicate_field')
  })
})

describe('hostile sizes: a cap before any parsing, linear work below it', () => {
  it('refuses a body over 64 KiB before parsing it (body_too_large, naming the limit and the option)', () => {
    const parse = vi.spyOn(JSON, 'parse')
    const body = `{"id":"${'x'.repeat(70_000)}"`
    const error = verifyError(body)
    expect(error.reason).toBe('body_too_large')
    expect(error.message).toContain('65536')
    expect(error.message).toContain('maxBodyBytes')
    expect(parse).not.toHaveBeenCalled()
  })

  it('refuses a 16 MiB string by its length alone: no byte count, no parse', () => {
    const measure = vi.spyOn(Buffer, 'byteLength')
    const parse = vi.spyOn(JSON, 'parse')
    const body = `{"id":"${'x'.repeat(16 * 1024 * 1024)}"}`
    const error = verifyError(body)
    expect(error.reason).toBe('body_too_large')
    expect(error.message).toBe(
      `callback body is at least ${body.length} bytes, over the 65536-byte limit (option maxBodyBytes); it is refused before parsing. A genuine callback is a few hundred bytes.`,
    )
    expect(measure).not.toHaveBeenCalled()
    expect(parse).not.toHaveBeenCalled()
  })

  it('counts bytes, not characters, and accepts a body of exactly the limit', () => {
    const legit = new URLSearchParams({
      id,
      order_number,
      order_amount,
      order_currency,
      order_description,
      hash: callback.hash,
    })
    const base = legit.toString()
    const limit = 4_096
    legit.append('pad', 'p'.repeat(limit - base.length - '&pad='.length))
    const atLimit = legit.toString()
    expect(Buffer.byteLength(atLimit)).toBe(limit)
    expect(gw.callbacks.verify(atLimit, { maxBodyBytes: limit }).id).toBe(id)
    expect(verifyError(`${atLimit}p`, { maxBodyBytes: limit }).reason).toBe('body_too_large')
    // Multi-byte: 2 048 "é" are 4 096 bytes but 2 048 characters.
    expect(
      verifyError(Buffer.from(`${atLimit.slice(0, -2048)}${'é'.repeat(1_024)}x`), { maxBodyBytes: limit }).reason,
    ).toBe('body_too_large')
  })

  it('scans a 60 KiB body of 4 500 numeric keys in linear work: no regular expression runs over the whole body per field', () => {
    const members = Array.from({ length: 4_500 }, (_, i) => `"k${i}":${i}.5`)
    const body = `{${members.join(',')},"hash":"${'0'.repeat(40)}"}`
    expect(body.length).toBeGreaterThan(55_000)
    expect(body.length).toBeLessThan(65_536)
    let scanned = 0
    const exec = RegExp.prototype.exec
    vi.spyOn(RegExp.prototype, 'exec').mockImplementation(function (this: RegExp, input: string) {
      scanned += input.length
      return exec.call(this, input)
    })
    // Over MAX_CALLBACK_FIELDS: refused by the shape check, before any member is decoded.
    expect(verifyError(body).reason).toBe('too_many_fields')
    // The whole body may be read a bounded number of times, never once per member.
    expect(scanned).toBeLessThan(4 * body.length)
  })
})

describe('callback uppercasing is its own platform default', () => {
  // python3: sha1(md5("pay-123order-100110.00USDCrème brûlée" + "Pa55word").upper()) in hex → 1812c4dc…
  const unicodeHash = '1812c4dc91e652a3dbbc62601024ffc5caa78fa7'
  const body = (hash: string) =>
    new URLSearchParams({ id, order_number, order_amount, order_currency, order_description, hash }).toString()

  it('ASCII-only by default, whatever the request uppercasing is', () => {
    const unicodeRequests = new CardGateway({
      checkoutUrl: 'https://checkout.example',
      s2sUrl: 'https://s2s.example',
      merchantKey: 'mk',
      clientKey: 'ck',
      password: callback.password,
      platformDefaults: { uppercase: 'unicode' },
    })
    expect(unicodeRequests.callbacks.verify(body(callback.hash)).id).toBe(id)
    expect(() => unicodeRequests.callbacks.verify(body(unicodeHash))).toThrow(SignatureVerificationError)
  })

  it('platformDefaults.callbackUppercase: "unicode" verifies a callback signed with Unicode uppercasing', () => {
    const unicodeCallbacks = new CardGateway({
      checkoutUrl: 'https://checkout.example',
      s2sUrl: 'https://s2s.example',
      merchantKey: 'mk',
      clientKey: 'ck',
      password: callback.password,
      platformDefaults: { callbackUppercase: 'unicode' },
    })
    expect(unicodeCallbacks.callbacks.verify(body(unicodeHash)).id).toBe(id)
    expect(() => unicodeCallbacks.callbacks.verify(body(callback.hash))).toThrow(SignatureVerificationError)
  })
})
