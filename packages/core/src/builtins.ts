/** Node built-ins loaded by their first use rather than at import: each costs milliseconds of cold start. */

import { type DigestAlgorithm, hexDigest } from './vendor/noble-digests.js'

let crypto: typeof import('node:crypto') | undefined

/**
 * `node:crypto` (about 9 ms to load on the bench machine), for the UUIDs, hashes and comparisons of
 * every package: loaded by the first call that needs it, through `process.getBuiltinModule` (Node
 * 20.16 and later), so importing a package does not load it. Where that is absent, or its module
 * lacks one of the three functions the packages use (Workers, older Bun or Deno), the portable
 * provider stands in (`portableCrypto`): it has `hash` (md5, sha1, sha256, hex), `timingSafeEqual`
 * and `randomUUID` only.
 */
export function nodeCrypto(): typeof import('node:crypto') {
  crypto ??= builtinCrypto() ?? (portableCrypto() as typeof import('node:crypto'))
  return crypto
}

/**
 * A Node built-in through `process.getBuiltinModule` (Node 20.16 and later), loaded by its first
 * use rather than at import; `undefined` where the runtime has no such function or refuses the id.
 */
export function builtinModule<T>(id: string): Partial<T> | undefined {
  const getBuiltinModule = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process
    ?.getBuiltinModule
  if (typeof getBuiltinModule !== 'function') return undefined
  try {
    return (getBuiltinModule(id) ?? undefined) as Partial<T> | undefined
  } catch {
    return undefined
  }
}

function builtinCrypto(): typeof import('node:crypto') | undefined {
  const module = builtinModule<typeof import('node:crypto')>('node:crypto')
  const complete =
    typeof module?.hash === 'function' &&
    typeof module.timingSafeEqual === 'function' &&
    typeof module.randomUUID === 'function'
  return complete ? (module as typeof import('node:crypto')) : undefined
}

/** The part of `node:crypto` the packages use, which the portable provider gives off Node. */
export interface PortableCrypto {
  /** Hex digest of UTF-8 `text`: md5 and sha1 (the services' signatures) and sha256. */
  hash(algorithm: DigestAlgorithm, text: string, encoding: 'hex'): string
  /** Whether two byte strings of the same length are equal, in time that does not depend on where they differ. */
  timingSafeEqual(a: ArrayBufferView, b: ArrayBufferView): boolean
  /** A random version-4 UUID. */
  randomUUID(): string
}

/**
 * The digest provider off Node: MD5/SHA-1/SHA-256 adapted from noble-hashes (vendor/noble-digests.ts;
 * Web Crypto has no MD5 and its digests are asynchronous), Web Crypto's `randomUUID`, and a
 * comparison that reads every byte whatever it finds.
 */
export function portableCrypto(): PortableCrypto {
  return {
    hash: (algorithm, text, encoding) => {
      if (encoding !== 'hex') throw new TypeError('only hex digests are available off Node')
      return hexDigest(algorithm, text)
    },
    timingSafeEqual,
    randomUUID: () => globalThis.crypto.randomUUID(),
  }
}

/** Constant-time equality: every byte is read and folded into one difference, no early return. */
function timingSafeEqual(a: ArrayBufferView, b: ArrayBufferView): boolean {
  // Refused like node:crypto's: a length check is not secret (callers compare fixed-length digests).
  if (a.byteLength !== b.byteLength) throw new RangeError('Input buffers must have the same byte length')
  const x = new Uint8Array(a.buffer, a.byteOffset, a.byteLength)
  const y = new Uint8Array(b.buffer, b.byteOffset, b.byteLength)
  let difference = 0
  for (let i = 0; i < x.length; i++) difference |= (x[i] as number) ^ (y[i] as number)
  return difference === 0
}

/** Forgets the provider chosen (tests that take `process.getBuiltinModule` away). */
export function resetCryptoForTests(): void {
  crypto = undefined
}
