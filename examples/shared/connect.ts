/**
 * Where the examples connect. With the documented environment variables set they use your sandbox;
 * without them they start the package's simulator on loopback, so every example runs offline.
 */
import { createInterface } from 'node:readline/promises'
import type { BillPaymentOptions } from '@paywire/bill-payment'
import { startBillPaymentSimulator } from '@paywire/bill-payment/testing'
import type { CardGatewayOptions } from '@paywire/card-gateway'
import { type CardGatewaySimulator, startCardGatewaySimulator, TEST_CARDS } from '@paywire/card-gateway/testing'
import type { RemittanceOptions } from '@paywire/remittance'
import { SIMULATOR_CREDENTIALS, startRemittanceSimulator } from '@paywire/remittance/testing'

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

/** A card gateway connection; `simulator` is set when running against the embedded one. */
export interface CardConnection extends Connection<CardGatewayOptions> {
  readonly simulator: CardGatewaySimulator | undefined
  /**
   * Plays the payer on the hosted payment page: the simulator pays with a sandbox test card; against
   * your sandbox it asks you to open the page and pay with card 4111 1111 1111 1111, expiry 01/2038.
   */
  payAsPayer(paymentRef: string, redirectUrl: string, options?: { capture?: boolean }): Promise<void>
}

/**
 * CREATE_SCHEDULE's hash inputs are not published, so the client has no default for them: set
 * `PAYWIRE_CARD_CREATE_SCHEDULE_HASH_INPUTS` to the comma-separated fields your gateway signs (an
 * empty value signs the password alone). Unset, `s2s.createSchedule` is refused before sending.
 */
function createScheduleHashInputs(value: string | undefined): Pick<CardGatewayOptions, 'hashInputs'> {
  if (value === undefined) return {}
  const fields = value
    .split(',')
    .map((field) => field.trim())
    .filter((field) => field !== '')
  return { hashInputs: { 's2s.createSchedule': fields } }
}

/**
 * `PAYWIRE_CARD_CHECKOUT_URL`, `PAYWIRE_CARD_S2S_URL`, `PAYWIRE_CARD_MERCHANT_KEY`,
 * `PAYWIRE_CARD_CLIENT_KEY`, `PAYWIRE_CARD_PASSWORD`; optional `PAYWIRE_CARD_CREATE_SCHEDULE_HASH_INPUTS`.
 */
export async function cardGatewayConnection(): Promise<CardConnection> {
  const env = process.env
  const { PAYWIRE_CARD_CHECKOUT_URL: checkoutUrl, PAYWIRE_CARD_S2S_URL: s2sUrl } = env
  const { PAYWIRE_CARD_MERCHANT_KEY: merchantKey, PAYWIRE_CARD_CLIENT_KEY: clientKey } = env
  const password = env.PAYWIRE_CARD_PASSWORD
  if (checkoutUrl && s2sUrl && merchantKey && clientKey && password) {
    return {
      options: {
        checkoutUrl,
        s2sUrl,
        merchantKey,
        clientKey,
        password,
        environment: 'sandbox',
        ...createScheduleHashInputs(env.PAYWIRE_CARD_CREATE_SCHEDULE_HASH_INPUTS),
      },
      target: 'sandbox',
      simulator: undefined,
      close: noop,
      async payAsPayer(_ref, redirectUrl) {
        const prompt = createInterface({ input: process.stdin, output: process.stdout })
        await prompt.question(`Open ${redirectUrl}, pay with 4111 1111 1111 1111 exp 01/2038, then press Enter `)
        prompt.close()
      },
    }
  }
  const sim = await startCardGatewaySimulator()
  return {
    // The simulator's keys and the CREATE_SCHEDULE hash inputs it checks.
    options: sim.clientOptions,
    target: 'simulator',
    simulator: sim.simulator,
    close: sim.close,
    async payAsPayer(ref, _redirectUrl, options = {}) {
      sim.simulator.pay(ref, { card: TEST_CARDS.number, expiry: TEST_CARDS.success, ...options })
    },
  }
}

/** `PAYWIRE_REMIT_BASE_URL`, `PAYWIRE_REMIT_API_KEY`. */
export async function remittanceConnection(): Promise<Connection<RemittanceOptions>> {
  const { PAYWIRE_REMIT_BASE_URL: baseUrl, PAYWIRE_REMIT_API_KEY: apiKey } = process.env
  if (baseUrl && apiKey) return { options: { baseUrl, apiKey }, target: 'sandbox', close: noop }
  const sim = await startRemittanceSimulator()
  return { options: { baseUrl: sim.url, ...SIMULATOR_CREDENTIALS }, target: 'simulator', close: sim.close }
}
