/** The follower's options, checked before anything is kept or looked up: a bad one names the field and the rule. */

import { type Clock, systemClock } from '../clock.js'
import { RequestValidationError, type ValidationIssue } from '../errors/errors.js'
import type { FollowOptions } from './types.js'

const MINUTE = 60_000
const HOUR = 60 * MINUTE
const DAY = 24 * HOUR

/** Default waits between scheduled lookups: quick while a payer is on the page, then hours apart. */
export const DEFAULT_SCHEDULE: readonly number[] = [
  30_000,
  MINUTE,
  2 * MINUTE,
  5 * MINUTE,
  10 * MINUTE,
  20 * MINUTE,
  30 * MINUTE,
  HOUR,
  2 * HOUR,
  4 * HOUR,
  6 * HOUR,
]

export interface CheckedFollowOptions {
  readonly lookupsPerSecond: number
  readonly schedule: readonly number[]
  readonly stuckAfterMs: number
  readonly followForMs: number
  readonly concurrency: number
  readonly holdMs: number
  readonly maxAttempts: number
  readonly tickEveryMs: number
  readonly clock: Clock
}

/** Checks `options` (every issue at once), in the name of `operation` (`payments.follow`). */
export function checkFollowOptions(operation: string, options: FollowOptions<unknown>): CheckedFollowOptions {
  const issues: ValidationIssue[] = []
  const given = (options ?? {}) as Partial<FollowOptions<unknown>>
  if (typeof given.onUpdate !== 'function') issues.push({ path: 'onUpdate', message: 'must be a function' })
  for (const name of ['onAttention', 'onError'] as const) {
    if (given[name] !== undefined && typeof given[name] !== 'function') {
      issues.push({ path: name, message: 'must be a function when given' })
    }
  }
  const number = (name: keyof FollowOptions<unknown>, fallback: number, min: number, whole = true): number => {
    const value = given[name] as unknown
    if (value === undefined) return fallback
    const ok =
      typeof value === 'number' && Number.isFinite(value) && value >= min && (!whole || Number.isSafeInteger(value))
    if (!ok) issues.push({ path: name, message: `must be a ${whole ? 'whole ' : ''}number >= ${min}` })
    return ok ? (value as number) : fallback
  }
  const lookupsPerSecond = number('lookupsPerSecond', 5, 0.01, false)
  const stuckAfterMs = number('stuckAfterMs', DAY, 1)
  const followForMs = number('followForMs', 30 * DAY, 1)
  const concurrency = number('concurrency', 8, 1)
  const holdMs = number('holdMs', 60_000, 1_000)
  const maxAttempts = number('maxAttempts', 8, 1)
  const tickEveryMs = number('tickEveryMs', 5_000, 0)
  let schedule = DEFAULT_SCHEDULE
  if (given.schedule !== undefined) {
    const list = given.schedule as unknown
    if (
      !Array.isArray(list) ||
      list.length === 0 ||
      list.some((ms) => typeof ms !== 'number' || !Number.isSafeInteger(ms) || ms < 1)
    ) {
      issues.push({ path: 'schedule', message: 'must be a non-empty list of waits in ms, each a whole number >= 1' })
    } else schedule = [...list]
  }
  if (followForMs < stuckAfterMs) {
    issues.push({ path: 'followForMs', message: 'must not be shorter than stuckAfterMs' })
  }
  if (given.clock !== undefined && typeof given.clock?.now !== 'function') {
    issues.push({ path: 'clock', message: 'must be a Clock (now, date, sleep)' })
  }
  if (issues.length > 0) throw new RequestValidationError(operation, issues, 'options')
  return {
    lookupsPerSecond,
    schedule,
    stuckAfterMs,
    followForMs,
    concurrency,
    holdMs,
    maxAttempts,
    tickEveryMs,
    clock: given.clock ?? systemClock,
  }
}
