/** The simulator's starting catalog and test credentials: made up, stable, safe to print in test output. */

/** A catalog product as the simulator stores and answers it: the `Product` fields (rule Platform 11; the service publishes none). */
export interface SimulatorProduct {
  readonly id: string
  readonly name: string
  readonly category: string
  readonly currency: string
  /** Smallest and largest amount the simulator accepts for a payment of this product. */
  readonly minAmount: number
  readonly maxAmount: number
  enabled: boolean
}

/**
 * Credentials the simulator accepts by default (test values, not real credentials), named as the
 * client's options name them: `new BillPayment({ baseUrl: sim.url, ...SIMULATOR_CREDENTIALS })`.
 */
export const SIMULATOR_CREDENTIALS = Object.freeze({
  clientId: 'sim-client-id',
  clientSecret: 'sim-client-secret-0123456789',
})

/** @deprecated Since 0.2: `SIMULATOR_CREDENTIALS.clientId`, as every service's testing kit names its credentials. */
export const SIMULATOR_CLIENT_ID = SIMULATOR_CREDENTIALS.clientId
/** @deprecated Since 0.2: `SIMULATOR_CREDENTIALS.clientSecret`, as every service's testing kit names its credentials. */
export const SIMULATOR_CLIENT_SECRET = SIMULATOR_CREDENTIALS.clientSecret

/**
 * Four products: three enabled, `WATER-FREETOWN` disabled, and `TV/PREMIUM` with a `/` in its id so
 * tests can prove path variables are URL-encoded.
 */
export const DEFAULT_PRODUCTS: readonly Readonly<SimulatorProduct>[] = Object.freeze([
  {
    id: 'EDSA-PREPAID',
    name: 'EDSA prepaid electricity',
    category: 'electricity',
    currency: 'SLE',
    minAmount: 10,
    maxAmount: 5_000,
    enabled: true,
  },
  {
    id: 'AIRTIME-ORANGE',
    name: 'Orange airtime top-up',
    category: 'airtime',
    currency: 'SLE',
    minAmount: 1,
    maxAmount: 1_000,
    enabled: true,
  },
  {
    id: 'WATER-FREETOWN',
    name: 'Guma Valley water bill',
    category: 'water',
    currency: 'SLE',
    minAmount: 5,
    maxAmount: 10_000,
    enabled: false,
  },
  {
    id: 'TV/PREMIUM',
    name: 'Satellite TV premium bouquet',
    category: 'television',
    currency: 'SLE',
    minAmount: 50,
    maxAmount: 2_000,
    enabled: true,
  },
])
