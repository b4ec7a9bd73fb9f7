/** Bill payment's endpoints as the checklist and the reliability suites read them: table, examples, simulator. */

import { fileURLToPath } from 'node:url'
import type { ChecklistPackage } from '../../../tests/support/endpoint-checklist.js'
import { ENDPOINTS } from '../src/endpoints.js'
import { BillPayment } from '../src/index.js'
import { EXAMPLES, type ExampleSetup } from '../src/testing/examples.js'
import { type StartedBillPaymentSimulator, startBillPaymentSimulator } from '../src/testing/index.js'

export const BILL_KIT: ChecklistPackage<BillPayment, ExampleSetup> = {
  name: 'bill-payment',
  endpoints: ENDPOINTS,
  examples: EXAMPLES,
  startSimulator: (serve) => startBillPaymentSimulator({}, serve),
  client: (simulator, url, options) =>
    new BillPayment({ ...(simulator as StartedBillPaymentSimulator).clientOptions, baseUrl: url, ...options }),
  setup: (client) => ({ client }),
  effects: (simulator) => (simulator as StartedBillPaymentSimulator).simulator.ledger.length,
  docs: [fileURLToPath(new URL('../../../docs/getting-started-bill-payment.md', import.meta.url))],
}
