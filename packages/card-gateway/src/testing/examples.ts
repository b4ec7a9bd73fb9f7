/**
 * One sample call of each endpoint, for the package's endpoint checklist and the reliability suites:
 * each group's examples live with its simulated API (`checkout.ts`, `s2s.ts`), each the argument
 * list of its method, and succeeds on the simulator (`startCardGatewaySimulator`, with the client
 * options it gives, which name the CREATE_SCHEDULE hash inputs). Not exported: the kit's own tests use it.
 */

import type { ServiceExamples } from '@paywire/core/engine'
import type { ENDPOINTS } from '../endpoints.js'
import { CHECKOUT_EXAMPLES } from './checkout.js'
import type { ExampleSetup } from './example-setup.js'
import { S2S_EXAMPLES } from './s2s.js'

export type { ExampleSetup } from './example-setup.js'

/** One example per row of each group of `ENDPOINTS`; a missing row is a type error. */
export const EXAMPLES: ServiceExamples<typeof ENDPOINTS, ExampleSetup> = {
  checkout: CHECKOUT_EXAMPLES,
  s2s: S2S_EXAMPLES,
}
