/** The card gateway's endpoints as the checklist and the reliability suites read them: table, examples, simulator. */

import { fileURLToPath } from 'node:url'
import type { ChecklistPackage } from '../../../tests/support/endpoint-checklist.js'
import { ENDPOINTS } from '../src/endpoints.js'
import { DEFAULT_RULES } from '../src/fields.js'
import { CardGateway } from '../src/index.js'
import { EXAMPLES, type ExampleSetup } from '../src/testing/examples.js'
import { type StartedCardGatewaySimulator, startCardGatewaySimulator } from '../src/testing/index.js'

export const CARD_KIT: ChecklistPackage<CardGateway, ExampleSetup> = {
  name: 'card-gateway',
  endpoints: ENDPOINTS,
  examples: EXAMPLES,
  startSimulator: (serve) => startCardGatewaySimulator({}, serve),
  // The simulator's client options name the CREATE_SCHEDULE hash inputs (the client has no default).
  client: (simulator, url, options) =>
    new CardGateway({
      ...(simulator as StartedCardGatewaySimulator).clientOptions,
      checkoutUrl: url,
      s2sUrl: url,
      ...options,
    }),
  setup: (gw, simulator) => ({ gw, simulator: (simulator as StartedCardGatewaySimulator).simulator }),
  effects: (simulator) => (simulator as StartedCardGatewaySimulator).simulator.ledger.length,
  docs: [fileURLToPath(new URL('../../../docs/getting-started-card-gateway.md', import.meta.url))],
  // A default client's rules: RECURRING_SALE's retry policy is the client's choice (platformDefaults).
  context: { rules: DEFAULT_RULES },
}
