/**
 * The checks of `PostgresClaimStore`'s inputs: anything it cannot store exactly is refused with a
 * `RequestValidationError` naming the field, before a statement is sent.
 */

import { type Lease, type NewEvent, type ReleaseOptions, RequestValidationError } from '@paywire/core'
import { checkMs, keyBytes, MAX_MS } from './pool.js'

/** A token is a non-empty string without a lone surrogate or NUL: the only proof of who holds an event. */
export function checkToken(operation: string, token: unknown, path = 'token'): string {
  keyBytes(operation, path, token)
  if (token === '') {
    throw new RequestValidationError(operation, [
      { path, message: 'must be a non-empty string (a fresh random one per runner)' },
    ])
  }
  // PostgreSQL text cannot hold NUL; a token with one is no random token.
  if ((token as string).includes('\u0000')) {
    throw new RequestValidationError(operation, [{ path, message: 'must not contain NUL' }])
  }
  return token as string
}

/** An event's key, previous keys and ref as UTF-8 bytes (`keyBytes`), and its fields as UTF-8 bytes. */
export interface CheckedEvent {
  readonly key: Buffer
  readonly previousKeys: readonly Buffer[]
  readonly fields: Buffer
  readonly ref: Buffer
}

/**
 * Checks an event to record. Its fields are stored as their UTF-8 bytes (a bytea, so NUL and every
 * other character round-trip); a lone surrogate is refused, as it would come back as U+FFFD.
 */
export function checkEvent(operation: string, event: unknown): CheckedEvent {
  if (typeof event !== 'object' || event === null) {
    throw new RequestValidationError(operation, [{ path: 'event', message: 'must be an event object' }])
  }
  const { key, previousKeys, fields, ref } = event as Partial<NewEvent>
  if (!Array.isArray(previousKeys)) {
    throw new RequestValidationError(operation, [
      { path: 'event.previousKeys', message: 'must be an array of keys (empty when there are none)' },
    ])
  }
  return {
    key: keyBytes(operation, 'event.key', key),
    previousKeys: previousKeys.map((previous, i) => keyBytes(operation, `event.previousKeys[${i}]`, previous)),
    fields: textBytes(operation, 'event.fields', fields),
    ref: keyBytes(operation, 'event.ref', ref),
  }
}

/** A lease as the statements take it: the token, the ms rounded up, the attempt limit. */
export function checkLease(operation: string, lease: unknown): Lease {
  if (typeof lease !== 'object' || lease === null) {
    throw new RequestValidationError(operation, [{ path: 'lease', message: 'must be { token, ms, maxAttempts }' }])
  }
  const { token, ms, maxAttempts } = lease as Partial<Lease>
  const checkedToken = checkToken(operation, token, 'lease.token')
  const checkedMs = checkMs(operation, 'lease.ms', ms)
  if (!Number.isSafeInteger(maxAttempts) || (maxAttempts as number) < 1) {
    throw new RequestValidationError(operation, [{ path: 'lease.maxAttempts', message: 'must be a whole number >= 1' }])
  }
  return { token: checkedToken, ms: checkedMs, maxAttempts: maxAttempts as number }
}

/** A limit of rows: a whole number >= 0. */
export function checkLimit(operation: string, limit: unknown): number {
  if (!Number.isSafeInteger(limit) || (limit as number) < 0) {
    throw new RequestValidationError(operation, [{ path: 'limit', message: 'must be a whole number >= 0' }])
  }
  return limit as number
}

/**
 * A release as the statement takes it: `retryInMs` null when dead (ignored then), the error without
 * NUL, the new fields as UTF-8 bytes or null to keep the record's.
 */
export interface CheckedRelease {
  readonly dead: boolean
  readonly retryInMs: number | null
  readonly counted: boolean
  readonly error: string | null
  readonly fields: Buffer | null
}

/**
 * Checks a release. `retryInMs` may be 0 (due at once) and is rounded up to a whole ms. `fields`, when
 * given (not `undefined`), are stored as their UTF-8 bytes like an event's. The error is
 * a diagnosis, not data: a NUL in it (which PostgreSQL text cannot hold) is written as U+FFFD rather
 * than failing the release, which would leave the event leased until its lease ends.
 */
export function checkReleaseOptions(operation: string, next: unknown): CheckedRelease {
  if (typeof next !== 'object' || next === null) {
    throw new RequestValidationError(operation, [
      { path: 'next', message: 'must be { retryInMs, counted, error, dead }' },
    ])
  }
  const { retryInMs, counted, error, dead, fields } = next as Partial<ReleaseOptions>
  const issues = []
  const fieldsIssue = fields === undefined ? undefined : textProblem(fields)
  if (fieldsIssue !== undefined) {
    issues.push({ path: 'next.fields', message: `${fieldsIssue} (the record's new fields; leave it out to keep them)` })
  }
  if (typeof dead !== 'boolean') issues.push({ path: 'next.dead', message: 'must be true or false' })
  if (typeof counted !== 'boolean') issues.push({ path: 'next.counted', message: 'must be true or false' })
  if (error !== undefined && typeof error !== 'string') {
    issues.push({ path: 'next.error', message: 'must be a string or undefined' })
  }
  if (dead !== true && !(typeof retryInMs === 'number' && retryInMs >= 0 && retryInMs <= MAX_MS)) {
    issues.push({ path: 'next.retryInMs', message: `must be a number of ms from 0 to ${MAX_MS} (100 years)` })
  }
  if (issues.length > 0) throw new RequestValidationError(operation, issues)
  return {
    dead: dead as boolean,
    retryInMs: dead === true ? null : Math.ceil(retryInMs as number),
    counted: counted as boolean,
    error: error === undefined ? null : error.replaceAll('\u0000', '\uFFFD'),
    fields: fields === undefined ? null : Buffer.from(fields, 'utf8'),
  }
}

/** In `u` mode a pair is one code point, so this matches only a surrogate without its partner. */
const LONE_SURROGATE = /[\uD800-\uDFFF]/u

/** What keeps `value` from being stored as its UTF-8 bytes exactly, if anything. */
function textProblem(value: unknown): string | undefined {
  if (typeof value !== 'string') return `must be a string, got ${typeof value}`
  if (LONE_SURROGATE.test(value)) {
    return 'has a lone UTF-16 surrogate: it is stored as UTF-8, where it would come back as U+FFFD'
  }
  return undefined
}

/** A string stored as its UTF-8 bytes, exactly: one with a lone surrogate is refused. */
function textBytes(operation: string, path: string, value: unknown): Buffer {
  const problem = textProblem(value)
  if (problem !== undefined) throw new RequestValidationError(operation, [{ path, message: problem }])
  return Buffer.from(value as string, 'utf8')
}
