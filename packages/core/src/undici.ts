/// <reference path="./undici-modules.d.ts" />
/**
 * undici's `Agent`, `Client` and request handler, loaded from their own modules rather than undici's main entry:
 * loading the main entry of undici 7 installs its own Agent as the process-wide dispatcher of
 * Node's built-in `fetch` (a global symbol both share), so merely importing paywire would change
 * how the rest of the application's `fetch` calls connect. These modules have no such effect.
 * (Undoing the effect is not possible: the slot cannot be deleted, and setting it back to empty was
 * measured to break Node 20's own `fetch`.) They are private paths: undici is taken as `^7` from the
 * tested version so merchants get its fixes without a paywire release, a test fails if they move,
 * and CI runs it on the newest undici 7 too. Where they cannot be loaded, the client sends with the
 * runtime's `fetch` instead (transport.ts).
 *
 * They are loaded by the first request, not at import (about 50 ms of Node's HTTP stack on the bench
 * machine): a process that imports paywire to verify callbacks, or never calls out, does not pay it.
 * A literal dynamic `import()`, so bundlers still see and include them.
 */

import type { Dispatcher } from 'undici'
import type { RequestHandlerClass } from 'undici/lib/api/api-request.js'
import type { SocketModules } from './connector.js'
import type { Loan, Waiter } from './kept-connections.js'

/** Ends an attempt: the deadline or the caller's signal fired. */
export interface AbortSource {
  readonly aborted: boolean
  on(event: 'abort', listener: () => void): unknown
}

/**
 * undici's handler of one `request`, plus what the attempt needs to know: whether undici began
 * writing the request. undici calls `onConnect` on the handler right before it writes the request on
 * a socket it holds (after connecting, and after any wait for a free socket); a request aborted
 * before that is dropped without a byte written.
 */
export interface AttemptHandler extends Dispatcher.DispatchHandler, Waiter {
  /** Whether undici began writing the request to a socket. */
  readonly written: boolean
  /** The kept-alive connection it was started on (`start`), told as the request is written (`Loan.written`). */
  readonly loan: Loan | undefined
}

export interface AttemptHandlerClass {
  new (
    options: Dispatcher.RequestOptions,
    signal: AbortSource,
    callback: (error: Error | null, data: Dispatcher.ResponseData) => void,
    subject?: string,
  ): AttemptHandler
}

/** The undici exports every request needs, and the Node modules its connections are opened with (connector.ts). */
export interface Transport {
  readonly Agent: typeof import('undici').Agent
  /** One connection each: the client's kept-alive connections are lent one by one (kept-connections.ts). */
  readonly Client: typeof import('undici').Client
  readonly AttemptHandler: AttemptHandlerClass
  readonly sockets: SocketModules
}

let loaded: Transport | undefined
let loading: Promise<Transport> | undefined

/** undici's Agent and request handler, loaded once per process by whichever request comes first. */
export function loadTransport(): Transport | Promise<Transport> {
  if (loaded) return loaded
  loading ??= Promise.all([
    import('undici/lib/dispatcher/agent.js'),
    import('undici/lib/dispatcher/client.js'),
    import('undici/lib/api/api-request.js'),
    import('node:net'),
    import('node:tls'),
  ]).then(
    ([agent, client, request, net, tls]) => {
      loaded = {
        Agent: agent.default,
        Client: client.default,
        AttemptHandler: attemptHandler(request.default.RequestHandler),
        sockets: { net, tls },
      }
      return loaded
    },
    (error: unknown) => {
      loading = undefined // a broken install can be mended without restarting: the next request tries again
      throw error
    },
  )
  return loading
}

/** The error an aborted attempt fails with inside undici, as undici's own `RequestAbortedError` reads. */
function abortedError(): Error {
  return Object.assign(new Error('Request aborted'), { name: 'AbortError', code: 'UND_ERR_ABORTED' })
}

function ignore(): void {}

/**
 * undici's `RequestHandler` (what `undici.request` uses) with the abort handled here instead of by
 * its own signal listener, which does nothing to a request still waiting for a socket: such a call
 * would only fail once a socket came free (after its deadline, possibly much later). Here it fails
 * at once, and undici drops it unwritten when its turn comes (`onConnect` finds the reason set).
 */
function attemptHandler(RequestHandler: RequestHandlerClass): AttemptHandlerClass {
  return class extends RequestHandler implements AttemptHandler {
    written = false
    loan: Loan | undefined = undefined
    readonly #options: Dispatcher.RequestOptions
    /** The request's subject (`HttpRequest.subject`), recorded on the connection it is written on. */
    readonly #subject: string | undefined

    constructor(
      options: Dispatcher.RequestOptions,
      signal: AbortSource,
      callback: (error: Error | null, data: Dispatcher.ResponseData) => void,
      subject?: string,
    ) {
      super(options, callback)
      this.#options = options
      this.#subject = subject
      if (signal.aborted) this.#abort(abortedError())
      else signal.on('abort', () => this.#abort(abortedError()))
    }

    /** A kept-alive connection came free for it (kept-connections.ts): the request goes on it. */
    start(loan: Loan): void {
      this.loan = loan
      loan.dispatcher.dispatch(this.#options, this)
    }

    /** Given up (its deadline or signal) while it waited for a connection: it is skipped, never started. */
    gone(): boolean {
      return this.reason !== null
    }

    override onConnect(abort: (error?: Error) => void, context?: object): void {
      // undici writes the request right after this, unless the attempt was aborted already.
      if (this.reason === null) {
        this.written = true
        this.loan?.written(this.#subject)
      }
      super.onConnect(abort, context)
    }

    refuse(error: Error): void {
      this.#abort(error)
    }

    #abort(reason: Error): void {
      if (this.reason !== null) return
      this.reason = reason
      if (this.res) this.res.on('error', ignore).destroy(reason)
      else if (this.abort) this.abort(reason)
      else this.onError(reason) // waiting for a socket or still connecting: nothing was written
    }
  }
}

/**
 * What URL parsing leaves unchanged: visible ASCII other than the characters it percent-encodes
 * (` "<>\`{}|^`, and `'` in a query), no fragment, and no `.` or `..` path segment, literal or `%2e` (parsing resolves them).
 */
const PARSED_FORM = /^[!$%&()*+,\-./0-9:;=?@A-Z[\]_a-z~]*$/
const DOT_SEGMENT = /\/(?:\.|%2e){1,2}(?:[/?]|$)/i

/**
 * `https://host:port/path?query` → origin and path (`/` when there is none), for the dispatcher's own
 * `request`. The SDK's URLs are normally in URL-parsed form already (a checked base URL, encoded path
 * segments and query), so they are split at the first `/` after the host; any other URL (a configured
 * path with a space, `..` or `#`) is parsed with `URL`, as undici's `request(url)` would.
 */
export function splitUrl(url: string): { origin: string; path: string } {
  const hostStart = url.indexOf('//') + 2
  const pathStart = url.indexOf('/', hostStart)
  if (pathStart === -1 || !PARSED_FORM.test(url) || DOT_SEGMENT.test(url.slice(pathStart))) {
    const parsed = new URL(url)
    return { origin: parsed.origin, path: `${parsed.pathname}${parsed.search}` }
  }
  return { origin: url.slice(0, pathStart), path: url.slice(pathStart) }
}
