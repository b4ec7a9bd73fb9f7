/** Loopback servers core's testing kit does not provide: a stale keep-alive socket and a fault proxy. */

import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http'
import { type AddressInfo, createServer as createNetServer, type Socket } from 'node:net'

export interface RawServer {
  readonly url: string
  /** Complete requests whose bytes reached the server. */
  readonly received: () => number
  /** Requests the server answered. */
  readonly answered: () => number
  close(): Promise<void>
}

/** What a raw server does with the n-th complete request on one connection: answer it (true) or not. */
type RawAnswer = (socket: Socket, onThisSocket: number) => boolean

/**
 * A raw HTTP/1.1 server on loopback: it frames requests by `content-length` itself and writes bytes
 * no well-behaved server library would (a reset on a reused socket, an unsolicited interim answer).
 */
async function startRawServer(answer: RawAnswer): Promise<RawServer> {
  let received = 0
  let answered = 0
  const sockets = new Set<Socket>()
  const server = createNetServer((socket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
    socket.on('error', () => {})
    let buffer = Buffer.alloc(0)
    let onThisSocket = 0
    socket.on('data', (chunk: Buffer) => {
      buffer = Buffer.concat([buffer, chunk])
      for (;;) {
        const end = buffer.indexOf('\r\n\r\n')
        if (end < 0) return
        const head = buffer.subarray(0, end).toString('latin1')
        const length = Number(/\r\ncontent-length:\s*(\d+)/i.exec(head)?.[1] ?? 0)
        if (buffer.length < end + 4 + length) return
        buffer = buffer.subarray(end + 4 + length)
        received += 1
        onThisSocket += 1
        if (!answer(socket, onThisSocket)) return
        answered += 1
      }
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    received: () => received,
    answered: () => answered,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy()
        server.close(() => resolve())
      }),
  }
}

function okHead(body: Buffer, connection: string): string {
  return `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\nconnection: ${connection}\r\n\r\n`
}

/**
 * Answers the first request of each connection with `body` and `connection: keep-alive`, then
 * treats the connection as expired: the next request written on it is met with a TCP reset and no
 * answer. That is exactly what a client sees when it reuses a pooled socket the server closed an
 * instant before (keep-alive timeout race), made deterministic.
 */
export function startStaleSocketServer(body: string): Promise<RawServer> {
  const payload = Buffer.from(body)
  return startRawServer((socket, onThisSocket) => {
    if (onThisSocket > 1) {
      socket.resetAndDestroy()
      return false
    }
    socket.write(okHead(payload, 'keep-alive'))
    socket.write(payload)
    return true
  })
}

/**
 * Answers every request with an interim `100 Continue` the client never asked for (RFC 9110 lets a
 * server send one; some proxies do), then the final 200 with `body`: the request was processed.
 */
export function startInterimContinueServer(body: string): Promise<RawServer> {
  const payload = Buffer.from(body)
  return startRawServer((socket) => {
    socket.write(`HTTP/1.1 100 Continue\r\n\r\n${okHead(payload, 'close')}`)
    socket.write(payload)
    return true
  })
}

/** What the proxy does with one request. */
export type ProxyMode =
  /** Forward and relay the answer. */
  | 'pass'
  /** Destroy the caller's socket before forwarding: nothing was processed, but the caller cannot know. */
  | 'reset-before-forward'
  /** Forward, let the service act, then destroy the caller's socket: processed, answer lost. */
  | 'drop-after-forward'
  /** Forward, let the service act, then never answer: the caller times out. */
  | 'stall-after-forward'
  /** Answer 503 without forwarding. */
  | 'unavailable'
  /** Forward, let the service act, then answer 302 with the service's (success) body: never success. */
  | 'redirect-after-forward'
  /** Forward, let the service act, then send an unsolicited `100 Continue` before the answer. */
  | 'continue-after-forward'

export interface ProxyRecord {
  readonly opId: string
  readonly method: string
  readonly url: string
  readonly mode: ProxyMode
  /** The `Idempotency-Key` header, when the request carried one. */
  readonly idempotencyKey: string | undefined
}

export interface FaultProxy {
  readonly url: string
  /** Every request that reached the proxy, with what was done to it. */
  readonly log: readonly ProxyRecord[]
  close(): Promise<void>
}

/** Header a test sets (per-call `headers` option) so the proxy can tell which operation a request belongs to. */
export const OP_HEADER = 'x-reliability-op'

/**
 * A node:http proxy in front of a simulator. `decide(opId, attempt)` picks the mode of each request;
 * `attempt` counts the requests the proxy saw for that operation id (1-based).
 */
export async function startFaultProxy(
  target: string,
  decide: (opId: string, attempt: number) => ProxyMode,
): Promise<FaultProxy> {
  const log: ProxyRecord[] = []
  const seen = new Map<string, number>()
  const upstream = new URL(target)
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      const opId = String(req.headers[OP_HEADER] ?? '')
      const attempt = (seen.get(opId) ?? 0) + 1
      seen.set(opId, attempt)
      const mode = decide(opId, attempt)
      const key = req.headers['idempotency-key']
      log.push({
        opId,
        method: req.method ?? 'GET',
        url: req.url ?? '/',
        mode,
        idempotencyKey: typeof key === 'string' ? key : undefined,
      })
      if (mode === 'reset-before-forward') {
        req.socket.destroy()
        return
      }
      if (mode === 'unavailable') {
        res.writeHead(503, { 'content-type': 'text/html' })
        res.end('<html><body><h1>503 Service Unavailable</h1></body></html>')
        return
      }
      const headers = { ...req.headers, host: upstream.host }
      const forward = httpRequest(
        { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers },
        (answer) => {
          const body: Buffer[] = []
          answer.on('data', (chunk: Buffer) => body.push(chunk))
          answer.on('end', () => {
            if (mode === 'drop-after-forward') return void req.socket.destroy()
            if (mode === 'stall-after-forward') return
            const out = { ...answer.headers }
            delete out['transfer-encoding']
            out['content-length'] = String(Buffer.concat(body).length)
            if (mode === 'continue-after-forward') res.writeContinue()
            if (mode === 'redirect-after-forward') {
              res.writeHead(302, { ...out, location: 'http://127.0.0.1:9/elsewhere' })
            } else res.writeHead(answer.statusCode ?? 502, out)
            res.end(Buffer.concat(body))
          })
        },
      )
      forward.on('error', () => req.socket.destroy())
      forward.end(Buffer.concat(chunks))
    })
  })
  server.keepAliveTimeout = 30_000
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    log,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      }),
  }
}
