/** What every fleet test asserts, and the line of figures it prints for docs/reliability.md. */

import { expect } from 'vitest'
import type { FleetFigures } from './follower-fleet.js'

export function judgeFleet(figures: FleetFigures): void {
  console.info(`follower fleet figures (${figures.label}): ${JSON.stringify(figures)}`)
  expect(figures.finalsDelivered, 'every payment with a final state has it delivered').toBe(figures.expectedFinals)
  expect(figures.falseFinals, 'no final the gateway does not hold').toBe(0)
  expect(figures.backward, 'no update moves backward').toBe(0)
  expect(figures.abandonedStuck, 'every abandoned payment is reported stuck').toBe(figures.abandoned)
  // A final runs again only when the killed instance had run it and died before the store recorded
  // it: at most the runs it had in flight (its concurrency, 16), and each such run says so.
  expect(figures.finalsTwice).toBeLessThanOrEqual(16)
  expect(figures.finalsTwiceUnmarked, 'a run again always has context.attempt > 1').toBe(0)
  // Three instances, each at most its budget in any second (a token bucket holding one lookup more;
  // its exact bound is tested on an injected clock in each package's follow.test.ts). Here the
  // stamps are taken as lookups reach the gateway, up to a few hundred ms after their token was taken
  // when other test files load the CPU, so the bound is judged over 5 s with 0.25 s of delay allowed.
  const perInstance = figures.budgetPerSecond * 5.25 + 1
  expect(figures.maxLookupsInFiveSeconds).toBeLessThanOrEqual(3 * perInstance)
  expect(figures.blocks, 'the callback URL was blocked once').toBeGreaterThanOrEqual(1)
}
