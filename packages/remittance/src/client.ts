/** `Remittance`: the client of the remittance service — one key, three groups, one pipeline. */

import {
  type ClientOptions,
  type Intent,
  type IntentReconciled,
  type PaywireError,
  type ReconcileOptions,
  RequestValidationError,
  type Secret,
  ServiceClient,
  type ServiceDedupOptions,
} from '@paywire/core'
import {
  accountFingerprint,
  checkBaseUrl,
  Following,
  type OperationClient,
  ownedOutcome,
  problemAnswers,
  readCredentials,
  serviceDedupsIdempotencyKey,
} from '@paywire/core/engine'
import pkg from '../package.json' with { type: 'json' }
import { ENDPOINTS } from './endpoints.js'
import { RemittanceError } from './errors.js'
import { DEFAULT_SLE_DECIMALS, type RemittanceRules } from './fields.js'
import { lookupTransfer, transferCallEffect } from './follow.js'
import { type RemittanceReconciled, reconcileRemittance } from './reconcile.js'
import { type Beneficiaries, BeneficiariesResource } from './resources/beneficiaries.js'
import { type Lookup, LookupResource } from './resources/lookup.js'
import { type Transactions, TransactionsResource } from './resources/transactions.js'

/**
 * Options of `new Remittance(...)`: the service's address and key, every core option, and
 * `serviceDedupsIdempotencyKey` (default `false`: that a reused `agentTransactionRef` is refused
 * is reported by a third-party client only, not published by the service; rule Platform 5).
 */
export interface RemittanceOptions extends ClientOptions, ServiceDedupOptions {
  /** `{base_url}` of the service: `https:` (plain `http:` only to loopback, for the simulator). */
  readonly baseUrl: string
  /** The API key, sent in the `x-code` header of every call (rule Authentication 1); never logged. */
  readonly apiKey: string | Secret
  /** Overrides of the platform defaults the request checks rest on. */
  readonly platformDefaults?: RemittancePlatformDefaults
}

/**
 * Defaults that rest on the platform's public documentation rather than the service's own
 * interface (the Platform rules); each can be overridden for a service that differs. Omitted
 * members keep the platform default.
 */
export interface RemittancePlatformDefaults {
  /**
   * Most decimal places of an SLE amount (`amountSLE`, `sendingAmountSLE`). Platform default `2`
   * (the redenominated leone, rule Platform 4); a whole number from 0 to 20.
   */
  readonly sleDecimals?: number
}

/**
 * The remittance service client: `remit.beneficiaries`, `remit.lookup`, `remit.transactions`, and
 * `remit.request` for anything else. Every method resolves with a typed result (`Transfer`,
 * `Confirmation`, `RateQuote`…) whose known fields are checked on arrival.
 *
 * The service rules it implements, cited in this package as `(rule Endpoints 17)` or
 * `(rule Platform 5)`: https://github.com/paywire/paywire/blob/main/docs/remittance-rules.md
 */
export class Remittance extends ServiceClient {
  /** Register, update and find beneficiaries. */
  readonly beneficiaries: Beneficiaries
  /** Rates, name enquiry, reference data, transaction status. */
  readonly lookup: Lookup
  /** Transfers (mobile, cash collection, bank) and confirm. */
  readonly transactions: Transactions
  readonly #baseUrl: string
  readonly #serviceDedups: boolean
  /** The engine, typed with this client's rules (the public class names no engine type). */
  readonly #engine: OperationClient<RemittanceRules>

  constructor(options: RemittanceOptions) {
    // Rule Authentication 1: the key is the x-code header of every call.
    const { apiKey: key } = readCredentials('Remittance', options, { apiKey: 'header' })
    const { baseUrl, apiKey: _key, platformDefaults, serviceDedupsIdempotencyKey: _dedups, ...core } = options
    const checkedUrl = checkBaseUrl('baseUrl', baseUrl, 'Remittance')
    const serviceDedups = serviceDedupsIdempotencyKey('Remittance', options)
    const rules: RemittanceRules = Object.freeze({ sleDecimals: checkSleDecimals(platformDefaults) })
    super({
      client: 'Remittance',
      packageName: 'remittance',
      packageVersion: pkg.version,
      options: core,
      baseUrls: { default: checkedUrl },
      context: rules,
      authHeaders: () => ({ 'x-code': key.reveal() }),
      answers: problemAnswers(RemittanceError),
      endpoints: ENDPOINTS,
      account: accountFingerprint('remittance', [key]),
    })
    this.#baseUrl = checkedUrl
    this.#serviceDedups = serviceDedups
    this.#engine = this.engine as OperationClient<RemittanceRules>
    this.beneficiaries = new BeneficiariesResource(this.#engine)
    this.lookup = new LookupResource(this.#engine)
    const ownLookups = new LookupResource(this.#engine.onOwnConnections())
    this.transactions = new TransactionsResource(
      this.#engine,
      new Following({
        engine: this.#engine,
        service: 'remittance',
        operation: 'transactions.follow',
        // The follower decides final states, like reconciliation: its lookups go on connections of their own.
        lookup: (followed) => lookupTransfer(ownLookups, followed),
        effectOf: transferCallEffect,
        reconcileJournal: this.#engine.journal && ((take) => this.reconcileTaking(take)),
      }),
    )
  }

  /** The base URL calls go to (no trailing slash). */
  get baseUrl(): string {
    return this.#baseUrl
  }

  /**
   * Settles an unknown transfer or confirm outcome (the error itself, with `outcomeUnknown`, or an
   * intent from `pendingIntents()`) with the status lookup: a readable record of the transfer proves
   * it was made; not found, or an answer that shows no such record, proves nothing (`still_unknown`).
   * A beneficiary write is `not_reconcilable`. Lookups only: it never sends the call again, and
   * advises a resend with the same `agentTransactionRef` only with `serviceDedupsIdempotencyKey: true`.
   */
  async reconcile(subject: PaywireError | Intent, options?: ReconcileOptions): Promise<RemittanceReconciled> {
    return this.closeSettled(subject, await this.#settle(subject, options))
  }

  /**
   * Reconciles every open intent of the `journal` (after a crash or a restart), oldest first, and
   * closes those now settled; `still_unknown` ones stay open. Lookups only.
   */
  override reconcileAll(options?: ReconcileOptions): Promise<IntentReconciled[]> {
    return this.reconcileEach((intent) => this.#settle(intent, options), options)
  }

  /** One subject's outcome by its lookup; the caller closes its intent (reconcile, or reconcileAll's run). */
  async #settle(subject: PaywireError | Intent, options?: ReconcileOptions): Promise<RemittanceReconciled> {
    const checked = await this.reconcileSubject(subject, options)
    return ownedOutcome(checked, await reconcileRemittance(checked, this.#engine, this.#serviceDedups), options)
  }

  /** Base URL only: the key never prints. */
  toJSON(): { baseUrl: string } {
    return { baseUrl: this.#baseUrl }
  }
}

/** A refused option of `new Remittance(...)`: an options error of the client, before any call exists. */
function invalid(path: string, message: string): never {
  throw new RequestValidationError('Remittance', [{ path, message }], 'options')
}

/** `platformDefaults.sleDecimals`: a whole number from 0 to 20 (rule Platform 4), default 2. */
function checkSleDecimals(platformDefaults: unknown): number {
  if (platformDefaults === undefined) return DEFAULT_SLE_DECIMALS
  if (typeof platformDefaults !== 'object' || platformDefaults === null || Array.isArray(platformDefaults)) {
    return invalid('platformDefaults', 'must be an object')
  }
  const value = (platformDefaults as RemittancePlatformDefaults).sleDecimals
  if (value === undefined) return DEFAULT_SLE_DECIMALS
  if (typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= 20) return value
  return invalid('platformDefaults.sleDecimals', 'must be a whole number from 0 to 20')
}
