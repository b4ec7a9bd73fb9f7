/**
 * The shell every service client shares: its transport and engine, the raw escape hatch, the
 * User-Agent, `close`, the intent journal's `pendingIntents` and `reconcileAll`, and what `inspect`
 * and `JSON.stringify` show. A service client adds its options, its resources and its `reconcile`.
 */

import { inspect } from 'node:util'
import type { ApiPromise } from '../api-promise.js'
import type { ClientOptions } from '../client-options.js'
import { PaywireError, RequestValidationError } from '../errors/errors.js'
import { forgetIntentMark } from '../journal/intent-marks.js'
import {
  checkReconcileOptions,
  type IntentReconciled,
  openIntentsOf,
  type Reconciled,
  type ReconcileOptions,
  type ReconcileSubject,
  reconcileJournal,
  reconcileSubject,
} from '../journal/reconcile.js'
import type { Intent } from '../journal/stores.js'
import { HttpClient } from '../transport/http-client.js'
import type { OperationOptions, RequestInput, ResultOf } from './call-input.js'
import { type AnswerReader, OperationClient, type SettledAtOnce } from './operation-client.js'
import { type AnyOperation, reconcileKeysOf } from './resource.js'
import type { ResponseSchema } from './response-schema.js'

/** What a service client gives its shell. */
export interface ServiceClientSetup<Ctx> {
  /** The client's class name, as errors and `inspect` name it (`Remittance`). */
  readonly client: string
  /** The npm package name without the scope, and its version: the User-Agent's first product. */
  readonly packageName: string
  readonly packageVersion: string
  /** The core options (whatever the service's own options left). */
  readonly options: ClientOptions
  /** Base URLs by name, the first the default (`{ default: baseUrl }`, or the card's two). */
  readonly baseUrls: Readonly<Record<string, string>>
  /** What the rows' steps receive. */
  readonly context: Ctx
  /** Credential headers of every call, read per call from the client's secrets. */
  readonly authHeaders?: () => Record<string, string>
  /** The header the raw `request()` sends an `idempotencyKey` option in, if the service has one. */
  readonly requestIdempotencyHeader?: string
  readonly answers: AnswerReader
  /** The endpoint tables by group: reconciliation accepts, per operation, the key kinds its row declares. */
  readonly endpoints: Readonly<Record<string, Readonly<Record<string, AnyOperation>>>>
  /**
   * The merchant account's fingerprint (`accountFingerprint` of the service and its keys, never the
   * password): recorded on journal intents and errors, so a client settles only its account's.
   */
  readonly account: string
  /**
   * How the service settles at once a money-moving call whose answer on a kept-alive connection was
   * not believed (`OperationClientConfig.settleAtOnce`), given the client's engine; services whose
   * rows never reuse a connection for such a call have none.
   */
  readonly settleAtOnce?: (
    error: PaywireError,
    within: { readonly timeoutMs: number; readonly signal: AbortSignal | undefined },
    engine: OperationClient<Ctx>,
  ) => Promise<SettledAtOnce | undefined>
}

/** The base of the three service clients (one way to build a client, in every package). */
export abstract class ServiceClient<Ctx = unknown> {
  readonly #client: string
  readonly #http: HttpClient
  readonly #engine: OperationClient<Ctx>
  readonly #keys: Readonly<Record<string, readonly string[]>>

  protected constructor(setup: ServiceClientSetup<Ctx>) {
    this.#client = setup.client
    const { journal, ...options } = setup.options
    const http = asClientOptionError(setup.client, () => {
      return new HttpClient({
        packageName: setup.packageName,
        packageVersion: setup.packageVersion,
        options,
        account: setup.account,
      })
    })
    this.#http = http
    const settle = setup.settleAtOnce
    this.#engine = asClientOptionError(setup.client, () => {
      return new OperationClient({
        http,
        baseUrls: setup.baseUrls,
        context: setup.context,
        ...(setup.authHeaders ? { authHeaders: setup.authHeaders } : {}),
        ...(setup.requestIdempotencyHeader ? { requestIdempotencyHeader: setup.requestIdempotencyHeader } : {}),
        answers: setup.answers,
        journal,
        ...(settle ? { settleAtOnce: (error, within) => settle(error, within, this.#engine) } : {}),
      })
    })
    this.#keys = reconcileKeysOf(...Object.values(setup.endpoints))
  }

  /** The engine the client's resources and lookups run on. */
  protected get engine(): OperationClient<Ctx> {
    return this.#engine
  }

  /**
   * `subject` checked for reconciliation by this client: an error of one of its calls (with
   * `outcomeUnknown`) or one of its journal's intents, keyed by a kind its row declares, sent to one
   * of its base URLs. Anything else is refused before any lookup.
   */
  protected async reconcileSubject(
    subject: PaywireError | Intent,
    options?: ReconcileOptions,
  ): Promise<ReconcileSubject> {
    checkReconcileOptions(this.#client, options)
    // An intent the journal timed on its own clock is measured on that clock (read now).
    const journal = this.#engine.journal
    const timed = !(subject instanceof PaywireError) && typeof (subject as Intent)?.writtenAt === 'number'
    const storeNow = timed && journal?.now ? await journal.now() : undefined
    return reconcileSubject(subject, {
      storeNow,
      client: this.#client,
      service: this.#http.service,
      keys: this.#keys,
      bases: this.#engine.bases,
      account: this.#http.account,
      clock: this.#http.clock,
    })
  }

  /**
   * Settles an unknown outcome by the service's safe lookups; never sends the call again. When the
   * answer is definite (`applied`, `not_applied`) and the subject has an open intent in the journal
   * (an intent, or a journaled call's error by its `intentId`), it closes that intent, as
   * `reconcileAll()` does.
   */
  abstract reconcile(subject: PaywireError | Intent, options?: ReconcileOptions): Promise<Reconciled>

  /**
   * Closes the journal's intent of `subject` once `result` is definite, so a single `reconcile` of a
   * journaled error or intent leaves nothing open for `pendingIntents()` (before, only
   * `reconcileAll()` closed). A close the store does not acknowledge leaves it open: the next
   * `reconcileAll()` settles it again.
   */
  protected async closeSettled<R extends Reconciled>(subject: PaywireError | Intent, result: R): Promise<R> {
    const journal = this.#engine.journal
    if (journal === undefined || (result.outcome !== 'applied' && result.outcome !== 'not_applied')) return result
    const id = subject instanceof PaywireError ? subject.intentId : (subject as Intent | undefined)?.id
    if (typeof id !== 'string' || id === '') return result
    await journal.close(id, result.outcome).then(
      () => forgetIntentMark(id),
      () => undefined,
    )
    return result
  }

  /**
   * The raw escape hatch: any method and path below one of the client's base URLs, on the same
   * pipeline (credentials, retries — `safe` for GET, `unsent-only` otherwise — and the service's
   * error class). Resolves with the parsed JSON, `undefined` for an empty body, or the text when the
   * body is not JSON; pass `schema` to check and type it.
   */
  request<S extends ResponseSchema | undefined = undefined>(
    input: RequestInput,
    options?: OperationOptions<S>,
  ): ApiPromise<ResultOf<S, unknown>> {
    return this.#engine.request(input, options)
  }

  /**
   * The money-moving calls of the `journal` still open: sent (or about to be) with no definite outcome
   * yet; this account's, and those written before intents recorded their account.
   */
  pendingIntents(): Promise<Intent[]> {
    return openIntentsOf(this.#engine)
  }

  /**
   * Reconciles every open intent of the `journal` (after a crash or a restart), oldest first, and
   * closes those now settled; `still_unknown` ones stay open. Lookups only.
   */
  reconcileAll(options?: ReconcileOptions): Promise<IntentReconciled[]> {
    return this.reconcileEach((intent) => this.reconcile(intent, options), options)
  }

  /**
   * `reconcileAll` with each intent's lookups started only after `take()` resolves: a follower's
   * lookup budget covers the journal too.
   */
  protected reconcileTaking(take: () => Promise<void>): Promise<IntentReconciled[]> {
    return this.reconcileEach(async (intent) => {
      await take()
      return this.reconcile(intent)
    })
  }

  /** `reconcileAll` with the client's own way of settling one intent; bad `options` are refused first. */
  protected async reconcileEach(
    reconcile: (intent: Intent) => Promise<Reconciled>,
    options?: ReconcileOptions,
  ): Promise<IntentReconciled[]> {
    checkReconcileOptions(this.#client, options)
    return reconcileJournal(this.#engine, this.#client, reconcile)
  }

  /** The User-Agent this client sends. */
  get userAgent(): string {
    return this.#http.userAgent
  }

  /** Closes the client's connection pool (a caller-supplied `dispatcher` is left open); calling it again is fine. */
  close(): Promise<void> {
    return this.#http.close()
  }

  /** What `JSON.stringify` shows: the base URLs and settings, never a credential. */
  abstract toJSON(): Record<string, unknown>

  /** What `util.inspect` shows: the class name and `toJSON()`. */
  [inspect.custom](): string {
    return `${this.#client} ${inspect(this.toJSON())}`
  }
}

/**
 * The core options are checked where the transport and the engine are made, which name no client: a
 * refusal there is re-issued in the client's name, so every client reports a bad option the same way
 * (`Remittance: invalid client options …`, stage `options`).
 */
function asClientOptionError<T>(client: string, make: () => T): T {
  try {
    return make()
  } catch (error) {
    if (error instanceof RequestValidationError && error.stage === 'options' && error.operation === 'client') {
      throw new RequestValidationError(client, error.issues, 'options')
    }
    throw error
  }
}
