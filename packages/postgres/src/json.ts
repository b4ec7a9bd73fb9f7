/** What JSON keeps: a value that would come back from `JSON.parse` as anything else is refused, not changed. */

import type { ValidationIssue } from '@paywire/core'

/** Deeper than this is refused rather than walked (a hostile value must not overflow the stack). */
const MAX_DEPTH = 200

/**
 * Every place in `value` that JSON would not give back as it was: NaN and Infinity (become null), -0,
 * bigint, functions and symbols, `Date`, `Map` and other class instances, cycles, and `undefined`
 * or holes in arrays (become null). An `undefined` object member is left out, as JSON does.
 */
export function jsonIssues(value: unknown, path: string): ValidationIssue[] {
  const issues: ValidationIssue[] = []
  walk(value, path, 0, new Set(), issues)
  return issues
}

function walk(value: unknown, path: string, depth: number, seen: Set<object>, issues: ValidationIssue[]): void {
  if (issues.length >= 10) return // enough to fix the call; a huge bad value is not listed in full
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) issues.push({ path, message: `${value} is not JSON (it would come back as null)` })
    else if (Object.is(value, -0)) issues.push({ path, message: '-0 is not JSON (it would come back as 0)' })
    return
  }
  if (typeof value !== 'object') {
    issues.push({ path, message: `a ${typeof value} is not JSON` })
    return
  }
  if (depth >= MAX_DEPTH) {
    issues.push({ path, message: `nested deeper than ${MAX_DEPTH} levels` })
    return
  }
  if (seen.has(value)) {
    issues.push({ path, message: 'a cycle: JSON cannot hold it' })
    return
  }
  seen.add(value)
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index++) {
      const item: unknown = value[index]
      if (!(index in value) || item === undefined) {
        issues.push({ path: `${path}[${index}]`, message: 'undefined or a hole in an array is not JSON' })
      } else walk(item, `${path}[${index}]`, depth + 1, seen, issues)
    }
  } else {
    const proto = Object.getPrototypeOf(value)
    if (proto !== Object.prototype && proto !== null) {
      const name = (value as object).constructor?.name ?? 'object'
      issues.push({ path, message: `a ${name} is not JSON: store a plain object, or its string form` })
    } else {
      for (const [key, item] of Object.entries(value)) {
        if (item !== undefined) walk(item, `${path}.${key}`, depth + 1, seen, issues)
      }
    }
  }
  seen.delete(value) // a value reached twice without a cycle (a shared object) is fine
}
