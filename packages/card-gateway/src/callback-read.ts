/** What the callback inbox answers, and how its adapters read a raw body up to the size cap. */

import { isEmptyObject } from './callback-body.js'

/** What to answer the gateway: a status, headers and a plain-text body. */
export interface CallbackResponse {
  readonly status: number
  readonly headers: Readonly<Record<string, string>>
  readonly body: string
}

/** The structural part of Node's `IncomingMessage` the adapters read (node:http, Express, Fastify's `raw`). */
export interface NodeRequestLike extends AsyncIterable<unknown> {
  readonly headers: Readonly<Record<string, string | string[] | undefined>>
  /** Set by a body parser that ran before the handler (Express). */
  readonly body?: unknown
  readonly readableEnded?: boolean
}

const TEXT = { 'content-type': 'text/plain; charset=utf-8' }

/** A plain-text answer. */
export function answer(status: number, body: string): CallbackResponse {
  return { status, headers: TEXT, body }
}

/**
 * The raw body of a Node request: read from the stream, or taken from a body parser that kept it
 * raw (`express.raw()`); a parser that already turned it into an object is answered 500 with why.
 * Over `maxBodyBytes` the reading stops and the answer is 413.
 */
export async function readNodeBody(
  req: NodeRequestLike,
  maxBodyBytes: number,
): Promise<string | Uint8Array | CallbackResponse> {
  if (req.body instanceof Uint8Array || typeof req.body === 'string') return req.body
  if (req.readableEnded) {
    return req.body === undefined || isEmptyObject(req.body)
      ? ''
      : answer(500, 'body_already_parsed: mount the callback route before any body parser, or use express.raw()')
  }
  const chunks: Uint8Array[] = []
  let size = 0
  // Read by hand: leaving a for-await early would destroy the socket before the 413 is written.
  const stream = req[Symbol.asyncIterator]()
  for (let next = await stream.next(); !next.done; next = await stream.next()) {
    const bytes = typeof next.value === 'string' ? Buffer.from(next.value) : (next.value as Uint8Array)
    size += bytes.byteLength
    // Stop reading: the rest is never buffered, and the answer closes the connection.
    if (size > maxBodyBytes) return { ...answer(413, 'body_too_large'), headers: { ...TEXT, connection: 'close' } }
    chunks.push(bytes)
  }
  return Buffer.concat(chunks)
}

/** The raw body of a Fetch API request, read up to `maxBodyBytes` (a chunked body has no length to trust). */
export async function readFetchBody(request: Request, maxBodyBytes: number): Promise<Uint8Array | CallbackResponse> {
  if (Number(request.headers.get('content-length')) > maxBodyBytes) return answer(413, 'body_too_large')
  const chunks: Uint8Array[] = []
  let size = 0
  const reader = request.body?.getReader()
  for (;;) {
    const next = await reader?.read()
    if (next === undefined || next.done) break
    size += next.value.byteLength
    if (size > maxBodyBytes) {
      await reader?.cancel()
      return answer(413, 'body_too_large')
    }
    chunks.push(next.value)
  }
  return Buffer.concat(chunks)
}
