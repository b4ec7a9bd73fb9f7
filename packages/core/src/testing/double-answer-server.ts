/**
 * A raw HTTP/1.1 server that answers the first request on each connection twice, as a broken
 * service or proxy can. HTTP/1.1 answers do not name their request, so a client that reuses the
 * connection reads the copy as the next request's answer. Used to prove that no answer is taken for
 * a call it does not belong to (money-moving calls and reconciliation lookups get connections of
 * their own).
 */

import { once } from 'node:events'
import { type AddressInfo, createServer, type Socket } from 'node:net'

/** One request the server read. */
export interface DoubleAnswerRequest {
  /** 1 for the first request the server read, on any connection. */
  readonly n: number
  readonly method: string
  readonly path: string
  /** Which connection carried it (1 = the first the server accepted). */
  readonly connection: number
}

/** How `startDoubleAnswerServer` answers. */
export interface DoubleAnswerServerOptions {
  /** The JSON body of the 200 answering `request`. */
  readonly answer: (request: DoubleAnswerRequest) => unknown
  /**
   * The second answer to the first request on a connection, as raw HTTP/1.1 text; default a copy of
   * its first answer. Build one with `rawHttpAnswer`.
   */
  readonly copy?: (request: DoubleAnswerRequest, first: string) => string
  /**
   * `late` (default): the copy is written only when the next request arrives, on that connection or
   * any other, so it always comes after the client wrote that request: the race no check of an idle
   * socket can win. `together`: in the same write as the first answer.
   */
  readonly when?: 'late' | 'together'
}

/** A running double-answering server. */
export interface DoubleAnswerServer {
  readonly url: string
  /** Every request read, in order. */
  readonly requests: readonly DoubleAnswerRequest[]
  close(): Promise<void>
}

/** An HTTP/1.1 answer as raw text: `status`, a JSON body, its content-length. */
export function rawHttpAnswer(status: number, reason: string, body: unknown): string {
  const text = JSON.stringify(body)
  return `HTTP/1.1 ${status} ${reason}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(text)}\r\n\r\n${text}`
}

/** Starts a server on loopback that answers the first request on each connection twice. */
export async function startDoubleAnswerServer(options: DoubleAnswerServerOptions): Promise<DoubleAnswerServer> {
  const requests: DoubleAnswerRequest[] = []
  const sockets: Socket[] = []
  const owed = new Map<Socket, string>()
  const server = createServer((socket) => {
    sockets.push(socket)
    const connection = sockets.length
    let served = 0
    let buffered = Buffer.alloc(0)
    socket.on('error', () => {})
    socket.on('data', (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk])
      for (;;) {
        const end = buffered.indexOf('\r\n\r\n')
        if (end === -1) return
        const head = buffered.subarray(0, end).toString('latin1')
        const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? 0)
        if (buffered.length < end + 4 + length) return
        buffered = buffered.subarray(end + 4 + length)
        const [method = '', path = ''] = head.split(' ')
        const request = { n: requests.length + 1, method, path, connection }
        requests.push(request)
        // A copy owed goes out first: it reaches its connection after this request was written there.
        for (const [stale, text] of owed) if (!stale.destroyed) stale.write(text)
        owed.clear()
        const first = rawHttpAnswer(200, 'OK', options.answer(request))
        served += 1
        if (served > 1) {
          socket.write(first)
          continue
        }
        const copy = options.copy?.(request, first) ?? first
        if (options.when === 'together') socket.write(first + copy)
        else {
          socket.write(first)
          owed.set(socket, copy)
        }
      }
    })
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy()
        server.close(() => resolve())
      }),
  }
}
