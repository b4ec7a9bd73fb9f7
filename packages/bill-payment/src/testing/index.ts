/** `@paywire/bill-payment/testing`: the stateful simulator, its msw handlers and fixtures, for your own tests. */

import { type MockServer, type MockServerOptions, startMockServer } from '@paywire/core/testing'
import { BillPaymentSimulator, type BillPaymentSimulatorOptions } from './simulator.js'

export type { FailNextOptions } from '@paywire/core/testing'
export type { SimulatorProduct } from './fixtures.js'
export { DEFAULT_PRODUCTS, SIMULATOR_CLIENT_ID, SIMULATOR_CLIENT_SECRET, SIMULATOR_CREDENTIALS } from './fixtures.js'
export type {
  BillPaymentLedgerEntry,
  BillPaymentSimulatorOptions,
  LedgerEntry,
  SimulatorProblem,
  SimulatorTransaction,
} from './simulator.js'
export { BillPaymentSimulator, SIMULATOR_FILTER_KEYS } from './simulator.js'

/** A running simulator: point `new BillPayment({ baseUrl: url, ... })` at `url`. */
export interface StartedBillPaymentSimulator {
  /** `http://127.0.0.1:<port>` (`https://` when served over TLS) */
  readonly url: string
  readonly simulator: BillPaymentSimulator
  /** The loopback server: `server.requests` holds every request as received. */
  readonly server: MockServer
  /** Client options that authenticate: `{ baseUrl, clientId, clientSecret }`. */
  readonly clientOptions: { baseUrl: string; clientId: string; clientSecret: string }
  close(): Promise<void>
}

/**
 * @deprecated Renamed `StartedBillPaymentSimulator`, the name the card gateway's and remittance's
 * simulators have; this alias goes in the next minor release.
 */
export type RunningBillPaymentSimulator = StartedBillPaymentSimulator

/** Starts a simulator on a loopback port (core `startMockServer`), reached through the SDK's real transport; `serve` as `startMockServer` takes it (`tls`: HTTPS offering HTTP/2). */
export async function startBillPaymentSimulator(
  options: BillPaymentSimulatorOptions = {},
  serve: MockServerOptions = {},
): Promise<StartedBillPaymentSimulator> {
  const simulator = new BillPaymentSimulator(options)
  const server = await startMockServer(simulator.handlers, serve)
  return {
    url: server.url,
    simulator,
    server,
    clientOptions: { baseUrl: server.url, clientId: simulator.clientId, clientSecret: simulator.clientSecret },
    close: () => server.close(),
  }
}
