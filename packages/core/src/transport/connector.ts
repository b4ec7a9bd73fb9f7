/**
 * How the client's own pools open connections. A money-moving call opens a connection of its own
 * on HTTP/1.1 (transport.ts), so what a new connection costs is paid by every payment; this connector
 * makes that as little as is safe:
 * - **HTTP/2 when the gateway offers it** (ALPN `h2`, then `http/1.1`): each request has a stream of
 *   its own, and its answer comes on that stream only, so no answer can be taken for another
 *   request's and every call may reuse the connection (a payment then costs no handshake while the
 *   connection is under 2 s old: transport.ts renews the money calls' pool then).
 *   undici speaks HTTP/2 on a socket that negotiated it, and HTTP/1.1 otherwise.
 * - **The origin's last TLS session is resumed.** undici's connector keeps sessions per pool member
 *   and holds them weakly (a collected session is a full handshake): one payment per connection
 *   resumed almost none of them (bench/tls.ts). Here one session per origin is held until a newer one replaces
 *   it, shared by all the client's pools, so every handshake after the first resumes (an
 *   abbreviated handshake: no certificate sent or verified).
 * - **One TLS context per client.** `tls.connect` without one builds a context per socket (OpenSSL's
 *   SSL_CTX, the default trust store attached): a large share of a resumed connection's CPU (bench/README.md). The
 *   context holds only Node's defaults (trust store, protocol versions, ciphers), rebuilt when the
 *   application changes them, so sharing it changes nothing a connection checks: each one still
 *   verifies the gateway's certificate and host name (`tls-connections.test.ts`).
 * - **Never TLS early data (0-RTT)**: data sent before the handshake ends can be replayed by anyone
 *   on the path, and a replayed POST moves money twice. Node's TLS client sends none; nothing here
 *   asks for it.
 * - **At most `maxSockets` sockets to an origin, counted until each has closed.** undici's pool caps
 *   its members, not their sockets: a one-request member opens its next socket while the last one
 *   still closes, so a cap of 16 left several times 16 sockets open over TLS (bench/tls.ts). A connection waits for
 *   a slot instead, within the connect time limit.
 * - **The gateway's host name is looked up once per 10 s, not once per connection** (addresses.ts),
 *   and again as soon as a connection to its addresses fails.
 */

import type { buildConnector } from 'undici'
import type { Lookup, RecentAddresses } from './addresses.js'
import { keepNewest } from './kept-newest.js'

/** The Node modules a connection needs, loaded with undici by the first request (undici.ts). */
export interface SocketModules {
  readonly net: typeof import('node:net')
  readonly tls: typeof import('node:tls')
  readonly dns: typeof import('node:dns')
}

/** What the client offers in the TLS handshake, preferred first: the gateway picks. */
const ALPN = ['h2', 'http/1.1']

/** Sessions kept for this many origins at most (the least recently stored goes first). */
const MAX_ORIGINS = 64

/** What the TLS connections of one client share: one context, and the last session of each origin. */
export class ClientTls {
  readonly #sessions = new Map<string, Buffer>()
  #context: import('node:tls').SecureContext | undefined
  #contextDefaults: readonly unknown[] = []

  /**
   * Node's default context: what `tls.connect` would build for each connection, built again when
   * the application changes Node's TLS defaults (versions, ciphers, curves, and the trust store
   * where Node can change it, 22.15 and later), as each `tls.connect` would read them then. Sessions
   * kept from before such a change are dropped, so the next handshake is verified under the new ones.
   */
  context(tls: typeof import('node:tls')): import('node:tls').SecureContext {
    const defaults = tlsDefaults(tls)
    if (this.#context === undefined || defaults.some((value, i) => value !== this.#contextDefaults[i])) {
      this.#context = tls.createSecureContext()
      this.#contextDefaults = defaults
      this.#sessions.clear()
    }
    return this.#context
  }

  session(origin: string): Buffer | undefined {
    return this.#sessions.get(origin)
  }

  keepSession(origin: string, session: Buffer): void {
    keepNewest(this.#sessions, origin, session, MAX_ORIGINS)
  }

  /** Drops `session` unless a newer one replaced it already. */
  forgetSession(origin: string, session: Buffer): void {
    if (this.#sessions.get(origin) === session) this.#sessions.delete(origin)
  }
}

/**
 * What Node builds a default context from and an application may change at run time. The trust
 * store is compared by identity: Node returns the same list until `tls.setDefaultCACertificates`
 * replaces it (Node reads it once per process, then returns the list it keeps; Node 20 has neither).
 */
function tlsDefaults(tls: typeof import('node:tls')): readonly unknown[] {
  // An application sets them on the module object; an ES module namespace (`import('node:tls')`)
  // keeps the values it was loaded with, so they are read where Node itself reads them.
  const live = (tls as { default?: typeof tls }).default ?? tls
  const { getCACertificates } = live as { getCACertificates?: (type: 'default') => readonly string[] }
  return [
    live.DEFAULT_MIN_VERSION,
    live.DEFAULT_MAX_VERSION,
    live.DEFAULT_CIPHERS,
    live.DEFAULT_ECDH_CURVE,
    getCACertificates?.('default'),
  ]
}

/** What one pool's connector is built from. */
export interface ConnectorConfig {
  readonly modules: SocketModules
  readonly shared: ClientTls
  /** The client's recent lookups, shared by all its pools. */
  readonly addresses: RecentAddresses
  /** Sockets open to one origin at most, closing ones included. */
  readonly maxSockets: number
  /** How long a connection may take, its wait for a slot included (undici's `connect.timeout`). */
  readonly timeoutMs: number
}

/** A connection waiting for a slot at its origin: started when one comes free. */
type Waiting = () => void

/** Sockets open (or opening) to one origin, and the connections waiting for one of them to close. */
interface OriginSlots {
  open: number
  readonly waiting: Set<Waiting>
}

/**
 * An undici connector (a pool's `connect` option) that resumes sessions and caps open sockets.
 * Its time limit covers the wait for a slot and the connection itself, as undici's covers the
 * connection: a connection that waited it out is refused without opening anything (its call has
 * usually ended by then), so after an outage nothing stale is opened ahead of live calls.
 */
export function createConnector(config: ConnectorConfig): buildConnector.connector {
  const { modules, shared, addresses, maxSockets, timeoutMs } = config
  const origins = new Map<string, OriginSlots>()
  const lookup = addresses.lookup(modules.dns)
  // A connection that failed before it was established: its host name is looked up again next time.
  const failed = (hostname: string) => addresses.forget(hostname)

  const release = (origin: string, slots: OriginSlots) => {
    // The slot passes from the socket that closed to the longest waiting connection.
    const next = slots.waiting.values().next()
    if (!next.done) {
      slots.waiting.delete(next.value)
      return next.value()
    }
    slots.open--
    if (slots.open === 0) origins.delete(origin)
  }

  return (options, callback) => {
    const origin = `${options.protocol}//${options.hostname}:${options.port}`
    let slots = origins.get(origin)
    if (!slots) {
      slots = { open: 0, waiting: new Set() }
      origins.set(origin, slots)
    }
    const held = slots
    const attempt = new ConnectAttempt(callback, options, timeoutMs, failed)
    const start = () => attempt.open(modules, shared, lookup, () => release(origin, held))
    if (held.open < maxSockets) {
      held.open++
      start()
      return
    }
    held.waiting.add(start)
    attempt.onTimeout(() => {
      held.waiting.delete(start)
      if (held.open === 0 && held.waiting.size === 0) origins.delete(origin)
    })
  }
}

/** `connect`, telling `connected` whether each socket it opens speaks HTTP/2 (its TLS handshake chose `h2`). */
export function tellingProtocol(
  connect: buildConnector.connector,
  connected: (http2: boolean, host: string) => void,
): buildConnector.connector {
  return (options, callback) =>
    connect(options, (error, socket) => {
      if (socket)
        connected(
          (socket as { alpnProtocol?: unknown }).alpnProtocol === 'h2',
          hostKey(options.protocol, options.hostname, options.port),
        )
      ;(callback as (error: Error | null, socket: unknown) => void)(error, socket)
    })
}

/** `protocol//hostname:port`, the default port written out: how a connection and a request name one origin. */
export function hostKey(protocol: string, hostname: string, port: string | number | undefined): string {
  const given = port === undefined || port === '' ? undefined : port
  return `${protocol}//${hostname}:${given ?? (protocol === 'https:' ? 443 : 80)}`
}

/** A request URL's origin, as `hostKey` writes a connection's. */
export function hostOf(url: string): string {
  const { protocol, hostname, port } = new URL(url)
  return hostKey(protocol, hostname, port)
}

/** One connection undici asked for: answered once, by its socket, its error or its time limit. */
class ConnectAttempt {
  #answer: buildConnector.Callback | undefined
  readonly #options: buildConnector.Options
  readonly #port: number
  readonly #tls: boolean
  readonly #timer: ReturnType<typeof setTimeout>
  #socket: import('node:net').Socket | undefined
  #onTimeout: (() => void) | undefined
  readonly #failed: (hostname: string) => void

  constructor(
    callback: buildConnector.Callback,
    options: buildConnector.Options,
    timeoutMs: number,
    failed: (hostname: string) => void,
  ) {
    this.#answer = callback
    this.#options = options
    this.#failed = failed
    this.#tls = options.protocol === 'https:'
    this.#port = Number(options.port) || (this.#tls ? 443 : 80)
    // Fired one turn late, as undici's own: a handshake that completed during a long synchronous
    // task has its events run first, and is not failed for the task's delay.
    this.#timer = setTimeout(() => setImmediate(() => this.#expire(timeoutMs)), timeoutMs)
  }

  /** What to undo when the limit passes before a slot came (the wait is given up). */
  onTimeout(undo: () => void): void {
    this.#onTimeout = undo
  }

  #expire(timeoutMs: number): void {
    if (this.#answer === undefined) return
    const error = connectTimeout(this.#options.hostname, this.#port, timeoutMs)
    if (this.#socket) {
      this.#socket.destroy(error)
      return
    }
    this.#onTimeout?.()
    this.#finish(error, null)
  }

  #finish(...args: [Error, null] | [null, import('node:net').Socket]): void {
    clearTimeout(this.#timer)
    const answer = this.#answer
    this.#answer = undefined
    if (answer !== undefined && args[0] !== null && this.#socket !== undefined) this.#failed(this.#options.hostname)
    if (args[0] === null) answer?.(null, args[1])
    else answer?.(args[0], null)
  }

  /** Opens the socket; `closed` is called once it has closed (or could not be made). */
  open(modules: SocketModules, shared: ClientTls, lookup: Lookup, closed: () => void): void {
    const { net, tls } = modules
    const { hostname } = this.#options
    const port = this.#port
    let socket: import('node:net').Socket
    try {
      if (this.#tls) {
        // A server name is sent only for a host name: SNI does not carry addresses.
        const servername = this.#options.servername || (net.isIP(hostname) ? undefined : hostname)
        const key = `${servername ?? hostname}:${port}`
        // The context first: a change of Node's TLS defaults drops the sessions kept before it.
        const secureContext = shared.context(tls)
        const session = shared.session(key)
        const secure = tls.connect({
          host: hostname,
          port,
          servername,
          session,
          secureContext,
          ALPNProtocols: ALPN,
          lookup,
        })
        secure.on('session', (next: Buffer) => shared.keepSession(key, next))
        // A session whose handshake failed is not offered again (the next handshake is a full one).
        if (session) secure.once('error', () => this.#answer !== undefined && shared.forgetSession(key, session))
        socket = secure
      } else {
        socket = net.connect({ host: hostname, port, lookup })
      }
    } catch (error) {
      closed()
      this.#finish(error as Error, null)
      return
    }
    this.#socket = socket
    socket.once('close', closed)
    socket.setNoDelay(true)
    socket.setKeepAlive(true, 60_000)
    socket.once(this.#tls ? 'secureConnect' : 'connect', () => this.#finish(null, socket))
    socket.on('error', (error: Error) => this.#finish(error, null))
  }
}

/** undici's own error for a connection not opened in time (its code is what the failure is classified by). */
function connectTimeout(hostname: string, port: number, timeoutMs: number): Error {
  return Object.assign(
    new Error(`Connect Timeout Error (attempted address: ${hostname}:${port}, timeout: ${timeoutMs}ms)`),
    { name: 'ConnectTimeoutError', code: 'UND_ERR_CONNECT_TIMEOUT' },
  )
}
