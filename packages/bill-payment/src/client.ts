/** `BillPayment`: the client of the bill payment service (catalog and transactions, two-header auth). */

import {
  type ClientOptions,
  type Intent,
  type IntentReconciled,
  type PaywireError,
  type ReconcileOptions,
  type Secret,
  ServiceClient,
  type ServiceDedupOptions,
} from '@paywire/core'
import {
  accountFingerprint,
  checkBaseUrl,
  Following,
  ownedOutcome,
  problemAnswers,
  readCredentials,
  serviceDedupsIdempotencyKey,
} from '@paywire/core/engine'
import pkg from '../package.json' with { type: 'json' }
import { ENDPOINTS } from './endpoints.js'
import { BillPaymentError } from './errors.js'
import { CLIENT_ID_HEADER, CLIENT_SECRET_HEADER, IDEMPOTENCY_KEY_HEADER } from './fields.js'
import { billCallEffect, lookupBillPayment } from './follow.js'
import { type BillPaymentReconciled, reconcileBillPayment } from './reconcile.js'
import { type Catalog, CatalogResource } from './resources/catalog.js'
import { type Transactions, TransactionsResource } from './resources/transactions.js'

/**
 * Options of `new BillPayment(...)`: the service address, both credentials, every core option, and
 * `serviceDedupsIdempotencyKey` (default `false`: the service does not publish what it does with a
 * repeated `Idempotency-Key`, rule Endpoints 9).
 */
export interface BillPaymentOptions extends ClientOptions, ServiceDedupOptions {
  /** The service's base address, e.g. `https://bills.example.com`; plain `http:` only for loopback (simulators). */
  baseUrl: string
  /** Sent as `X-Service-Internal-Client-Id` on every call (rule Authentication). */
  clientId: string | Secret
  /** Sent as `X-Service-Client-Secret` on every call (rule Authentication); never logged, printed or put in an error. */
  clientSecret: string | Secret
}

/**
 * Client of the bill payment service: `bills.catalog` and `bills.transactions`, and `bills.request`
 * for anything else. Every call sends both `X-Service-Internal-Client-Id` and
 * `X-Service-Client-Secret`; both are kept as `Secret`, and `util.inspect`/`JSON.stringify` of the
 * client show the base URL only. Every method resolves with a typed result (`Product`,
 * `Transaction`, lists of them) whose known fields are checked on arrival.
 *
 * The service rules it implements, cited in this package as `(rule Endpoints 6)` or
 * `(rule Platform 5)`: https://github.com/paywire/paywire/blob/main/docs/bill-payment-rules.md
 *
 * ```ts
 * const bills = new BillPayment({ baseUrl, clientId, clientSecret })
 * const { data: transaction, response } = await bills.transactions.execute({ productId: 'P1', amount: 10 }).withResponse()
 * console.log(transaction?.transReference, response.idempotencyKey)
 * ```
 */
export class BillPayment extends ServiceClient {
  /** The payable products: `bills.catalog`. */
  readonly catalog: Catalog
  /** Payments and their records: `bills.transactions`. */
  readonly transactions: Transactions
  readonly #baseUrl: string
  readonly #serviceDedups: boolean

  constructor(options: BillPaymentOptions) {
    // Rule Authentication: both are headers of every call.
    const credentials = readCredentials('BillPayment', options, { clientId: 'header', clientSecret: 'header' })
    const { baseUrl, clientId: _id, clientSecret: _secret, serviceDedupsIdempotencyKey: _dedups, ...core } = options
    const checkedUrl = checkBaseUrl('baseUrl', baseUrl, 'BillPayment')
    const serviceDedups = serviceDedupsIdempotencyKey('BillPayment', options)
    super({
      client: 'BillPayment',
      packageName: 'bill-payment',
      packageVersion: pkg.version,
      options: core,
      baseUrls: { default: checkedUrl },
      context: undefined,
      authHeaders: () => ({
        [CLIENT_ID_HEADER]: credentials.clientId.reveal(),
        [CLIENT_SECRET_HEADER]: credentials.clientSecret.reveal(),
      }),
      requestIdempotencyHeader: IDEMPOTENCY_KEY_HEADER,
      answers: problemAnswers(BillPaymentError),
      endpoints: ENDPOINTS,
      // The client id says which account (the secret stays out of it: its rotation is not another account).
      account: accountFingerprint('bill-payment', [credentials.clientId]),
    })
    this.#baseUrl = checkedUrl
    this.#serviceDedups = serviceDedups
    this.catalog = new CatalogResource(this.engine)
    // The follower decides final states, like reconciliation: its lookups go on connections of their own.
    const ownLookups = new TransactionsResource(this.engine.onOwnConnections())
    this.transactions = new TransactionsResource(
      this.engine,
      (finals) =>
        new Following({
          engine: this.engine,
          service: 'bill-payment',
          operation: 'transactions.follow',
          lookup: (followed) => lookupBillPayment((ref) => ownLookups.get(ref), followed, finals),
          effectOf: billCallEffect,
          reconcileJournal: this.engine.journal && ((take) => this.reconcileTaking(take)),
        }),
    )
  }

  /**
   * Settles an unknown payment (the error itself, with `outcomeUnknown`, or an intent from
   * `pendingIntents()`) by finding its Idempotency-Key in the transactions list: found proves it was
   * made; not found proves nothing (`still_unknown`, and `next` says how to look further). Lookups
   * only: it never sends the call again, and advises a resend with the same key only with
   * `serviceDedupsIdempotencyKey: true` (docs/reconciliation.md).
   */
  async reconcile(subject: PaywireError | Intent, options?: ReconcileOptions): Promise<BillPaymentReconciled> {
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
  async #settle(subject: PaywireError | Intent, options?: ReconcileOptions): Promise<BillPaymentReconciled> {
    const checked = await this.reconcileSubject(subject, options)
    return ownedOutcome(checked, await reconcileBillPayment(checked, this.engine, this.#serviceDedups), options)
  }

  /** The base URL calls go to (no trailing slash). */
  get baseUrl(): string {
    return this.#baseUrl
  }

  /** The base URL only: the credentials never print. */
  toJSON(): { baseUrl: string } {
    return { baseUrl: this.#baseUrl }
  }
}
