/**
 * Rotating the callback password: `callbackPasswords` lists the passwords a callback may be signed
 * with (`password`, the one requests sign with, first; the other one of the rotation after) while
 * requests keep signing with `password` alone. From the attacker's
 * side: a callback signed with a password not in the list is refused, a request never carries a hash
 * of an old password (read off the wire of a loopback server), and no password reaches inspect,
 * JSON, an error or a log line.
 */

import { once } from 'node:events'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { inspect } from 'node:util'
import { RequestValidationError, Secret, SignatureVerificationError } from '@paywire/core'
import { afterEach, describe, expect, it } from 'vitest'
import { type CallbackEvent, CardGateway, type CardGatewayOptions, strrevSignature } from '../src/index.js'
import { signCallback } from '../src/testing/index.js'

const NEW = 'new-callback-password'
const OLD = 'old-callback-password'
const OTHER = 'not-our-password'
const FIELDS = {
  id: 'pay-1',
  order_number: 'order-1',
  order_amount: '10.00',
  order_currency: 'USD',
  order_description: 'Filters',
  type: 'sale',
  status: 'success',
}
const body = (password: string, fields: Record<string, string> = FIELDS) => signCallback(fields, password)

function client(extra: Partial<CardGatewayOptions> = {}): CardGateway {
  return new CardGateway({
    checkoutUrl: 'https://checkout.example',
    s2sUrl: 'https://s2s.example',
    merchantKey: 'mk',
    clientKey: 'ck',
    password: NEW,
    ...extra,
  })
}

function refusal(run: () => unknown): SignatureVerificationError {
  try {
    run()
  } catch (error) {
    if (error instanceof SignatureVerificationError) return error
    throw error
  }
  throw new Error('verified')
}

function optionsError(run: () => unknown): RequestValidationError {
  try {
    run()
  } catch (error) {
    if (error instanceof RequestValidationError) return error
    throw error
  }
  throw new Error('accepted')
}

describe('callbackPasswords: verify', () => {
  it('default: the password alone; no passwordIndex on the event', () => {
    const event = client().callbacks.verify(body(NEW))
    expect(event.id).toBe('pay-1')
    expect(event.passwordIndex).toBeUndefined()
    refusal(() => client().callbacks.verify(body(OLD)))
  })

  it('[new, old]: both verify; the old one is named by its index; any other password is refused', () => {
    const gw = client({ callbackPasswords: [NEW, new Secret(OLD)] })
    expect(gw.callbacks.verify(body(NEW)).passwordIndex).toBeUndefined()
    expect(gw.callbacks.verify(body(OLD)).passwordIndex).toBe('1')
    expect(refusal(() => gw.callbacks.verify(body(OTHER))).reason).toBe('hash_mismatch')
  })

  it('a body claiming passwordIndex itself does not keep it', () => {
    const gw = client({ callbackPasswords: [NEW, OLD] })
    const signedNew = `${body(NEW)}&passwordIndex=1`
    expect(gw.callbacks.verify(signedNew).passwordIndex).toBeUndefined()
  })

  it('a list without password is refused by name (before: accepted, then every callback signed like the requests failed)', () => {
    const error = optionsError(() => client({ callbackPasswords: [OLD] }))
    expect(error.issues.map((i) => i.path)).toEqual(['callbackPasswords'])
    expect(error.message).toMatch(/must list password first/)
    expect(error.message).not.toContain(OLD)
    expect(error.message).not.toContain(NEW)
  })

  it('a list with password after another is refused: one order, password first', () => {
    const error = optionsError(() => client({ callbackPasswords: [OLD, NEW] }))
    expect(error.issues[0]?.message).toMatch(/at callbackPasswords\[1\]: list it first/)
  })

  it('a Secret password matches a string in the list, and the reverse', () => {
    expect(() => client({ password: new Secret(NEW), callbackPasswords: [NEW, OLD] })).not.toThrow()
    expect(() => client({ password: NEW, callbackPasswords: [new Secret(NEW), OLD] })).not.toThrow()
  })

  it('card-md5-strrev: an S2S callback signed with the old password verifies, index 1', () => {
    const payer = { email: 'payer@shop.example', cardFirst6: '411111', cardLast4: '1111' }
    const gw = client({ signature: 'card-md5-strrev', payerLookup: () => payer, callbackPasswords: [NEW, OLD] })
    const s2s = (password: string) => {
      const hash = strrevSignature('transaction', { payer, transId: 't-1' }, password).hash
      return new URLSearchParams({
        action: 'SALE',
        result: 'SUCCESS',
        status: 'SETTLED',
        trans_id: 't-1',
        hash,
      }).toString()
    }
    expect(gw.callbacks.verify(s2s(NEW)).passwordIndex).toBeUndefined()
    expect(gw.callbacks.verify(s2s(OLD)).passwordIndex).toBe('1')
    expect(refusal(() => gw.callbacks.verify(s2s(OTHER))).reason).toBe('hash_mismatch')
    // Its Checkout callbacks keep the seed formula, over every password too.
    expect(gw.callbacks.verify(body(OLD)).passwordIndex).toBe('1')
  })

  it('a signer function is called once per password until one matches', () => {
    const seen: string[] = []
    const gw = client({
      callbackPasswords: [NEW, OLD],
      signature: ({ password }) => {
        seen.push(password)
        return password === OLD ? 'ab'.repeat(20) : 'cd'.repeat(20)
      },
    })
    const event = gw.callbacks.verify(new URLSearchParams({ ...FIELDS, hash: 'ab'.repeat(20) }).toString())
    expect(event.passwordIndex).toBe('1')
    expect(seen).toEqual([NEW, OLD])
  })
})

describe('callbackPasswords: the handler', () => {
  it('accepts a callback signed with the old password, tells onEvent its index and logs it at debug', async () => {
    const lines: string[] = []
    const logger = { debug: (m: string, d?: unknown) => lines.push(`${m} ${JSON.stringify(d)}`), warn: () => {} }
    const gw = client({ callbackPasswords: [NEW, OLD], logger })
    let got!: (event: CallbackEvent) => void
    const received = new Promise<CallbackEvent>((resolve) => {
      got = resolve
    })
    const handler = gw.callbacks.handler({ onEvent: (event) => got(event) })
    const answer = await handler.fetch(
      new Request('http://127.0.0.1/cb', {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: body(OLD),
      }),
    )
    expect(answer.status).toBe(200)
    expect((await received).passwordIndex).toBe('1')
    const line = lines.find((l) => l.includes('callbackPasswords[1]'))
    expect(line).toBeDefined()
    expect(lines.join('\n')).not.toContain(OLD)
    expect(lines.join('\n')).not.toContain(NEW)
  })
})

describe('callbackPasswords: requests sign with password alone', () => {
  const closers: Array<() => void> = []
  afterEach(() => {
    for (const close of closers.splice(0)) close()
  })

  /** The hash field of the first request `gw` sends, read off a loopback server's wire. */
  async function wireHash(extra: Partial<CardGatewayOptions>): Promise<string | null> {
    const bodies: string[] = []
    const server = createServer((req, res) => {
      let text = ''
      req.on('data', (chunk: Buffer) => {
        text += chunk.toString('utf8')
      })
      req.on('end', () => {
        bodies.push(text)
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"result":"ERROR","error_message":"stop"}')
      })
    })
    server.listen(0, '127.0.0.1')
    await once(server, 'listening')
    closers.push(() => server.close())
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    const gw = new CardGateway({
      checkoutUrl: url,
      s2sUrl: url,
      merchantKey: 'mk',
      clientKey: 'ck',
      password: NEW,
      maxRetries: 0,
      ...extra,
    })
    await gw.s2s.getTransStatus({ trans_id: 't-1' }).catch(() => undefined)
    expect(bodies).toHaveLength(1)
    return new URLSearchParams(bodies[0]).get('hash')
  }

  it('the wire carries the hash of password, never of an old callback password', async () => {
    const rotated = await wireHash({ callbackPasswords: [NEW, OLD] })
    const plain = await wireHash({})
    const old = await wireHash({ password: OLD })
    expect(rotated).toBe(plain)
    expect(rotated).not.toBe(old)
  })
})

describe('callbackPasswords: checked, and never shown', () => {
  it.each([
    [[], 'callbackPasswords', 'at least one'],
    ['x', 'callbackPasswords', 'list'],
    [[NEW, ''], 'callbackPasswords[1]', 'non-empty'],
    [[NEW, ' x'], 'callbackPasswords[1]', 'whitespace'],
    [[NEW, OLD, new Secret(NEW)], 'callbackPasswords[2]', 'callbackPasswords[0]'],
  ])('%j is refused naming %s', (value, path, words) => {
    const error = optionsError(() => client({ callbackPasswords: value as unknown as string[] }))
    const issue = error.issues.find((i) => i.path === path)
    expect(issue?.message).toContain(words)
    expect(error.message).not.toContain(NEW)
    expect(error.message).not.toContain(OLD)
  })

  it('inspect, JSON and a refusal carry no password', () => {
    const gw = client({ callbackPasswords: [NEW, OLD] })
    const error = refusal(() => gw.callbacks.verify(body(OTHER)))
    for (const text of [
      inspect(gw, { depth: 10, showHidden: true }),
      JSON.stringify(gw),
      inspect(gw.callbacks, { depth: 10, showHidden: true }),
      error.message,
      JSON.stringify(error.diagnostic),
      inspect(error, { depth: 10 }),
    ]) {
      expect(text).not.toContain(NEW)
      expect(text).not.toContain(OLD)
    }
  })
})
