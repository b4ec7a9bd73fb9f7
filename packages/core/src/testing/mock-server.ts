/**
 * msw handlers served on a real loopback HTTP server. msw 2 patches only global `fetch`, not
 * `undici.request()`, so the SDK must reach its mocks over the network, through its real transport.
 */

import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import {
  createSecureServer,
  type Http2ServerRequest,
  type Http2ServerResponse,
  constants as http2Constants,
} from 'node:http2'
import type { AddressInfo, Socket } from 'node:net'
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
  /** The HTTP version it came in: `1.1`, or `2.0` over TLS when the client chose HTTP/2. */
  readonly httpVersion: string
  /** Which connection carried it: 1 for the server's first, 2 for the next; requests that shared one share its number. */
  readonly connection: number
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
  /**
   * Serve HTTPS with this key and certificate (PEM), offering HTTP/2 and HTTP/1.1 in the TLS
   * handshake (ALPN), as a gateway behind a modern load balancer does. The client must trust the
   * certificate (Node reads `NODE_EXTRA_CA_CERTS` at start). Default: plain HTTP/1.1.
   */
  readonly tls?: { readonly key: string | Buffer; readonly cert: string | Buffer }
}

/** A request of either protocol, as the handlers read it. */
type AnyRequest = IncomingMessage | Http2ServerRequest
type AnyResponse = ServerResponse | Http2ServerResponse

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

  const listener = (req: AnyRequest, res: AnyResponse) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' })
      res.end(`mock server error: ${error instanceof Error ? error.message : String(error)}`)
    })
  }
  const scheme = options.tls ? 'https' : 'http'
  const sockets = new Set<Socket>()
  const connectionOf = connectionNumbers()
  const server = options.tls
    ? createSecureServer({ key: options.tls.key, cert: options.tls.cert, allowHTTP1: true }, listener)
    : createServer(listener)
  server.on('connection', (socket: Socket) => {
    sockets.add(socket)
    socket.once('close', () => sockets.delete(socket))
  })

  async function handle(req: AnyRequest, res: AnyResponse): Promise<void> {
    const chunks: Buffer[] = []
    for await (const chunk of req) chunks.push(chunk as Buffer)
    const body = Buffer.concat(chunks)
    const headers = headersOf(req)
    requests.push({
      method: req.method ?? 'GET',
      url: req.url ?? '/',
      headers,
      body: body.toString('utf8'),
      remoteAddress: req.socket.remoteAddress ?? '',
      httpVersion: req.httpVersion,
      connection: connectionOf(req),
    })

    const address = server.address() as AddressInfo
    const request = fetchRequestOf(req, `${scheme}://127.0.0.1:${address.port}${req.url ?? '/'}`, body)
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
    url: `${scheme}://127.0.0.1:${port}`,
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
        for (const socket of sockets) socket.destroy()
      }),
  }
}

/** A request's headers, one string each (repeats joined with `, `); HTTP/2's pseudo-headers (`:path`…) are its request line, not headers. */
function headersOf(req: AnyRequest): Record<string, string> {
  const headers: Record<string, string> = {}
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined && !name.startsWith(':')) headers[name] = Array.isArray(value) ? value.join(', ') : value
  }
  return headers
}

/**
 * Numbers the connections requests come on (`RecordedRequest.connection`), in the order they are
 * first seen: by what stays the same for all of a connection's requests (an HTTP/2 session, else the socket).
 */
export function connectionNumbers(): (req: AnyRequest) => number {
  const numbers = new WeakMap<object, number>()
  let count = 0
  return (req) => {
    const carrier = 'stream' in req ? (req.stream.session ?? req.socket) : req.socket
    let n = numbers.get(carrier)
    if (n === undefined) {
      n = ++count
      numbers.set(carrier, n)
    }
    return n
  }
}

/**
 * The Fetch API `Request` msw handlers see for a node:http request whose body was read: its method,
 * headers (with the caller's address under `REMOTE_ADDRESS_HEADER`) and body, at `url`.
 */
export function fetchRequestOf(req: IncomingMessage | Http2ServerRequest, url: string | URL, body: Buffer): Request {
  const method = req.method ?? 'GET'
  const headers = new Headers(headersOf(req))
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
  req: IncomingMessage | Http2ServerRequest,
  res: ServerResponse | Http2ServerResponse,
  response: Response,
): Promise<number> {
  const http2 = 'stream' in res
  if (response.type === 'error') {
    // On HTTP/2 the connection carries other requests: the request's stream is what fails.
    if (http2) res.stream.close(http2Constants.NGHTTP2_INTERNAL_ERROR)
    else req.socket.destroy()
    return 0
  }
  const headers: Record<string, string[]> = {}
  response.headers.forEach((value, name) => {
    headers[name] = [...(headers[name] ?? []), value]
  })
  // HTTP/2 has no reason phrase (Node warns when one is given).
  if (http2) res.writeHead(response.status, headers)
  else res.writeHead(response.status, response.statusText, headers)
  res.end(Buffer.from(await response.arrayBuffer()))
  return response.status
}
