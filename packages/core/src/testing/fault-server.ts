/** A loopback server that misbehaves on purpose: resets, stalls, HTML 502s, truncated JSON, stale sockets. */

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { connectionNumbers, type RecordedRequest } from './mock-server.js'

/** Decides how to (mis)answer the `n`-th request (1-based). */
export type FaultBehaviour = (req: IncomingMessage, res: ServerResponse, n: number) => void

export interface FaultServer {
  readonly url: string
  /** Requests that reached the server (headers and body fully received), in order. */
  readonly requests: readonly RecordedRequest[]
  /** Swaps the behaviour for the following requests. */
  behave(behaviour: FaultBehaviour): void
  close(): Promise<void>
}

/** Starts a plain node:http server on 127.0.0.1 whose answers `behaviour` decides. */
export async function startFaultServer(behaviour: FaultBehaviour): Promise<FaultServer> {
  let current = behaviour
  const requests: RecordedRequest[] = []
  const connectionOf = connectionNumbers()
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      const headers: Record<string, string> = {}
      for (const [k, v] of Object.entries(req.headers)) if (v !== undefined) headers[k] = String(v)
      requests.push({
        method: req.method ?? 'GET',
        url: req.url ?? '/',
        headers,
        body: Buffer.concat(chunks).toString('utf8'),
        remoteAddress: req.socket.remoteAddress ?? '',
        httpVersion: req.httpVersion,
        connection: connectionOf(req),
      })
      current(req, res, requests.length)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    behave(next) {
      current = next
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      }),
  }
}

/** A URL on which nothing listens: connecting is refused, so the request provably never left. */
export async function refusedUrl(): Promise<string> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return `http://127.0.0.1:${port}`
}

/** Ready-made behaviours. */
export const faults = {
  /** Answers `status` with a JSON body. */
  json(status: number, body: unknown, headers: Record<string, string> = {}): FaultBehaviour {
    return (_req, res) => {
      res.writeHead(status, { 'content-type': 'application/json', ...headers })
      res.end(JSON.stringify(body))
    }
  },
  /** Answers with a raw body and content type. */
  text(status: number, body: string, contentType = 'text/html', headers: Record<string, string> = {}): FaultBehaviour {
    return (_req, res) => {
      res.writeHead(status, { 'content-type': contentType, ...headers })
      res.end(body)
    }
  },
  /** Destroys the socket after the request arrived, before any answer. */
  resetBeforeAnswer(): FaultBehaviour {
    return (req) => {
      req.socket.destroy()
    }
  },
  /** Sends headers and part of the body, then destroys the socket. */
  resetMidBody(): FaultBehaviour {
    return (req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000' })
      res.write('{"result":"SUCC', () => req.socket.destroy())
    }
  },
  /** Never answers. */
  neverAnswer(): FaultBehaviour {
    return () => {}
  },
  /** Sends headers, then one byte every `everyMs` ms, forever (until the client gives up). */
  trickleBody(everyMs: number): FaultBehaviour {
    return (req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' })
      res.write('{')
      const timer = setInterval(() => res.write(' '), everyMs)
      req.socket.once('close', () => clearInterval(timer))
    }
  },
  /** A 200 with JSON cut in the middle. */
  truncatedJson(): FaultBehaviour {
    return faults.text(200, '{"result":"SUCCESS","status":', 'application/json')
  },
  /** A 200 whose body is `size` bytes of `x` (declared with content-length unless `chunked`). */
  oversized(size: number, chunked = false): FaultBehaviour {
    return (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', ...(chunked ? {} : { 'content-length': String(size) }) })
      const block = Buffer.alloc(64 * 1024, 'x')
      let left = size
      const pump = () => {
        while (left > 0) {
          const n = Math.min(left, block.length)
          left -= n
          if (!res.write(block.subarray(0, n))) return res.once('drain', pump)
        }
        res.end()
      }
      res.on('error', () => {})
      pump()
    }
  },
}
