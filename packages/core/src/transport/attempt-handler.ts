/**
 * One attempt's handler for undici's `dispatch`, on undici's public handler interface
 * (`onRequestStart`, `onResponseStart`, `onResponseData`, `onResponseEnd`, `onResponseError`), so
 * an undici minor release that reworks its own request handler cannot change what it tells us. It
 * knows what the transport needs and undici's `request()` does not say: whether undici began writing
 * the request (it calls `onRequestStart` right before it writes it on a socket it holds, after
 * connecting and after any wait for a free one), and it ends an attempt at once on its deadline or
 * signal, even one still waiting for a socket (undici then drops it unwritten when its turn comes).
 * The body is gathered as it arrives, within `maxResponseBytes`, with no stream in between.
 */

import type { Dispatcher } from 'undici'
import type { Loan, Waiter } from './kept-connections.js'

/** Ends an attempt: the deadline or the caller's signal fired. */
export interface AbortSource {
  readonly aborted: boolean
  on(event: 'abort', listener: () => void): unknown
}

/** A final answer's status line and headers, as undici parsed them. */
export interface ResponseHead {
  readonly statusCode: number
  readonly headers: Record<string, string | string[] | undefined>
}

/** The body went past `maxResponseBytes` while it was read: the transport turns it into `ResponseTooLargeError`. */
export class BodyTooLarge extends Error {
  override readonly name = 'BodyTooLarge'
}

/** The error an aborted attempt fails with, as undici's own `RequestAbortedError` reads. */
function abortedError(): Error {
  return Object.assign(new Error('Request aborted'), { name: 'AbortError', code: 'UND_ERR_ABORTED' })
}

/** UTF-8 text of the body, without a leading byte order mark (as undici's `text()` reads it). */
function decode(chunks: readonly Buffer[], size: number): string {
  const bytes = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size)
  const start = size >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0
  return bytes.toString('utf8', start, size)
}

/** How a promise made here is settled from undici's callbacks. */
interface Settle<T> {
  readonly resolve: (value: T) => void
  readonly reject: (error: Error) => void
}

/**
 * undici's raw header list (name, value, name, value…) as undici's own public path reads it: names
 * lower-cased, a repeated one's values in an array, bytes read as Latin-1, and a name such as
 * `constructor` or `__proto__` kept as a header like any other.
 */
function headersOf(raw: readonly (Buffer | string)[]): Record<string, string | string[]> {
  const headers: Record<string, string | string[]> = {}
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = text(raw[i]).toLowerCase()
    const value = text(raw[i + 1])
    const seen = Object.hasOwn(headers, name) ? headers[name] : undefined
    if (seen === undefined)
      Object.defineProperty(headers, name, { value, enumerable: true, writable: true, configurable: true })
    else if (Array.isArray(seen)) seen.push(value)
    else headers[name] = [seen, value]
  }
  return headers
}

function text(part: Buffer | string | undefined): string {
  return typeof part === 'string' ? part : part === undefined ? '' : part.toString('latin1')
}

/** The controller of a dispatcher that calls the former methods: only `abort` is used here. */
function legacyController(abort: (error?: Error) => void): Dispatcher.DispatchController {
  let aborted = false
  let reason: Error | null = null
  return {
    get aborted() {
      return aborted
    },
    get reason() {
      return reason
    },
    get paused() {
      return false
    },
    abort(error: Error) {
      if (aborted) return
      aborted = true
      reason = error
      abort(error)
    },
    pause() {},
    resume() {},
  }
}

/** What the attempt is told besides its answer. */
export interface AttemptHandlerOptions {
  /** The request's subject (`HttpRequest.subject`), recorded on the kept-alive connection it is written on. */
  readonly subject: string | undefined
  /** Bytes of body read at most; past it the body fails with `BodyTooLarge`. */
  readonly maxBytes: number
  /** Told each interim (1xx) status, for the failure's description. */
  readonly onInterim: (statusCode: number) => void
}

/** See the file's comment. Also a kept-alive pool's waiter: it is started on the connection lent to it. */
export class AttemptHandler implements Dispatcher.DispatchHandler, Waiter {
  /** Whether undici began writing the request to a socket. */
  written = false
  /** The kept-alive connection it was started on (`start`), told as the request is written. */
  loan: Loan | undefined = undefined
  /** The final answer's status and headers (resolves once), or why none came. */
  readonly head: Promise<ResponseHead>
  readonly #options: Dispatcher.DispatchOptions
  readonly #settings: AttemptHandlerOptions
  #controller: Dispatcher.DispatchController | undefined
  /** Why the attempt failed, once it did: nothing after that reaches the caller. */
  #failure: Error | undefined
  #headArrived = false
  readonly #headSettle: Settle<ResponseHead>
  readonly #chunks: Buffer[] = []
  #size = 0
  /** The body's text once it ended whole. */
  #text: string | undefined
  /** The one promise `text()` answers, made when first asked; settled by the end or the failure. */
  #body: Promise<string> | undefined
  #bodySettle: Settle<string> | undefined

  constructor(options: Dispatcher.DispatchOptions, signal: AbortSource, settings: AttemptHandlerOptions) {
    this.#options = options
    this.#settings = settings
    let settle: Settle<ResponseHead> | undefined
    this.head = new Promise<ResponseHead>((resolve, reject) => {
      settle = { resolve, reject }
    })
    this.#headSettle = settle as Settle<ResponseHead>
    if (signal.aborted) this.abort(abortedError())
    else signal.on('abort', () => this.abort(abortedError()))
  }

  /** Whether the attempt ended before its answer: given up (deadline, signal) or failed. */
  get failed(): boolean {
    return this.#failure !== undefined
  }

  /** A kept-alive connection came free for it (kept-connections.ts): the request goes on it. */
  start(loan: Loan): void {
    this.loan = loan
    loan.dispatcher.dispatch(this.#options, this)
  }

  /** Given up while it waited for a connection: it is skipped, never started. */
  gone(): boolean {
    return this.#failure !== undefined
  }

  /** Fails the attempt before it was handed to undici (the pool it waited in closed): nothing was written. */
  refuse(error: Error): void {
    this.abort(error)
  }

  /**
   * Ends the attempt with `reason`: at once for the caller, whatever undici does next. On a socket,
   * undici aborts the request there; still waiting for one, undici finds it aborted when its turn
   * comes (`onRequestStart`) and drops it unwritten.
   */
  abort(reason: Error): void {
    if (this.#failure !== undefined || this.#text !== undefined) return
    this.#fail(reason)
    this.#controller?.abort(reason)
  }

  /** The body as text, once it ended whole within `maxBytes` (after `head`). */
  text(): Promise<string> {
    if (this.#body !== undefined) return this.#body
    if (this.#text !== undefined) this.#body = Promise.resolve(this.#text)
    else if (this.#failure !== undefined) this.#body = Promise.reject(this.#failure)
    else {
      this.#body = new Promise((resolve, reject) => {
        this.#bodySettle = { resolve, reject }
      })
    }
    return this.#body
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.#controller = controller
    // undici writes the request right after this, unless the attempt was aborted already.
    if (this.#failure !== undefined) {
      controller.abort(this.#failure)
      return
    }
    this.written = true
    this.loan?.written(this.#settings.subject)
  }

  onResponseStart(
    controller: Dispatcher.DispatchController,
    statusCode: number,
    headers: Record<string, string | string[] | undefined>,
  ): void {
    if (this.#failure !== undefined) return
    if (statusCode < 200) {
      this.#settings.onInterim(statusCode)
      return
    }
    this.#controller = controller
    this.#headArrived = true
    this.#headSettle.resolve({ statusCode, headers })
  }

  onResponseData(_controller: Dispatcher.DispatchController, chunk: Buffer): void {
    // An interim answer's bytes are not the body.
    if (this.#failure !== undefined || !this.#headArrived) return
    this.#size += chunk.length
    if (this.#size > this.#settings.maxBytes) {
      this.abort(new BodyTooLarge(`the body went past ${this.#settings.maxBytes} bytes`))
      return
    }
    this.#chunks.push(chunk)
  }

  onResponseEnd(): void {
    if (this.#failure !== undefined) return
    // Ended after interim answers only: no final answer will come, and the call must not wait for one.
    if (!this.#headArrived) {
      this.#fail(new Error('the answer ended without a final status'))
      return
    }
    this.#text = decode(this.#chunks, this.#size)
    this.#chunks.length = 0
    this.#bodySettle?.resolve(this.#text)
  }

  onResponseError(_controller: Dispatcher.DispatchController | undefined, error: Error): void {
    if (this.#failure !== undefined || this.#text !== undefined) return
    this.#fail(error)
  }

  // undici's former handler methods, which a dispatcher of the caller's own may still call (every
  // undici dispatcher calls the ones above): each is the same step.

  onConnect(abort: (error?: Error) => void): void {
    this.onRequestStart(legacyController(abort))
  }

  onHeaders(statusCode: number, rawHeaders: readonly (Buffer | string)[]): boolean {
    this.onResponseStart(this.#controller as Dispatcher.DispatchController, statusCode, headersOf(rawHeaders))
    return true
  }

  onData(chunk: Buffer | Uint8Array): boolean {
    // A dispatcher of the caller's own may hand a plain Uint8Array: read as the bytes it views.
    const bytes = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength)
    this.onResponseData(this.#controller as Dispatcher.DispatchController, bytes)
    return true
  }

  onComplete(): void {
    this.onResponseEnd()
  }

  onError(error: Error): void {
    this.onResponseError(this.#controller, error)
  }

  /** The failure goes to whoever waits: the head's caller before the headers, the body's after. */
  #fail(error: Error): void {
    this.#failure = error
    this.#chunks.length = 0
    if (!this.#headArrived) this.#headSettle.reject(error)
    else this.#bodySettle?.reject(error)
  }
}
