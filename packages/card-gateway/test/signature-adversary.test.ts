/**
 * The signature presets from the attacker's side: forged, replayed and reshaped callbacks on
 * `card-md5-strrev`, hostile signer functions and payer lookups, and bad options. Vectors as in
 * signature-presets.test.ts (Python hashlib): password `Pa55word`, payer@example.com, 411111…1111,
 * trans_id T → `e3ee24633ea121189956cfe6fa5df815`.
 */
import { inspect } from 'node:util'
import { RequestValidationError, SignatureVerificationError } from '@paywire/core'
import { describe, expect, it } from 'vitest'
import {
  type CallbackEvent,
  CardGateway,
  type CardGatewayOptions,
  type PayerCard,
  type PayerRef,
} from '../src/index.js'
import { rejection, setup } from './helpers.js'

const P = 'Pa55word'
const E = 'payer@example.com'
const T = 'a1b2c3d4-0000-4000-8000-000000000001'
const CARD: PayerCard = { email: E, cardFirst6: '411111', cardLast4: '1111' }
const HASH_T = 'e3ee24633ea121189956cfe6fa5df815'

const BASE = {
  checkoutUrl: 'https://checkout.example',
  s2sUrl: 'https://s2s.example',
  merchantKey: 'mk',
  clientKey: 'ck',
  password: P,
} as const

function strrevGateway(lookup: (ref: PayerRef) => unknown = () => CARD, extra: Partial<CardGatewayOptions> = {}) {
  return new CardGateway({
    ...BASE,
    signature: 'card-md5-strrev',
    payerLookup: lookup as (ref: PayerRef) => PayerCard | undefined,
    ...extra,
  })
}

function body(fields: Record<string, string>): string {
  return new URLSearchParams(fields).toString()
}

const S2S_CALLBACK = {
  action: 'SALE',
  result: 'SUCCESS',
  status: 'SETTLED',
  order_id: 'ORD-1',
  trans_id: T,
  hash: HASH_T,
}

function refusal(verify: () => unknown): SignatureVerificationError {
  let caught: unknown
  try {
    verify()
  } catch (error) {
    caught = error
  }
  expect(caught).toBeInstanceOf(SignatureVerificationError)
  expect(String((caught as Error).message)).not.toContain(P)
  expect(JSON.stringify(caught)).not.toContain(P)
  return caught as SignatureVerificationError
}

describe('no forged callback passes on card-md5-strrev', () => {
  it('the genuine S2S callback verifies (the baseline every refusal below departs from)', () => {
    expect(strrevGateway().callbacks.verify(body(S2S_CALLBACK))).toMatchObject({ trans_id: T })
  })

  it('a payer lookup that knows no payer, throws, answers a Promise or another email: refused', () => {
    const lookups: (() => unknown)[] = [
      () => undefined,
      () => {
        throw new Error(`db down for ${P}`)
      },
      () => Promise.resolve(CARD),
      () => ({ ...CARD, email: 'other@example.com' }),
      () => null,
      () => ({ email: E }),
    ]
    for (const lookup of lookups) {
      const error = refusal(() => strrevGateway(lookup).callbacks.verify(body(S2S_CALLBACK)))
      expect(['unknown_payer', 'hash_mismatch']).toContain(error.reason)
    }
  })

  it('a payer lookup whose answer throws when read: refused, not a stray error', () => {
    const hostile = {
      get email(): string {
        throw new Error('getter')
      },
    }
    refusal(() => strrevGateway(() => hostile).callbacks.verify(body(S2S_CALLBACK)))
  })

  it('a payer lookup whose answer throws when read: the request is refused at payerLookup, nothing sent', async () => {
    const ctx = await setup({
      client: {
        password: P,
        signature: 'card-md5-strrev',
        payerLookup: () =>
          ({
            get email(): string {
              throw new Error(`getter ${P}`)
            },
          }) as PayerCard,
      },
    })
    const e = await rejection(ctx.gw.s2s.capture({ trans_id: T }))
    expect(e).toBeInstanceOf(RequestValidationError)
    expect((e as RequestValidationError).issues[0]?.path).toBe('payerLookup')
    expect((e as Error).message).not.toContain(P)
    expect(ctx.server.requests).toHaveLength(0)
  })

  it('a callback replayed with another trans_id: refused', () => {
    refusal(() => strrevGateway().callbacks.verify(body({ ...S2S_CALLBACK, trans_id: `${T.slice(0, -1)}2` })))
  })

  it('a hash in uppercase hex is the same hash: it verifies (hex case carries no secret)', () => {
    expect(strrevGateway().callbacks.verify(body({ ...S2S_CALLBACK, hash: HASH_T.toUpperCase() }))).toMatchObject({
      trans_id: T,
    })
  })

  it('a hash of another length, empty, or with non-hex characters around it: refused', () => {
    for (const hash of ['', HASH_T.slice(0, 31), `${HASH_T}0`, ` ${HASH_T}`, `${HASH_T.slice(0, 31)}İ`]) {
      refusal(() => strrevGateway().callbacks.verify(body({ ...S2S_CALLBACK, hash })))
    }
  })

  it('a Checkout-shaped callback (no action) carrying a strrev hash: verified by the seed formula, refused', () => {
    const { action: _action, ...noAction } = S2S_CALLBACK
    refusal(() => strrevGateway().callbacks.verify(body(noAction)))
    refusal(() =>
      strrevGateway().callbacks.verify(
        body({
          id: T,
          order_number: 'ORD-1',
          order_amount: '10.00',
          order_currency: 'USD',
          order_description: 'x',
          status: 'success',
          hash: HASH_T,
        }),
      ),
    )
  })

  it('a repeated trans_id field (one for the hash, one for the reader): refused', () => {
    refusal(() => strrevGateway().callbacks.verify(`${body(S2S_CALLBACK)}&trans_id=other`))
  })
})

describe('what the card-md5-strrev callback hash does not cover: verify says so, the inbox confirms by lookup', () => {
  it('an edited status, result, action or order_id still verifies, but the event says only the transaction is authenticated', () => {
    const gw = strrevGateway((ref) => (ref.transId === T ? CARD : undefined))
    const edited = { ...S2S_CALLBACK, action: 'CAPTURE', result: 'SUCCESS', status: 'SETTLED', order_id: 'VICTIM-9' }
    expect(gw.callbacks.verify(body({ ...S2S_CALLBACK, result: 'DECLINED', status: 'DECLINED' }))).toMatchObject({
      authenticated: 'transaction-only',
    })
    expect(gw.callbacks.verify(body(edited))).toMatchObject({ order_id: 'VICTIM-9', authenticated: 'transaction-only' })
  })

  it('a body claiming its own confirmedBy or authenticated: dropped, never believed (strrev S2S and seed)', () => {
    const claimed = body({ ...S2S_CALLBACK, confirmedBy: 'lookup', authenticated: 'all' })
    const event = strrevGateway().callbacks.verify(claimed)
    expect(event.confirmedBy).toBeUndefined()
    expect(event.authenticated).toBe('transaction-only')
    const seed = new CardGateway(BASE)
    const fields = {
      id: 'p-1',
      order_number: 'ORD-1',
      order_amount: '10.00',
      order_currency: 'USD',
      order_description: 'x',
      status: 'success',
    }
    const hash = seed.sign(Object.values(fields).slice(0, 5))
    const checkout = seed.callbacks.verify(
      body({ ...fields, hash, confirmedBy: 'lookup', authenticated: 'transaction-only' }),
    )
    expect(checkout).toMatchObject({ id: 'p-1' })
    expect(checkout.confirmedBy).toBeUndefined()
    expect(checkout.authenticated).toBeUndefined()
  })

  it('the inbox acts on the looked-up state: a replay claiming SETTLED for a DECLINED transaction reaches onEvent as DECLINED', async () => {
    const sent: string[] = []
    const gw = strrevGateway(() => CARD, {
      maxRetries: 0,
      fetch: async (_input, init) => {
        sent.push(String(init?.body))
        return Response.json({ action: 'GET_TRANS_STATUS', result: 'SUCCESS', status: 'DECLINED', trans_id: T })
      },
    })
    const events: CallbackEvent[] = []
    const handler = gw.callbacks.handler({ onEvent: (event) => void events.push(event), onError: () => {} })
    expect(await handler.handle(body({ ...S2S_CALLBACK, status: 'SETTLED' }))).toMatchObject({ status: 200 })
    expect(await handler.handle(body({ ...S2S_CALLBACK, status: 'DECLINED', result: 'DECLINED' }))).toMatchObject({
      status: 200,
    })
    await handler.drain()
    expect(events.map((e) => [e.status, e.confirmedBy])).toEqual([['DECLINED', 'lookup']])
    expect(sent.map((b) => new URLSearchParams(b).get('action'))).toEqual(['GET_TRANS_STATUS', 'GET_TRANS_STATUS'])
    expect(new URLSearchParams(sent[0]).get('hash')).toBe(HASH_T)
    await gw.close()
  })

  it('a lookup keyed on the unsigned orderId refuses an order swap; keyed on transId it cannot tell', () => {
    const byOrder = strrevGateway((ref) => (ref.orderId === 'ORD-1' ? CARD : { ...CARD, email: 'victim@example.com' }))
    refusal(() => byOrder.callbacks.verify(body({ ...S2S_CALLBACK, order_id: 'VICTIM-9' })))
  })
})

describe('the password never on the wire on card-md5-strrev (fetch transport)', () => {
  it('every S2S action and Checkout sends only the hash: not the password, reversed or uppercased, nor the payer data', async () => {
    const wire: string[] = []
    const gw = strrevGateway(() => CARD, {
      fetch: async (input, init) => {
        wire.push(`${String(input)}\n${inspect(init?.headers)}\n${String(init?.body)}`)
        return new Response('{"result":"ERROR","error_message":"Hash is not valid"}', { status: 400 })
      },
    })
    await rejection(gw.s2s.capture({ trans_id: T }))
    await rejection(gw.s2s.getTransStatus({ trans_id: T }))
    await rejection(
      gw.s2s.recurringSale({
        order_id: 'R-1',
        order_amount: '5.00',
        order_description: 'Monthly',
        recurring_first_trans_id: T,
        recurring_token: 'rec-1',
      }),
    )
    await rejection(gw.s2s.createSchedule({ name: 'M', interval_length: 1, interval_unit: 'month', payments_count: 3 }))
    await rejection(
      gw.checkout.purchase({
        order: { number: 'ORD-1', amount: '10.00', currency: 'USD', description: 'Test order' },
        success_url: 'https://shop.example/ok',
        cancel_url: 'https://shop.example/cancel',
      }),
    )
    // Eight: on fetch, whose connections may be reused, the capture's error answer is checked by a
    // GET_TRANS_STATUS, and the lookup's error answer is asked once more (docs/reliability.md,
    // "Keep-alive where the answer is bound"), each signed the same way.
    expect(wire).toHaveLength(8)
    expect(wire.slice(0, 4).map((sent) => /action=([A-Z_]+)/.exec(sent)?.[1])).toEqual([
      'CAPTURE',
      'GET_TRANS_STATUS',
      'GET_TRANS_STATUS',
      'GET_TRANS_STATUS',
    ])
    for (const sent of wire) {
      for (const form of [P, P.toUpperCase(), [...P].reverse().join(''), [...P.toUpperCase()].reverse().join('')]) {
        expect(sent).not.toContain(form)
      }
      expect(sent).not.toMatch(/payer@|reyap|4111111111|1111111114/i)
    }
    await gw.close()
  })
})

describe('hostile signer functions', () => {
  const returns: [string, unknown][] = [
    ['non-hex text', 'not-a-hash'],
    ['an empty string', ''],
    ['a Promise', Promise.resolve('ab'.repeat(16))],
    ['odd-length hex', 'abc'],
    ['a number', 123],
  ]

  for (const [name, value] of returns) {
    it(`returning ${name}: the request is refused at signature, nothing sent; the callback refused`, async () => {
      const ctx = await setup({ client: { password: P, signature: () => value as string } })
      const e = await rejection(ctx.gw.s2s.capture({ trans_id: T }))
      expect(e).toBeInstanceOf(RequestValidationError)
      expect((e as RequestValidationError).issues[0]?.path).toBe('signature')
      expect((e as Error).message).not.toContain(P)
      expect(ctx.server.requests).toHaveLength(0)
      const refused = refusal(() => ctx.gw.callbacks.verify(body(S2S_CALLBACK)))
      expect(refused.reason).toBe('signer_failed')
    })
  }

  it('throwing with the password in its message: refused, the password nowhere in the error', async () => {
    const ctx = await setup({
      client: {
        password: P,
        signature: ({ password }) => {
          throw new Error(`cannot sign with ${password}`)
        },
      },
    })
    const e = await rejection(ctx.gw.s2s.capture({ trans_id: T }))
    expect(e).toBeInstanceOf(RequestValidationError)
    expect(`${(e as Error).message} ${JSON.stringify(e)}`).not.toContain(P)
    expect(ctx.server.requests).toHaveLength(0)
    expect(refusal(() => ctx.gw.callbacks.verify(body(S2S_CALLBACK))).reason).toBe('signer_failed')
  })
})

function optionsError(build: () => unknown): RequestValidationError {
  let caught: unknown
  try {
    build()
  } catch (error) {
    caught = error
  }
  expect(caught).toBeInstanceOf(RequestValidationError)
  return caught as RequestValidationError
}

describe('bad signature options are refused at construction, before anything is sent', () => {
  it("'SEED', '' and a preset name with spaces: refused, naming signature", () => {
    for (const signature of ['SEED', '', ' card-md5-strrev', 'card-md5-strrev ', null, 1]) {
      const error = optionsError(() => new CardGateway({ ...BASE, signature: signature as never }))
      expect(error.issues[0]?.path).toBe('signature')
    }
  })

  it("'card-md5-strrev' without payerLookup: refused at construction, naming payerLookup", () => {
    expect(optionsError(() => new CardGateway({ ...BASE, signature: 'card-md5-strrev' })).issues[0]?.path).toBe(
      'payerLookup',
    )
    expect(
      optionsError(() => new CardGateway({ ...BASE, signature: 'card-md5-strrev', payerLookup: 'yes' as never }))
        .issues[0]?.path,
    ).toBe('payerLookup')
  })

  it("digest: 'sha256' with 'card-md5-strrev': the S2S hash stays the scheme's MD5 (digest is the seed formula's)", async () => {
    const ctx = await setup({
      client: { password: P, signature: 'card-md5-strrev', payerLookup: () => CARD, digest: 'sha256' },
    })
    await rejection(ctx.gw.s2s.capture({ trans_id: T }))
    expect(new URLSearchParams(ctx.server.requests[0]?.body ?? '').get('hash')).toBe(HASH_T)
    expect(ctx.gw.callbacks.verify(body(S2S_CALLBACK))).toMatchObject({ trans_id: T })
  })
})
