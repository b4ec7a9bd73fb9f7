/** A clock for fixtures that count connections (tests/support/http2-endpoints.ts, card's http2-simulator.ts). */

import { type Clock, systemClock } from '@paywire/core'

/**
 * The real clock, but its monotonic time stands still: a client on it never finds its HTTP/2 pools
 * 2 s old (the renewal by age), so a fixture counting connections does not depend on how fast a
 * loaded machine runs it. Attempt deadlines and sleeps stay real.
 */
export const AGELESS_CLOCK: Clock = { ...systemClock, now: () => 0 }
