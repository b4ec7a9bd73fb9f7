/** The input checks of `RedisClaimStore`: refused input never reaches Redis. */

import type { NewEvent, ReleaseOptions } from '@paywire/core'
import { RequestValidationError } from '@paywire/core'
import { checkKeyPart, checkMs } from './client.js'

/** In `u` mode a pair is one code point, so this matches only a surrogate without its partner. */
const LONE_SURROGATE = /[\uD800-\uDFFF]/u

/** A token is a non-empty string without a lone surrogate: the only proof of who holds an event. */
export function checkToken(operation: string, token: unknown): string {
  const checked = checkKeyPart(operation, 'token', token)
  if (checked === '') {
    throw new RequestValidationError(operation, [
      { path: 'token', message: 'must be a non-empty string (a fresh random one per runner)' },
    ])
  }
  return checked
}

/**
 * The event's key, previous keys and ref name Redis keys; its fields must come back exactly as
 * written. Answers a copy of what was checked: the record is written later, in a batch, and must be
 * what was checked even if the caller's object changes meanwhile.
 */
export function checkEvent(operation: string, event: unknown): NewEvent {
  if (typeof event !== 'object' || event === null) {
    throw new RequestValidationError(operation, [{ path: 'event', message: 'must be a NewEvent object' }])
  }
  const { key, previousKeys, fields, ref } = event as Record<string, unknown>
  checkKeyPart(operation, 'event.key', key)
  if (!Array.isArray(previousKeys)) {
    throw new RequestValidationError(operation, [
      { path: 'event.previousKeys', message: 'must be an array of strings' },
    ])
  }
  const previous: string[] = [...previousKeys]
  for (const [i, one] of previous.entries()) checkKeyPart(operation, `event.previousKeys[${i}]`, one)
  const fieldsIssue = fieldsProblem(fields)
  if (fieldsIssue !== undefined) {
    throw new RequestValidationError(operation, [{ path: 'event.fields', message: fieldsIssue }])
  }
  checkKeyPart(operation, 'event.ref', ref)
  return { key: key as string, previousKeys: previous, fields: fields as string, ref: ref as string }
}

/** What is wrong with fields to store, if anything: they must be a string that comes back exactly as written. */
function fieldsProblem(fields: unknown): string | undefined {
  if (typeof fields !== 'string') return `must be a string, got ${typeof fields}`
  if (LONE_SURROGATE.test(fields)) return 'has a lone UTF-16 surrogate: sent as UTF-8 it would come back as U+FFFD'
  return undefined
}

/** A lease: its token, a duration for the lease end, and at least one run allowed. */
export function checkLease(operation: string, lease: unknown): { token: string; ms: number; maxAttempts: number } {
  if (typeof lease !== 'object' || lease === null) {
    throw new RequestValidationError(operation, [{ path: 'lease', message: 'must be a Lease object' }])
  }
  const { token, ms, maxAttempts } = lease as Record<string, unknown>
  const checkedToken = checkToken(operation, token)
  const checkedMs = checkMs(operation, 'lease.ms', ms)
  if (typeof maxAttempts !== 'number' || !Number.isSafeInteger(maxAttempts) || maxAttempts < 1) {
    throw new RequestValidationError(operation, [{ path: 'lease.maxAttempts', message: 'must be a whole number >= 1' }])
  }
  return { token: checkedToken, ms: checkedMs, maxAttempts }
}

/** How many events to answer at most: a whole number, 0 answering none. */
export function checkLimit(operation: string, limit: unknown): number {
  if (typeof limit !== 'number' || !Number.isSafeInteger(limit) || limit < 0) {
    throw new RequestValidationError(operation, [{ path: 'limit', message: 'must be a whole number >= 0' }])
  }
  return limit
}

/**
 * A release's options; `retryInMs` may be 0 (due again at once), rounded up to a whole ms like every
 * duration. `fields`, when given (not `undefined`), replace the record's: a string that comes back
 * exactly as written.
 */
export function checkRelease(operation: string, next: unknown): ReleaseOptions {
  if (typeof next !== 'object' || next === null) {
    throw new RequestValidationError(operation, [{ path: 'next', message: 'must be a ReleaseOptions object' }])
  }
  const { retryInMs, counted, error, dead, fields } = next as Record<string, unknown>
  const issues = []
  if (typeof retryInMs !== 'number' || !Number.isFinite(retryInMs) || retryInMs < 0) {
    issues.push({ path: 'next.retryInMs', message: 'must be a finite number of ms, 0 or more' })
  }
  if (typeof counted !== 'boolean') issues.push({ path: 'next.counted', message: 'must be a boolean' })
  if (typeof dead !== 'boolean') issues.push({ path: 'next.dead', message: 'must be a boolean' })
  if (error !== undefined && typeof error !== 'string') {
    issues.push({ path: 'next.error', message: 'must be a string or undefined' })
  }
  const fieldsIssue = fields === undefined ? undefined : fieldsProblem(fields)
  if (fieldsIssue !== undefined) {
    issues.push({ path: 'next.fields', message: `${fieldsIssue} (the record's new fields; leave it out to keep them)` })
  }
  if (issues.length > 0) throw new RequestValidationError(operation, issues)
  return {
    retryInMs: Math.ceil(retryInMs as number),
    counted: counted as boolean,
    error: error as string | undefined,
    dead: dead as boolean,
    ...(fields === undefined ? {} : { fields: fields as string }),
  }
}
