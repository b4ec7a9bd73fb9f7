import { readFileSync } from 'node:fs'
import { RequestValidationError } from '@paywire/core'
import { describe, expect, it } from 'vitest'
import { asciiUpper, CardGateway, explainSignature, sign } from '../src/index.js'

interface Vector {
  name: string
  digest: 'md5' | 'sha256'
  password: string
  values: string[]
  uppercased: string
  inner: string
  hash: string
}

// Computed by test/fixtures/generate-vectors.sh with coreutils (tr, md5sum, sha1sum, sha256sum), never by the SDK.
const vectors: Vector[] = JSON.parse(
  readFileSync(new URL('./fixtures/signature-vectors.json', import.meta.url), 'utf8'),
)

const gateway = (password: string) =>
  new CardGateway({
    checkoutUrl: 'https://checkout.example',
    s2sUrl: 'https://s2s.example',
    merchantKey: 'mk',
    clientKey: 'ck',
    password,
  })

describe('signature: hash = sha1(md5(UPPER(concat)))', () => {
  it.each(vectors.map((v) => [v.name, v] as const))('matches the independent vector "%s"', (_name, v) => {
    expect(sign(v.values, v.password, v.digest)).toBe(v.hash)
    const explained = explainSignature(v.values, v.password, v.digest)
    expect(explained.innerHex).toBe(v.inner)
    expect(explained.hash).toBe(v.hash)
  })

  it('uppercases ASCII a-z only: é and ß stay as they are (PHP strtoupper)', () => {
    expect(asciiUpper('Café straße Ünïcode')).toBe('CAFé STRAßE ÜNïCODE')
    const v = vectors.find((x) => x.name === 'purchase-non-ascii') as Vector
    expect(asciiUpper(v.values.join('') + v.password)).toBe(v.uppercased)
  })

  it('differs from a naive String.prototype.toUpperCase signature for non-ASCII input', () => {
    const v = vectors.find((x) => x.name === 'purchase-non-ascii') as Vector
    expect('straße'.toUpperCase()).toBe('STRASSE')
    expect(sign(v.values, v.password)).toBe(v.hash)
  })

  it('supports the inner sha256 digest (admin option)', () => {
    const v = vectors.find((x) => x.name === 'purchase-sha256') as Vector
    expect(v.inner).toHaveLength(64)
    expect(sign(v.values, v.password, 'sha256')).toBe(v.hash)
  })

  it("the client's own signer matches every independent vector", async () => {
    const { CardGateway } = await import('../src/index.js')
    for (const v of vectors) {
      const gw = new CardGateway({
        checkoutUrl: 'https://checkout.example',
        s2sUrl: 'https://s2s.example',
        merchantKey: 'mk',
        clientKey: 'ck',
        password: v.password,
        digest: v.digest,
      })
      expect(gw.sign(v.values), v.name).toBe(v.hash)
    }
  })

  it('keeps letters whose Unicode uppercase is ASCII (ı, ſ, ﬀ) as they are', () => {
    const v = vectors.find((x) => x.name === 'non-ascii-uppercasing-to-ascii') as Vector
    expect('ı ſ ﬀ'.toUpperCase()).toBe('I S FF')
    expect(sign(v.values, v.password)).toBe(v.hash)
  })

  it('a missing value adds nothing to the signed text, as an empty one', () => {
    const values = ['order-1001', undefined, '10.00', null, 'USD', 'Test order'] as unknown as string[]
    const v = vectors.find((x) => x.name === 'purchase') as Vector
    expect(sign(values, v.password)).toBe(v.hash)
    expect(sign(values, v.password, 'md5', { uppercase: 'unicode' })).toBe(v.hash)
  })

  it('signs a value by its String() (toString, not valueOf), as join does', () => {
    // Shaped like a decimal library's -0: toString() '0', valueOf() '-0'.
    const minusZero = { toString: () => '0', valueOf: () => '-0' }
    const byHint = { [Symbol.toPrimitive]: (hint: string) => (hint === 'string' ? '0' : '-0') }
    // python3: sha1(md5('order-10Pa55word'.encode().upper()).hexdigest()) -> 1404b4e2…
    for (const value of [minusZero, byHint]) {
      const values = ['order-1', value] as unknown as string[]
      expect(sign(values, 'Pa55word')).toBe('1404b4e2a54c4434db36c316682f8728fc4182c6')
      expect(gateway('Pa55word').sign(values)).toBe('1404b4e2a54c4434db36c316682f8728fc4182c6')
    }
  })

  it.each([
    ['a Set', new Set(['order-1', '10.00'])],
    ['a Map', new Map([['order', 'order-1']])],
    ['a plain object', { order: 'order-1' }],
    ['a number', 42],
    ['undefined', undefined],
  ])('refuses %s as values instead of signing the password alone', (_kind, values) => {
    for (const signs of [(v: string[]) => sign(v, 'Pa55word'), (v: string[]) => gateway('Pa55word').sign(v)]) {
      const error = (() => {
        try {
          signs(values as unknown as string[])
        } catch (caught) {
          return caught
        }
      })()
      expect(error).toBeInstanceOf(RequestValidationError)
      expect((error as RequestValidationError).issues).toEqual([
        { path: 'values', message: 'must be an array of the wire strings, in hash-input order' },
      ])
    }
  })

  it('signs long text on either path: ASCII and non-ASCII past 256 characters', () => {
    // python3 -c "import hashlib; h=lambda t: hashlib.sha1(hashlib.md5(t.encode().upper()).hexdigest().encode()).hexdigest(); print(h(…))"
    const long = ['order-1', 'ΐ'.repeat(300), 'straße ıſﬀ']
    expect(sign(long, 'Pa55word')).toBe('d4fdc03c2f6fe41d0a9e74e966a9ae76f061da7e')
    expect(gateway('Pa55word').sign(long)).toBe('d4fdc03c2f6fe41d0a9e74e966a9ae76f061da7e')
    expect(gateway('Pa55word').sign(['x'.repeat(256)])).toBe('7025dae0ea596cedcc4fe9fe8c9adc88efbdb55c')
    expect(gateway('Pa55word').sign(['x'.repeat(257)])).toBe('65993fb9d4bc710c49d8f5cb1de762d5fb86bb32')
  })

  it('unicode mode uppercases values and password as one text (a surrogate pair may straddle them)', () => {
    // python3: t = '\U00010428' (U+D801 U+DC28); sha1(md5(t.upper().encode()).hexdigest()) -> aab27689…
    const expected = 'aab276898793ce4f5eeee11a28f8357e008081cd'
    expect(sign(['\uD801'], '\uDC28', 'md5', { uppercase: 'unicode' })).toBe(expected)
    expect(explainSignature(['\uD801'], '\uDC28', 'md5', { uppercase: 'unicode' }).hash).toBe(expected)
  })

  it('produces lowercase hex of 40 characters', () => {
    expect(sign(['x'], 'p')).toMatch(/^[0-9a-f]{40}$/)
  })
})

describe('explainSignature', () => {
  it('shows each step with the password masked', () => {
    const v = vectors.find((x) => x.name === 'purchase') as Vector
    const explained = explainSignature(
      [
        { name: 'order.number', value: 'order-1001' },
        { name: 'order.amount', value: '10.00' },
        { name: 'order.currency', value: 'USD' },
        { name: 'order.description', value: 'Test order' },
      ],
      v.password,
    )
    expect(explained.concatenation).toBe('order-100110.00USDTest order{password}')
    expect(explained.uppercased).toBe('ORDER-100110.00USDTEST ORDER{PASSWORD}')
    expect(explained.innerHex).toBe(v.inner)
    expect(explained.hash).toBe(v.hash)
    expect(JSON.stringify(explained)).not.toContain(v.password)
    expect(JSON.stringify(explained)).not.toContain(v.password.toUpperCase())
  })

  it('the client explains with its own password without revealing it', async () => {
    const { CardGateway } = await import('../src/index.js')
    const gw = new CardGateway({
      checkoutUrl: 'https://checkout.example',
      s2sUrl: 'https://s2s.example',
      merchantKey: 'mk',
      clientKey: 'ck',
      password: 'Pa55word',
    })
    const v = vectors.find((x) => x.name === 'trans-id') as Vector
    const explained = gw.explainSignature([{ name: 'trans_id', value: v.values[0] }])
    expect(explained.hash).toBe(v.hash)
    expect(JSON.stringify(explained)).not.toMatch(/pa55word/i)
    expect(gw.sign(v.values)).toBe(v.hash)
    await gw.close()
  })
})

describe('SIGNED_OPERATIONS: the one table the client signs from', () => {
  it('agrees with the simulator, whose table is written separately (a shared mistake would hide)', async () => {
    const { HASH_INPUTS } = await import('../src/testing/rules.js')
    const { SIGNED_OPERATIONS } = await import('../src/index.js')
    const checkout = {
      'checkout.purchase': 'purchase',
      'checkout.credit': 'credit',
      'checkout.status': 'status',
    } as const
    for (const [name, row] of Object.entries(SIGNED_OPERATIONS)) {
      const simulatorKey = row.action ?? checkout[name as keyof typeof checkout]
      const expected = HASH_INPUTS[simulatorKey]
      if (row.inputs === null) expect(expected, name).toEqual([])
      else expect(row.inputs, name).toEqual(expected)
    }
  })
})
