/** `BillPayment`: the client of the bill payment service (catalog and transactions, two-header auth). */

import { inspect } from 'node:util'
import {
  type AnswerSchema,
  type ApiPromise,
  type ClientOptions,
  checkBaseUrl,
  HttpClient,
  type Intent,
  type IntentReconciled,
  OperationClient,
  type OperationOptions,
  openIntentsOf,
  type PaywireError,
  problemAnswers,
  type RequestInput,
  type ResultOf,
  readCredentials,
  reconcileJournal,
  reconcileKeysOf,
  reconcileSubject,
  type Secret,
  type ServiceDedupOptions,
  serviceDedupsIdempotencyKey,
} from '@paywire/core'
import pkg from '../package.json' with { type: 'json' }
import { Catalog } from './catalog.js'
import { ENDPOINTS } from './endpoints.js'
import { BillPaymentError } from './errors.js'
import { type BillPaymentReconciled, reconcileBillPayment } from './reconcile.js'
import { CLIENT_ID_HEADER, CLIENT_SECRET_HEADER, IDEMPOTENCY_KEY_HEADER } from './schemas.js'
import { Transactions } from './transactions.js'

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

/** The key kinds each operation is reconciled by, as its row declares them. */
const BILL_RECONCILE_KEYS = reconcileKeysOf(...Object.values(ENDPOINTS))

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
export class BillPayment {
  /** `bills.catalog.list() / get(id) / enable(body) / disable(body)`. */
  readonly catalog: Catalog
  /** `bills.transactions.list(query?) / execute(body) / get(transReference) / filter(filter)`. */
  readonly transactions: Transactions
  readonly #http: HttpClient
  readonly #ops: OperationClient<unknown>
  readonly #clientId: Secret
  readonly #clientSecret: Secret
  readonly #baseUrl: string
  readonly #serviceDedups: boolean

  constructor(options: BillPaymentOptions) {
    // Rule Authentication: both are headers of every call.
    const credentials = readCredentials('BillPayment', options, { clientId: 'header', clientSecret: 'header' })
    const { baseUrl, clientId: _id, clientSecret: _secret, serviceDedupsIdempotencyKey: _dedups, ...core } = options
    this.#baseUrl = checkBaseUrl('baseUrl', baseUrl, 'BillPayment')
    this.#serviceDedups = serviceDedupsIdempotencyKey('BillPayment', options)
    this.#clientId = credentials.clientId
    this.#clientSecret = credentials.clientSecret
    this.#http = new HttpClient({ packageName: 'bill-payment', packageVersion: pkg.version, options: core })
    this.#ops = new OperationClient({
      http: this.#http,
      baseUrls: { default: this.#baseUrl },
      context: undefined,
      authHeaders: () => ({
        [CLIENT_ID_HEADER]: this.#clientId.reveal(),
        [CLIENT_SECRET_HEADER]: this.#clientSecret.reveal(),
      }),
      requestIdempotencyHeader: IDEMPOTENCY_KEY_HEADER,
      answers: problemAnswers(BillPaymentError),
    })
    this.catalog = new Catalog(this.#ops)
    this.transactions = new Transactions(this.#ops)
  }

  /**
   * The raw escape hatch: any method and path below `baseUrl` on the same
   * pipeline (auth headers, an `idempotencyKey` as `Idempotency-Key`, retries, `BillPaymentError`).
   * Resolves with the parsed JSON, `undefined` for an empty body, or the text when the body is not
   * JSON; pass `schema` to check and type it. Retry default: `safe` for GET, else `unsent-only`.
   */
  request<S extends AnswerSchema | undefined = undefined>(
    input: RequestInput<'default'>,
    options?: OperationOptions<S>,
  ): ApiPromise<ResultOf<S, unknown>> {
    return this.#ops.request(input, options)
  }

  /**
   * Settles an unknown payment (the error itself, with `outcomeUnknown`, or an intent from
   * `pendingIntents()`) by finding its Idempotency-Key in the transactions list: found proves it was
   * made; not found proves nothing (`still_unknown`, and `next` says how to look further). Lookups
   * only: it never sends the call again, and advises a resend with the same key only with
   * `serviceDedupsIdempotencyKey: true` (docs/reconciliation.md).
   */
  async reconcile(subject: PaywireError | Intent): Promise<BillPaymentReconciled> {
    const settled = reconcileSubject(subject, {
      client: 'BillPayment',
      service: this.#http.service,
      keys: BILL_RECONCILE_KEYS,
      origins: this.#ops.origins,
      clock: this.#http.clock,
    })
    return reconcileBillPayment(settled, this.#ops, this.#serviceDedups)
  }

  /** The money-moving calls of the `journal` still open: sent (or about to be) with no definite outcome yet. */
  pendingIntents(): Promise<Intent[]> {
    return openIntentsOf(this.#http)
  }

  /** Reconciles every open intent of the `journal`, oldest first, and closes those now settled. Lookups only. */
  reconcileAll(): Promise<IntentReconciled[]> {
    return reconcileJournal(this.#http, 'BillPayment', (intent) => this.reconcile(intent))
  }

  /** Closes the client's connection pool (a caller-supplied `dispatcher` is left open); calling it again is fine. */
  close(): Promise<void> {
    return this.#http.close()
  }

  /** The base URL calls go to (no trailing slash). */
  get baseUrl(): string {
    return this.#baseUrl
  }

  /** The User-Agent this client sends. */
  get userAgent(): string {
    return this.#http.userAgent
  }

  toJSON(): { baseUrl: string } {
    return { baseUrl: this.#baseUrl }
  }

  [inspect.custom](): string {
    return `BillPayment { baseUrl: ${JSON.stringify(this.#baseUrl)} }`
  }
}
