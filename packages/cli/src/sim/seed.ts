/** Repeatable UUIDs for `paywire sim --seed`: the same seed gives the same ids in the same order. */

import { createHash } from 'node:crypto'

/**
 * A generator of version-4-shaped UUIDs from `seed`: sha256 in counter mode, so the ids are
 * well spread and depend only on the seed and how many came before.
 */
export function seededUuid(seed: string): () => string {
  let counter = 0
  return () => {
    counter += 1
    const bytes = createHash('sha256').update(`${seed}\u0000${counter}`).digest()
    bytes[6] = ((bytes[6] ?? 0) & 0x0f) | 0x40
    bytes[8] = ((bytes[8] ?? 0) & 0x3f) | 0x80
    const hex = bytes.subarray(0, 16).toString('hex')
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`
  }
}
