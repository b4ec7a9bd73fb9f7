import { createHash, timingSafeEqual as nodeTimingSafeEqual } from 'node:crypto'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { nodeCrypto, portableCrypto, resetCryptoForTests } from '../src/builtins.js'

afterEach(() => {
  vi.unstubAllGlobals()
  resetCryptoForTests()
})

/** From python's hashlib (`hashlib.md5(t.encode()).hexdigest()` and so on), not from node:crypto. */
const VECTORS: readonly (readonly [text: string, md5: string, sha1: string, sha256: string])[] = [
  [
    '',
    'd41d8cd98f00b204e9800998ecf8427e',
    'da39a3ee5e6b4b0d3255bfef95601890afd80709',
    'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
  ],
  [
    'abc',
    '900150983cd24fb0d6963f7d28e17f72',
    'a9993e364706816aba3e25717850c26c9cd0d89d',
    'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
  ],
  [
    'paywire',
    'cb534b8f22af1b6690db4422ebb406dc',
    '36389e758120bde27e142bad4aac901dc076987d',
    'fca54e7602fa1d56c14a92433afc4bc58538f24d70841306ef6e503b0e7fef13',
  ],
  [
    'é€😀 money',
    '3841612c9c31dbb663951fb9ca2d1513',
    'a16c9386173a7a892097f2264e955fae31bb54d3',
    'b2ca450dbb47dccf1f6ab4e901dd430acdb54cb582dd1b30cbd854fd76965af2',
  ],
  // 55, 56 and 64 bytes: the padding boundaries (the length no longer fits, a whole extra block).
  [
    'a'.repeat(55),
    'ef1772b6dff9a122358552954ad0df65',
    'c1c8bbdc22796e28c0e15163d20899b65621d65a',
    '9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318',
  ],
  [
    'a'.repeat(56),
    '3b0c8ac703f828b04c6c197006d17218',
    'c2db330f6083854c99d4b5bfb6e8f29f201be699',
    'b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a',
  ],
  [
    'a'.repeat(64),
    '014842d480b571495a4a0363793f7367',
    '0098ba824b5c16427bd7a1122a5a442a25ec644d',
    'ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb',
  ],
  [
    'a'.repeat(1000),
    'cabe45dcc9ae5b66ba86600cca6b8ba8',
    '291e9a6c66994949b57ba5e650361e98fc36b1ba',
    '41edece42d63e8d9bf515a9ba6932e1c20cbc9f5a5d134645adb5db1b9737ea3',
  ],
]

/** A seeded generator (mulberry32): the same random strings on every run. */
function seeded(seed: number): () => number {
  let a = seed
  return () => {
    a = (a + 0x6d2b79f5) | 0
    let t = Math.imul(a ^ (a >>> 15), 1 | a)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** Random text over the whole of Unicode (1-, 2-, 3- and 4-byte UTF-8), no lone surrogates. */
function randomText(random: () => number): string {
  const length = Math.floor(random() * 200)
  let text = ''
  for (let i = 0; i < length; i++) {
    const pick = random()
    const max = pick < 0.5 ? 0x80 : pick < 0.7 ? 0x800 : pick < 0.9 ? 0xd800 : 0x10ffff
    let code = Math.floor(random() * max)
    if (code >= 0xd800 && code <= 0xdfff) code = 0x20ac
    text += String.fromCodePoint(code)
  }
  return text
}

describe('digest provider off Node', () => {
  it.each(VECTORS)('matches the fixed vectors for %j', (text, md5, sha1, sha256) => {
    const portable = portableCrypto()
    expect(portable.hash('md5', text, 'hex')).toBe(md5)
    expect(portable.hash('sha1', text, 'hex')).toBe(sha1)
    expect(portable.hash('sha256', text, 'hex')).toBe(sha256)
  })

  it('matches node:crypto on 500 random UTF-8 strings, for each algorithm', () => {
    const random = seeded(27)
    const portable = portableCrypto()
    for (let i = 0; i < 500; i++) {
      const text = randomText(random)
      for (const algorithm of ['md5', 'sha1', 'sha256'] as const) {
        expect(portable.hash(algorithm, text, 'hex')).toBe(createHash(algorithm).update(text, 'utf8').digest('hex'))
      }
    }
  })

  it('compares in constant time as node:crypto does: equal, unequal, and unequal lengths refused', () => {
    const portable = portableCrypto()
    const a = new TextEncoder().encode('signature-a')
    const b = new TextEncoder().encode('signature-b')
    expect(portable.timingSafeEqual(a, a.slice())).toBe(true)
    expect(portable.timingSafeEqual(a, b)).toBe(nodeTimingSafeEqual(a, b))
    expect(() => portable.timingSafeEqual(a, b.subarray(1))).toThrow(RangeError)
  })

  it('makes version-4 UUIDs with Web Crypto', () => {
    const uuid = portableCrypto().randomUUID()
    expect(uuid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
  })

  it('is what nodeCrypto() gives where process.getBuiltinModule is absent', () => {
    vi.stubGlobal('process', { ...process, getBuiltinModule: undefined })
    const crypto = nodeCrypto()
    expect(crypto.hash('md5', 'abc', 'hex')).toBe('900150983cd24fb0d6963f7d28e17f72')
    expect(crypto).not.toBe(process.getBuiltinModule?.('node:crypto'))
  })

  it('is node:crypto itself on Node', () => {
    expect(nodeCrypto()).toBe(process.getBuiltinModule('node:crypto'))
  })
})
