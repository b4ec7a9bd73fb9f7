/** `@paywire/remittance/testing`: a stateful simulator of the remittance service, as msw handlers. */

import { type MockServer, type MockServerOptions, startMockServer } from '@paywire/core/testing'
import type { RemittanceSimulatorOptions } from './rules.js'
import { RemittanceSimulator } from './simulator.js'

export type { FailNextOptions } from '@paywire/core/testing'
export type {
  AccountFixture,
  BankFixture,
  CollectionPointFixture,
  CountryFixture,
  DeliveryBankBranchFixture,
  DeliveryBankFixture,
  MobileOperatorCreditTypeFixture,
  MobileOperatorFixture,
  RemittanceFixtures,
} from './fixtures.js'
export { remittanceFixtures } from './fixtures.js'
export type {
  LedgerEntry,
  RemittanceLedgerEntry,
  RemittanceSimulatorOptions,
  SimulatedBeneficiary,
  TransferKind,
} from './rules.js'
export { SIMULATOR_API_KEY, SIMULATOR_CREDENTIALS } from './rules.js'
export { RemittanceSimulator } from './simulator.js'

/** A running simulator on a loopback port. */
export interface StartedRemittanceSimulator {
  /** `http://127.0.0.1:<port>` (`https://` when served over TLS) */
  readonly url: string
  /** Client options that authenticate: `new Remittance(sim.clientOptions)`. */
  readonly clientOptions: { readonly baseUrl: string; readonly apiKey: string }
  readonly simulator: RemittanceSimulator
  /** The loopback server: `server.requests` holds every request as received. */
  readonly server: MockServer
  close(): Promise<void>
}

/** Starts a `RemittanceSimulator` on a real loopback port, for the client's real transport; `serve` as `startMockServer` takes it (`tls`: HTTPS offering HTTP/2). */
export async function startRemittanceSimulator(
  options: RemittanceSimulatorOptions = {},
  serve: MockServerOptions = {},
): Promise<StartedRemittanceSimulator> {
  const simulator = new RemittanceSimulator(options)
  const server = await startMockServer(simulator.handlers, serve)
  return {
    url: server.url,
    clientOptions: { baseUrl: server.url, apiKey: simulator.apiKey },
    simulator,
    server,
    close: () => server.close(),
  }
}
