/** The remittance endpoints as the checklist and the reliability suites read them: table, examples, simulator. */

import { fileURLToPath } from 'node:url'
import type { ChecklistPackage } from '../../../tests/support/endpoint-checklist.js'
import { ENDPOINTS } from '../src/endpoints.js'
import { Remittance } from '../src/index.js'
import { EXAMPLES, type ExampleSetup } from '../src/testing/examples.js'
import { type StartedRemittanceSimulator, startRemittanceSimulator } from '../src/testing/index.js'

export const REMITTANCE_KIT: ChecklistPackage<Remittance, ExampleSetup> = {
  name: 'remittance',
  endpoints: ENDPOINTS,
  examples: EXAMPLES,
  startSimulator: (serve) => startRemittanceSimulator({}, serve),
  client: (simulator, url, options) =>
    new Remittance({ ...(simulator as StartedRemittanceSimulator).clientOptions, baseUrl: url, ...options }),
  setup: (client) => ({ client }),
  effects: (simulator) => (simulator as StartedRemittanceSimulator).simulator.ledger.length,
  docs: [fileURLToPath(new URL('../../../docs/getting-started-remittance.md', import.meta.url))],
}
