/** `@paywire/card-gateway/testing`: msw handlers, a stateful simulator with a ledger, signed-callback helpers and a callback courier with the platform's delivery faults. */

import { type MockServer, type MockServerOptions, startMockServer } from '@paywire/core/testing'
import type { RequestHandler } from 'msw'
import type { CardGatewayOptions } from '../client.js'
import type { CardGatewaySimulatorOptions } from './rules.js'
import { CardGatewaySimulator } from './simulator.js'

export type { FailNextOptions } from '@paywire/core/testing'
export type { CallbackCourierOptions, CallbackCourierStats } from './courier.js'
export { CALLBACK_URL_BLOCK, CallbackCourier, COURIER_RETRIES_MS } from './courier.js'
export type {
  CardGatewayLedgerEntry,
  CardGatewaySimulatorOptions,
  LedgerEntry,
  PayOptions,
  SimulatedPayment,
  SimulatedPaymentStatus,
  SimulatedSchedule,
} from './rules.js'
export {
  SIMULATOR_AUTHORIZATION_VALID_MS,
  SIMULATOR_CREDENTIALS,
  SIMULATOR_DEDUP_WINDOW_MS,
  SIMULATOR_LIVE_KEYS,
  signCallback,
  simulatorHash,
  simulatorStrrevHash,
  TEST_CARDS,
} from './rules.js'
export { CardGatewaySimulator } from './simulator.js'

/** msw handlers of a fresh simulator (or of `simulator`), for your own msw setup. */
export function cardGatewayHandlers(simulator: CardGatewaySimulator = new CardGatewaySimulator()): RequestHandler[] {
  return simulator.handlers
}

export interface StartedCardGatewaySimulator {
  /** Base URL serving both Checkout and S2S CARD: pass it as `checkoutUrl` and `s2sUrl`. */
  readonly url: string
  readonly simulator: CardGatewaySimulator
  readonly server: MockServer
  /**
   * Options for a `CardGateway` talking to this simulator: its URL and keys, its signature preset,
   * and the CREATE_SCHEDULE hash inputs it checks (the client has no default for them); on the
   * strrev scheme, a `payerLookup` reading the simulator's own payments (in your code, your records).
   */
  readonly clientOptions: CardGatewayOptions
  close(): Promise<void>
}

/** Starts a simulator on a loopback port (through core's `startMockServer`); `serve` as `startMockServer` takes it (`tls`: HTTPS offering HTTP/2). */
export async function startCardGatewaySimulator(
  options: CardGatewaySimulatorOptions = {},
  serve: MockServerOptions = {},
): Promise<StartedCardGatewaySimulator> {
  const simulator = new CardGatewaySimulator(options)
  const server = await startMockServer(simulator.handlers, serve)
  const clientOptions: CardGatewayOptions = {
    checkoutUrl: server.url,
    s2sUrl: server.url,
    merchantKey: simulator.merchantKey,
    clientKey: simulator.clientKey,
    password: simulator.password,
    environment: 'sandbox',
    ...(options.digest ? { digest: options.digest } : {}),
    ...(options.signature === 'card-md5-strrev'
      ? { signature: 'card-md5-strrev' as const, payerLookup: simulator.payerLookup }
      : { hashInputs: { 's2s.createSchedule': simulator.createScheduleHashInputs } }),
    // The fields this simulator signs S2S callbacks over: yours come from `paywire callback capture`.
    ...(options.signature !== 'card-md5-strrev' && options.s2sCallbackShape === 's2s'
      ? { s2sCallbackFields: simulator.s2sCallbackFields }
      : {}),
  }
  return { url: server.url, simulator, server, clientOptions, close: () => server.close() }
}
