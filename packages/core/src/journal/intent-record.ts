/**
 * An intent as one JSON record, the form the shared journals (`@paywire/redis`, `@paywire/postgres`)
 * keep: checked before it is written (a value JSON would not give back as it was is refused, not
 * changed), and read back as it was written.
 */

import { PaywireError, type Reconciliation, RequestValidationError, type ValidationIssue } from '../errors/errors.js'
import type { Intent } from './stores.js'

const utf8 = new TextEncoder()

/** Deeper than this is refused rather than walked (a hostile value must not overflow the stack). */
const MAX_DEPTH = 200

/**
 * Every place in `value` that JSON would not give back as it was: NaN and Infinity (become null), -0,
 * bigint, functions and symbols, `Date`, `Map` and other class instances, cycles, and `undefined`
 * or holes in arrays (become null). An `undefined` object member is left out, as JSON does.
 */
function storedJsonIssues(value: unknown, path: string): ValidationIssue[] {
  const issues: ValidationIssue[] = []
  walkStored(value, path, 0, new Set(), issues)
  return issues
}

function walkStored(value: unknown, path: string, depth: number, seen: Set<object>, issues: ValidationIssue[]): void {
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
      } else walkStored(item, `${path}[${index}]`, depth + 1, seen, issues)
    }
  } else {
    const proto = Object.getPrototypeOf(value)
    if (proto !== Object.prototype && proto !== null) {
      const name = (value as object).constructor?.name ?? 'object'
      issues.push({ path, message: `a ${name} is not JSON: store a plain object, or its string form` })
    } else {
      for (const [key, item] of Object.entries(value)) {
        if (item !== undefined) walkStored(item, `${path}.${key}`, depth + 1, seen, issues)
      }
    }
  }
  seen.delete(value) // a value reached twice without a cycle (a shared object) is fine
}

/**
 * The intent's JSON record, for a store's `open`: every field checked (the store checks `id` and
 * `service`, its keys, itself), refused with `RequestValidationError` in `operation`'s name when a
 * field is not what it must be or the record is over `maxBytes` of UTF-8.
 */
export function encodeIntentRecord(operation: string, intent: Intent, maxBytes: number): string {
  const issues: ValidationIssue[] = []
  if (typeof intent.operation !== 'string') issues.push({ path: 'intent.operation', message: 'must be a string' })
  if (typeof intent.createdAt !== 'number' || !Number.isFinite(intent.createdAt)) {
    issues.push({ path: 'intent.createdAt', message: 'must be a finite number (ms since the epoch)' })
  }
  if (intent.idempotencyKey !== undefined && typeof intent.idempotencyKey !== 'string') {
    issues.push({ path: 'intent.idempotencyKey', message: 'must be a string or undefined' })
  }
  const { callLimitMs, target, account } = intent
  if (account !== undefined && typeof account !== 'string') {
    issues.push({ path: 'intent.account', message: 'must be a string or undefined' })
  }
  if (
    callLimitMs !== undefined &&
    !(typeof callLimitMs === 'number' && Number.isFinite(callLimitMs) && callLimitMs >= 0)
  ) {
    issues.push({ path: 'intent.callLimitMs', message: 'must be a finite number of ms >= 0, or undefined' })
  }
  if (target !== undefined && typeof target !== 'string') {
    issues.push({ path: 'intent.target', message: 'must be a string or undefined' })
  }
  if (intent.params !== undefined) issues.push(...storedJsonIssues(intent.params, 'intent.params'))
  if (intent.reconciliation !== undefined) {
    issues.push(...storedJsonIssues(intent.reconciliation, 'intent.reconciliation'))
  }
  if (issues.length > 0) throw new RequestValidationError(operation, issues)
  const { id, service, createdAt, params, reconciliation, idempotencyKey } = intent
  // JSON.stringify escapes NUL and lone surrogates, so the record is always valid UTF-8 text.
  const json = JSON.stringify({
    id,
    service,
    operation: intent.operation,
    createdAt,
    params,
    reconciliation,
    idempotencyKey,
    callLimitMs,
    target,
    account,
  })
  const bytes = utf8.encode(json).byteLength
  if (bytes > maxBytes) {
    throw new RequestValidationError(operation, [
      { path: 'intent.params', message: `the intent is ${bytes} bytes as JSON, over maxIntentBytes (${maxBytes})` },
    ])
  }
  return json
}

/**
 * The intent a record holds, as it was written (absent `reconciliation`, `idempotencyKey` and `params`
 * are `undefined` again), or a `PaywireError` with `notOurs` as its message when the text is not such a
 * record (another program wrote where the journal keeps its records).
 */
export function decodeIntentRecord(raw: string, notOurs: string): Intent {
  let parsed: unknown
  try {
    parsed = JSON.parse(raw)
  } catch {
    parsed = undefined
  }
  // 'null', an array or a number parse too: anything but an object reads as an empty record.
  const record = (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? parsed : {}) as Record<
    string,
    unknown
  >
  const {
    id,
    service,
    operation,
    createdAt,
    params,
    reconciliation,
    idempotencyKey,
    callLimitMs,
    target,
    account,
    writtenAt,
  } = record
  const valid =
    typeof id === 'string' &&
    typeof service === 'string' &&
    typeof operation === 'string' &&
    typeof createdAt === 'number' &&
    (idempotencyKey === undefined || typeof idempotencyKey === 'string') &&
    (callLimitMs === undefined || typeof callLimitMs === 'number') &&
    (target === undefined || typeof target === 'string') &&
    (account === undefined || typeof account === 'string') &&
    (writtenAt === undefined || typeof writtenAt === 'number') &&
    (reconciliation === undefined || (typeof reconciliation === 'object' && reconciliation !== null))
  if (!valid) throw new PaywireError(notOurs)
  return {
    id,
    service,
    operation,
    params,
    reconciliation: reconciliation as Reconciliation | undefined,
    idempotencyKey,
    createdAt,
    ...(callLimitMs === undefined ? {} : { callLimitMs }),
    ...(target === undefined ? {} : { target }),
    ...(account === undefined ? {} : { account }),
    // Set by a store with a clock of its own when it wrote the record, never by the client.
    ...(writtenAt === undefined ? {} : { writtenAt }),
  }
}
