/**
 * The load target: a loopback HTTP server in its own process, answering like the three services with
 * small fixed JSON bodies. It checks nothing (no hash, no key): it exists to be cheap and steady.
 *
 * Run as a child (`startServer()` forks this file); the child reports its port over IPC.
 */

import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import { fileURLToPath } from 'node:url'
import { firstMessage, forkTs } from './child.js'

const JSON_HEADERS = { 'content-type': 'application/json' }

/** Route (`METHOD path`) → the bytes answered, built once. */
const ROUTES = new Map<string, Buffer>(
  Object.entries({
    'POST /post': {
      action: 'GET_TRANS_STATUS',
      result: 'SUCCESS',
      status: 'SETTLED',
      order_id: 'o-1',
      trans_id: 't-1',
    },
    'POST /api/v1/session': { redirect_url: 'https://pay.example/s/1' },
    'GET /api/lookup/banks': [
      { code: '044', name: 'Access Bank' },
      { code: '058', name: 'GTBank' },
      { code: '011', name: 'First Bank' },
    ],
    'POST /api/transactions': {
      transReference: 'TR-1',
      productId: 'P1',
      amount: 10,
      status: 'SUCCESSFUL',
      createdAt: '2024-01-01T00:00:00Z',
    },
  }).map(([route, body]) => [route, Buffer.from(JSON.stringify(body))]),
)

const NOT_FOUND = Buffer.from('{"error":"not found"}')

function answer(req: IncomingMessage, res: ServerResponse): void {
  const url = req.url ?? '/'
  const query = url.indexOf('?')
  const path = query === -1 ? url : url.slice(0, query)
  const body = ROUTES.get(`${req.method} ${path}`)
  // Answer once the request body is in, as a real service would; its content is not read.
  req.on('end', () => {
    res.writeHead(body ? 200 : 404, { ...JSON_HEADERS, 'content-length': (body ?? NOT_FOUND).length })
    res.end(body ?? NOT_FOUND)
  })
  req.resume()
}

/** Child side: listen on an ephemeral loopback port and tell the parent which one. */
function serve(): void {
  const server = createServer({ keepAlive: true }, answer)
  // Longer than any client's idle timeout, so the client side decides when a socket closes.
  server.keepAliveTimeout = 65_000
  server.headersTimeout = 66_000
  server.listen(0, '127.0.0.1', () => {
    const address = server.address()
    if (address === null || typeof address === 'string') throw new Error('no TCP address')
    process.send?.({ port: address.port })
  })
  process.on('disconnect', () => process.exit(0))
}

/** A running bench server: its base URL and how to stop it. */
export interface BenchServer {
  readonly url: string
  readonly pid: number
  stop(): Promise<void>
}

/** Parent side: forks this file and resolves once it listens. */
export async function startServer(): Promise<BenchServer> {
  const child = forkTs(fileURLToPath(import.meta.url))
  const message = (await firstMessage(child)) as { port?: unknown }
  if (typeof message.port !== 'number') throw new Error('bench server sent no port')
  return {
    url: `http://127.0.0.1:${message.port}`,
    pid: child.pid ?? -1,
    stop: () =>
      new Promise<void>((done) => {
        if (child.exitCode !== null || !child.connected) return done()
        child.once('exit', () => done())
        child.disconnect()
      }),
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url) && process.send) serve()
