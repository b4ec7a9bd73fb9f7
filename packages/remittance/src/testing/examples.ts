/**
 * One sample call of every remittance endpoint, for the endpoint checklist: each group's examples
 * live with its simulated routes (`beneficiaries.ts`, `lookup.ts`, `transactions.ts`), each the
 * argument list of its method, made from a client on the remittance simulator, which answers it with
 * success. Not part of the testing kit's exports.
 */

import type { ServiceExamples } from '@paywire/core/engine'
import type { ENDPOINTS } from '../endpoints.js'
import { BENEFICIARY_EXAMPLES } from './beneficiaries.js'
import { LOOKUP_EXAMPLES } from './lookup.js'
import type { ExampleSetup } from './routing.js'
import { TRANSACTION_EXAMPLES } from './transactions.js'

export type { ExampleSetup } from './routing.js'

/** One example per row of each group of `ENDPOINTS`. */
export const EXAMPLES: ServiceExamples<typeof ENDPOINTS, ExampleSetup> = {
  beneficiaries: BENEFICIARY_EXAMPLES,
  lookup: LOOKUP_EXAMPLES,
  transactions: TRANSACTION_EXAMPLES,
}
