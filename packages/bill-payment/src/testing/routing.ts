/** What the simulator's resource groups share: how a route is guarded, and what an example may use. */

import type { BillPayment } from '../client.js'

/** A route's own answer, given the request and its path values (decoded). */
export type RouteAnswer = (request: Request, params: Record<string, string>) => Promise<Response>

/** msw's arguments to a route. */
export interface RouteInput {
  readonly request: Request
  readonly params: Record<string, string | readonly string[] | undefined>
}

/**
 * Wraps a route in what every request meets first (simulator.ts): injected faults, the credentials
 * check and the SDK's own body checks, then the route's answer.
 */
export type Guard = (answer: RouteAnswer) => (input: RouteInput) => Promise<Response>

/** What an example may use to create the state its call needs. */
export interface ExampleSetup {
  readonly client: BillPayment
}
