/**
 * What the attempt handler's tests share: an abort source fired by hand, raw loopback TCP servers
 * that answer as each test scripts them, real undici `Client`s, and handlers on `GET /x`, all closed
 * after each test.
 */

import { once } from 'node:events'
import { type AddressInfo, createServer, type Server, type Socket } from 'node:net'
import { Client, type Dispatcher } from 'undici'
import { afterEach } from 'vitest'
import { type AbortSource, AttemptHandler } from '../src/transport/attempt-handler.js'

/** An abort source the test fires by hand. */
export function abortSource(): AbortSource & { fire(): void } {
  const listeners: Array<() => void> = []
  const source = {
    aborted: false,
    on(_event: 'abort', listener: () => void) {
      listeners.push(listener)
    },
    fire() {
      source.aborted = true
      for (const listener of listeners) listener()
    },
  }
  return source
}

export const GET: Dispatcher.DispatchOptions = { path: '/x', method: 'GET' }

/** A handler of `GET /x` and the interim statuses it was told. */
export function handler(signal: AbortSource = abortSource(), maxBytes = 1024) {
  const interim: number[] = []
  const h = new AttemptHandler(GET, signal, { subject: undefined, maxBytes, onInterim: (s) => interim.push(s) })
  return { h, interim }
}

/** Registers the cleanup of the file's servers and clients; call once at the top of a test file. */
export function attemptRig() {
  const servers: Server[] = []
  const sockets = new Set<Socket>()
  const clients: Client[] = []
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.destroy()))
    for (const socket of sockets) socket.destroy()
    sockets.clear()
    for (const s of servers.splice(0)) s.close()
  })
  return {
    /** A raw TCP server: `onRequest` gets each request's socket and its 1-based number once its head arrived. */
    async rawServer(onRequest: (socket: Socket, n: number) => void): Promise<{ url: string; requests(): number }> {
      let n = 0
      const server = createServer((socket) => {
        sockets.add(socket)
        let buffered = ''
        socket.on('error', () => {})
        socket.on('data', (chunk) => {
          buffered += chunk.toString('latin1')
          while (buffered.includes('\r\n\r\n')) {
            buffered = buffered.slice(buffered.indexOf('\r\n\r\n') + 4)
            onRequest(socket, ++n)
          }
        })
      })
      server.listen(0, '127.0.0.1')
      await once(server, 'listening')
      servers.push(server)
      return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests: () => n }
    },
    /** An undici Client of one connection, with undici's own timers off. */
    client(url: string): Client {
      const c = new Client(url, { pipelining: 1, headersTimeout: 0, bodyTimeout: 0 })
      clients.push(c)
      return c
    },
  }
}
