/*! Adapted from noble-hashes 2.4.0 - MIT License (c) 2022 Paul Miller (paulmillr.com) */
/**
 * MD5, SHA-1 and SHA-256 of a string, for runtimes without `node:crypto` (Web Crypto has no MD5 and
 * is asynchronous; the signatures the services define are MD5 and SHA-1 and are computed in line).
 * The round functions, constants and initial values are noble-hashes' (`legacy.ts`, `sha2.ts`,
 * `_md.ts`, audited, MIT), kept as written there; its streaming class scaffolding is replaced by one
 * padding of the whole message (RFC 1321 / RFC 3174 / RFC 6234). Checked against node:crypto on
 * random input and against fixed vectors (core tests). Not used on Node.
 */

const Chi = (a: number, b: number, c: number): number => (a & b) ^ (~a & c)
const Maj = (a: number, b: number, c: number): number => (a & b) ^ (a & c) ^ (b & c)
const rotl = (word: number, shift: number): number => (word << shift) | (word >>> (32 - shift))
const rotr = (word: number, shift: number): number => (word << (32 - shift)) | (word >>> shift)

/** The message padded to whole 64-byte blocks: a 1 bit, zeros, the bit length in 8 bytes. */
function padded(data: Uint8Array, littleEndian: boolean): DataView {
  const blocks = Math.ceil((data.length + 9) / 64)
  const buffer = new Uint8Array(blocks * 64)
  buffer.set(data)
  buffer[data.length] = 0x80
  const view = new DataView(buffer.buffer)
  const bits = data.length * 8
  const high = Math.floor(bits / 2 ** 32)
  const low = bits >>> 0
  const end = buffer.length - 8
  if (littleEndian) {
    view.setUint32(end, low, true)
    view.setUint32(end + 4, high, true)
  } else {
    view.setUint32(end, high, false)
    view.setUint32(end + 4, low, false)
  }
  return view
}

function hex(state: ArrayLike<number>, littleEndian: boolean): string {
  const out = new DataView(new ArrayBuffer(state.length * 4))
  for (let i = 0; i < state.length; i++) out.setUint32(4 * i, state[i] as number, littleEndian)
  let text = ''
  for (let i = 0; i < out.byteLength; i++) text += out.getUint8(i).toString(16).padStart(2, '0')
  return text
}

const SHA1_IV = [0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476, 0xc3d2e1f0]

function sha1(data: Uint8Array): string {
  const view = padded(data, false)
  const W = new Uint32Array(80)
  const s = SHA1_IV.slice()
  for (let offset = 0; offset < view.byteLength; offset += 64) {
    for (let i = 0; i < 16; i++) W[i] = view.getUint32(offset + 4 * i, false)
    for (let i = 16; i < 80; i++)
      W[i] = rotl((W[i - 3] as number) ^ (W[i - 8] as number) ^ (W[i - 14] as number) ^ (W[i - 16] as number), 1)
    let [A, B, C, D, E] = s as [number, number, number, number, number]
    for (let i = 0; i < 80; i++) {
      let F: number
      let K: number
      if (i < 20) {
        F = Chi(B, C, D)
        K = 0x5a827999
      } else if (i < 40) {
        F = B ^ C ^ D
        K = 0x6ed9eba1
      } else if (i < 60) {
        F = Maj(B, C, D)
        K = 0x8f1bbcdc
      } else {
        F = B ^ C ^ D
        K = 0xca62c1d6
      }
      const T = (rotl(A, 5) + F + E + K + (W[i] as number)) | 0
      E = D
      D = C
      C = rotl(B, 30)
      B = A
      A = T
    }
    s[0] = ((s[0] as number) + A) | 0
    s[1] = ((s[1] as number) + B) | 0
    s[2] = ((s[2] as number) + C) | 0
    s[3] = ((s[3] as number) + D) | 0
    s[4] = ((s[4] as number) + E) | 0
  }
  return hex(s, false)
}

let MD5_K: number[] | undefined
const MD5_S = [
  [7, 12, 17, 22],
  [5, 9, 14, 20],
  [4, 11, 16, 23],
  [6, 10, 15, 21],
]

function md5(data: Uint8Array): string {
  // Built on first use: nothing is computed at import.
  MD5_K ??= Array.from({ length: 64 }, (_, i) => Math.floor(2 ** 32 * Math.abs(Math.sin(i + 1))))
  const K = MD5_K
  const view = padded(data, true)
  const W = new Uint32Array(16)
  const s = SHA1_IV.slice(0, 4)
  for (let offset = 0; offset < view.byteLength; offset += 64) {
    for (let i = 0; i < 16; i++) W[i] = view.getUint32(offset + 4 * i, true)
    let [A, B, C, D] = s as [number, number, number, number]
    for (let i = 0; i < 64; i++) {
      let F: number
      let g: number
      if (i < 16) {
        F = Chi(B, C, D)
        g = i
      } else if (i < 32) {
        F = Chi(D, B, C)
        g = (5 * i + 1) % 16
      } else if (i < 48) {
        F = B ^ C ^ D
        g = (3 * i + 5) % 16
      } else {
        F = C ^ (B | ~D)
        g = (7 * i) % 16
      }
      F = F + A + (K[i] as number) + (W[g] as number)
      A = D
      D = C
      C = B
      B = B + rotl(F, (MD5_S[Math.floor(i / 16)] as number[])[i % 4] as number)
    }
    s[0] = ((s[0] as number) + A) | 0
    s[1] = ((s[1] as number) + B) | 0
    s[2] = ((s[2] as number) + C) | 0
    s[3] = ((s[3] as number) + D) | 0
  }
  return hex(s, true)
}

// prettier-ignore
const SHA256_K = [
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98,
  0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
  0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8,
  0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
  0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819,
  0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
  0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
  0xc67178f2,
]
const SHA256_IV = [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19]

function sha256(data: Uint8Array): string {
  const view = padded(data, false)
  const W = new Uint32Array(64)
  const s = SHA256_IV.slice()
  for (let offset = 0; offset < view.byteLength; offset += 64) {
    for (let i = 0; i < 16; i++) W[i] = view.getUint32(offset + 4 * i, false)
    for (let i = 16; i < 64; i++) {
      const W15 = W[i - 15] as number
      const W2 = W[i - 2] as number
      const s0 = rotr(W15, 7) ^ rotr(W15, 18) ^ (W15 >>> 3)
      const s1 = rotr(W2, 17) ^ rotr(W2, 19) ^ (W2 >>> 10)
      W[i] = (s1 + (W[i - 7] as number) + s0 + (W[i - 16] as number)) | 0
    }
    let [A, B, C, D, E, F, G, H] = s as [number, number, number, number, number, number, number, number]
    for (let i = 0; i < 64; i++) {
      const sigma1 = rotr(E, 6) ^ rotr(E, 11) ^ rotr(E, 25)
      const T1 = (H + sigma1 + Chi(E, F, G) + (SHA256_K[i] as number) + (W[i] as number)) | 0
      const sigma0 = rotr(A, 2) ^ rotr(A, 13) ^ rotr(A, 22)
      const T2 = (sigma0 + Maj(A, B, C)) | 0
      H = G
      G = F
      F = E
      E = (D + T1) | 0
      D = C
      C = B
      B = A
      A = (T1 + T2) | 0
    }
    const add = [A, B, C, D, E, F, G, H]
    for (let i = 0; i < 8; i++) s[i] = ((s[i] as number) + (add[i] as number)) | 0
  }
  return hex(s, false)
}

/** The digest algorithms the services' signatures use. */
export type DigestAlgorithm = 'md5' | 'sha1' | 'sha256'

/** Hex digest of `text` (UTF-8), as `node:crypto`'s `hash(algorithm, text, 'hex')` gives it. */
export function hexDigest(algorithm: DigestAlgorithm, text: string): string {
  const data = new TextEncoder().encode(text)
  if (algorithm === 'md5') return md5(data)
  if (algorithm === 'sha1') return sha1(data)
  if (algorithm === 'sha256') return sha256(data)
  throw new TypeError(`digest algorithm ${String(algorithm)} is not available off Node (md5, sha1, sha256 are)`)
}
