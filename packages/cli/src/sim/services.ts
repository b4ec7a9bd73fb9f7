/** The simulators behind `paywire sim`: the very ones of `@paywire/*\/testing`, sharing one clock. */

import { BillPaymentSimulator } from '@paywire/bill-payment/testing'
import { CardGatewaySimulator } from '@paywire/card-gateway/testing'
import { RemittanceSimulator } from '@paywire/remittance/testing'
import type { SimClock } from './clock.js'
import { seededUuid } from './seed.js'

/** The services by their key in the `--json` line and the control API. */
export type ServiceName = 'card' | 'remittance' | 'billPayment'

/** URL prefix each service is mounted at. */
export const MOUNTS: Readonly<Record<ServiceName, string>> = {
  card: '/card',
  remittance: '/remittance',
  billPayment: '/bill-payment',
}

/** `--services` words, with the short ones the help shows. */
export const SERVICE_WORDS: Readonly<Record<string, ServiceName>> = {
  card: 'card',
  remittance: 'remittance',
  remit: 'remittance',
  'bill-payment': 'billPayment',
  bill: 'billPayment',
}

export interface ServicesOptions {
  readonly enabled: ReadonlySet<ServiceName>
  readonly clock: SimClock
  readonly seed: string | undefined
  /** The card simulator's signature preset (`--signature`). */
  readonly signature: 'seed' | 'card-md5-strrev'
  /** `--lenient`: the simulators accept inputs the live services refuse (off by default). */
  readonly lenient: boolean
  /** Hears each signed card callback as the simulator produces it. */
  readonly onCallback: (body: string) => void
}

/** The running simulators; `reset()` replaces them with fresh ones (same options, same seed). */
export class Services {
  card: CardGatewaySimulator | undefined
  remittance: RemittanceSimulator | undefined
  billPayment: BillPaymentSimulator | undefined
  readonly #options: ServicesOptions

  constructor(options: ServicesOptions) {
    this.#options = options
    this.reset()
  }

  get enabled(): ReadonlySet<ServiceName> {
    return this.#options.enabled
  }

  reset(): void {
    const { enabled, clock, seed, onCallback, signature, lenient } = this.#options
    this.card = enabled.has('card')
      ? new CardGatewaySimulator({
          clock,
          onCallback,
          signature,
          lenient,
          ...(seed !== undefined ? { uuid: seededUuid(seed) } : {}),
        })
      : undefined
    this.remittance = enabled.has('remittance') ? new RemittanceSimulator({ lenient }) : undefined
    this.billPayment = enabled.has('billPayment') ? new BillPaymentSimulator({ clock, lenient }) : undefined
  }

  /** The simulator of `name`, if it is served. */
  get(name: ServiceName): CardGatewaySimulator | RemittanceSimulator | BillPaymentSimulator | undefined {
    return this[name]
  }
}
