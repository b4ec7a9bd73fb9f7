/** `Remittance`: the client of the remittance service — one key, three groups, one pipeline. */

import { inspect } from 'node:util'
import {
  type ApiPromise,
  type CallOptions,
  type ClientOptions,
  checkBaseUrl,
  HttpClient,
  type RawRequestInput,
  RequestValidationError,
  readCredentials,
  type Secret,
} from '@paywire/core'
import pkg from '../package.json' with { type: 'json' }
import { Beneficiaries } from './beneficiaries.js'
import { Lookup } from './lookup.js'
import { OperationRunner } from './operation.js'
import { DEFAULT_SLE_DECIMALS, sleSchemaOverrides } from './schemas.js'
import { Transactions } from './transactions.js'

/** Options of `new Remittance(...)`: the service's address and key, plus every core option. */
export interface RemittanceOptions extends ClientOptions {
  /** `{base_url}` of the service: `https:` (plain `http:` only to loopback, for the simulator). */
  readonly baseUrl: string
  /** The API key, sent in the `x-code` header of every call (spec Authentication 1); never logged. */
  readonly apiKey: string | Secret
  /** Overrides of the platform defaults the request checks rest on. */
  readonly platformDefaults?: RemittancePlatformDefaults
}

/**
 * Defaults that rest on the platform's public documentation rather than the spec; each can be
 * overridden for a service that differs. Omitted members keep the platform default.
 */
export interface RemittancePlatformDefaults {
  /**
   * Most decimal places of an SLE amount (`amountSLE`, `sendingAmountSLE`). Platform default `2`
   * (the redenominated leone); a whole number from 0 to 20.
   */
  readonly sleDecimals?: number
}

/**
 * The remittance service client (ARCHITECTURE section 3):
 * `remit.beneficiaries`, `remit.lookup`, `remit.transactions`, and `remit.request` for anything else.
 */
export class Remittance {
  /** Register, update and find beneficiaries. */
  readonly beneficiaries: Beneficiaries
  /** Rates, name enquiry, reference data, transaction status. */
  readonly lookup: Lookup
  /** Transfers (mobile, cash collection, bank) and confirm. */
  readonly transactions: Transactions
  readonly #http: HttpClient
  readonly #baseUrl: string
  readonly #run: OperationRunner

  constructor(options: RemittanceOptions) {
    // Spec Authentication 1: the key is the x-code header of every call.
    const { apiKey: key } = readCredentials('Remittance', options, { apiKey: 'header' })
    const { baseUrl, apiKey: _key, platformDefaults, ...coreOptions } = options
    this.#baseUrl = checkBaseUrl('baseUrl', baseUrl, 'Remittance')
    this.#http = new HttpClient({ packageName: 'remittance', packageVersion: pkg.version, options: coreOptions })
    this.#run = new OperationRunner(
      this.#http,
      this.#baseUrl,
      key,
      sleSchemaOverrides(checkSleDecimals(platformDefaults?.sleDecimals)),
    )
    this.beneficiaries = new Beneficiaries(this.#run)
    this.lookup = new Lookup(this.#run)
    this.transactions = new Transactions(this.#run)
  }

  /** The base URL calls go to (no trailing slash). */
  get baseUrl(): string {
    return this.#baseUrl
  }

  /**
   * The raw escape hatch: any method and path below the base URL, with the `x-code` key, retries
   * (`safe` for GET, `unsent-only` otherwise, unless `retry` says), and `RemittanceError`s.
   * `T` is not checked: the parsed JSON is returned as it came.
   */
  request<T = unknown>(input: RawRequestInput, call?: CallOptions): ApiPromise<T> {
    return this.#run.raw<T>(input, call)
  }

  /** Closes the client's connection pool (a caller-supplied `dispatcher` is left open). */
  close(): Promise<void> {
    return this.#http.close()
  }

  /** Base URL only: the key never prints. */
  toJSON(): { baseUrl: string } {
    return { baseUrl: this.#baseUrl }
  }

  [inspect.custom](): string {
    return `Remittance { baseUrl: ${JSON.stringify(this.#baseUrl)} }`
  }
}

function checkSleDecimals(value: unknown): number {
  if (value === undefined) return DEFAULT_SLE_DECIMALS
  if (typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= 20) return value
  throw new RequestValidationError('Remittance', [
    { path: 'platformDefaults.sleDecimals', message: 'must be a whole number from 0 to 20' },
  ])
}
