/**
 * One sample call of every bill payment endpoint, for the package's endpoint checklist and the
 * reliability suites: each group's examples live with its simulated routes (`catalog.ts`,
 * `transactions.ts`), each the argument list of its method, made from a client on the simulator
 * (`startBillPaymentSimulator`), which answers it with success. Not exported: the kit's own tests use it.
 */

import type { ServiceExamples } from '@paywire/core/engine'
import type { ENDPOINTS } from '../endpoints.js'
import { CATALOG_EXAMPLES } from './catalog.js'
import type { ExampleSetup } from './routing.js'
import { TRANSACTION_EXAMPLES } from './transactions.js'

export type { ExampleSetup } from './routing.js'

/** One example per row of each group of `ENDPOINTS`; a missing row is a type error. */
export const EXAMPLES: ServiceExamples<typeof ENDPOINTS, ExampleSetup> = {
  catalog: CATALOG_EXAMPLES,
  transactions: TRANSACTION_EXAMPLES,
}
