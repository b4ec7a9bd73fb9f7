/**
 * `callbacks.verify` on a body that gained a newline on its way (a saved file, echo, a proxy that
 * appends one): still refused, and the message points at the newline, never at the password.
 */

import { readFileSync } from 'node:fs'
import { SignatureVerificationError } from '@paywire/core'
import { describe, expect, it } from 'vitest'
import { CardGateway } from '../src/index.js'

const vectors: { name: string; values: string[]; password: string; hash: string }[] = JSON.parse(
  readFileSync(new URL('./fixtures/signature-vectors.json', import.meta.url), 'utf8'),
)
const vector = vectors.find((v) => v.name === 'callback') as (typeof vectors)[number]
const [id, order_number, order_amount, order_currency, order_description] = vector.values as string[]
const BODY = new URLSearchParams({
  id: id as string,
  order_number: order_number as string,
  order_amount: order_amount as string,
  order_currency: order_currency as string,
  order_description: order_description as string,
  type: 'sale',
  status: 'success',
  hash: vector.hash,
}).toString()

const gw = new CardGateway({
  checkoutUrl: 'https://checkout.example',
  s2sUrl: 'https://s2s.example',
  merchantKey: 'mk',
  clientKey: 'ck',
  password: vector.password,
})

function refusal(body: string | Buffer): SignatureVerificationError {
  try {
    gw.callbacks.verify(body)
  } catch (error) {
    if (error instanceof SignatureVerificationError) return error
    throw error
  }
  throw new Error('the body verified')
}

describe('callbacks.verify on a body ending with a newline', () => {
  it('the body as sent verifies (control)', () => {
    expect(gw.callbacks.verify(BODY).id).toBe(id)
  })

  for (const ending of ['\n', '\r\n']) {
    for (const kind of ['string', 'Buffer'] as const) {
      it(`${JSON.stringify(ending)} as a ${kind}: hash_mismatch whose message names the newline, no secret`, () => {
        const body = kind === 'string' ? BODY + ending : Buffer.from(BODY + ending)
        const error = refusal(body)
        expect(error.reason).toBe('hash_mismatch')
        expect(error.message).toContain('ends with a newline')
        expect(error.message).not.toContain(vector.password)
        expect(JSON.stringify(error.diagnostic)).not.toContain(vector.password)
      })
    }
  }

  it('a tampered body without a newline: no newline hint', () => {
    const error = refusal(BODY.replace(`order_amount=${order_amount}`, 'order_amount=1.00'))
    expect(error.reason).toBe('hash_mismatch')
    expect(error.message).not.toContain('newline')
  })

  // In JSON a trailing newline is whitespace after the value: it changes no field, so the SDK
  // verifies such a body, and when it refuses one the newline is never the reason.
  const JSON_BODY = JSON.stringify(Object.fromEntries(new URLSearchParams(BODY)))

  it('a JSON body ending with a newline and signed right verifies: the newline changes no field', () => {
    expect(gw.callbacks.verify(`${JSON_BODY}\n`).id).toBe(id)
  })

  for (const kind of ['string', 'Buffer'] as const) {
    it(`a tampered JSON body ending with a newline (${kind}): no hint blaming the newline`, () => {
      const tampered = `${JSON_BODY.replace(`"${order_amount}"`, '"1.00"')}\n`
      const error = refusal(kind === 'string' ? tampered : Buffer.from(tampered))
      expect(error.reason).toBe('hash_mismatch')
      expect(error.message).not.toContain('newline')
    })
  }
})
