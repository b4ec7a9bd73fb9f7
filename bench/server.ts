/**
 * The load target: a loopback HTTP server in its own process, answering like the three services with
 * small fixed JSON bodies. It checks nothing (no hash, no key): it exists to be cheap and steady.
 *
 * Run as a child (`startServer()` forks this file); the child reports its port over IPC.
 */

import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import { fileURLToPath } from 'node:url'
import { answerOf } from './answers.js'
import { firstMessage, forkTs } from './child.js'

const JSON_HEADERS = { 'content-type': 'application/json' }

function answer(req: IncomingMessage, res: ServerResponse): void {
  const { status, body } = answerOf(req.method ?? 'GET', req.url ?? '/')
  // Answer once the request body is in, as a real service would; its content is not read.
  req.on('end', () => {
    res.writeHead(status, { ...JSON_HEADERS, 'content-length': body.length })
    res.end(body)
  })
  req.resume()
}

/** Child side: listen on an ephemeral loopback port and tell the parent which one. */
function serve(): void {
  const server = createServer({ keepAlive: true }, answer)
  // Longer than any client's idle timeout, so the client side decides when a socket closes.
  server.keepAliveTimeout = 65_000
  server.headersTimeout = 66_000
  // Sockets the clients opened since the parent last asked: how many connections a client needs.
  let opened = 0
  server.on('connection', () => {
    opened++
  })
  process.on('message', (message: { ask?: string }) => {
    if (message.ask !== 'connections') return
    process.send?.({ connections: opened })
    opened = 0
  })
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
  /** Connections accepted since the previous call (the first call counts from the start). */
  connectionsOpened(): Promise<number>
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
    connectionsOpened: () =>
      new Promise<number>((resolve) => {
        child.once('message', (reply: { connections: number }) => resolve(reply.connections))
        child.send({ ask: 'connections' })
      }),
    stop: () =>
      new Promise<void>((done) => {
        if (child.exitCode !== null || !child.connected) return done()
        child.once('exit', () => done())
        child.disconnect()
      }),
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url) && process.send) serve()
