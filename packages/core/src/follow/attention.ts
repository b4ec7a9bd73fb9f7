/**
 * The follower's sense of time: when a payment must be looked at next (its lookup, or a warning
 * that falls due before it), when an authorisation expires, and the words of each warning.
 */

import { RequestValidationError } from '../errors/errors.js'
import type { CheckedFollowOptions } from './options.js'
import type { FollowState } from './record.js'
import type { FollowAttention, FollowSpec } from './types.js'

/** Payment references: what the services accept, with room. */
const MAX_REF_LENGTH = 512

/** When the record must be looked at next: its lookup, or a warning that falls due before it. */
export function nextDue(
  state: FollowState,
  { stuckAfterMs, followForMs }: Pick<CheckedFollowOptions, 'stuckAfterMs' | 'followForMs'>,
  rule: FollowSpec<unknown>['authorization'],
): number {
  let next = Math.min(state.lookupAt, state.startedAt + followForMs)
  if (!state.said.includes('stuck')) next = Math.min(next, state.startedAt + stuckAfterMs)
  const expiry = authorizationWarning(state, rule)
  if (expiry !== undefined && !state.said.includes(expiry.tag)) next = Math.min(next, expiry.warnAt)
  return next
}

/** When the authorisation this payment waits in expires, and when to warn; `undefined` when it waits in none. */
export function authorizationWarning(
  state: FollowState,
  rule: FollowSpec<unknown>['authorization'],
): { warnAt: number; expiresAt: number; tag: string } | undefined {
  if (rule === undefined || state.state === undefined || state.authorizedAt === undefined) return undefined
  if (!rule.states.includes(state.state)) return undefined
  const expiresAt = state.authorizedAt + rule.validMs
  return { expiresAt, warnAt: expiresAt - rule.leadMs, tag: `authorization_expiring:${state.authorizedAt}` }
}

/** A warning in words, for `onError` when no `onAttention` was given. */
export function describe(attention: FollowAttention): string {
  const state = attention.state === undefined ? 'no state confirmed' : `state ${attention.state}`
  if (attention.kind === 'authorization_expiring') {
    return `payment ${JSON.stringify(attention.ref)} (${state}): its authorisation expires at ${attention.expiresAt}; capture or void it`
  }
  if (attention.kind === 'stuck')
    return `payment ${JSON.stringify(attention.ref)} is not final (${state}) since ${attention.since}`
  return `payment ${JSON.stringify(attention.ref)} is no longer followed: not final (${state}) since ${attention.since}`
}

/** A payment reference must be a non-empty string of at most 512 characters. */
export function checkRef(operation: string, ref: unknown): asserts ref is string {
  if (typeof ref !== 'string' || ref.trim() === '' || ref.length > MAX_REF_LENGTH) {
    throw new RequestValidationError(operation, [
      {
        path: 'ref',
        message: `must be a non-empty string of at most ${MAX_REF_LENGTH} characters (the payment's reference)`,
      },
    ])
  }
}
