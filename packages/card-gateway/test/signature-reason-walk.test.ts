/**
 * Every reason `callbacks.verify` refuses a callback with is in `SignatureErrorReason`, and every
 * member of the union is reached: each throw site is walked from the sender's side with a crafted
 * body (or a client setting that reaches it). `REACHED` is typed by the union, so a reason added to
 * it without a body here, or a body here whose reason left it, fails to compile or to run.
 */

import { RequestValidationError, type SignatureErrorReason, SignatureVerificationError } from '@paywire/core'
import { describe, expect, it } from 'vitest'
import { CardGateway, type CardGatewayOptions, MAX_CALLBACK_DEPTH, MAX_CALLBACK_FIELDS } from '../src/index.js'
import { signCallback } from '../src/testing/index.js'

const PASSWORD = 'walk-password'
const FIELDS = {
  id: 'pay-1',
  order_number: 'order-1',
  order_amount: '10.00',
  order_currency: 'USD',
  order_description: 'Filters',
  type: 'sale',
  status: 'success',
}
const client = (extra: Partial<CardGatewayOptions> = {}) =>
  new CardGateway({
    checkoutUrl: 'https://checkout.example',
    s2sUrl: 'https://s2s.example',
    merchantKey: 'mk',
    clientKey: 'ck',
    password: PASSWORD,
    ...extra,
  })
const S2S = 'action=SALE&result=SUCCESS&status=SETTLED&order_id=o-1&trans_id=t-1&hash=abcdef'

/**
 * `no_payer_lookup` is a guard the public client never reaches: a `card-md5-strrev` client without
 * `payerLookup` is refused when it is built (the last test says so), so no callback gets that far.
 */
type Guarded = 'no_payer_lookup'

/** One way to reach each other reason: the client, and what is handed to `verify`. */
const REACHED: Record<Exclude<SignatureErrorReason, Guarded>, () => unknown> = {
  hash_mismatch: () => client().callbacks.verify(signCallback(FIELDS, 'another-password')),
  missing_hash: () => client().callbacks.verify(new URLSearchParams(FIELDS).toString()),
  missing_signed_fields: () => client().callbacks.verify(`${new URLSearchParams({ ...FIELDS, id: '' })}&hash=ab`),
  empty_body: () => client().callbacks.verify('  \r\n'),
  not_raw_body: () => client().callbacks.verify({ ...FIELDS, hash: 'ab' } as never),
  unreadable_body: () => client().callbacks.verify('{"id": "pay-1",'),
  body_too_large: () => client().callbacks.verify(signCallback(FIELDS, PASSWORD), { maxBodyBytes: 16 }),
  too_many_fields: () =>
    client().callbacks.verify(Array.from({ length: MAX_CALLBACK_FIELDS + 1 }, (_, i) => `f${i}=1`).join('&')),
  too_deep: () =>
    client().callbacks.verify(`${'{"a":'.repeat(MAX_CALLBACK_DEPTH + 1)}"x"${'}'.repeat(MAX_CALLBACK_DEPTH + 1)}`),
  duplicate_field: () => client().callbacks.verify(`${signCallback(FIELDS, PASSWORD)}&id=pay-2`),
  unknown_payer: () => client({ signature: 'card-md5-strrev', payerLookup: () => undefined }).callbacks.verify(S2S),
  signer_failed: () =>
    client({
      signature: () => {
        throw new Error('the signer broke')
      },
    }).callbacks.verify(signCallback(FIELDS, PASSWORD)),
}

function reasonOf(run: () => unknown): string {
  try {
    run()
  } catch (error) {
    if (error instanceof SignatureVerificationError) return error.reason
    throw error
  }
  throw new Error('the callback verified')
}

describe('SignatureErrorReason: every throw site, walked', () => {
  for (const [reason, run] of Object.entries(REACHED)) {
    it(`${reason} is reached, and is the reason thrown`, () => {
      expect(reasonOf(run)).toBe(reason)
    })
  }

  it('no reason outside the union is thrown by any of these bodies, with one password or several', () => {
    const known = new Set(Object.keys(REACHED))
    for (const run of Object.values(REACHED)) expect(known).toContain(reasonOf(run))
    const rotation = client({ callbackPasswords: [PASSWORD, 'old-password'] })
    expect(reasonOf(() => rotation.callbacks.verify(signCallback(FIELDS, 'third-password')))).toBe('hash_mismatch')
  })

  it('no_payer_lookup: the client that would reach it is refused when built, naming payerLookup', () => {
    let refused: unknown
    try {
      client({ signature: 'card-md5-strrev' })
    } catch (error) {
      refused = error
    }
    expect(refused).toBeInstanceOf(RequestValidationError)
    expect((refused as RequestValidationError).issues[0]?.path).toBe('payerLookup')
  })
})
