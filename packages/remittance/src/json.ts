/** What `JSON.stringify` would drop or change in a member of an open body (rule Resources 8). */

/** Finds the first part of `value` that `JSON.stringify` would drop or change, with its path. */
function nonJsonAt(
  value: unknown,
  path: (string | number)[],
): { path: (string | number)[]; found: string } | undefined {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return undefined
  if (typeof value === 'number') return Number.isFinite(value) ? undefined : { path, found: String(value) }
  if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) {
      const bad = nonJsonAt(item, [...path, index])
      if (bad) return bad
    }
    return undefined
  }
  if (typeof value === 'object') {
    const proto = Object.getPrototypeOf(value)
    if (proto !== Object.prototype && proto !== null) return { path, found: proto?.constructor?.name ?? 'object' }
    for (const [key, item] of Object.entries(value)) {
      if (item === undefined) continue
      const bad = nonJsonAt(item, [...path, key])
      if (bad) return bad
    }
    return undefined
  }
  return { path, found: typeof value }
}

/**
 * Why a member of an open record is not a JSON value, with its path below the member, or
 * `undefined` when it is one (an `undefined` member is left out, as in JSON).
 */
export function jsonMemberIssue(value: unknown): { path: (string | number)[]; message: string } | undefined {
  if (value === undefined) return undefined
  const bad = nonJsonAt(value, [])
  if (!bad) return undefined
  return {
    path: bad.path,
    message: `must be a JSON value (string, finite number, boolean, null, array or plain object), got ${bad.found}`,
  }
}
