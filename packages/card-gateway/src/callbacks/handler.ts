/**
 * The callback inbox: verify the raw body, record the event in the store, answer `OK` at once (five
 * time-outs block the URL for every merchant on it), then run the merchant's `onEvent` from the
 * record, once per key across every instance sharing the store. Record, then acknowledge: a
 * delivery is answered 200 only once its event is recorded (or done), so a process that dies after
 * the answer, an `onEvent` that throws or a store that restarts never loses it: recovery runs it.
 */

import {
  type CallbackMessage,
  type Logger,
  MemoryClaimStore,
  PaywireError,
  SignatureVerificationError,
  type StoredEvent,
} from '@paywire/core'
import {
  type Acceptance,
  errorClass,
  type Followers,
  Inbox,
  logLine,
  type RunOutcome,
  traced,
  tracingIfObserved,
} from '@paywire/core/engine'
import { confirmAndFile, needsConfirmation, type TransStatusLookup } from './confirm.js'
import { type CallbackEvent, type CallbackOptions, isRefundEvent } from './event.js'
import {
  type CallbackHandlerOptions,
  type CallbackRefusal,
  checkHandlerOptions,
  type FailedCallback,
  whole,
} from './handler-options.js'
import { DEFAULT_CALLBACK_MAX_BYTES } from './limits.js'
import {
  answer,
  BODY_ALREADY_PARSED,
  type CallbackDeliveryOptions,
  type CallbackResponse,
  type NodeRequestLike,
  type NodeResponseLike,
  readFetchBody,
  readNodeBody,
} from './read.js'
import { checkStoreFields, eventOf, type FieldEncryption, orderOf, peekEvent, recordOf } from './record.js'
import { claimedIds, isAnswer, reportRefusal } from './refusal.js'
import type { SentRefunds } from './sent-refunds.js'
import { callbackMessage, word } from './telemetry.js'

/** What the inbox needs of `gw.callbacks`: the verification of a raw body into its event. */
export interface CallbackVerifier {
  verify(rawBody: string | Buffer | Uint8Array, options?: CallbackOptions): CallbackEvent
}

export type {
  CallbackContext,
  CallbackHandlerOptions,
  CallbackRefusal,
  FailedCallback,
} from './handler-options.js'
export type {
  CallbackAnswerStatus,
  CallbackDeliveryOptions,
  CallbackResponse,
  NodeRequestLike,
  NodeResponseLike,
} from './read.js'
export type { FieldEncryption } from './record.js'

/**
 * A framework-neutral callback endpoint. `handle(rawBody)` gives the answer to send; the adapters
 * (`node`, `fetch`) read the raw body themselves and send it. `onEvent` runs after the answer, from
 * the stored record: `drain()` waits for what this instance started, `recover()` runs what another
 * left, `close()` stops the recovery interval.
 */
export class CallbackHandler {
  readonly #callbacks: CallbackVerifier
  readonly #options: CallbackHandlerOptions
  readonly #logger: Logger | undefined
  readonly #lookup: TransStatusLookup | undefined
  readonly #refunds: SentRefunds | undefined
  /** The client's payment followers: a recorded callback makes them look its payment up now. */
  readonly #followers: Followers | undefined
  readonly #inbox: Inbox
  readonly #fields: readonly string[]
  readonly #encryption: FieldEncryption | undefined
  /** The events being run, decoded: what a report made during the run names. */
  readonly #current = new Map<string, CallbackEvent>()

  /** @internal */
  constructor(
    callbacks: CallbackVerifier,
    options: CallbackHandlerOptions,
    logger?: Logger,
    lookup?: TransStatusLookup,
    refunds?: SentRefunds,
    followers?: Followers,
  ) {
    const checked = checkHandlerOptions(options)
    this.#followers = followers
    this.#refunds = refunds
    this.#callbacks = callbacks
    this.#lookup = lookup
    this.#options = options
    this.#logger = logger
    this.#encryption = options.encryption
    this.#fields = checkStoreFields(options.storeFields)
    this.#inbox = new Inbox({
      ...checked,
      service: 'card-gateway',
      operation: 'callbacks.handler',
      store: options.store ?? new MemoryClaimStore({ clock: checked.clock }),
      owns: (key) => key.startsWith('callback:'),
      run: (stored, attempt) => this.#run(stored, attempt),
      report: (error, stored) => this.#report(error, this.#eventOf(stored)),
    })
  }

  /**
   * Verifies `rawBody` (refused: 400 with the reason only, never the body; 413 past the size cap)
   * and records its event before answering: 200 `OK` once it is recorded (or was already, or is
   * done); 503 `store_unavailable` when the store could not record it within 5 s (three attempts
   * with one token), and 503 `in_progress` while a former version's claim holds it (during an
   * upgrade): a 503 makes the gateway deliver again. Nothing is acknowledged that is not recorded.
   * A body that is not raw (an object a parser made) answers 500 `body_already_parsed`. Every
   * refusal reaches `onRefused` and the logger at warn (rule Events 2: the raw body or nothing).
   * For a body you already hold (Hono after `c.req.arrayBuffer()`, a Lambda event's `body`).
   */
  handle(rawBody: string | Buffer | Uint8Array, options: CallbackDeliveryOptions = {}): Promise<CallbackResponse> {
    return this.#deliver(rawBody, options)
  }

  /** One delivery, read or refused by an adapter already (`CallbackResponse`), traced when someone listens. */
  #deliver(body: unknown, options: CallbackDeliveryOptions): Promise<CallbackResponse> {
    const respond = (message: CallbackMessage | undefined) => this.#respond(body, message, options)
    // paywire:callback, only when someone subscribes: the answer and the event's type, never its body.
    const channel = tracingIfObserved('callback')
    if (channel === undefined) return respond(undefined)
    const message = callbackMessage()
    return traced(
      channel,
      message,
      () => respond(message),
      (m, r) => {
        if (r.ok) {
          m.status = r.value.status
          m.answer = r.value.body.split(':')[0]
        } else m.errorType = errorClass(r.error)
      },
    )
  }

  async #respond(
    body: unknown,
    traced: CallbackMessage | undefined,
    options: CallbackDeliveryOptions,
  ): Promise<CallbackResponse> {
    if (isAnswer(body)) {
      // An adapter's own refusal (413 while reading, a body a parser took): loud, like any other.
      if (body.status === 400 || body.status === 413 || body.status === 500) {
        this.#refused(body.status, body.body.split(':')[0] as CallbackRefusal['reason'], undefined, undefined)
      }
      return body
    }
    if (typeof body !== 'string' && !(body instanceof Uint8Array)) {
      this.#refused(500, 'body_already_parsed', undefined, undefined)
      return answer(500, BODY_ALREADY_PARSED)
    }
    const response = await this.#handle(body, traced)
    if (response.status === 200 && options.waitUntil !== undefined) {
      try {
        options.waitUntil(this.drain())
      } catch (error) {
        this.#report(error, undefined) // a platform hook that throws: the event is recorded, recovery runs it
      }
    }
    return response
  }

  async #handle(rawBody: string | Uint8Array, traced: CallbackMessage | undefined): Promise<CallbackResponse> {
    let event: CallbackEvent
    try {
      event = this.#callbacks.verify(rawBody, this.#options)
    } catch (error) {
      if (error instanceof SignatureVerificationError) {
        const status = error.reason === 'body_too_large' ? 413 : 400
        this.#refused(status, error.reason, error, rawBody)
        return answer(status, error.reason)
      }
      throw error
    }
    if (traced !== undefined) {
      traced.eventType = word(event.type ?? event.action)
      traced.eventStatus = word(event.status)
    }
    const accepted = await this.#accept(event)
    if (traced !== undefined) traced.claim = accepted
    if (accepted === 'unavailable') return answer(503, 'store_unavailable')
    if (accepted === 'held') return answer(503, 'in_progress')
    return answer(200, 'OK')
  }

  /** A refused delivery, made loud (`onRefused` and the logger at warn): see `reportRefusal`. */
  #refused(
    status: CallbackRefusal['status'],
    reason: CallbackRefusal['reason'],
    error: SignatureVerificationError | undefined,
    rawBody: string | Uint8Array | undefined,
  ): void {
    const claimed = claimedIds(rawBody, this.#options.maxBodyBytes ?? DEFAULT_CALLBACK_MAX_BYTES)
    const refusal: CallbackRefusal = { reason, status, claimed, ...(error !== undefined ? { error } : {}) }
    reportRefusal(refusal, this.#options.onRefused, this.#logger)
  }

  async #accept(event: CallbackEvent): Promise<Acceptance> {
    let record: Awaited<ReturnType<typeof recordOf>>
    try {
      record = await recordOf(event, this.#fields, this.#encryption)
    } catch (error) {
      this.#report(
        new PaywireError('callbacks.handler: encryption.encrypt failed; the event is not recorded (answered 503)', {
          cause: error,
        }),
        event,
      )
      return 'unavailable'
    }
    return this.#inbox.accept(record)
  }

  /**
   * Runs what is due in the store (an instance that died left it leased; a failed run's retry time
   * came), up to `concurrency` at once, and resolves with how many events it took once their runs
   * ended. The handler calls it on its interval; a serverless function or a cron job calls it
   * itself (with `recoverEveryMs: 0`). Instances calling it together never take the same event.
   */
  recover(): Promise<number> {
    return this.#inbox.recover()
  }

  /** Resolves when every `onEvent` this instance started or queued has finished (tests, graceful shutdown). */
  drain(): Promise<void> {
    return this.#inbox.drain()
  }

  /** Stops the recovery interval and waits for the runs in progress: call it on shutdown. */
  close(): Promise<void> {
    return this.#inbox.close()
  }

  /** The events set aside after `maxAttempts`, oldest received first (at most `limit`, default 100). */
  async failedEvents(limit = 100): Promise<FailedCallback[]> {
    const dead = await this.#inbox.failedEvents(whole('limit', limit, 100, 0))
    return Promise.all(
      dead.map(async (stored) => ({
        key: stored.key,
        ref: stored.ref,
        receivedAt: stored.receivedAt,
        attempts: stored.attempts,
        lastError: stored.lastError,
        event: await eventOf(stored.fields, this.#encryption).catch(() => undefined),
      })),
    )
  }

  /**
   * Runs a set-aside event again (after you fixed its cause): its attempts start over and its
   * receive time stays the original. `false` when `key` names no dead event.
   */
  retry(key: string): Promise<boolean> {
    return this.#inbox.retry(key)
  }

  /** Erases every stored event of the payment whose order is `ref` (a person's right to erasure); answers how many. */
  forget(ref: string): Promise<number> {
    return this.#inbox.forget(ref)
  }

  /** node:http and Express: `http.createServer(handler.node)`, `app.post(path, handler.node)`. */
  readonly node = (req: NodeRequestLike, res: NodeResponseLike): void => {
    void readNodeBody(req, this.#options.maxBodyBytes ?? DEFAULT_CALLBACK_MAX_BYTES)
      .then((body) => this.#deliver(body, {}))
      .catch((error: unknown) => {
        this.#report(error, undefined)
        return answer(500, 'internal_error')
      })
      .then((response) => {
        try {
          res.writeHead(response.status, { ...response.headers })
          res.end(response.body)
        } catch (error) {
          this.#report(error, undefined) // headers already sent by other middleware: nothing else to do
        }
      })
  }

  /**
   * The Fetch API's `Request` in, its `Response` out: Next.js route handlers
   * (`export const POST = (request: Request) => handler.fetch(request)`), Bun, Deno, Workers
   * (`handler.fetch(request, { waitUntil: (p) => ctx.waitUntil(p) })`), and Hono, whose route gets a
   * `Context`: `app.post(path, (c) => handler.fetch(c.req.raw))`. A body already read answers 500
   * `body_already_parsed`; a failure of the handler itself answers 500 `internal_error` and is reported.
   */
  readonly fetch = async (request: Request, options: CallbackDeliveryOptions = {}): Promise<Response> => {
    let response: CallbackResponse
    try {
      const body = await readFetchBody(request, this.#options.maxBodyBytes ?? DEFAULT_CALLBACK_MAX_BYTES)
      response = await this.#deliver(body, options)
    } catch (error) {
      this.#report(error, undefined)
      response = answer(500, 'internal_error')
    }
    return new Response(response.body, { status: response.status, headers: response.headers })
  }

  /** One run of a stored event: a card-md5-strrev S2S callback is confirmed and filed; any other reaches `onEvent`. */
  async #run(stored: StoredEvent, attempt: number): Promise<RunOutcome> {
    const event = await eventOf(stored.fields, this.#encryption)
    this.#current.set(stored.key, event)
    // From the record, so a callback acknowledged and then lost with its process still reaches the
    // followers. Their lookup confirms what the callback claims; their failure is theirs, not this run's.
    const order = orderOf(event)
    if (order !== undefined)
      await this.#followers?.announce({ ref: order, api: event.action === undefined ? 'checkout' : 's2s' })
    try {
      if (needsConfirmation(event)) {
        return await confirmAndFile(event, this.#lookup, {
          file: (confirmed) => this.#accept(confirmed),
          report: (error, about) => this.#report(error, about),
        })
      }
      await this.#options.onEvent(await this.#withRefundDoubt(event), {
        key: stored.key,
        attempt,
        receivedAt: stored.receivedAt,
      })
      return { kind: 'done' }
    } finally {
      this.#current.delete(stored.key)
    }
  }

  /**
   * An S2S refund callback (`CREDITVOID`) with `refundDoubt` when no CREDITVOID this client sent
   * explains it: its amount and date are outside every callback signature, so a genuine body
   * replayed with another amount verifies.
   */
  async #withRefundDoubt(event: CallbackEvent): Promise<CallbackEvent> {
    if (this.#refunds === undefined || event.type !== undefined || !isRefundEvent(event)) return event
    if (await this.#refunds.explains(event.trans_id, event.amount)) return event
    const refundDoubt =
      'no CREDITVOID this client sent (in this process, or open in its journal) names this transaction and amount, and a refund callback’s amount and date are outside its signature: check this refund against your own refund records before acting on it'
    return { ...event, refundDoubt }
  }

  #eventOf(stored: StoredEvent | undefined): CallbackEvent | undefined {
    if (stored === undefined) return undefined
    return this.#current.get(stored.key) ?? peekEvent(stored.fields, this.#encryption)
  }

  #report(error: unknown, event: CallbackEvent | undefined): void {
    const onError = this.#options.onError
    try {
      // Never silent: the gateway got its 200, so this may be the only trace of the event. Without
      // onError the client's logger hears it; without one, the console (a last resort). Only the
      // event's identity goes out, never its body or hash.
      const line = `paywire callback inbox: ${describeFailure(error)}`
      if (onError) onError(error, event)
      else if (this.#logger) logLine(this.#logger, 'warn', line, identify(event))
      else console.error(line, identify(event))
    } catch {
      // An observer that throws changes nothing.
    }
  }
}

function describeFailure(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error)
}

/** What names an event in a log line: its ids and states, never the body, amounts or hash. */
function identify(event: CallbackEvent | undefined): Record<string, string | undefined> {
  if (!event) return {}
  return {
    id: event.id,
    order: event.order_number ?? event.order_id,
    trans_id: event.trans_id,
    type: event.type ?? event.action,
    status: event.status,
  }
}
