/** The remittance simulator's wire rules: its option and record types, the documented field types, and pure checks. */

import type { RemittanceFixtures } from './fixtures.js'

/**
 * Credentials the simulator accepts by default (its sandbox account), named as the client's options
 * name them: `new Remittance({ baseUrl: sim.url, ...SIMULATOR_CREDENTIALS })`.
 */
export const SIMULATOR_CREDENTIALS = Object.freeze({ apiKey: 'sim-remittance-key' })

/** @deprecated Since 0.2: `SIMULATOR_CREDENTIALS.apiKey`, as every service's testing kit names its credentials. */
export const SIMULATOR_API_KEY = SIMULATOR_CREDENTIALS.apiKey

export interface RemittanceSimulatorOptions {
  /** The only `x-code` value accepted; default `SIMULATOR_CREDENTIALS.apiKey`. */
  readonly apiKey?: string
  /** Replaces parts of the default fixtures (countries, banks, rates, fees…). */
  readonly fixtures?: Partial<RemittanceFixtures>
  /**
   * What `POST /api/beneficiaries` answers with its 201: the stored record (default), or an empty
   * body (the service documents none, rule Endpoints 1; both must be successes for the client).
   */
  readonly createdBody?: 'record' | 'empty'
  /**
   * `true` turns off the strict checks: by default a body the SDK's own schema refuses (an unknown
   * member, a negative or over-precise amount, an amount sent as a string) is refused with the
   * service's 400 ProblemDetails and an `errors` map naming each field, as the live service would.
   */
  readonly lenient?: boolean
}

/** A stored beneficiary: the wire fields as sent, plus the id the simulator gave it. */
export interface SimulatedBeneficiary {
  readonly beneficiaryId: string
  readonly [field: string]: string
}

export type TransferKind = 'mobile-transfer' | 'cash-collection' | 'bank-transfer'

/** One executed transfer, as the simulated platform booked it. */
export interface RemittanceLedgerEntry {
  readonly transactionId: string
  readonly kind: TransferKind
  readonly agentTransactionRef: string
  readonly beneficiaryId: string
  readonly amountSLE: number
  readonly fees: number
  readonly destCurrency: string
  readonly receivingAmountFX: number
  /** `ENTERED` when created, `AGENT_OK` once confirmed, or whatever `setStatus` set. */
  readonly status: string
  /** Given by confirm; the status lookup takes it (or the `agentTransactionRef`). */
  readonly referenceNumber: string | undefined
  /** The request body exactly as parsed. */
  readonly body: Readonly<Record<string, unknown>>
}

/** @deprecated Use `RemittanceLedgerEntry` (one name per service, like `RemittanceError`); this alias goes in 1.0. */
export type LedgerEntry = RemittanceLedgerEntry

export type FieldType = 'string' | 'number'
export type Errors = Record<string, string[]>
export type Body = Record<string, unknown>

export const PROBLEM_TYPE = 'application/problem+json'
export const RFC = 'https://tools.ietf.org/html/rfc9110#section-15'

export const BENEFICIARY_TYPES: Record<string, FieldType> = Object.fromEntries(
  [
    'linkedRemitterId',
    'firstName',
    'lastName',
    'address1',
    'city',
    'state',
    'postcode',
    'country',
    'nationality',
    'telephone',
    'posid',
    'mobile',
    'idDetails',
  ].map((name) => [name, 'string' as const]),
)

export const RATE_TYPES: Record<string, FieldType> = {
  sendingAmountSLE: 'number',
  receivingAmountFX: 'number',
  amountType: 'string',
  sourceCurrency: 'string',
  destinationCountry: 'string',
  destCurrency: 'string',
  serviceType: 'string',
}

export const TRANSACTION_TYPES: Record<string, FieldType> = {
  ...Object.fromEntries(
    [
      'remitterId',
      'beneficiaryId',
      'destinationCountry',
      'transType',
      'purpose',
      'sourceOfIncome',
      'paymentMethod',
      'amountDeposited',
      'bankBranchDeposited',
      'serviceLevel',
      'smsConfirmation',
      'smsNotification',
      'smsMobile',
      'sourceCurrency',
      'destinationCurrency',
      'amountType',
      'agentTransactionRef',
      'benefTransRef',
      'amountToSend',
    ].map((name) => [name, 'string' as const]),
  ),
  amountSLE: 'number',
  fees: 'number',
}

export const MOBILE_TYPES: Record<string, FieldType> = {
  ...TRANSACTION_TYPES,
  beneficiaryMobileTransferNumber: 'string',
  beneficiaryMobileTransferNetworkId: 'string',
  beneficiaryMobileTransferNetworkCreditTypeId: 'string',
}

export const CASH_TYPES: Record<string, FieldType> = {
  ...TRANSACTION_TYPES,
  collectionPointId: 'string',
  collectionPin: 'string',
}

/** The bank transfer's fields are not shown: the simulator's guess is the common fields plus these. */
export const BANK_TYPES: Record<string, FieldType> = { ...TRANSACTION_TYPES, bankId: 'string', accountNumber: 'string' }

export const round2 = (value: number): number => Math.round(value * 100) / 100

export interface MutableEntry extends Omit<RemittanceLedgerEntry, 'status' | 'referenceNumber'> {
  status: string
  referenceNumber: string | undefined
}

export function statusSection(status: number): number {
  const sections: Record<number, number> = { 400: 1, 401: 2, 403: 4, 404: 5, 415: 16, 500: 1, 502: 3, 503: 4 }
  return sections[status] ?? 1
}

export function typeErrors(body: Body, types: Record<string, FieldType>): Errors {
  const errors: Errors = {}
  for (const [name, type] of Object.entries(types)) {
    const value = body[name]
    if (value === undefined || value === null) continue
    const ok = type === 'number' ? typeof value === 'number' && Number.isFinite(value) : typeof value === 'string'
    if (!ok) {
      const target = type === 'number' ? 'System.Decimal' : 'System.String'
      errors[name] = [`The JSON value could not be converted to ${target}. Path: $.${name}`]
    }
  }
  return errors
}

export function required(body: Body, names: readonly string[]): Errors {
  const errors: Errors = {}
  for (const name of names) {
    const value = body[name]
    if (value === undefined || value === null || value === '') errors[name] = [`The ${name} field is required.`]
  }
  return errors
}

export function sleErrors(name: string, value: number): Errors {
  if (value < 0) return { [name]: [`The ${name} must not be negative.`] }
  if (round2(value) !== value) return { [name]: [`The ${name} has more than 2 decimal places (SLE).`] }
  return {}
}

export function nonNegative(name: string, value: number): Errors {
  return value < 0 ? { [name]: [`The ${name} must not be negative.`] } : {}
}

export function stringFields(body: Body, types: Record<string, FieldType>): Record<string, string> {
  const out: Record<string, string> = {}
  for (const name of Object.keys(types)) {
    const value = body[name]
    if (typeof value === 'string') out[name] = value
  }
  return out
}

export function onlyDigits(value: string): string {
  return value.replace(/\D/g, '')
}

/** Keeps items whose field equals each query parameter that names one of their fields (case-insensitive). */
export function filterByQuery(items: readonly object[], query: URLSearchParams): object[] {
  return items.filter((item) => {
    for (const [name, wanted] of query) {
      const field = Object.keys(item).find((key) => key.toLowerCase() === name.toLowerCase())
      if (field === undefined) continue
      const value = (item as Record<string, unknown>)[field]
      if (String(value).toLowerCase() !== wanted.toLowerCase()) return false
    }
    return true
  })
}

export function statusView(entry: MutableEntry): Body {
  return {
    referenceNumber: entry.referenceNumber ?? null,
    transactionId: entry.transactionId,
    agentTransactionRef: entry.agentTransactionRef,
    status: entry.status,
    amountSLE: entry.amountSLE,
    fees: entry.fees,
    destCurrency: entry.destCurrency,
    receivingAmountFX: entry.receivingAmountFX,
  }
}

/** The simulator's fee for an SLE amount: a percentage with a minimum, from the fixtures. */
export function simulatorFees(fixtures: RemittanceFixtures, amountSle: number): number {
  return Math.max(fixtures.fees.minimumSLE, round2((amountSle * fixtures.fees.percent) / 100))
}

/** The destination currency from `destCurrency` or the country; an errors map when neither is known. */
export function destinationCurrency(
  fixtures: RemittanceFixtures,
  destCurrency: unknown,
  destinationCountry: unknown,
): string | Errors {
  if (typeof destCurrency === 'string') {
    return destCurrency in fixtures.rates ? destCurrency : { destCurrency: [`No rate for currency ${destCurrency}.`] }
  }
  if (destinationCountry === undefined) {
    return { destinationCountry: ['The destinationCountry or destCurrency field is required.'] }
  }
  const country = fixtures.destinationCountries.find((c) => c.countryCode === destinationCountry)
  if (!country) return { destinationCountry: [`Unknown destination country ${String(destinationCountry)}.`] }
  if (!(country.currency in fixtures.rates)) return { destCurrency: [`No rate for currency ${country.currency}.`] }
  return country.currency
}

/** A transfer's references the fixtures do not know (network, credit type, collection point, bank), as an errors map. */
export function referenceErrors(f: RemittanceFixtures, kind: TransferKind, body: Body): Errors {
  if (
    kind === 'mobile-transfer' &&
    !f.mobileOperators.some((o) => o.networkId === body.beneficiaryMobileTransferNetworkId)
  ) {
    return { beneficiaryMobileTransferNetworkId: ['Unknown mobile network.'] }
  }
  if (
    kind === 'mobile-transfer' &&
    body.beneficiaryMobileTransferNetworkCreditTypeId !== undefined &&
    !f.mobileOperatorCreditTypes.some(
      (t) =>
        t.creditTypeId === body.beneficiaryMobileTransferNetworkCreditTypeId &&
        t.networkId === body.beneficiaryMobileTransferNetworkId,
    )
  ) {
    return { beneficiaryMobileTransferNetworkCreditTypeId: ['Unknown credit type for this network.'] }
  }
  if (kind === 'cash-collection' && !f.collectionPoints.some((p) => p.collectionPointId === body.collectionPointId)) {
    return { collectionPointId: ['Unknown collection point.'] }
  }
  if (kind === 'bank-transfer' && !f.deliveryBanks.some((b) => b.bankId === body.bankId)) {
    return { bankId: ['Unknown delivery bank.'] }
  }
  return {}
}
