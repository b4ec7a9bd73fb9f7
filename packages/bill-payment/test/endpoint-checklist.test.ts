/** Bill payment's endpoint checklist: every row of `ENDPOINTS`, checked from the table (tests/support). */

import { fileURLToPath } from 'node:url'
import { describeEndpointChecklist } from '../../../tests/support/endpoint-checklist.js'
import { ENDPOINTS } from '../src/endpoints.js'
import { BillPayment } from '../src/index.js'
import { EXAMPLES } from '../src/testing/examples.js'
import { startBillPaymentSimulator } from '../src/testing/index.js'

describeEndpointChecklist({
  name: 'bill-payment',
  endpoints: ENDPOINTS,
  examples: EXAMPLES,
  startSimulator: () => startBillPaymentSimulator(),
  client: (simulator, url, options) =>
    new BillPayment({
      ...(simulator as Awaited<ReturnType<typeof startBillPaymentSimulator>>).clientOptions,
      baseUrl: url,
      ...options,
    }),
  setup: (client) => ({ client }),
  docs: [fileURLToPath(new URL('../../../docs/getting-started-bill-payment.md', import.meta.url))],
})
