/**
 * The wire object of a request, as sent and signed: a field read by its wire path, and the refusal
 * of text that could not be sent as it is signed.
 */

import { RequestValidationError, type ValidationIssue } from '@paywire/core'

/** Each hash input name split at its dots, once: the names are a few constants read on every request. */
const STEPS = new Map<string, readonly string[]>()

/** The wire string at `path` (`order.number` reads the nested order), `undefined` when absent. */
export function wireField(fields: Readonly<Record<string, unknown>>, path: string): string | undefined {
  let steps = STEPS.get(path)
  if (steps === undefined) {
    steps = path.split('.')
    // Bounded: the names come from the operation table and the client's checked `hashInputs`, but a
    // process may build many clients.
    if (STEPS.size < 1_024) STEPS.set(path, steps)
  }
  let current: unknown = fields
  for (const step of steps) {
    if (typeof current !== 'object' || current === null) return undefined
    current = (current as Record<string, unknown>)[step]
  }
  if (current === undefined || current === null) return undefined
  return typeof current === 'string' ? current : String(current)
}

/** `String.prototype.isWellFormed` (ES2024, in Node 20); the shared tsconfig's lib stops at ES2023. */
function isWellFormed(text: string): boolean {
  return (text as unknown as { isWellFormed(): boolean }).isWellFormed()
}

const ILL_FORMED =
  'contains an unpaired UTF-16 surrogate (often a string cut in the middle of an emoji): it would be sent as ' +
  'U+FFFD or as an escape while the hash covers the original text, so fix the text before sending'

/** Whether every string and field name in `value` is well-formed: the common case, with no path built. */
function allWellFormed(value: unknown): boolean {
  if (typeof value === 'string') return isWellFormed(value)
  if (typeof value !== 'object' || value === null) return true
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue
    if (!isWellFormed(key) || !allWellFormed((value as Record<string, unknown>)[key])) return false
  }
  return true
}

/** Every string leaf and object key of `value` that is not well-formed UTF-16, with its wire path. */
function illFormedText(value: unknown, path: string, out: ValidationIssue[]): void {
  if (typeof value === 'string') {
    if (!isWellFormed(value)) out.push({ path, message: ILL_FORMED })
    return
  }
  if (typeof value !== 'object' || value === null) return
  for (const [key, member] of Object.entries(value)) {
    // An ill-formed key is reported on its parent: the key itself cannot be printed faithfully.
    if (!isWellFormed(key)) out.push({ path, message: `has a field name that ${ILL_FORMED}` })
    else illFormedText(member, path === '' ? key : `${path}.${key}`, out)
  }
}

/**
 * Refuses wire params (Checkout JSON and S2S form alike) holding text that is not well-formed UTF-16,
 * nested objects, arrays and open records included; the one check both interfaces run before signing.
 */
export function assertWellFormedText(operation: string, wire: Readonly<Record<string, unknown>>): void {
  if (allWellFormed(wire)) return
  const issues: ValidationIssue[] = []
  illFormedText(wire, '', issues)
  if (issues.length > 0) throw new RequestValidationError(operation, issues)
}
