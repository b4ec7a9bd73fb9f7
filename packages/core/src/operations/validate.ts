/** Request validation: every issue with its wire path and the rule in our words, and nothing is sent. */

import type { z } from 'zod'
import { RequestValidationError, type ValidationIssue } from '../errors/errors.js'

/** A body's schema: any zod 4 schema, classic or functional (the services build theirs with `@paywire/core/zod`). */
type AnySchema = z.core.$ZodType

/** The parse both of zod's forms give every schema as a method, so the engine bundles no zod of its own. */
interface Parses {
  safeParse(
    input: unknown,
    params?: { error: (issue: z.core.$ZodRawIssue) => string },
  ): { success: true; data: unknown } | { success: false; error: { issues: z.core.$ZodIssue[] } }
}

/** Parses `input` with `schema`, or throws `RequestValidationError` listing every issue. */
export function validateParams<S extends AnySchema>(operation: string, schema: S, input: unknown): z.output<S> {
  const checked = checkParams(schema, input)
  if (checked.ok) return checked.data
  throw new RequestValidationError(operation, checked.issues)
}

/** Parses `input` with `schema`: the output, or every issue by its wire path (unknown keys with a "did you mean"). */
export function checkParams<S extends AnySchema>(
  schema: S,
  input: unknown,
): { readonly ok: true; readonly data: z.output<S> } | { readonly ok: false; readonly issues: ValidationIssue[] } {
  // One parse: issues are worded only when there are some, so the error option costs a valid input nothing.
  const result = (schema as unknown as Parses).safeParse(input, IN_OUR_WORDS)
  if (result.success) return { ok: true, data: result.data as z.output<S> }
  return { ok: false, issues: toIssues(schema, result.error.issues) }
}

/** Describes a value's JSON type for a message: `a number`, `an array`, `null`. */
function describe(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'an array'
  if (typeof value === 'number' && !Number.isFinite(value)) return String(value) // NaN, Infinity: JSON has neither
  const type = typeof value
  return type === 'object' || type === 'undefined' ? `an ${type}` : `a ${type}`
}

const EXPECTED: Readonly<Record<string, string>> = {
  string: 'a string',
  number: 'a number',
  int: 'a whole number',
  boolean: 'true or false',
  object: 'an object',
  array: 'an array',
  bigint: 'a bigint',
}

function sizeOf(origin: string | undefined, n: number | bigint): string {
  if (origin === 'string') return n === 1 ? '1 character' : `${n} characters`
  if (origin === 'array' || origin === 'set') return n === 1 ? '1 item' : `${n} items`
  return String(n)
}

/**
 * The rule a schema check enforces, in our words, for every check whose schema gave no message of
 * its own (a schema's own message wins): the library's default wording never reaches a caller.
 */
const IN_OUR_WORDS = { error: inOurWords }

function inOurWords(issue: z.core.$ZodRawIssue): string {
  switch (issue.code) {
    case 'invalid_type':
      if (issue.input === undefined) return 'is required'
      return `must be ${EXPECTED[issue.expected] ?? issue.expected}, not ${describe(issue.input)}`
    case 'too_small': {
      if (issue.origin === 'string' && issue.minimum === 1) return 'must not be empty'
      const bound = sizeOf(issue.origin, issue.minimum)
      return issue.inclusive === false ? `must be more than ${bound}` : `must be at least ${bound}`
    }
    case 'too_big': {
      const bound = sizeOf(issue.origin, issue.maximum)
      return issue.inclusive === false ? `must be less than ${bound}` : `must be at most ${bound}`
    }
    case 'invalid_value':
      return `must be ${issue.values.map((v) => JSON.stringify(v)).join(' or ')}`
    case 'invalid_format':
      return issue.format === 'regex' ? 'has the wrong format' : `must be a valid ${issue.format}`
    case 'not_multiple_of':
      return `must be a multiple of ${issue.divisor}`
    case 'invalid_union':
      return 'matches none of the accepted shapes'
    default:
      return 'is not valid here'
  }
}

function toIssues(schema: AnySchema, issues: readonly z.core.$ZodIssue[]): ValidationIssue[] {
  const out: ValidationIssue[] = []
  for (const issue of issues) {
    const base = issue.path.map(String).join('.')
    if (issue.code === 'unrecognized_keys') {
      const known = knownKeysAt(schema, issue.path)
      for (const key of issue.keys) {
        const guess = closest(key, known)
        out.push({
          path: base ? `${base}.${key}` : key,
          message: guess ? `unknown field; did you mean "${guess}"?` : 'unknown field',
        })
      }
      continue
    }
    out.push({ path: base, message: issue.message })
  }
  return out
}

interface Def {
  type: string
  shape?: Record<string, AnySchema>
  innerType?: AnySchema
  in?: AnySchema
  element?: AnySchema
}

function defOf(schema: AnySchema): Def {
  return (schema as unknown as { _zod: { def: Def } })._zod.def
}

/** The field names the schema accepts at `path`, for "did you mean" hints. */
function knownKeysAt(schema: AnySchema, path: readonly PropertyKey[]): string[] {
  let current: AnySchema | undefined = schema
  const steps = [...path]
  while (current) {
    const def = defOf(current)
    if (def.innerType) current = def.innerType
    else if (def.type === 'pipe' && def.in) current = def.in
    else if (def.type === 'object' && def.shape) {
      if (steps.length === 0) return Object.keys(def.shape)
      current = def.shape[String(steps.shift())]
    } else if (def.type === 'array' && def.element) {
      steps.shift()
      current = def.element
    } else return []
  }
  return []
}

/** The candidate within edit distance 3 (and less than half the word) of `word`, if any. */
export function closest(word: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined
  let bestDistance = Math.min(3, Math.ceil(word.length / 2))
  for (const candidate of candidates) {
    const d = editDistance(word.toLowerCase(), candidate.toLowerCase())
    if (d <= bestDistance) {
      best = candidate
      bestDistance = d - 1
    }
  }
  return best
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i)
  for (let i = 1; i <= a.length; i++) {
    const row = [i]
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      row[j] = Math.min((previous[j] as number) + 1, (row[j - 1] as number) + 1, (previous[j - 1] as number) + cost)
    }
    previous = row
  }
  return previous[b.length] as number
}
