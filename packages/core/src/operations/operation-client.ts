/**
 * The operation engine of one client (`OperationClient`): a row and the caller's input become one
 * call on the client's `HttpClient`, built by `RequestBuilder`, through the intent journal when the
 * call moves money, and its answer read by the service's `AnswerReader` or the caller's schema.
 */

import type { z } from 'zod'
import { ApiPromise, isThenable, type WithResponse } from '../api-promise.js'
import {
  type ApiError,
  ConnectionError,
  type PaywireError,
  RequestValidationError,
  type ValidationIssue,
} from '../errors/errors.js'
import { checkJournal, journaled } from '../journal/journal.js'
import type { IntentStore } from '../journal/stores.js'
import { reusedConnectionDoubt } from '../transport/attempt-failure.js'
import type { HttpClient } from '../transport/http-client.js'
import type { HttpRequest, RawResponse, ResponseHandler } from '../transport/request.js'
import type { BoundRequest } from './answer-binding.js'
import {
  callOptions,
  type OperationInput,
  type OperationOptions,
  type RequestInput,
  type ResultOf,
} from './call-input.js'
import type { Operation, RejectAnswer, SentRequest } from './operation.js'
import { RequestBuilder, type RequestTarget } from './request-builder.js'
import { checkResponse, type ResponseSchema } from './response-schema.js'

/** A money-moving call as its listeners hear it: the row, what was sent, and its result or error. */
export interface SettledCall {
  readonly operation: string
  /** The params as validated, before credentials and signatures are added. */
  readonly params: unknown
  /** The path variables as given (`transactionId` of a confirm). */
  readonly path: Readonly<Record<string, string | number>>
  /** The idempotency key the call was sent with (a transfer's `agentTransactionRef`), if any. */
  readonly idempotencyKey: string | undefined
  readonly data: unknown
  /** The call's error, when it failed; `undefined` when it succeeded. */
  readonly error: unknown
}

/** Hears a settled money-moving call (`OperationClient.listen`). */
export type CallListener = (call: SettledCall) => Promise<void> | void

/** How a service reads answers: its error class for a refusal and for a 2xx it cannot use. */
export interface AnswerReader {
  /**
   * Reads a 2xx answer into the value rows decode. `raw` is for `request()`: any JSON, or the text.
   * Throws the service's error for an answer it cannot read (or an error envelope in a 2xx).
   */
  read(response: RawResponse, request: HttpRequest, raw: boolean): unknown
  /** The service's error for a non-2xx answer. */
  toError(response: RawResponse, request: HttpRequest): ApiError
  /** The service's error for a 2xx the SDK cannot use. */
  unusable(response: RawResponse, request: HttpRequest, problem: UnusableAnswer): ApiError
}

/**
 * Why a 2xx answer cannot be used: unreadable (with what is wrong), not matching the caller's
 * schema, or not about this request (`unbound_response`: it names another subject, or a lookup's
 * answer names none; the message says which field, what it named and the rule, see `bindAnswer`).
 */
export type UnusableAnswer =
  | { readonly reason: 'unreadable_response'; readonly message: string }
  | { readonly reason: 'response_schema_mismatch'; readonly issues: readonly ValidationIssue[] }
  | { readonly reason: 'unbound_response'; readonly message: string }

/** What one client gives the engine. */
export interface OperationClientConfig<Ctx> extends RequestTarget<Ctx> {
  readonly http: HttpClient
  readonly answers: AnswerReader
  /**
   * The client's `journal` option, as the caller gave it (checked here): money-moving calls go
   * through it. Not optional, so a client cannot drop it by leaving it out: `undefined` for none.
   */
  readonly journal: unknown
  /**
   * Settles at once a money-moving call whose answer on a kept-alive connection was not believed
   * (`Operation.reusesConnection`), by the operation's lookup on a connection of its own within
   * `timeoutMs` (what is left of the call's time): the lookup's answer when it proves the call
   * acted, else `undefined` (the call's unknown outcome stands, to be reconciled later).
   */
  readonly settleAtOnce?: (
    error: PaywireError,
    within: { readonly timeoutMs: number; readonly signal: AbortSignal | undefined },
  ) => Promise<SettledAtOnce | undefined>
}

/**
 * What an immediate settle proved: the call acted (`applied`, the lookup's answer), or it did not
 * and cannot any more (`notApplied`: the state refuses the operation, so a late arrival changes
 * nothing; with the codes the service refuses it with there). `undefined` from `settleAtOnce` when
 * the lookup proved neither.
 */
export type SettledAtOnce =
  | { readonly applied: WithResponse<unknown> }
  | {
      readonly notApplied: true
      /** The error codes the service answers the operation in the state shown: a refusal read with one of them is believed. */
      readonly refusals: readonly (string | number)[]
      /** What the lookup showed, in words (`GET_TRANS_STATUS shows T-1 as VOID`). */
      readonly evidence: string
    }

/** Runs the operation rows of one client: validate, build, send, read. Nothing is sent on a refusal. */
export class OperationClient<Ctx> {
  readonly #config: OperationClientConfig<Ctx>
  /** Builds this client's requests; its row schemas are shared with `#onOwnConnections`. */
  #builder: RequestBuilder<Ctx>
  /** Whether every request of this engine goes on a connection of its own (`HttpRequest.ownConnection`). */
  #ownConnection = false
  /** The intent journal of money-moving calls, when the client has one. */
  readonly #journal: IntentStore | undefined
  /** The engine `onOwnConnections()` returns, made once. */
  #onOwnConnections: OperationClient<Ctx> | undefined
  /** Who hears each money-moving call once it settled (a payment follower); shared with `#onOwnConnections`. */
  #listeners = new Set<CallListener>()

  constructor(config: OperationClientConfig<Ctx>) {
    this.#config = config
    this.#builder = new RequestBuilder(config)
    this.#journal = checkJournal(config.journal)
  }

  /** The intent journal of this client's money-moving calls, when one was given. */
  get journal(): IntentStore | undefined {
    return this.#journal
  }

  /** The service whose intents this client's journal holds (its package name, `card-gateway`). */
  get service(): string {
    return this.#config.http.service
  }

  /** The merchant account this client calls for (a fingerprint of its keys), if the service gave one. */
  get account(): string | undefined {
    return this.#config.http.account
  }

  /** The client's base URLs, with their paths: reconciliation settles only calls sent below them. */
  get bases(): readonly string[] {
    return Object.values(this.#config.baseUrls)
  }

  /**
   * The same engine (client, credentials, rows), except that every request goes on a connection of
   * its own, like a money-moving call: for the lookups reconciliation decides on. A stale answer
   * left on a kept-alive connection (a service or proxy that answered one request twice) would read
   * as the lookup's answer, and settle an unknown outcome from an old state.
   */
  onOwnConnections(): OperationClient<Ctx> {
    if (this.#ownConnection) return this
    if (this.#onOwnConnections === undefined) {
      const fresh = new OperationClient(this.#config)
      fresh.#builder = this.#builder
      fresh.#ownConnection = true
      fresh.#listeners = this.#listeners
      this.#onOwnConnections = fresh
    }
    return this.#onOwnConnections
  }

  /**
   * Makes `listener` hear every money-moving call of this engine once it settled, before its caller
   * does (so a payment follower records the payment before the merchant's code sees the answer);
   * answers the function that stops it. A listener's failure is its own: never the call's.
   */
  listen(listener: CallListener): () => void {
    this.#listeners.add(listener)
    return () => this.#listeners.delete(listener)
  }

  /** Checks `input`, builds the request and sends it; a refusal rejects with `RequestValidationError`. */
  call<S extends ResponseSchema | undefined = undefined, Result = unknown>(
    row: Operation<Ctx, z.core.$ZodType, Result>,
    input: OperationInput,
    options?: OperationOptions<S>,
  ): ApiPromise<ResultOf<S, Result>> {
    let built: { request: HttpRequest; params: unknown; sent: SentRequest; bound: BoundRequest | undefined }
    try {
      built = this.#builder.build(row, input, options ?? {}, this.#ownConnection)
    } catch (error) {
      return ApiPromise.rejected(error)
    }
    const { request, params, sent, bound } = built
    // An answer about another subject is refused before the decoder or the caller's schema reads
    // it: the binding holds whatever shape the caller expects (only `request()` has none).
    // The handler returns the schema's output when a schema is given, else the row's decoded result.
    const handler = this.#handler(row.decode, options?.schema, false, bound) as ResponseHandler<ResultOf<S, Result>>
    const { http } = this.#config
    const journal = this.#journal
    const keepOpen = options?.keepIntentOpen === true
    const send = (open?: () => Promise<void>) => {
      const sending = http.send(request, handler, callOptions(options), open)
      // The caller's own schema could not read the lookup's answer: their call stays unknown instead.
      return request.reusesConnection && options?.schema === undefined
        ? this.#settling(sending, request, handler, options)
        : sending
    }
    if (journal === undefined || request.retry.kind === 'safe') {
      if (keepOpen) return ApiPromise.rejected(notJournaled(row.name, journal === undefined))
      const sending = send()
      return request.retry.kind === 'safe' ? sending : this.#heard(row.name, params, sent, sending.withResponse())
    }
    return this.#heard(row.name, params, sent, journaled(journal, http, request, params, send, keepOpen))
  }

  /**
   * `sending`, except that an answer not believed on a kept-alive connection (transport.ts) is
   * settled at once by the operation's lookup, within what is left of the call's time: proven
   * applied, the call resolves with the lookup's answer; proven not applied, and unable to become
   * so (a state the call cannot act on), it fails with the refusal it read when that is the one the
   * state makes the service answer, else with a `ConnectionError` saying it did not act; otherwise
   * its unknown outcome stands (docs/reliability.md).
   */
  #settling<T>(
    sending: ApiPromise<T>,
    request: HttpRequest,
    handler: ResponseHandler<T>,
    options: OperationOptions<ResponseSchema | undefined> | undefined,
  ): ApiPromise<T> {
    const { http, settleAtOnce } = this.#config
    if (settleAtOnce === undefined) return sending
    const ends = http.clock.now() + http.totalTimeout
    // The lookup is one more attempt of the call: no longer than one, and within the call's total.
    const attemptMs = typeof options?.timeout === 'number' ? options.timeout : http.timeout
    const signal = options?.signal
    return new ApiPromise(
      sending.withResponse().catch(async (error: unknown) => {
        const doubt = reusedConnectionDoubt(error)
        if (doubt === undefined) throw error
        const timeoutMs = Math.floor(Math.min(ends - http.clock.now(), attemptMs))
        const settled =
          timeoutMs > 0
            ? await settleAtOnce(error as PaywireError, { timeoutMs, signal }).catch(() => undefined)
            : undefined
        if (settled === undefined) throw error
        if ('applied' in settled) return settled.applied as WithResponse<T>
        // The refusal read is believed only when it is the one the proven state makes the service
        // answer (rule-named codes): anything else may still be an earlier request's.
        const { answer } = doubt
        const refusal =
          answer === undefined || (answer.status >= 200 && answer.status < 300)
            ? undefined
            : handler.toError(answer, request)
        if (refusal?.code !== undefined && settled.refusals.includes(refusal.code)) throw refusal
        const read =
          answer === undefined
            ? 'no answer came on its kept-alive connection'
            : `the ${answer.status} answer on a kept-alive connection was not believed as this call's`
        throw new ConnectionError({
          ...request,
          attempts: error instanceof ConnectionError ? error.attempts : 1,
          requestSent: true,
          mayHaveActed: false,
          cause: error,
          message: `${request.operation}: ${read}; ${settled.evidence}, so the call did not act.`,
        })
      }),
    )
  }

  /** `sending`, settled only once every listener has heard how it settled. */
  #heard<T>(
    operation: string,
    params: unknown,
    { path, idempotencyKey }: SentRequest,
    sending: Promise<WithResponse<T>>,
  ): ApiPromise<T> {
    if (this.#listeners.size === 0) return new ApiPromise(sending)
    const listeners = [...this.#listeners]
    const tell = (call: SettledCall) =>
      Promise.allSettled(listeners.map((listener) => Promise.resolve().then(() => listener(call))))
    return new ApiPromise(
      sending.then(
        async (answer) => {
          await tell({ operation, params, path, idempotencyKey, data: answer.data, error: undefined })
          return answer
        },
        async (error: unknown) => {
          await tell({ operation, params, path, idempotencyKey, data: undefined, error })
          throw error
        },
      ),
    )
  }

  /**
   * The raw escape hatch: `input` on the same pipeline with the client's credentials, retries
   * (`safe` for GET, `unsent-only` otherwise, unless `retry` says) and error class. Resolves with
   * the parsed JSON, or the text when the answer is not JSON.
   */
  request<S extends ResponseSchema | undefined = undefined>(
    input: RequestInput,
    options?: OperationOptions<S>,
  ): ApiPromise<ResultOf<S, unknown>> {
    let request: HttpRequest
    try {
      request = this.#builder.buildRaw(input, options ?? {})
    } catch (error) {
      return ApiPromise.rejected(error)
    }
    if (options?.keepIntentOpen === true) return ApiPromise.rejected(notJournaled('request', false))
    const handler = this.#handler(undefined, options?.schema, true)
    return this.#config.http.send(request, handler as ResponseHandler<ResultOf<S, unknown>>, callOptions(options))
  }

  #handler<Result>(
    decode: ((value: unknown, reject: RejectAnswer) => Result) | undefined,
    schema: ResponseSchema | undefined,
    raw: boolean,
    bound?: BoundRequest,
  ): ResponseHandler<unknown> {
    const { answers } = this.#config
    return {
      decode(response, request) {
        const value = answers.read(response, request, raw)
        const problem = bound?.unbound(value)
        if (problem !== undefined)
          throw answers.unusable(response, request, { reason: 'unbound_response', message: problem })
        if (schema) {
          const mismatch = (issues: readonly ValidationIssue[]) =>
            answers.unusable(response, request, { reason: 'response_schema_mismatch', issues })
          const checked = checkResponse(schema, value)
          if (isThenable(checked)) {
            return checked.then((result) => {
              if (result.ok) return result.data
              throw mismatch(result.issues)
            })
          }
          if (checked.ok) return checked.data
          throw mismatch(checked.issues)
        }
        if (!decode) return value
        return decode(value, (message) => {
          throw answers.unusable(response, request, { reason: 'unreadable_response', message })
        })
      },
      toError: (response, request) => answers.toError(response, request),
    }
  }
}

/**
 * `keepIntentOpen` on a call that writes no intent: there would be no intent for the caller to
 * close, and its `closeIn` of an id that does not exist would hide the mistake.
 */
function notJournaled(operation: string, noJournal: boolean): RequestValidationError {
  const why = noJournal
    ? 'this client has no journal, so the call writes no intent'
    : 'only money-moving calls are journaled: this call writes no intent'
  return new RequestValidationError(operation, [{ path: 'keepIntentOpen', message: why }])
}
