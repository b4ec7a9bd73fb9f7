/**
 * "Hash is not valid", explained: given the values, the password and a hash someone computed, finds
 * which common mistakes reproduce that hash. Each candidate changes how the signature is built
 * (uppercasing, inner digest and its encoding, input order, amount strings, spaces, separators,
 * the password's place) and is hashed for real; the ones that produce the hash are the diagnosis.
 */

import { createHash } from 'node:crypto'

/** How the signature was meant to be built: the rule (`sha1(inner(UPPER(values… + password)))`). */
export interface SignatureRecipe {
  readonly inputs: ReadonlyArray<{ readonly name: string; readonly value: string | undefined }>
  readonly password: string
  readonly digest: 'md5' | 'sha256'
  readonly uppercase: 'ascii' | 'unicode'
}

/** One way of building the signature that reproduces the compared hash, described in words. */
export interface Finding {
  /** The deviations from the rule, e.g. `["inner digest sha256 instead of md5"]`; empty: the rule itself. */
  readonly mistakes: readonly string[]
}

type Upper = 'ascii' | 'unicode' | 'none'
type Inner = 'md5' | 'sha256' | 'sha1'
type Encoding = 'hex' | 'HEX' | 'raw' | 'none'

interface Layout {
  readonly mistakes: readonly string[]
  readonly values: readonly string[]
  /** The text hashed, built from the values and the password. */
  readonly join: (values: readonly string[], password: string) => string
}

const PERMUTATION_LIMIT = 6

/**
 * Every candidate that produces `compared`, fewest mistakes first (at most `limit`). A hash in
 * uppercase hex matches too, with that named as a mistake of its own.
 */
export function diagnose(recipe: SignatureRecipe, compared: string, limit = 5): Finding[] {
  // Whitespace is named, never silently dropped: a hash compared with it cannot match, and saying
  // "the rule itself" would print two equal-looking hashes as a mismatch.
  const target = compared.trim()
  const spaceMistake = target !== compared ? ['whitespace around the hash (a newline or space added on the way)'] : []
  const caseMistake = target !== target.toLowerCase() ? ['the hash written in uppercase hex'] : []
  const wanted = target.toLowerCase()
  const found: Finding[] = []
  // Layouts and uppercasings come rule-first, so the first way to reach a text has the fewest
  // mistakes; a later way to the same text (ASCII text under Unicode uppercasing) says nothing new.
  const seen = new Set<string>()
  for (const layout of layouts(recipe)) {
    for (const [upper, upperMistake] of uppers(recipe.uppercase)) {
      const text = applyUpper(layout.join(layout.values, recipe.password), upper)
      if (seen.has(text)) continue
      seen.add(text)
      for (const [inner, innerMistake] of inners(recipe.digest)) {
        const innerDigest = createHash(inner).update(text, 'utf8').digest()
        for (const [encoding, encodingMistake] of ENCODINGS) {
          if (hashWith(innerDigest, encoding) !== wanted) continue
          const mistakes = [
            ...spaceMistake,
            ...caseMistake,
            ...layout.mistakes,
            upperMistake,
            innerMistake,
            encodingMistake,
          ].filter((m): m is string => m !== undefined)
          found.push({ mistakes })
        }
      }
    }
  }
  return found.sort((a, b) => a.mistakes.length - b.mistakes.length).slice(0, limit)
}

function hashWith(inner: Buffer, encoding: Encoding): string {
  if (encoding === 'none') return inner.toString('hex')
  const fed = encoding === 'raw' ? inner : inner.toString('hex')
  return createHash('sha1')
    .update(encoding === 'HEX' ? String(fed).toUpperCase() : fed)
    .digest('hex')
}

const ENCODINGS: ReadonlyArray<readonly [Encoding, string | undefined]> = [
  ['hex', undefined],
  ['HEX', 'the inner digest fed to sha1 as uppercase hex'],
  ['raw', 'the inner digest fed to sha1 as raw bytes instead of hex text'],
  ['none', 'no sha1 step (the inner digest alone)'],
]

function uppers(rule: 'ascii' | 'unicode'): ReadonlyArray<readonly [Upper, string | undefined]> {
  return [
    [rule, undefined],
    rule === 'ascii'
      ? ['unicode', 'Unicode uppercasing (toUpperCase, mb_strtoupper) instead of ASCII-only']
      : ['ascii', 'ASCII-only uppercasing (strtoupper) instead of Unicode'],
    ['none', 'no uppercasing'],
  ]
}

function inners(rule: 'md5' | 'sha256'): ReadonlyArray<readonly [Inner, string | undefined]> {
  const others: Inner[] = (['md5', 'sha256', 'sha1'] as const).filter((d) => d !== rule)
  return [[rule, undefined], ...others.map((d) => [d, `inner digest ${d} instead of ${rule}`] as const)]
}

function applyUpper(text: string, mode: Upper): string {
  if (mode === 'none') return text
  if (mode === 'unicode') return text.toUpperCase()
  return text.replace(/[a-z]+/g, (run) => run.toUpperCase())
}

const passwordLast = (values: readonly string[], password: string) => values.join('') + password

/** The ways of laying out the hashed text: the rule, then one structural mistake each. */
function* layouts(recipe: SignatureRecipe): Generator<Layout> {
  const names = recipe.inputs.map((i) => i.name)
  const values = recipe.inputs.map((i) => i.value ?? '')
  yield { mistakes: [], values, join: passwordLast }
  // Input order.
  if (values.length > 1 && values.length <= PERMUTATION_LIMIT) {
    for (const order of permutations(values.map((_, i) => i)).slice(1)) {
      yield {
        mistakes: [`inputs in the order ${order.map((i) => names[i]).join(', ')}`],
        values: order.map((i) => values[i] ?? ''),
        join: passwordLast,
      }
    }
  }
  // The password's place.
  yield { mistakes: ['the password first instead of last'], values, join: (v, p) => p + v.join('') }
  yield { mistakes: ['the password left out'], values, join: (v) => v.join('') }
  yield { mistakes: ['a newline at the end (echo without -n)'], values, join: (v, p) => `${v.join('')}${p}\n` }
  if (values.some((v) => v !== v.trim())) {
    yield {
      mistakes: ['values trimmed of leading and trailing spaces'],
      values: values.map((v) => v.trim()),
      join: passwordLast,
    }
  }
  for (const [i, value] of values.entries()) {
    const name = names[i] ?? `#${i + 1}`
    yield { mistakes: [`a trailing space after ${name}`], values: replaced(values, i, `${value} `), join: passwordLast }
    if (value !== '') yield { mistakes: [`${name} left out`], values: replaced(values, i, ''), join: passwordLast }
    for (const variant of amountVariants(value)) {
      yield {
        mistakes: [`${name} as "${variant}" instead of "${value}"`],
        values: replaced(values, i, variant),
        join: passwordLast,
      }
    }
  }
  // Separators come after the per-field mistakes: with one input, "a trailing space" and "joined
  // with a space" build the same text, and the per-field name says more.
  for (const separator of ['|', ',', ':', ';', '&', ' ']) {
    yield { mistakes: [`inputs joined with "${separator}"`], values, join: (v, p) => [...v, p].join(separator) }
  }
}

function replaced(values: readonly string[], index: number, value: string): string[] {
  return values.map((v, i) => (i === index ? value : v))
}

/** Other strings an amount is often written as: fewer or more decimals, minor units, a comma. */
function amountVariants(value: string): string[] {
  if (!/^\d+(\.\d+)?$/.test(value)) return []
  const n = Number(value)
  const decimals = value.includes('.') ? (value.split('.')[1] ?? '').length : 0
  const variants = new Set([
    String(n),
    n.toFixed(1),
    n.toFixed(2),
    n.toFixed(3),
    String(Math.round(n * 10 ** Math.max(decimals, 2))),
    value.replace('.', ','),
  ])
  variants.delete(value)
  return [...variants]
}

function permutations(items: readonly number[]): number[][] {
  if (items.length <= 1) return [[...items]]
  const out: number[][] = []
  for (const [i, item] of items.entries()) {
    for (const rest of permutations([...items.slice(0, i), ...items.slice(i + 1)])) out.push([item, ...rest])
  }
  return out
}
