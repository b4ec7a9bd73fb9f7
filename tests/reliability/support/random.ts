/** A seeded PRNG (mulberry32): every randomized run is reproducible from the seed printed in its test name. */

export type Random = () => number

export function mulberry32(seed: number): Random {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296
  }
}

/** The seed: `RELIABILITY_SEED` when set (to replay a failure), else a fixed default. */
export function seedFromEnv(fallback: number): number {
  const given = process.env['RELIABILITY_SEED']
  return given === undefined ? fallback : Number.parseInt(given, 10) >>> 0
}

/** Picks a key of `weights` with probability proportional to its weight. */
export function weighted<K extends string>(random: Random, weights: Readonly<Record<K, number>>): K {
  const entries = Object.entries(weights) as [K, number][]
  const total = entries.reduce((sum, [, w]) => sum + w, 0)
  let r = random() * total
  for (const [key, w] of entries) {
    r -= w
    if (r < 0) return key
  }
  return (entries.at(-1) as [K, number])[0]
}

export function pick<T>(random: Random, items: readonly T[]): T {
  if (items.length === 0) throw new Error('pick from an empty list')
  return items[Math.floor(random() * items.length)] as T
}

export function integer(random: Random, min: number, max: number): number {
  return min + Math.floor(random() * (max - min + 1))
}
