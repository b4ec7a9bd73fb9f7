import { readFileSync } from 'node:fs'
import { SignatureVerificationError } from '@paywire/core'
import { describe, expect, it } from 'vitest'
import { CardGateway, dedupeKey, isFinal, isStuckChallenge } from '../src/index.js'
import { signCallback, TEST_CARDS } from '../src/testing/index.js'
import { paidPayment, setup } from './helpers.js'

const vectors: { name: string; values: string[]; password: string; hash: string }[] = JSON.parse(
  readFileSync(new URL('./fixtures/signature-vectors.json', import.meta.url), 'utf8'),
)
const vector = vectors.find((v) => v.name === 'callback') as (typeof vectors)[number]

function gateway(extra: Partial<ConstructorParameters<typeof CardGateway>[0]> = {}) {
  return new CardGateway({
    checkoutUrl: 'https://checkout.example',
    s2sUrl: 'https://s2s.example',
    merchantKey: 'mk',
    clientKey: 'ck',
    password: vector.password,
    ...extra,
  })
}

const [id, order_number, order_amount, order_currency, order_description] = vector.values as [
  string,
  string,
  string,
  string,
  string,
]
const fields = {
  id,
  order_number,
  order_amount,
  order_currency,
  order_description,
  type: 'sale',
  status: 'success',
  order_status: 'settled',
}

function formBody(extra: Record<string, string> = {}, hash = vector.hash): string {
  const params = new URLSearchParams({ ...fields, ...extra })
  params.append('hash', hash)
  return params.toString()
}

describe('callbacks.verify over the raw body', () => {
  it('verifies a form callback against the independent vector (id, order_number, order_amount, order_currency, order_description, password)', () => {
    const event = gateway().callbacks.verify(formBody())
    expect(event).toMatchObject({ id, order_amount: '10.00', order_description: 'Crème brûlée', type: 'sale' })
  })

  it('accepts Buffer and Uint8Array bodies', () => {
    const gw = gateway()
    const bytes = Buffer.from(formBody(), 'utf8')
    expect(gw.callbacks.verify(bytes).id).toBe(id)
    expect(gw.callbacks.verify(new Uint8Array(bytes)).id).toBe(id)
  })

  it('verifies JSON bodies, keeping a numeric amount as its source text', () => {
    const body = `{"id":"${id}","order_number":"${order_number}","order_amount":10.00,"order_currency":"USD","order_description":"${order_description}","hash":"${vector.hash}"}`
    const event = gateway().callbacks.verify(body)
    expect(event.order_amount).toBe('10.00')
  })

  it('does not normalise values: a changed amount format fails', () => {
    const error = (() => {
      try {
        gateway().callbacks.verify(formBody({ order_amount: '10.0' }))
      } catch (e) {
        return e
      }
    })()
    expect(error).toBeInstanceOf(SignatureVerificationError)
    expect((error as SignatureVerificationError).reason).toBe('hash_mismatch')
  })

  it('throws with a diagnostic naming the fields used, never the password', () => {
    const gw = gateway()
    let error: SignatureVerificationError | undefined
    try {
      gw.callbacks.verify(formBody({}, 'f'.repeat(40)))
    } catch (e) {
      error = e as SignatureVerificationError
    }
    expect(error?.diagnostic['fieldsUsed']).toEqual([
      'id',
      'order_number',
      'order_amount',
      'order_currency',
      'order_description',
    ])
    const text = `${error?.message} ${JSON.stringify(error?.diagnostic)} ${JSON.stringify(error)}`
    expect(text).not.toContain(vector.password)
    expect(text).not.toContain(vector.password.toUpperCase())
    expect(text).not.toContain(vector.hash) // the expected signature is not handed out
  })

  it('compares length-safely: a short or missing hash fails cleanly', () => {
    const gw = gateway()
    expect(() => gw.callbacks.verify(formBody({}, 'abc'))).toThrow(SignatureVerificationError)
    expect(() => gw.callbacks.verify(new URLSearchParams(fields).toString())).toThrow(/no "hash"/)
  })

  it('refuses an already-parsed object with a message about raw bodies', () => {
    const gw = gateway()
    // @ts-expect-error a parsed body is not accepted
    expect(() => gw.callbacks.verify({ ...fields, hash: vector.hash })).toThrow(/raw request body/)
  })

  it('flags duplicate keys', () => {
    const gw = gateway()
    let error: SignatureVerificationError | undefined
    try {
      gw.callbacks.verify(`${formBody()}&order_amount=99.00`)
    } catch (e) {
      error = e as SignatureVerificationError
    }
    expect(error?.reason).toBe('duplicate_field')
    expect(() => gw.callbacks.verify(`{"id":"a","id":"b","hash":"x"}`)).toThrow(/more than once/)
  })

  it('takes a configurable field order', () => {
    const order = ['order_number', 'id']
    const body = signCallback({ id: 'p1', order_number: 'o1', type: 'sale' }, vector.password, { fieldOrder: order })
    expect(gateway({ callbackFields: order }).callbacks.verify(body).id).toBe('p1')
    expect(() => gateway().callbacks.verify(body)).toThrow(SignatureVerificationError)
  })

  it('verifies with the sha256 inner digest when the client uses it', () => {
    const body = signCallback({ ...fields }, vector.password, { digest: 'sha256' })
    expect(gateway({ digest: 'sha256' }).callbacks.verify(body).id).toBe(id)
  })
})

describe('callback events from the simulator', () => {
  it('3DS: transStatus C then a final sale; the challenge is stuck until a later callback arrives', async () => {
    const ctx = await setup()
    const p = await paidPayment(ctx, { expiry: TEST_CARDS.threeDsSuccess })
    const challenge = ctx.gw.callbacks.verify(ctx.simulator.callbacks.at(-1) as string)
    expect(challenge).toMatchObject({ type: '3ds', status: 'waiting', transStatus: 'C', protocolVersion: '2.2.0' })
    expect(isFinal(challenge)).toBe(false)
    expect(isStuckChallenge([challenge])).toBe(true)
    ctx.simulator.complete3ds(p.payment_id)
    const done = ctx.gw.callbacks.verify(ctx.simulator.callbacks.at(-1) as string)
    expect(done).toMatchObject({ type: 'sale', status: 'success', transStatus: 'Y', eci: '05' })
    expect(isStuckChallenge([challenge, done])).toBe(false)
  })

  it('3DS then decline (06/2038) is final', async () => {
    const ctx = await setup()
    const p = await paidPayment(ctx, { expiry: TEST_CARDS.threeDsDecline })
    ctx.simulator.complete3ds(p.payment_id)
    const event = ctx.gw.callbacks.verify(ctx.simulator.callbacks.at(-1) as string)
    expect(event).toMatchObject({ status: 'fail', order_status: 'decline', transStatus: 'N' })
    expect(isFinal(event)).toBe(true)
  })

  it('a payment is final only when type, status and order_status agree', () => {
    const base = { hash: 'h', id: 'p' }
    expect(isFinal({ ...base, type: 'sale', status: 'success', order_status: 'settled' })).toBe(true)
    expect(isFinal({ ...base, type: '3ds', status: 'success', order_status: 'settled' })).toBe(false)
    expect(isFinal({ ...base, type: 'sale', status: 'success', order_status: 'pending' })).toBe(false)
    expect(isFinal({ ...base, type: 'refund', status: 'success', order_status: 'refund' })).toBe(true)
    expect(isFinal({ ...base, type: 'sale', status: 'waiting', order_status: 'prepare' })).toBe(false)
  })

  it('deduplicates repeated deliveries on id + type + status', async () => {
    const ctx = await setup()
    await paidPayment(ctx, { capture: true })
    const body = ctx.simulator.callbacks.at(-1) as string
    const a = ctx.gw.callbacks.verify(body)
    const b = ctx.gw.callbacks.verify(body)
    expect(dedupeKey(a)).toBe(dedupeKey(b))
    expect(dedupeKey(a)).toBe(JSON.stringify([a.id, 'sale', 'success']))
    expect(dedupeKey({ ...a, type: 'a:b', status: 'c' })).not.toBe(dedupeKey({ ...a, type: 'a', status: 'b:c' }))
  })
})
