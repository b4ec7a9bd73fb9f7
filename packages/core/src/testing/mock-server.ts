/**
 * msw handlers served on a real loopback HTTP server. msw 2 patches only global `fetch`, not
 * `undici.request()`, so the SDK must reach its mocks over the network, through its real transport.
 */

import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { getResponse, type RequestHandler } from 'msw'

/** One request as the server received it, bytes included, for wire assertions. */
export interface RecordedRequest {
  readonly method: string
  /** Path and query, e.g. `/post?x=1`. */
  readonly url: string
  /** Header names in lowercase. */
  readonly headers: Readonly<Record<string, string>>
  readonly body: string
  /** The remote address, e.g. `127.0.0.1` (simulators use it for IP allowlists). */
  readonly remoteAddress: string
}

export interface MockServer {
  /** `http://127.0.0.1:<port>` */
  readonly url: string
  /** Every request received so far, in order. */
  readonly requests: readonly RecordedRequest[]
  /**
   * Prepends handlers, as msw's `server.use` does: they are tried before the ones already in place,
   * so they win over them, and nothing is removed. Within one call the first matching handler
   * answers. `resetHandlers()` drops every prepended handler.
   */
  use(...handlers: RequestHandler[]): void
  /** Restores the handlers given at start. */
  resetHandlers(): void
  /** Forgets recorded requests. */
  clearRequests(): void
  close(): Promise<void>
}

export interface MockServerOptions {
  /** Port to listen on; default a random free port. */
  readonly port?: number
}

/** Header a handler can read to learn the caller's address (msw handlers see only a `Request`). */
export const REMOTE_ADDRESS_HEADER = 'x-paywire-remote-address'

/** Starts a loopback server that answers with `handlers`; unmatched requests get 404 JSON. */
export async function startMockServer(
  handlers: readonly RequestHandler[],
  options: MockServerOptions = {},
): Promise<MockServer> {
  const initial = [...handlers]
  let current = [...handlers]
  const requests: RecordedRequest[] = []

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' })
      res.end(`mock server error: ${error instanceof Error ? error.message : String(error)}`)
    })
  })

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = []
    for await (const chunk of req) chunks.push(chunk as Buffer)
    const body = Buffer.concat(chunks)
    const headers: Record<string, string> = {}
    for (const [name, value] of Object.entries(req.headers)) {
      if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value
    }
    requests.push({
      method: req.method ?? 'GET',
      url: req.url ?? '/',
      headers,
      body: body.toString('utf8'),
      remoteAddress: req.socket.remoteAddress ?? '',
    })

    const address = server.address() as AddressInfo
    const request = fetchRequestOf(req, `http://127.0.0.1:${address.port}${req.url ?? '/'}`, body)
    const response = await getResponse(current, request)
    if (!response) {
      res.writeHead(404, { 'content-type': 'application/json' })
      res.end(JSON.stringify({ error: 'no mock handler', method: req.method, url: req.url }))
      return
    }
    await sendFetchResponse(req, res, response)
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve())
  })
  const { port } = server.address() as AddressInfo

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    use(...more) {
      current = [...more, ...current]
    },
    resetHandlers() {
      current = [...initial]
    },
    clearRequests() {
      requests.length = 0
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      }),
  }
}

/**
 * The Fetch API `Request` msw handlers see for a node:http request whose body was read: its method,
 * headers (with the caller's address under `REMOTE_ADDRESS_HEADER`) and body, at `url`.
 */
export function fetchRequestOf(req: IncomingMessage, url: string | URL, body: Buffer): Request {
  const method = req.method ?? 'GET'
  const headers = new Headers()
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value)
  }
  headers.set(REMOTE_ADDRESS_HEADER, req.socket.remoteAddress ?? '')
  return new Request(url, {
    method,
    headers,
    ...(body.length > 0 && method !== 'GET' && method !== 'HEAD' ? { body } : {}),
  })
}

/**
 * Writes an msw answer to a node:http response and resolves with its status; msw's
 * `HttpResponse.error()` is a network error, so the connection drops (status 0), as a real one would.
 */
export async function sendFetchResponse(
  req: IncomingMessage,
  res: ServerResponse,
  response: Response,
): Promise<number> {
  if (response.type === 'error') {
    req.socket.destroy()
    return 0
  }
  const headers: Record<string, string[]> = {}
  response.headers.forEach((value, name) => {
    headers[name] = [...(headers[name] ?? []), value]
  })
  res.writeHead(response.status, response.statusText, headers)
  res.end(Buffer.from(await response.arrayBuffer()))
  return response.status
}
