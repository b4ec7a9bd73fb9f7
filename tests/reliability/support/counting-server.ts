/**
 * A simulator's msw handlers served on a node:http server that counts connections (core's mock
 * server does not expose its sockets, and records every request, which would grow the heap under load).
 */

import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo, Socket } from 'node:net'
import { REMOTE_ADDRESS_HEADER } from '@paywire/core/testing'
import { getResponse, type RequestHandler } from 'msw'

export interface CountingServer {
  readonly url: string
  /** Connections accepted since start. */
  readonly connections: () => number
  /** Connections open right now. */
  readonly open: () => number
  /** Most connections open at once. */
  readonly peakOpen: () => number
  /** Distinct client ports seen. */
  readonly clientPorts: () => number
  readonly requests: () => number
  /** Resolves once no connection is open (or rejects after `ms`). */
  drained(ms: number): Promise<void>
  close(): Promise<void>
}

export async function startCountingServer(handlers: readonly RequestHandler[]): Promise<CountingServer> {
  const open = new Set<Socket>()
  const ports = new Set<number>()
  let connections = 0
  let peak = 0
  let requests = 0
  let origin = ''
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', async () => {
      requests += 1
      const headers: Record<string, string> = { [REMOTE_ADDRESS_HEADER]: req.socket.remoteAddress ?? '' }
      for (const [name, value] of Object.entries(req.headers)) if (typeof value === 'string') headers[name] = value
      const body = Buffer.concat(chunks)
      const request = new Request(`${origin}${req.url ?? '/'}`, {
        method: req.method ?? 'GET',
        headers,
        ...(body.length > 0 && req.method !== 'GET' ? { body } : {}),
      })
      const response = await getResponse(handlers as RequestHandler[], request)
      if (!response) {
        res.writeHead(404).end()
        return
      }
      const out: Record<string, string> = {}
      response.headers.forEach((v, k) => {
        out[k] = v
      })
      res.writeHead(response.status, out)
      res.end(Buffer.from(await response.arrayBuffer()))
    })
  })
  server.on('connection', (socket: Socket) => {
    connections += 1
    if (socket.remotePort !== undefined) ports.add(socket.remotePort)
    open.add(socket)
    peak = Math.max(peak, open.size)
    socket.on('close', () => open.delete(socket))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return {
    url: origin,
    connections: () => connections,
    open: () => open.size,
    peakOpen: () => peak,
    clientPorts: () => ports.size,
    requests: () => requests,
    async drained(ms) {
      const until = Date.now() + ms
      while (open.size > 0) {
        if (Date.now() > until) throw new Error(`${open.size} connections still open after ${ms} ms`)
        await new Promise((resolve) => setTimeout(resolve, 5))
      }
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      }),
  }
}
