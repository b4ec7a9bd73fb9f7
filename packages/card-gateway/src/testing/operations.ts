/** Which SDK operation and S2S action a request to the simulator is: for `failNext({ action })` and `failNext({ operation })`. */

import { type CardGatewayOperation, SIGNED_OPERATIONS } from '../endpoints.js'

/** Each S2S action's operation name, read from the SDK's own rows (`CAPTURE` → `s2s.capture`). */
const OPERATION_OF_ACTION: ReadonlyMap<string, CardGatewayOperation> = new Map(
  (Object.entries(SIGNED_OPERATIONS) as [CardGatewayOperation, { readonly action: string | undefined }][])
    .filter(([, entry]) => entry.action !== undefined)
    .map(([operation, entry]) => [entry.action as string, operation]),
)

/** The Checkout routes the simulator serves, by the last segments of their path, and their operations. */
const CHECKOUT_ROUTES: readonly (readonly [string, CardGatewayOperation])[] = [
  ['/api/v1/session', 'checkout.purchase'],
  ['/api/v1/payment/card/credit', 'checkout.credit'],
  ['/api/v1/payment/status', 'checkout.status'],
]

/** The S2S action names a fault may name (the form field `action`). */
export const FAULT_ACTIONS: readonly string[] = [...OPERATION_OF_ACTION.keys()]

/** The operation names a fault may name, as the SDK's errors and telemetry write them. */
export const FAULT_OPERATIONS: readonly string[] = Object.keys(SIGNED_OPERATIONS)

/** The operation of a request: its S2S `action` for `/post`, else its Checkout route. */
export function cardOperationOf(pathname: string, action: string | undefined): CardGatewayOperation | undefined {
  if (action !== undefined) return OPERATION_OF_ACTION.get(action)
  // The routes are served whatever their letter case and with a trailing slash: named the same way.
  const path = pathname.toLowerCase().replace(/(?<=.)\/$/, '')
  return CHECKOUT_ROUTES.find(([suffix]) => path.endsWith(suffix))?.[1]
}
