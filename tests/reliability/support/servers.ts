/** Loopback servers core's testing kit does not provide: a stale keep-alive socket and a fault proxy. */

import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http'
import { type AddressInfo, createServer as createNetServer, type Socket } from 'node:net'

export interface StaleSocketServer {
  readonly url: string
  /** Complete requests whose bytes reached the server. */
  readonly received: () => number
  /** Requests the server answered (only the first one on each connection). */
  readonly answered: () => number
  close(): Promise<void>
}

/**
 * A raw HTTP/1.1 server that answers the first request of each connection with `body` and
 * `connection: keep-alive`, then treats the connection as expired: the next request written on it
 * is met with a TCP reset and no answer. That is exactly what a client sees when it reuses a pooled
 * socket the server closed an instant before (keep-alive timeout race), made deterministic.
 */
export async function startStaleSocketServer(body: string): Promise<StaleSocketServer> {
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
        if (onThisSocket > 1) {
          socket.resetAndDestroy()
          return
        }
        answered += 1
        const payload = Buffer.from(body)
        socket.write(
          `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${payload.length}\r\nconnection: keep-alive\r\n\r\n`,
        )
        socket.write(payload)
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
            res.writeHead(answer.statusCode ?? 502, out)
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
