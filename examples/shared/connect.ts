/**
 * Where the examples connect. With the documented environment variables set they use your sandbox;
 * without them they start the package's simulator on loopback, so every example runs offline.
 */
import type { BillPaymentOptions } from '@paywire/bill-payment'
import { startBillPaymentSimulator } from '@paywire/bill-payment/testing'

export interface Connection<Options> {
  readonly options: Options
  /** `simulator` when running against the embedded simulator, `sandbox` against your account. */
  readonly target: 'simulator' | 'sandbox'
  close(): Promise<void>
}

const noop = async () => {}

/** `PAYWIRE_BILLS_BASE_URL`, `PAYWIRE_BILLS_CLIENT_ID`, `PAYWIRE_BILLS_CLIENT_SECRET`. */
export async function billPaymentConnection(): Promise<Connection<BillPaymentOptions>> {
  const { PAYWIRE_BILLS_BASE_URL: baseUrl, PAYWIRE_BILLS_CLIENT_ID: clientId } = process.env
  const clientSecret = process.env.PAYWIRE_BILLS_CLIENT_SECRET
  if (baseUrl && clientId && clientSecret) {
    return { options: { baseUrl, clientId, clientSecret }, target: 'sandbox', close: noop }
  }
  const sim = await startBillPaymentSimulator()
  return { options: sim.clientOptions, target: 'simulator', close: sim.close }
}
