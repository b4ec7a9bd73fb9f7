/** A stateful card gateway that follows every card gateway rule, served as msw handlers; its ledger records side effects. */

import type { RequestHandler } from 'msw'
import { S2sSimulation } from './s2s.js'

/**
 * The stateful simulator. `handlers` are msw handlers (serve them with `startMockServer`, or use
 * `startCardGatewaySimulator`); `ledger`, `payments`, `schedules` and `callbacks` are inspectable.
 * Built in layers, a file each: the wire (`transport.ts`), the payments' state (`gateway.ts`), the
 * Checkout API (`checkout.ts`) and the S2S API (`s2s.ts`), each API's file with its examples.
 */
export class CardGatewaySimulator extends S2sSimulation {
  /** msw handlers: Checkout (JSON) under `/api/v1/…`, S2S CARD (form) at `/post`. */
  get handlers(): RequestHandler[] {
    return [...this.checkoutRoutes(), ...this.s2sRoutes()]
  }
}
