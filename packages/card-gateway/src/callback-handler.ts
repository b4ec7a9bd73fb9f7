/**
 * The callback inbox: verify the raw body, record the event in the store, answer `OK` at once (five
 * time-outs block the URL for every merchant on it), then run the merchant's `onEvent` from the
 * record, once per key across every instance sharing the store. Record, then acknowledge: a
 * delivery is answered 200 only once its event is recorded (or done), so a process that dies after
 * the answer, an `onEvent` that throws or a store that restarts never loses it: recovery runs it.
 */

import {
  type CallbackMessage,
  type ClaimStore,
  type Clock,
  type Logger,
  MemoryClaimStore,
  PaywireError,
  RequestValidationError,
  SignatureVerificationError,
  type StoredEvent,
  systemClock,
} from '@paywire/core'
import {
  type Acceptance,
  errorClass,
  Inbox,
  logLine,
  type RunOutcome,
  traced,
  tracingIfObserved,
} from '@paywire/core/engine'
import { confirmByLookup, needsConfirmation, type TransStatusLookup } from './callback-confirm.js'
import type { CallbackEvent, CallbackOptions } from './callback-event.js'
import { DEFAULT_CALLBACK_MAX_BYTES } from './callback-limits.js'
import { answer, type CallbackResponse, type NodeRequestLike, readFetchBody, readNodeBody } from './callback-read.js'
import { checkStoreFields, eventOf, type FieldEncryption, peekEvent, recordOf } from './callback-record.js'
import { callbackMessage, word } from './callback-telemetry.js'
import { CardGatewayError } from './errors.js'

/** What the inbox needs of `gw.callbacks`: the verification of a raw body into its event. */
export interface CallbackVerifier {
  verify(rawBody: string | Buffer | Uint8Array, options?: CallbackOptions): CallbackEvent
}

export type { CallbackResponse, NodeRequestLike } from './callback-read.js'
export type { FieldEncryption } from './callback-record.js'

/** What `onEvent` is told besides the event: its key in the store, this run's attempt, when it came. */
export interface CallbackContext {
  /**
   * The event's key in the inbox's store: pass it to `PostgresInbox.runOnce`, so your effects and
   * the inbox agree on what one event is.
   */
  readonly key: string
  /** This run's attempt, from 1 (counted before the run starts). */
  readonly attempt: number
  /** When the event was first recorded, in ms since the epoch (kept across retries). */
  readonly receivedAt: number
}

/** An event set aside after `maxAttempts` runs without success, as `handler.failedEvents()` lists it. */
export interface FailedCallback {
  /** What `handler.retry(key)` takes. */
  readonly key: string
  /** The payment's order (`order_number` or `order_id`). */
  readonly ref: string
  readonly receivedAt: number
  readonly attempts: number
  /** The last run's error, class and message. */
  readonly lastError: string | undefined
  /** The stored fields, or `undefined` when they cannot be read (an `encryption` that fails). */
  readonly event: CallbackEvent | undefined
}

/** Options of `gw.callbacks.handler()`. */
export interface CallbackHandlerOptions extends CallbackOptions {
  /**
   * Your processing of a verified event: runs after the answer, from the stored record, until it
   * returns (at most `maxAttempts` times when it keeps throwing). Make it idempotent (with
   * `PostgresInbox.runOnce(context.key, …)`, or a unique index): a run whose process dies before
   * its done mark is stored runs again. `event.hash` is empty: the hash was verified on receipt.
   */
  onEvent(event: CallbackEvent, context: CallbackContext): Promise<void> | void
  /**
   * Where events are recorded: `PostgresClaimStore` or `RedisClaimStore`, shared by every instance of
   * your service. Default: a `MemoryClaimStore`, which a crash empties (it warns outside tests).
   */
  store?: ClaimStore
  /** `onEvent`s running at once on this instance (the bound limits running, never accepting). Default 8. */
  concurrency?: number
  /**
   * A run's lease in ms, renewed every third of it while `onEvent` runs: when its process dies,
   * another instance takes the event once the lease ends. Default 60 000.
   */
  holdMs?: number
  /** How long a done key is remembered, so redeliveries are answered without running, in ms. Default 7 days. */
  keepMs?: number
  /**
   * Runs of one event before it is set aside as dead (`onError` hears it, `failedEvents()` lists it,
   * `retry(key)` runs it again). A run that throws counts, and so does one whose process died (an
   * event that kills its process stops there instead of killing every instance in turn); one that
   * failed while the store was unreachable does not. Default 8.
   */
  maxAttempts?: number
  /** Delays between runs of a failing event: `baseDelayMs` (default 1 000) times 4 per attempt, at most `maxDelayMs` (default 15 minutes), ±20 %. */
  retryBackoff?: { baseDelayMs?: number; maxDelayMs?: number }
  /**
   * How often this handler looks for events to recover (a dead instance's, and failed runs whose
   * retry time came), in ms, jittered ±50 %; it also prunes done keys hourly. `0` turns the interval
   * off: call `handler.recover()` from a scheduler (serverless). Default 30 000.
   */
  recoverEveryMs?: number
  /** Fields to store besides `CALLBACK_STORED_FIELDS` (a field your account adds that `onEvent` reads). */
  storeFields?: readonly string[]
  /** Encrypts the stored fields with your own keys. */
  encryption?: FieldEncryption
  /**
   * Hears every failure: an `onEvent` that threw (it runs again later), an event set aside
   * (`DeadLetterError`), a store that failed, and on card-md5-strrev a confirming lookup that failed
   * or a callback whose claimed state differs from the lookup (field names only). Without it, the
   * client's logger hears them at warn (or `console.error`), with the event's ids only.
   */
  onError?(error: unknown, event: CallbackEvent | undefined): void
  /** The monotonic clock of the store's retries (tests inject one). Default: the real clock. */
  clock?: Clock
}

/** The structural part of Node's `ServerResponse` the adapters write. */
export interface NodeResponseLike {
  writeHead(status: number, headers: Record<string, string>): unknown
  end(body: string): unknown
}

const DEFAULT_CONCURRENCY = 8
const DEFAULT_HOLD_MS = 60_000
// A week covers every redelivery schedule published for such gateways; a done key costs ~100 bytes.
const DEFAULT_KEEP_MS = 7 * 24 * 60 * 60 * 1000
const DEFAULT_MAX_ATTEMPTS = 8
const DEFAULT_BACKOFF = { baseDelayMs: 1_000, maxDelayMs: 15 * 60 * 1000 }
const DEFAULT_RECOVER_EVERY_MS = 30_000

function refuse(path: string, message: string): never {
  throw new RequestValidationError('callbacks.handler', [{ path, message }], 'options')
}

function whole(name: string, value: number | undefined, fallback: number, min: number): number {
  if (value === undefined) return fallback
  if (!Number.isSafeInteger(value) || value < min) refuse(name, `must be a whole number >= ${min}`)
  return value
}

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
  ) {
    if (typeof options?.onEvent !== 'function') refuse('onEvent', 'must be a function')
    const encryption = options.encryption
    if (
      encryption !== undefined &&
      (typeof encryption?.encrypt !== 'function' || typeof encryption?.decrypt !== 'function')
    ) {
      refuse('encryption', 'must have encrypt(text) and decrypt(text) functions')
    }
    const backoff = options.retryBackoff ?? {}
    const baseDelayMs = whole('retryBackoff.baseDelayMs', backoff.baseDelayMs, DEFAULT_BACKOFF.baseDelayMs, 1)
    const maxDelayMs = whole('retryBackoff.maxDelayMs', backoff.maxDelayMs, DEFAULT_BACKOFF.maxDelayMs, baseDelayMs)
    this.#callbacks = callbacks
    this.#lookup = lookup
    this.#options = options
    this.#logger = logger
    this.#encryption = encryption
    this.#fields = checkStoreFields(options.storeFields)
    const clock = options.clock ?? systemClock
    this.#inbox = new Inbox({
      service: 'card-gateway',
      operation: 'callbacks.handler',
      store: options.store ?? new MemoryClaimStore({ clock }),
      concurrency: whole('concurrency', options.concurrency, DEFAULT_CONCURRENCY, 1),
      holdMs: whole('holdMs', options.holdMs, DEFAULT_HOLD_MS, 1),
      keepMs: whole('keepMs', options.keepMs, DEFAULT_KEEP_MS, 1),
      maxAttempts: whole('maxAttempts', options.maxAttempts, DEFAULT_MAX_ATTEMPTS, 1),
      backoff: { baseDelayMs, maxDelayMs },
      recoverEveryMs: whole('recoverEveryMs', options.recoverEveryMs, DEFAULT_RECOVER_EVERY_MS, 0),
      clock,
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
   */
  handle(rawBody: string | Buffer | Uint8Array): Promise<CallbackResponse> {
    // paywire:callback, only when someone subscribes: the answer and the event's type, never its body.
    const channel = tracingIfObserved('callback')
    if (channel === undefined) return this.#handle(rawBody, undefined)
    const message = callbackMessage()
    return traced(
      channel,
      message,
      () => this.#handle(rawBody, message),
      (m, r) => {
        if (r.ok) {
          m.status = r.value.status
          m.answer = r.value.body.split(':')[0]
        } else m.errorType = errorClass(r.error)
      },
    )
  }

  async #handle(rawBody: string | Buffer | Uint8Array, traced: CallbackMessage | undefined): Promise<CallbackResponse> {
    let event: CallbackEvent
    try {
      event = this.#callbacks.verify(rawBody, this.#options)
    } catch (error) {
      if (error instanceof SignatureVerificationError) {
        return answer(error.reason === 'body_too_large' ? 413 : 400, error.reason)
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
      .then((body) => (typeof body === 'string' || body instanceof Uint8Array ? this.handle(body) : body))
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

  /** Fetch API (Next.js route handlers, Hono, Bun, Deno): `export const POST = handler.fetch`. */
  readonly fetch = async (request: Request): Promise<Response> => {
    const body = await readFetchBody(request, this.#options.maxBodyBytes ?? DEFAULT_CALLBACK_MAX_BYTES)
    const response = body instanceof Uint8Array ? await this.handle(body) : body
    return new Response(response.body, { status: response.status, headers: response.headers })
  }

  /** One run of a stored event: a card-md5-strrev S2S callback is confirmed and filed; any other reaches `onEvent`. */
  async #run(stored: StoredEvent, attempt: number): Promise<RunOutcome> {
    const event = await eventOf(stored.fields, this.#encryption)
    this.#current.set(stored.key, event)
    try {
      if (needsConfirmation(event)) return await this.#confirm(event)
      await this.#options.onEvent(event, { key: stored.key, attempt, receivedAt: stored.receivedAt })
      return { kind: 'done' }
    } finally {
      this.#current.delete(stored.key)
    }
  }

  /**
   * Confirms an S2S callback on card-md5-strrev by a status lookup, after the answer (its hash
   * leaves the state unsigned, so a replayed genuine body with an edited status would otherwise
   * pass), and files the confirmed event under the key of the state the gateway reports: that
   * record is what runs `onEvent`, once per confirmed state. A lookup that cannot be made is tried
   * again with backoff (not counted); one the gateway refuses (no such transaction, or the lookup's
   * own hash refused: a configuration fault) is counted, and set aside after `maxAttempts`.
   */
  async #confirm(event: CallbackEvent): Promise<RunOutcome> {
    const confirmation = this.#lookup
      ? await confirmByLookup(event, this.#lookup)
      : { kind: 'failed' as const, error: new PaywireError('no status lookup is configured') }
    if (confirmation.kind === 'confirmed') {
      if (confirmation.disagreements.length > 0) {
        // Names only: the claimed values are an attacker's or a stale delivery's, never repeated.
        const fields = confirmation.disagreements.join(', ')
        this.#report(
          new PaywireError(
            `callbacks.handler: the callback's ${fields} differ from the gateway's status lookup; the event carries the confirmed state`,
          ),
          confirmation.event,
        )
      }
      const filed = await this.#accept(confirmation.event)
      if (filed === 'recorded' || filed === 'done') return { kind: 'done' }
      return {
        kind: 'later',
        counted: false,
        error: new PaywireError(`callbacks.handler: the confirmed event could not be filed (${filed}); tried again`),
      }
    }
    if (confirmation.kind === 'failed') {
      return {
        kind: 'later',
        counted: false,
        error: new PaywireError(
          'callbacks.handler: the status lookup confirming this callback failed; it is tried again with backoff',
          { cause: confirmation.error },
        ),
      }
    }
    const hashRefused = confirmation.error instanceof CardGatewayError && confirmation.error.reason === 'hash_invalid'
    return {
      kind: 'later',
      counted: true,
      error: new PaywireError(
        hashRefused
          ? "callbacks.handler: the gateway refused the confirming status lookup's hash: a configuration fault (the password, the signature scheme, or payerLookup's data for this transaction); tried again, and set aside after maxAttempts"
          : 'callbacks.handler: the gateway knows no transaction by this callback trans_id; tried again, and set aside after maxAttempts',
        { cause: confirmation.error },
      ),
    }
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
