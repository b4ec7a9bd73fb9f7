/**
 * The portable digests (used off Node) against Python's hashlib on hostile input: empty, block
 * boundaries, 1 MiB, control characters and lone surrogates. A lone surrogate is encoded as U+FFFD
 * (EF BF BD), as `node:crypto` encodes a JavaScript string as UTF-8; the vectors were computed with
 * `hashlib.<alg>(s.encode('utf-16', 'surrogatepass').decode('utf-16', 'replace').encode('utf-8'))`.
 */
import { createHash } from 'node:crypto'
import { nodeCrypto } from '@paywire/core/engine'
import { describe, expect, it } from 'vitest'
import { portableCrypto } from '../src/builtins.js'

const VECTORS: readonly (readonly [name: string, text: string, digests: Record<'md5' | 'sha1' | 'sha256', string>])[] =
  [
    [
      'empty',
      '',
      {
        md5: 'd41d8cd98f00b204e9800998ecf8427e',
        sha1: 'da39a3ee5e6b4b0d3255bfef95601890afd80709',
        sha256: 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
      },
    ],
    [
      'a lone high surrogate',
      '\ud800',
      {
        md5: '9b759040321a408a5c7768b4511287a6',
        sha1: '9bdb77276c1852e1fb067820472812fcf6084024',
        sha256: '83d544ccc223c057d2bf80d3f2a32982c32c3c0db8e2674820da5064783fb097',
      },
    ],
    [
      'a lone low surrogate before text',
      '\udfffabc',
      {
        md5: 'ea126610c160d6951398cf1835e20f11',
        sha1: '74c42ce82106aa1fb20e0af510626d715d3303e7',
        sha256: 'c41182fc292f252917450ea9755d705d931b4503b5aa210aee0caa714bc7bb71',
      },
    ],
    [
      'a reversed surrogate pair',
      '\udc00\ud800',
      {
        md5: '1e034b66363e5a081874ae022767f685',
        sha1: '8750ec9ddfe293cd1dc39b4245c21c270f8f52b7',
        sha256: '52793f8dc1d85e409f8c88be99d8b31d58f676246340150f406289e04a11151e',
      },
    ],
    [
      'NUL and control characters',
      '\x00\x01\x7f\r\n',
      {
        md5: '8691ef20bd5b39e9632a275694c989d3',
        sha1: '218ca3f2541ef0994d949f3122211d68e3fb271e',
        sha256: '3ef78354d952fbef05fddef27f53d62b856a9d6f1edcd31142d625b5716b1bc4',
      },
    ],
    [
      '55 bytes (one block with its length)',
      'a'.repeat(55),
      {
        md5: 'ef1772b6dff9a122358552954ad0df65',
        sha1: 'c1c8bbdc22796e28c0e15163d20899b65621d65a',
        sha256: '9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318',
      },
    ],
    [
      '56 bytes (padding spills into a second block)',
      'a'.repeat(56),
      {
        md5: '3b0c8ac703f828b04c6c197006d17218',
        sha1: 'c2db330f6083854c99d4b5bfb6e8f29f201be699',
        sha256: 'b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a',
      },
    ],
    [
      '63 bytes',
      'a'.repeat(63),
      {
        md5: 'b06521f39153d618550606be297466d5',
        sha1: '03f09f5b158a7a8cdad920bddc29b81c18a551f5',
        sha256: '7d3e74a05d7db15bce4ad9ec0658ea98e3f06eeecf16b4c6fff2da457ddc2f34',
      },
    ],
    [
      '64 bytes (one whole block)',
      'a'.repeat(64),
      {
        md5: '014842d480b571495a4a0363793f7367',
        sha1: '0098ba824b5c16427bd7a1122a5a442a25ec644d',
        sha256: 'ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb',
      },
    ],
    [
      '119 bytes',
      'b'.repeat(119),
      {
        md5: 'b4e5105d0b3acae7feda8ec2acbdad57',
        sha1: '725c2b5274ff30f1f4c30ba10735e65d3cc7c58b',
        sha256: '68297a9eb141ce16bbc0847da1c0c48e2858704feaa13993bde29f87a198a6e1',
      },
    ],
    [
      '1 MiB',
      'x'.repeat(1 << 20),
      {
        md5: 'b561f87202d04959e37588ee05cf5b10',
        sha1: 'e37f4d5be56713044d62525e406d250a722647d6',
        sha256: '8f990ba0b577b51cf009ea049368c16bbda1b21e1b93be07a824758bb253c39b',
      },
    ],
    [
      'an astral character',
      '\u{1F4B3} card',
      {
        md5: '64b007d420291a2ed3bf5aef20706ad6',
        sha1: 'ae0891875291a74e41139a8472f22663e83fb417',
        sha256: 'f5df4022aed301210364955ea770326adbf1753f663b5f7972f3d24c543741d5',
      },
    ],
  ]

describe('the portable digests on hostile input', () => {
  const portable = portableCrypto()
  for (const [name, text, digests] of VECTORS) {
    it(`${name}: the same as Python's hashlib and node:crypto`, () => {
      for (const algorithm of ['md5', 'sha1', 'sha256'] as const) {
        expect(portable.hash(algorithm, text, 'hex')).toBe(digests[algorithm])
        expect(createHash(algorithm).update(text, 'utf8').digest('hex')).toBe(digests[algorithm])
      }
    })
  }

  it('an algorithm it does not have is refused by name, not hashed as another', () => {
    expect(() => portable.hash('sha512' as 'sha256', 'x', 'hex')).toThrow(/sha512.*md5, sha1, sha256/)
    expect(() => portable.hash('SHA256' as 'sha256', 'x', 'hex')).toThrow(/SHA256/)
  })
})

describe('the portable constant-time comparison', () => {
  const { timingSafeEqual } = portableCrypto()
  const bytes = (text: string) => new TextEncoder().encode(text)

  it('refuses buffers of different lengths, as node:crypto does, rather than comparing a prefix', () => {
    expect(() => timingSafeEqual(bytes('abc'), bytes('abcd'))).toThrow(RangeError)
    expect(() => nodeCrypto().timingSafeEqual(bytes('abc'), bytes('abcd'))).toThrow(RangeError)
    expect(() => timingSafeEqual(bytes(''), bytes('a'))).toThrow(RangeError)
  })

  it('compares views by their own bytes, not the whole buffer behind them', () => {
    const backing = bytes('xxabcxx')
    expect(timingSafeEqual(backing.subarray(2, 5), bytes('abc'))).toBe(true)
    expect(timingSafeEqual(backing.subarray(2, 5), bytes('abd'))).toBe(false)
    expect(timingSafeEqual(bytes(''), bytes(''))).toBe(true)
  })
})
