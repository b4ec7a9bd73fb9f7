import { MemoryClaimStore, MemoryIntentStore } from '@paywire/core'
import { createTestClock } from '@paywire/core/testing'
import { type StoreSubject, storeConformance } from '../../../tests/support/store-conformance.js'

/** The in-memory stores, on a test clock: expiry is a jump of the clock, never a wait. */
function memorySubject(): StoreSubject {
  // Expiry on the test clock's time line; a receive time is a wall-clock date, read for real.
  const clock = { ...createTestClock(), date: () => Date.now() }
  const claims = new MemoryClaimStore({ clock })
  const intents = new MemoryIntentStore()
  return {
    claims: () => claims,
    intents: () => intents,
    holdMs: 30_000,
    clockSkewMs: 0,
    async pass(ms, until) {
      clock.advance(ms)
      if (!(await until())) throw new Error(`still not true after the test clock moved ${ms} ms`)
    },
  }
}

storeConformance([
  {
    name: 'core MemoryClaimStore and MemoryIntentStore',
    setup: async () => ({ subject: memorySubject(), teardown: async () => {} }),
  },
])
