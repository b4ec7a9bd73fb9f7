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
  /** The card passwords of a rotation (`--password-env`, older first); empty: the sandbox password. */
  readonly passwords: readonly { readonly env: string; readonly value: string }[]
  /** `--s2s-callbacks`: S2S-shaped callbacks after S2S actions on the seed signature. */
  readonly s2sCallbacks: boolean
  /** Hears each signed card callback as the simulator produces it. */
  readonly onCallback: (body: string) => void
}

/** The running simulators; `reset()` replaces them with fresh ones (same options, same seed). */
export class Services {
  card: CardGatewaySimulator | undefined
  remittance: RemittanceSimulator | undefined
  billPayment: BillPaymentSimulator | undefined
  readonly #options: ServicesOptions
  /** The variable whose password the card simulator uses now (a rotation's newest, until switched). */
  #passwordEnv: string | undefined

  constructor(options: ServicesOptions) {
    this.#options = options
    this.#passwordEnv = options.passwords.at(-1)?.env
    this.reset()
  }

  /** The rotation's variables, older first, and the one in force; `undefined` without `--password-env`. */
  get passwordRotation(): { readonly envs: readonly string[]; readonly current: string } | undefined {
    if (this.#passwordEnv === undefined) return undefined
    return { envs: this.#options.passwords.map((p) => p.env), current: this.#passwordEnv }
  }

  /** The fields S2S callbacks are signed over (seed, `--s2s-callbacks`): the client's `s2sCallbackFields`. */
  get s2sCallbackFields(): readonly string[] | undefined {
    return this.#options.s2sCallbacks && this.#options.signature === 'seed' ? this.card?.s2sCallbackFields : undefined
  }

  /**
   * The gateway switches to the password of `$env`: requests are checked with it and new callbacks
   * signed with it at once; callbacks signed before keep theirs, on every redelivery too.
   */
  usePassword(env: string): void {
    const chosen = this.#options.passwords.find((p) => p.env === env)
    if (chosen === undefined) throw new Error(`no --password-env ${env}`)
    this.#passwordEnv = env
    if (this.card) this.card.password = chosen.value
  }

  get enabled(): ReadonlySet<ServiceName> {
    return this.#options.enabled
  }

  reset(): void {
    const { enabled, clock, seed, onCallback, signature, lenient, passwords } = this.#options
    const password = passwords.find((p) => p.env === this.#passwordEnv)?.value
    this.card = enabled.has('card')
      ? new CardGatewaySimulator({
          clock,
          onCallback,
          signature,
          lenient,
          ...(password !== undefined ? { password } : {}),
          ...(this.#options.s2sCallbacks ? { s2sCallbackShape: 's2s' as const } : {}),
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
