/**
 * A raw S2S gateway over HTTP/1.1 for the keep-alive tests: every request read (its form fields,
 * which connection carried it and its place there) is handed to a script that writes whatever it
 * wants on the socket, a stale second answer included.
 */

import { once } from 'node:events'
import { type AddressInfo, createServer, type Socket } from 'node:net'

/** One request as the gateway read it. */
export interface RawRequest {
  /** 1 for the first request read, on any connection. */
  readonly n: number
  /** Which connection carried it (1 = the first accepted). */
  readonly connection: number
  /** Its place on its connection, from 1. */
  readonly onConnection: number
  readonly fields: Record<string, string>
  readonly socket: Socket
}

/** An HTTP/1.1 answer as raw text with a JSON body; `extraHeaders` end with `\r\n`. */
export function json(status: number, body: unknown, extraHeaders = ''): string {
  const text = JSON.stringify(body)
  return `HTTP/1.1 ${status} X\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(text)}\r\n${extraHeaders}\r\n${text}`
}

/**
 * Reads HTTP/1.1 requests off `socket` as they complete (a body by its content-length, none without
 * one), in order, however the bytes were split: `onRequest` gets the head as latin1 and the body.
 */
export function readRawRequests(socket: Socket, onRequest: (head: string, body: string) => void): void {
  let buffered = Buffer.alloc(0)
  socket.on('data', (chunk: Buffer) => {
    buffered = Buffer.concat([buffered, chunk])
    for (;;) {
      const end = buffered.indexOf('\r\n\r\n')
      if (end === -1) return
      const head = buffered.subarray(0, end).toString('latin1')
      const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? 0)
      if (buffered.length < end + 4 + length) return
      const body = buffered.subarray(end + 4, end + 4 + length).toString()
      buffered = buffered.subarray(end + 4 + length)
      onRequest(head, body)
    }
  })
}

/** Starts the gateway on loopback; `close()` destroys every connection (a second call waits for the same close). */
export async function rawGateway(script: (req: RawRequest) => void) {
  const seen: RawRequest[] = []
  const sockets: Socket[] = []
  const server = createServer((socket) => {
    sockets.push(socket)
    const connection = sockets.length
    let onConnection = 0
    socket.on('error', () => {})
    readRawRequests(socket, (_head, body) => {
      onConnection++
      const fields = Object.fromEntries(new URLSearchParams(body))
      const req: RawRequest = { n: seen.length + 1, connection, onConnection, fields, socket }
      seen.push(req)
      script(req)
    })
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  let closing: Promise<void> | undefined
  const close = () => {
    closing ??= new Promise<void>((resolve) => {
      for (const socket of sockets) socket.destroy()
      server.close(() => resolve())
    })
    return closing
  }
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen, close }
}
