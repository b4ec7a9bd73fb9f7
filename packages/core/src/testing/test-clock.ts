/** A clock for tests: `sleep` returns at once and moves time forward, so backoff never waits. */

import type { Clock } from '../clock.js'

export interface TestClock extends Clock {
  /** Moves time forward without sleeping (e.g. past a dedup window). */
  advance(ms: number): void
  /** Every delay the code under test slept for, in order. */
  readonly sleeps: readonly number[]
}

/**
 * Starts at `start` (ms since the epoch; default 2026-01-01T00:00:00Z). The one time line serves as
 * both the monotonic clock and the wall clock, so an HTTP-date `Retry-After` reads against it too.
 */
export function createTestClock(start = Date.UTC(2026, 0, 1)): TestClock {
  let now = start
  const sleeps: number[] = []
  return {
    now: () => now,
    date: () => now,
    sleeps,
    advance(ms) {
      now += ms
    },
    async sleep(ms, signal) {
      if (signal?.aborted) throw signal.reason
      sleeps.push(ms)
      now += ms
    },
  }
}
