/**
 * The callback inbox: verify the raw body, claim the platform's dedupe key, answer `OK` at once
 * (five time-outs block the URL for every merchant on it), then run the merchant's `onEvent` once
 * per key across every instance sharing the claim store. A delivery is acknowledged only when this
 * instance starts `onEvent` or the key is already done: never while the event is left unprocessed.
 */

import {
  type CallbackMessage,
  type ClaimState,
  type ClaimStore,
  type Clock,
  claimToken,
  type Logger,
  MemoryClaimStore,
  PaywireError,
  RequestValidationError,
  SignatureVerificationError,
  systemClock,
} from '@paywire/core'
import { errorClass, logLine, traced, tracingIfObserved } from '@paywire/core/engine'
import { confirmByLookup, confirmedDedupeKey, needsConfirmation, type TransStatusLookup } from './callback-confirm.js'
import { type CallbackEvent, type CallbackOptions, dedupeKey } from './callback-event.js'
import { DEFAULT_CALLBACK_MAX_BYTES } from './callback-limits.js'
import { answer, type CallbackResponse, type NodeRequestLike, readFetchBody, readNodeBody } from './callback-read.js'
import { callbackMessage, claimEvent, word } from './callback-telemetry.js'

/** What the inbox needs of `gw.callbacks`: the verification of a raw body into its event. */
export interface CallbackVerifier {
  verify(rawBody: string | Buffer | Uint8Array, options?: CallbackOptions): CallbackEvent
}

export type { CallbackResponse, NodeRequestLike } from './callback-read.js'

/** Options of `gw.callbacks.handler()`. */
export interface CallbackHandlerOptions extends CallbackOptions {
  /**
   * Your processing of a verified event: runs after the answer, once per dedupe key. Make it
   * idempotent by the event's id: it runs a second time only when the store could not record it as
   * done within `holdMs` (Redis unreachable for the whole hold, or `onEvent` slower than `holdMs`),
   * and `onError` hears of it then.
   */
  onEvent(event: CallbackEvent): Promise<void> | void
  /** Shared by every instance of your service (`RedisClaimStore`); default: one in-memory store per handler. */
  store?: ClaimStore
  /**
   * How long a claim is held while `onEvent` runs, in ms; size it above your slowest `onEvent`. A
   * claim whose holder lost its connection to the store expires after it, and a redelivery then runs
   * the event. Default 60 000.
   */
  holdMs?: number
  /** How long a processed key is remembered, so redeliveries are dropped, in ms. Default 7 days. */
  keepMs?: number
  /**
   * Hears an `onEvent` that threw or a store that failed. The gateway already had its `200`, so record
   * the event here for a retry; without `onError`, it is written to `console.error` (identity only).
   * On card-md5-strrev it also hears a status lookup that failed (answered 503) or knew no such
   * transaction (400), and a callback whose claimed state differs from the lookup (field names only).
   */
  onError?(error: unknown, event: CallbackEvent | undefined): void
  /** The monotonic clock that times retries of the store (tests inject a fake one). Default: the real clock. */
  clock?: Clock
}

/** The structural part of Node's `ServerResponse` the adapters write. */
export interface NodeResponseLike {
  writeHead(status: number, headers: Record<string, string>): unknown
  end(body: string): unknown
}

const DEFAULT_HOLD_MS = 60_000
/**
 * A claim is sent up to this many times, with the same token, before the delivery is answered 503:
 * a claim whose reply was lost on a dropped connection ran, and only its token can recognise it.
 */
const CLAIM_ATTEMPTS = 3
/** Pauses between attempts at the store: doubling from the first, never above the last. */
const FIRST_PAUSE_MS = 20
const MAX_PAUSE_MS = 1_000
const STATES: ReadonlySet<unknown> = new Set<ClaimState>(['claimed', 'held', 'done'])
// A week covers every redelivery schedule published for such gateways, and a key costs ~100 bytes.
const DEFAULT_KEEP_MS = 7 * 24 * 60 * 60 * 1000

function refuse(path: string, message: string): never {
  throw new RequestValidationError('callbacks.handler', [{ path, message }], 'options')
}

function checkDuration(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback
  if (!Number.isSafeInteger(value) || value < 1) refuse(name, 'must be a whole number of ms >= 1')
  return value
}

/**
 * A framework-neutral callback endpoint. `handle(rawBody)` gives the answer to send; the adapters
 * (`node`, `fetch`) read the raw body themselves and send it. `onEvent` runs after the answer:
 * `drain()` waits for the runs in progress (graceful shutdown, tests).
 */
export class CallbackHandler {
  readonly #callbacks: CallbackVerifier
  readonly #options: CallbackHandlerOptions
  readonly #store: ClaimStore
  readonly #holdMs: number
  readonly #keepMs: number
  readonly #running = new Set<Promise<void>>()
  readonly #logger: Logger | undefined
  readonly #clock: Clock
  readonly #lookup: TransStatusLookup | undefined

  /** @internal */
  constructor(
    callbacks: CallbackVerifier,
    options: CallbackHandlerOptions,
    logger?: Logger,
    lookup?: TransStatusLookup,
  ) {
    if (typeof options?.onEvent !== 'function') refuse('onEvent', 'must be a function')
    this.#callbacks = callbacks
    this.#lookup = lookup
    this.#options = options
    this.#logger = logger
    this.#clock = options.clock ?? systemClock
    this.#store = options.store ?? new MemoryClaimStore({ clock: this.#clock })
    this.#holdMs = checkDuration('holdMs', options.holdMs, DEFAULT_HOLD_MS)
    this.#keepMs = checkDuration('keepMs', options.keepMs, DEFAULT_KEEP_MS)
  }

  /**
   * Verifies `rawBody` (refused: 400 with the reason only, never the body), claims its dedupe key with
   * a fresh token and answers: 200 `OK` when this instance now holds the key (`onEvent` starts right
   * after) or the key is done (nothing run); 503 `in_progress` while another claim holds it (being
   * processed, or held by a holder that lost its connection, until its `holdMs` ends); 503
   * `store_unavailable` when the store failed every attempt. A 503 makes the gateway deliver again.
   * A card-md5-strrev S2S callback is confirmed by a status lookup before the claim: 503
   * `lookup_unavailable` when the lookup fails, 400 `unknown_transaction` when the gateway knows no
   * such transaction; the key and `onEvent` then use the gateway's state, never the claimed one.
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
    if (needsConfirmation(event)) {
      const confirmed = await this.#confirm(event)
      if ('status' in confirmed) return confirmed
      event = confirmed.event
    }
    if (traced !== undefined) {
      traced.eventType = word(event.type ?? event.action)
      traced.eventStatus = word(event.status)
    }
    const key = `callback:${event.confirmedBy === 'lookup' ? confirmedDedupeKey(event) : dedupeKey(event)}`
    // One token for this delivery: every attempt below sends it, so a claim that ran but whose reply
    // was lost is recognised as ours, not taken for another holder's.
    const token = claimToken()
    const claimedAt = this.#clock.now()
    let state: ClaimState
    try {
      state = await this.#claim(key, token)
    } catch (error) {
      claimEvent('claim', undefined, error)
      this.#report(error, event)
      return answer(503, 'store_unavailable')
    }
    claimEvent('claim', state)
    if (traced !== undefined) traced.claim = state
    if (state === 'held') return answer(503, 'in_progress')
    if (state === 'claimed') this.#track(this.#process(event, key, token, claimedAt + this.#holdMs))
    return answer(200, 'OK')
  }

  /** Resolves when every `onEvent` started so far has finished. */
  async drain(): Promise<void> {
    while (this.#running.size > 0) await Promise.allSettled([...this.#running])
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

  /**
   * The event with the gateway's state, or the answer refusing it: the strrev S2S callback hash
   * leaves the state unsigned, so a replayed genuine body with an edited status would otherwise pass.
   */
  async #confirm(event: CallbackEvent): Promise<{ event: CallbackEvent } | CallbackResponse> {
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
      return { event: confirmation.event }
    }
    const unknown = confirmation.kind === 'unknown'
    this.#report(
      new PaywireError(
        unknown
          ? 'callbacks.handler: the gateway knows no transaction by this callback trans_id; refused (400), onEvent not run'
          : 'callbacks.handler: the status lookup confirming this callback failed; answered 503 so the gateway delivers it again',
        { cause: confirmation.error },
      ),
      event,
    )
    return unknown ? answer(400, 'unknown_transaction') : answer(503, 'lookup_unavailable')
  }

  /** The claim, sent again on a failure with the same token; the last failure is thrown. */
  async #claim(key: string, token: string): Promise<ClaimState> {
    let state: unknown
    for (let attempt = 1; ; attempt++) {
      try {
        state = await this.#store.claim(key, token, this.#holdMs)
        break
      } catch (error) {
        if (attempt >= CLAIM_ATTEMPTS || error instanceof RequestValidationError) throw error
        await this.#clock.sleep(FIRST_PAUSE_MS * 2 ** (attempt - 1))
      }
    }
    if (STATES.has(state)) return state as ClaimState
    // A store written for the former interface answers a token or undefined: never guess.
    throw new PaywireError(
      `callbacks.handler: the claim store answered ${typeof state === 'string' ? 'a string' : String(state)}, not 'claimed', 'held' or 'done' (a ClaimStore's claim(key, token, holdMs) must answer one of them)`,
    )
  }

  async #process(event: CallbackEvent, key: string, token: string, holdEnds: number): Promise<void> {
    try {
      await this.#options.onEvent(event)
    } catch (error) {
      this.#report(error, event)
      // Freed, so the next delivery runs it again at once rather than after the hold.
      await this.#untilAcknowledged(() => this.#store.release(key, token), holdEnds, event, 'release')
      return
    }
    const done = await this.#untilAcknowledged(
      () => this.#store.complete(key, token, this.#keepMs),
      holdEnds,
      event,
      'complete',
    )
    if (done === false) {
      this.#report(
        new PaywireError(
          `callbacks.handler: onEvent finished after its claim of ${key} expired and another delivery took the key, which may run onEvent again (raise holdMs above your slowest onEvent)`,
        ),
        event,
      )
    }
  }

  /**
   * Sends a done mark or a release until the store acknowledges it: the same token makes a repeat
   * harmless, and a mark lost with a dropped connection would let the hold expire and a redelivery
   * run the event again. Tried until the hold ends (after it, another delivery may own the key, and
   * the store's compare-and-set refuses a late mark anyway); then reported, never silent.
   */
  async #untilAcknowledged<T>(
    send: () => Promise<T>,
    holdEnds: number,
    event: CallbackEvent,
    what: 'complete' | 'release',
  ): Promise<T | undefined> {
    for (let attempt = 1; ; attempt++) {
      try {
        const acknowledged = await send()
        claimEvent(what, undefined)
        return acknowledged
      } catch (error) {
        claimEvent(what, undefined, error)
        const left = holdEnds - this.#clock.now()
        if (left <= 0 || error instanceof RequestValidationError) {
          const consequence =
            what === 'complete'
              ? 'the event is not marked done, so a delivery after the hold may run onEvent again'
              : 'the key stays held until the hold ends; deliveries until then are answered 503'
          this.#report(
            new PaywireError(`callbacks.handler: the claim store failed ${what} ${attempt} times: ${consequence}`, {
              cause: error,
            }),
            event,
          )
          return undefined
        }
        await this.#clock.sleep(Math.min(FIRST_PAUSE_MS * 2 ** (attempt - 1), MAX_PAUSE_MS, left))
      }
    }
  }

  #track(run: Promise<void>): void {
    this.#running.add(run)
    void run.finally(() => this.#running.delete(run))
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
  return { id: event.id, trans_id: event.trans_id, type: event.type ?? event.action, status: event.status }
}
