/**
 * How the client's own Agents open connections. A money-moving call opens a connection of its own
 * (transport.ts), so what a new connection costs is paid by every payment; this connector makes that
 * as little as is safe:
 * - **The origin's last TLS session is resumed.** undici's connector keeps sessions per pool member
 *   and holds them weakly (a collected session is a full handshake): one payment per connection
 *   resumed about 2 % of handshakes. Here one session per origin is held until a newer one replaces
 *   it, shared by both Agents of the client, so every handshake after the first resumes (an
 *   abbreviated handshake: no certificate sent or verified, about 40 % less CPU).
 * - **Never TLS early data (0-RTT)**: data sent before the handshake ends can be replayed by anyone
 *   on the path, and a replayed POST moves money twice. Node's TLS client sends none; nothing here
 *   asks for it.
 * - **At most `maxSockets` sockets to an origin, counted until each has closed.** undici's pool caps
 *   its members, not their sockets: a one-request member opens its next socket while the last one
 *   still closes, which measured 63–79 open sockets for a cap of 16 over TLS. A connection waits for
 *   a slot instead; the call's own deadline bounds the wait.
 */

import type { buildConnector } from 'undici'

/** The two Node modules a connection needs, loaded with undici by the first request (undici.ts). */
export interface SocketModules {
  readonly net: typeof import('node:net')
  readonly tls: typeof import('node:tls')
}

/** Sessions kept for this many origins at most (the least recently stored goes first). */
const MAX_ORIGINS = 64

/** The last TLS session of each origin, shared by the connectors of one client. */
export class TlsSessions {
  readonly #sessions = new Map<string, Buffer>()

  get(origin: string): Buffer | undefined {
    return this.#sessions.get(origin)
  }

  set(origin: string, session: Buffer): void {
    this.#sessions.delete(origin)
    this.#sessions.set(origin, session)
    if (this.#sessions.size > MAX_ORIGINS) this.#sessions.delete(this.#sessions.keys().next().value as string)
  }
}

/** What one Agent's connector is built from. */
export interface ConnectorConfig {
  readonly modules: SocketModules
  readonly sessions: TlsSessions
  /** Sockets open to one origin at most, closing ones included. */
  readonly maxSockets: number
  /** How long a connection may take to open once it has a slot (undici's `connect.timeout`). */
  readonly timeoutMs: number
}

/** A connection waiting for a slot at its origin. */
type Waiting = () => void

/** Sockets open (or opening) to one origin, and the connections waiting for one of them to close. */
interface OriginSlots {
  open: number
  readonly waiting: Waiting[]
}

/** An undici connector (the Agent's `connect` option) that resumes sessions and caps open sockets. */
export function createConnector(config: ConnectorConfig): buildConnector.connector {
  const { modules, sessions, maxSockets, timeoutMs } = config
  const origins = new Map<string, OriginSlots>()

  const release = (origin: string, slots: OriginSlots) => {
    const next = slots.waiting.shift()
    if (next) return next()
    slots.open--
    if (slots.open === 0) origins.delete(origin)
  }

  return (options, callback) => {
    const origin = `${options.protocol}//${options.hostname}:${options.port}`
    let slots = origins.get(origin)
    if (!slots) {
      slots = { open: 0, waiting: [] }
      origins.set(origin, slots)
    }
    const held = slots
    const start = () => open(modules, sessions, options, timeoutMs, callback, () => release(origin, held))
    if (held.open < maxSockets) {
      held.open++
      start()
    } else {
      // The slot passes from the socket that closes to this connection: `open` stays the same.
      held.waiting.push(start)
    }
  }
}

/** Opens one socket, answers `callback` once, and calls `closed` once the socket has closed. */
function open(
  modules: SocketModules,
  sessions: TlsSessions,
  options: buildConnector.Options,
  timeoutMs: number,
  callback: buildConnector.Callback,
  closed: () => void,
): void {
  const { net, tls } = modules
  const tlsConnection = options.protocol === 'https:'
  const port = Number(options.port) || (tlsConnection ? 443 : 80)
  let socket: import('node:net').Socket
  try {
    if (tlsConnection) {
      // A server name is sent only for a host name: SNI does not carry addresses.
      const servername = options.servername || (net.isIP(options.hostname) ? undefined : options.hostname)
      const key = `${servername ?? options.hostname}:${port}`
      socket = tls.connect({
        host: options.hostname,
        port,
        servername,
        session: sessions.get(key),
        ALPNProtocols: ['http/1.1'],
      })
      socket.on('session', (session: Buffer) => sessions.set(key, session))
    } else {
      socket = net.connect({ host: options.hostname, port })
    }
  } catch (error) {
    closed()
    callback(error as Error, null)
    return
  }
  socket.once('close', closed)
  socket.setNoDelay(true)
  socket.setKeepAlive(true, 60_000)
  let answer: buildConnector.Callback | undefined = callback
  const timer = setTimeout(() => {
    socket.destroy(connectTimeout(options.hostname, port, timeoutMs))
  }, timeoutMs)
  socket.once(tlsConnection ? 'secureConnect' : 'connect', () => {
    clearTimeout(timer)
    const done = answer
    answer = undefined
    done?.(null, socket)
  })
  socket.on('error', (error: Error) => {
    clearTimeout(timer)
    const done = answer
    answer = undefined
    done?.(error, null)
  })
}

/** undici's own error for a connection not opened in time (its code is what the failure is classified by). */
function connectTimeout(hostname: string, port: number, timeoutMs: number): Error {
  return Object.assign(
    new Error(`Connect Timeout Error (attempted address: ${hostname}:${port}, timeout: ${timeoutMs}ms)`),
    { name: 'ConnectTimeoutError', code: 'UND_ERR_CONNECT_TIMEOUT' },
  )
}
