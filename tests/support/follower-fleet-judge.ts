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
  // Three instances, each at most its budget in any second (its bucket holds one lookup more). The
  // stamps are taken as lookups reach the gateway, up to tens of ms after their token was taken (more
  // with other test files beside it on the CPU), so a second of arrivals may hold the tokens of
  // 1,050 ms: 5 % more than the budget, no more.
  const perInstance = Math.floor(figures.budgetPerSecond * 1.05) + 1
  expect(figures.maxLookupsInASecond).toBeLessThanOrEqual(3 * perInstance)
  expect(figures.blocks, 'the callback URL was blocked once').toBeGreaterThanOrEqual(1)
}
