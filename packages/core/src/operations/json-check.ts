/**
 * The one JSON checker: whether a value is a plain JSON object that `JSON.stringify` sends exactly
 * as given. Every JSON body of every package is checked with it before sending, so a cycle, a
 * BigInt or a `Date` is refused by name instead of throwing or being sent altered.
 */

import type { ValidationIssue } from '../errors/errors.js'

/**
 * Any value `JSON.parse` can produce: what a raw `request(...)` and a `schema` such as `z.json()`
 * read. Read-only: an answer is what the service said, not a working copy.
 */
export type JsonValue =
  | null
  | boolean
  | number
  | string
  | readonly JsonValue[]
  | { readonly [field: string]: JsonValue }

/** Why a value would not survive `JSON.stringify` unchanged, or `undefined` when it would. */
function jsonProblem(value: unknown): string | undefined {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return undefined
    case 'number':
      return Number.isFinite(value) ? undefined : `${value} is not a JSON number (it would be sent as null)`
    case 'bigint':
      return 'a BigInt cannot be sent as JSON; pass a string or a number'
    case 'function':
      return 'a function cannot be sent as JSON'
    case 'symbol':
      return 'a symbol cannot be sent as JSON'
    case 'undefined':
      return 'undefined cannot be sent as JSON (in an array it would become null)'
  }
  return undefined
}

function isPlainObject(value: object): boolean {
  const proto = Object.getPrototypeOf(value)
  return proto === Object.prototype || proto === null
}

/** Nesting beyond which the quick check hands over to the full walk (which finds cycles). */
const QUICK_CHECK_DEPTH = 32

/**
 * Whether `jsonObjectIssues` would find nothing in `value`, without a path string, closure or set
 * per value. Never more lenient than the walk: anything unusual (a hole, a cycle, deep nesting)
 * answers `false`, and the walk then decides.
 */
function sendsAsGiven(value: unknown, inArray: boolean, depth: number): boolean {
  if (value === null) return true
  // The value rules are the walk's own (`jsonProblem` builds no message for a value it accepts).
  if (typeof value !== 'object') return value === undefined ? !inArray : jsonProblem(value) === undefined
  if (depth >= QUICK_CHECK_DEPTH) return false
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) if (!sendsAsGiven(value[i], true, depth + 1)) return false
    return true
  }
  if (!isPlainObject(value as object)) return false
  for (const key in value) {
    if (Object.hasOwn(value, key) && !sendsAsGiven((value as Record<string, unknown>)[key], false, depth + 1)) {
      return false
    }
  }
  return true
}

/**
 * Checks that `value` is a plain JSON object whose every value `JSON.stringify` sends as given:
 * no functions, symbols, BigInt, NaN/Infinity, class instances (`Date`, `Map`…), cycles, or
 * `undefined` inside arrays. `undefined` object members are allowed and left out, as in JSON.
 * Returns every problem with its dotted path (`items.0.amount`).
 */
export function jsonObjectIssues(value: unknown, root: string): ValidationIssue[] {
  if (typeof value !== 'object' || value === null || Array.isArray(value) || !isPlainObject(value)) {
    return [{ path: root, message: 'must be a plain JSON object ({ ... })' }]
  }
  // The usual body passes: checked without building paths; only a refused one is walked for its issues.
  if (sendsAsGiven(value, false, 0)) return []
  const issues: ValidationIssue[] = []
  const ancestors = new Set<object>()
  const join = (base: string, key: string | number) => (base ? `${base}.${key}` : String(key))

  const walk = (current: unknown, path: string, inArray: boolean): void => {
    if (current === null) return
    if (typeof current !== 'object') {
      if (current === undefined && !inArray) return
      const problem = jsonProblem(current)
      if (problem) issues.push({ path: path || root, message: problem })
      return
    }
    if (ancestors.has(current)) {
      issues.push({ path: path || root, message: 'circular reference; JSON cannot represent it' })
      return
    }
    if (!Array.isArray(current) && !isPlainObject(current)) {
      const kind = current.constructor?.name ?? 'object'
      const hint = current instanceof Date ? ' (send a string, e.g. date.toISOString())' : ''
      issues.push({ path: path || root, message: `a ${kind} is not a plain JSON value${hint}` })
      return
    }
    ancestors.add(current)
    if (Array.isArray(current)) {
      current.forEach((item, i) => {
        walk(item, join(path, i), true)
      })
    } else for (const [key, item] of Object.entries(current)) walk(item, join(path, key), false)
    ancestors.delete(current)
  }
  walk(value, '', false)
  return issues
}
