/**
 * One sample call of each endpoint, for the package's endpoint checklist and the reliability suites:
 * each succeeds on the simulator (`startBillPaymentSimulator`). Not exported: the kit's own tests use it.
 */

import type { EndpointExamples } from '@paywire/core/engine'
import type { BillPayment } from '../client.js'
import type { ENDPOINTS } from '../endpoints.js'

/** What an example may use to create the state its call needs. */
export interface ExampleSetup {
  readonly client: BillPayment
}

type Examples = { readonly [G in keyof typeof ENDPOINTS]: EndpointExamples<(typeof ENDPOINTS)[G], ExampleSetup> }

/** A call per row; a missing row is a type error, so a new endpoint cannot go without one. */
export const EXAMPLES: Examples = {
  catalog: {
    list: () => [],
    get: () => ['EDSA-PREPAID'],
    enable: () => [{ productId: 'WATER-FREETOWN' }],
    disable: () => [{ productId: 'AIRTIME-ORANGE' }],
  },
  transactions: {
    list: () => [{ productId: 'EDSA-PREPAID' }],
    execute: () => [{ productId: 'EDSA-PREPAID', amount: 50, customerReference: 'METER-0001' }],
    get: async ({ client }) => {
      const paid = await client.transactions.execute({ productId: 'EDSA-PREPAID', amount: 25 })
      return [String(paid?.transReference)]
    },
    filter: () => [{ productId: 'EDSA-PREPAID' }],
  },
}
