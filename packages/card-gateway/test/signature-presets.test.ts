/**
 * Signature presets (brand variants): the strrev scheme's vectors per operation family, computed
 * with Python's hashlib (never with the code under test), what the client sends on each preset, a
 * signer function, callbacks on the strrev scheme, and bad configuration refused before sending.
 *
 * Vector inputs: password `Pa55word`, email `payer@example.com`, card 4111111111111111
 * (first6 411111, last4 1111), trans_id T, schedule_id S, token `tok_abc123`. Every literal below was
 * printed by (with `up` = ASCII-only uppercase, like PHP strtoupper):
 *   python3 -c 'import hashlib
 *   up=lambda s:"".join(c.upper() if "a"<=c<="z" else c for c in s); md5=lambda s:hashlib.md5(s.encode()).hexdigest()
 *   P="Pa55word";E="payer@example.com";D="411111"+"1111";T="a1b2c3d4-0000-4000-8000-000000000001"
 *   S="9b0c6e1a-3f7d-4c2e-8a51-7d2f0e4b9c13";K="tok_abc123";N="zoë@exämple.com"
 *   print(md5(up(E[::-1]+P+D[::-1])))        # payment (RECURRING_SALE)
 *   print(md5(up(E[::-1]+P+K[::-1])))        # payment, card token
 *   print(md5(up(E[::-1]+P+T+D[::-1])))      # transaction (GET_TRANS_STATUS, CAPTURE, VOID, CREDITVOID, callback)
 *   print(md5(up(E[::-1]+P+T+K[::-1])))      # transaction, card token
 *   print(md5(up(P[::-1])))                  # CREATE_SCHEDULE
 *   print(md5(up((S+P)[::-1])))              # DELETE_SCHEDULE, UPDATE_SCHEDULE
 *   print(md5(up(N[::-1]+P+T+D[::-1])))      # non-ASCII email, reversed by code points
 *   print(hashlib.sha1(md5(up("ORD-1"+"10.00"+"USD"+"Test order"+P)).encode()).hexdigest())  # seed purchase'
 */

import { inspect } from 'node:util'
import { RequestValidationError, SignatureVerificationError } from '@paywire/core'
import { describe, expect, it } from 'vitest'
import { CardGateway, type PayerCard, type PayerRef, SIGNATURE_PRESETS, strrevSignature } from '../src/index.js'
import { SIMULATOR_CREDENTIALS } from '../src/testing/index.js'
import { form, rejection, setup } from './helpers.js'

const P = 'Pa55word'
const E = 'payer@example.com'
const T = 'a1b2c3d4-0000-4000-8000-000000000001'
const S = '9b0c6e1a-3f7d-4c2e-8a51-7d2f0e4b9c13'
const CARD: PayerCard = { email: E, cardFirst6: '411111', cardLast4: '1111' }
const TOKEN: PayerCard = { email: E, cardToken: 'tok_abc123' }

const V = {
  payment: 'd0ba2ecc0c66571efd7b82e5c5d8e15d',
  paymentToken: '811c4ac404676cc80a279b41d347d21b',
  transaction: 'e3ee24633ea121189956cfe6fa5df815',
  transactionToken: '9c892e6d466e2696f061f23c309f4f4c',
  scheduleCreate: 'a79354860e44ad9d4d77b138360c8ed0',
  schedule: 'ade236f9aea38f53cc07add46e42d89c',
  nonAscii: 'd1d3de63ce6184fe68fb86fdde720292',
  seedPurchase: 'dfffdea93e2dce236855b4f9ae64e1bfda4c131f',
}

describe('card-md5-strrev vectors (python hashlib)', () => {
  it('payment formula (requests: RECURRING_SALE), by card digits and by card token', () => {
    expect(strrevSignature('payment', { payer: CARD }, P).hash).toBe(V.payment)
    expect(strrevSignature('payment', { payer: TOKEN }, P).hash).toBe(V.paymentToken)
  })

  it('transaction formula (GET_TRANS_STATUS, CAPTURE, VOID, CREDITVOID, S2S callbacks)', () => {
    expect(strrevSignature('transaction', { payer: CARD, transId: T }, P).hash).toBe(V.transaction)
    expect(strrevSignature('transaction', { payer: TOKEN, transId: T }, P).hash).toBe(V.transactionToken)
  })

  it('schedule formulas: create over the reversed password alone, others over the reversed schedule_id + password', () => {
    expect(strrevSignature('schedule-create', {}, P).hash).toBe(V.scheduleCreate)
    expect(strrevSignature('schedule', { scheduleId: S }, P).hash).toBe(V.schedule)
  })

  it('reverses a non-ASCII email by code points (not bytes) and leaves its non-ASCII letters as they are', () => {
    const payer = { ...CARD, email: 'zoë@exämple.com' }
    expect(strrevSignature('transaction', { payer, transId: T }, P).hash).toBe(V.nonAscii)
  })

  it('explains each step with the password masked', () => {
    const x = strrevSignature('transaction', { payer: CARD, transId: T }, P)
    expect(x.concatenation).toBe(`moc.elpmaxe@reyap{password}${T}1111111114`)
    expect(x.uppercased).toBe(`MOC.ELPMAXE@REYAP{PASSWORD}${T.toUpperCase()}1111111114`)
    expect(JSON.stringify(x)).not.toContain(P)
    const create = strrevSignature('schedule-create', {}, P)
    expect(create.concatenation).toBe('{password}')
    expect(JSON.stringify(create)).not.toContain(P)
  })
})

/** A client on the simulator's server with the vector password (the simulator answers "Hash is not valid"; the sent hash is what is tested). */
async function strrevClient(lookup: (ref: PayerRef) => PayerCard | undefined = () => CARD) {
  const asked: PayerRef[] = []
  const ctx = await setup({
    client: {
      password: P,
      signature: 'card-md5-strrev',
      payerLookup: (ref) => {
        asked.push(ref)
        return lookup(ref)
      },
    },
  })
  return { ...ctx, asked, sent: (i = 0) => form(ctx.server.requests[i]?.body ?? '') }
}

describe('the client on signature "card-md5-strrev"', () => {
  it('signs GET_TRANS_STATUS, CAPTURE, VOID and CREDITVOID with the transaction formula, the payer from the lookup by trans_id', async () => {
    const ctx = await strrevClient()
    await rejection(ctx.gw.s2s.getTransStatus({ trans_id: T }))
    await rejection(ctx.gw.s2s.capture({ trans_id: T }))
    await rejection(ctx.gw.s2s.void({ trans_id: T }))
    await rejection(ctx.gw.s2s.creditVoid({ trans_id: T }))
    for (let i = 0; i < 4; i++) expect(ctx.sent(i)['hash']).toBe(V.transaction)
    expect(ctx.asked[0]).toEqual({ operation: 's2s.getTransStatus', transId: T })
    // Neither the password nor the payer data travel: only the hash.
    for (const request of ctx.server.requests) {
      expect(request.body).not.toContain(P)
      expect(request.body).not.toMatch(/payer|411111|reyap/i)
    }
  })

  it('signs RECURRING_SALE with the payment formula, asking for the initial transaction’s payer', async () => {
    const ctx = await strrevClient((ref) => (ref.transId === T ? TOKEN : undefined))
    await rejection(
      ctx.gw.s2s.recurringSale({
        order_id: 'R-1',
        order_amount: '5.00',
        order_description: 'Monthly',
        recurring_first_trans_id: T,
        recurring_token: 'rec-1',
      }),
    )
    expect(ctx.sent()['hash']).toBe(V.paymentToken)
    expect(ctx.asked[0]).toEqual({ operation: 's2s.recurringSale', transId: T, orderId: 'R-1' })
  })

  it('signs schedules with the schedule formulas (CREATE_SCHEDULE needs no hashInputs on this scheme)', async () => {
    const ctx = await strrevClient()
    await rejection(
      ctx.gw.s2s.createSchedule({ name: 'M', interval_length: 1, interval_unit: 'month', payments_count: 3 }),
    )
    await rejection(ctx.gw.s2s.deleteSchedule({ schedule_id: S }))
    await rejection(ctx.gw.s2s.updateSchedule({ schedule_id: S, name: 'N' }))
    expect(ctx.sent(0)['hash']).toBe(V.scheduleCreate)
    expect(ctx.sent(1)['hash']).toBe(V.schedule)
    expect(ctx.sent(2)['hash']).toBe(V.schedule)
    expect(ctx.asked).toEqual([]) // schedules hash no payer data
  })

  it('keeps the seed formula on Checkout', async () => {
    const ctx = await strrevClient()
    await rejection(
      ctx.gw.checkout.purchase({
        order: { number: 'ORD-1', amount: '10.00', currency: 'USD', description: 'Test order' },
        success_url: 'https://shop.example/ok',
        cancel_url: 'https://shop.example/cancel',
      }),
    )
    expect(JSON.parse(ctx.server.requests[0]?.body ?? '{}').hash).toBe(V.seedPurchase)
  })

  it('sends nothing when the lookup knows no payer, throws, or answers unusable data', async () => {
    for (const lookup of [
      () => undefined,
      () => {
        throw new Error(`db down ${P}`)
      },
      () => ({ email: E, cardFirst6: '4111', cardLast4: '1111' }),
      () => ({ email: '', cardToken: 't' }),
    ]) {
      const ctx = await strrevClient(lookup)
      const error = await rejection(ctx.gw.s2s.capture({ trans_id: T }))
      expect(error).toBeInstanceOf(RequestValidationError)
      expect((error as RequestValidationError).issues[0]?.path).toBe('payerLookup')
      expect((error as Error).message).toContain(T)
      expect((error as Error).message).not.toContain(P)
      expect(ctx.server.requests).toHaveLength(0)
    }
  })

  it('refuses GET_TRANS_STATUS_BY_ORDER, whose signature this scheme does not publish, before sending', async () => {
    const ctx = await strrevClient()
    const error = await rejection(ctx.gw.s2s.getTransStatusByOrder({ order_id: 'O-1' }))
    expect(error).toBeInstanceOf(RequestValidationError)
    expect((error as RequestValidationError).issues[0]?.path).toBe('signature')
    expect((error as Error).message).toMatch(/GET_TRANS_STATUS_BY_ORDER/)
    expect(ctx.server.requests).toHaveLength(0)
  })
})

const BASE = {
  checkoutUrl: 'https://checkout.example',
  s2sUrl: 'https://s2s.example',
  merchantKey: 'mk',
  clientKey: 'ck',
  password: P,
} as const

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

describe('signature options', () => {
  it('refuses an unknown preset, naming signature and the allowed presets', () => {
    const error = optionsError(() => new CardGateway({ ...BASE, signature: 'md5-strrev' as never }))
    expect(error.issues[0]?.path).toBe('signature')
    for (const name of SIGNATURE_PRESETS) expect(error.message).toContain(`"${name}"`)
  })

  it('refuses card-md5-strrev without payerLookup (never a silent pass), and hashInputs it would ignore', () => {
    expect(optionsError(() => new CardGateway({ ...BASE, signature: 'card-md5-strrev' })).issues[0]?.path).toBe(
      'payerLookup',
    )
    const ignored = optionsError(
      () =>
        new CardGateway({
          ...BASE,
          signature: 'card-md5-strrev',
          payerLookup: () => CARD,
          hashInputs: { 's2s.capture': ['trans_id'] },
        }),
    )
    expect(ignored.issues[0]?.path).toBe('hashInputs.s2s.capture')
    expect(optionsError(() => new CardGateway({ ...BASE, payerLookup: () => CARD })).issues[0]?.path).toBe(
      'payerLookup',
    )
  })

  it('refuses digest and hashInputs beside a signer function (it computes the whole hash)', () => {
    const fn = () => 'ab'
    expect(optionsError(() => new CardGateway({ ...BASE, signature: fn, digest: 'sha256' })).issues[0]?.path).toBe(
      'digest',
    )
    expect(
      optionsError(() => new CardGateway({ ...BASE, signature: fn, hashInputs: { 's2s.capture': [] } })).issues[0]
        ?.path,
    ).toBe('hashInputs')
  })

  it('never shows the password in inspect or JSON of a client on either preset', () => {
    const gw = new CardGateway({ ...BASE, signature: 'card-md5-strrev', payerLookup: () => CARD })
    expect(inspect(gw, { depth: 5 })).not.toContain(P)
    expect(JSON.stringify(gw)).not.toContain(P)
  })
})

describe('a signer function (brands no preset covers)', () => {
  it('signs every request with what the function returns from the wire fields and the password', async () => {
    const seen: {
      operation: string
      action: string | undefined
      trans: string | undefined
      number: string | undefined
    }[] = []
    const ctx = await setup({
      client: {
        signature: ({ operation, action, field, password }) => {
          seen.push({ operation, action, trans: field('trans_id'), number: field('order.number') })
          return password === SIMULATOR_CREDENTIALS.password ? 'ABCDEF0123' : '00'
        },
      },
    })
    await rejection(ctx.gw.s2s.capture({ trans_id: T }))
    await rejection(
      ctx.gw.checkout.purchase({
        order: { number: 'ORD-2', amount: '1.00', currency: 'USD', description: 'Two' },
        success_url: 'https://shop.example/ok',
        cancel_url: 'https://shop.example/cancel',
      }),
    )
    expect(form(ctx.server.requests[0]?.body ?? '')['hash']).toBe('abcdef0123')
    expect(seen).toEqual([
      { operation: 's2s.capture', action: 'CAPTURE', trans: T, number: undefined },
      { operation: 'checkout.purchase', action: undefined, trans: undefined, number: 'ORD-2' },
    ])
  })

  it('cannot change what is sent: the fields it gets are a frozen copy', async () => {
    const ctx = await setup({
      client: {
        signature: ({ fields }) => {
          const order = fields['order'] as Record<string, unknown>
          expect(Object.isFrozen(order)).toBe(true)
          expect(() => {
            order['number'] = 'ORD-X'
          }).toThrow(TypeError)
          return 'aa'
        },
      },
    })
    await rejection(
      ctx.gw.checkout.purchase({
        order: { number: 'ORD-3', amount: '1.00', currency: 'USD', description: 'Three' },
        success_url: 'https://shop.example/ok',
        cancel_url: 'https://shop.example/cancel',
      }),
    )
    expect(JSON.parse(ctx.server.requests[0]?.body ?? '{}').order.number).toBe('ORD-3')
  })

  it('sends nothing when the function throws or returns no even-length hex', async () => {
    for (const fn of [
      () => {
        throw new Error(P)
      },
      () => 'xyz1',
      () => 'abc',
      () => '',
      () => 42 as unknown as string,
    ]) {
      const ctx = await setup({ client: { signature: fn } })
      const error = await rejection(ctx.gw.s2s.capture({ trans_id: T }))
      expect(error).toBeInstanceOf(RequestValidationError)
      expect((error as RequestValidationError).issues[0]?.path).toBe('signature')
      expect((error as Error).message).not.toContain(P)
      expect(ctx.server.requests).toHaveLength(0)
    }
  })

  it('verifies callbacks with the same function (a wrong hash is refused, a throwing function refuses)', () => {
    const gw = new CardGateway({ ...BASE, signature: ({ field }) => (field('id') === 'p-1' ? 'aa11' : 'bb22') })
    expect(gw.callbacks.verify('id=p-1&hash=aa11').id).toBe('p-1')
    expect(() => gw.callbacks.verify('id=p-2&hash=aa11')).toThrow(SignatureVerificationError)
    const broken = new CardGateway({
      ...BASE,
      signature: () => {
        throw new Error('no')
      },
    })
    expect(() => broken.callbacks.verify('id=p-1&hash=aa11')).toThrow(SignatureVerificationError)
  })
})

describe('callbacks on signature "card-md5-strrev"', () => {
  const s2sCallback = (hash: string, trans = T) =>
    `action=CAPTURE&result=SUCCESS&status=SETTLED&order_id=O-1&trans_id=${trans}&hash=${hash}`

  it('passes a genuine S2S callback (hash from python) and refuses a forged one', () => {
    const asked: PayerRef[] = []
    const gw = new CardGateway({
      ...BASE,
      signature: 'card-md5-strrev',
      payerLookup: (ref) => {
        asked.push(ref)
        return CARD
      },
    })
    expect(gw.callbacks.verify(s2sCallback(V.transaction)).trans_id).toBe(T)
    expect(asked[0]).toEqual({ operation: 'callback', transId: T, orderId: 'O-1' })
    // The genuine hash moved to another transaction, and a made-up hash: both refused.
    const other = 'a1b2c3d4-0000-4000-8000-000000000002'
    expect(() => gw.callbacks.verify(s2sCallback(V.transaction, other))).toThrow(SignatureVerificationError)
    expect(() => gw.callbacks.verify(s2sCallback('0'.repeat(32)))).toThrow(/does not verify/)
  })

  it('takes the payer data per call (loaded asynchronously by the merchant) and the non-ASCII vector', () => {
    const gw = new CardGateway({ ...BASE, signature: 'card-md5-strrev', payerLookup: () => undefined })
    const payer = { ...CARD, email: 'zoë@exämple.com' }
    expect(gw.callbacks.verify(s2sCallback(V.nonAscii), { payer }).trans_id).toBe(T)
  })

  it('refuses an S2S callback whose payer is unknown, never passing it', () => {
    const gw = new CardGateway({ ...BASE, signature: 'card-md5-strrev', payerLookup: () => undefined })
    let caught: unknown
    try {
      gw.callbacks.verify(s2sCallback(V.transaction))
    } catch (error) {
      caught = error
    }
    expect(caught).toBeInstanceOf(SignatureVerificationError)
    expect((caught as SignatureVerificationError).reason).toBe('unknown_payer')
    expect((caught as Error).message).not.toContain(P)
  })

  it('keeps the seed formula for Checkout callbacks', () => {
    const gw = new CardGateway({ ...BASE, signature: 'card-md5-strrev', payerLookup: () => CARD })
    // python3 -c 'import hashlib;m=hashlib.md5("P-1ORD-110.00USDTEST ORDERPA55WORD".encode()).hexdigest();print(hashlib.sha1(m.encode()).hexdigest())'
    const hash = 'd190c8a673e79a77d505581f77a85c01bb7ef89a'
    const body = `id=P-1&order_number=ORD-1&order_amount=10.00&order_currency=USD&order_description=Test%20order&hash=${hash}`
    expect(gw.callbacks.verify(body).id).toBe('P-1')
  })
})
