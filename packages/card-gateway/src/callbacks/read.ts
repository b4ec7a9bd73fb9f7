/** What the callback inbox answers, and how its adapters read a raw body up to the size cap. */

import { isEmptyObject } from './body.js'

/**
 * Every status the inbox answers: 200 (recorded or done), 400 (refused: the body does not verify),
 * 413 (over the size cap), 500 (the route is mounted wrong: a body already parsed, or a failure of
 * the handler itself), 503 (the store could not record it now). A union of literals, so a framework
 * whose reply takes its own status type (Hono's `c.body(body, status)`) accepts it as it is.
 */
export type CallbackAnswerStatus = 200 | 400 | 413 | 500 | 503

/** What to answer the gateway: a status, headers and a plain-text body. */
export interface CallbackResponse {
  readonly status: CallbackAnswerStatus
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
export function answer(status: CallbackAnswerStatus, body: string): CallbackResponse {
  return { status, headers: TEXT, body }
}

/**
 * A body some code read (or parsed) before the handler: the exact bytes the gateway signed are gone
 * from the request. 500, not 400: the gateway is not at fault, and once the route is mounted right
 * its redelivery is accepted.
 */
export const BODY_ALREADY_PARSED =
  "body_already_parsed: mount the callback route before any body parser, or give the handler the raw body (express.raw(), a Buffer parser, a Lambda event's body string)"
const BODY_ALREADY_READ =
  'body_already_parsed: the request body was read before the callback handler (c.req.text(), request.json(), a body-reading middleware); pass the Request untouched, or give the raw body you read to handler.handle(body)'

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
    // A stream someone read, with nothing left for us: a body arrived (a length, or chunks) and is gone.
    const arrived = Number(req.headers['content-length'] ?? 0) > 0 || req.headers['transfer-encoding'] !== undefined
    if ((req.body === undefined || isEmptyObject(req.body)) && !arrived) return ''
    return answer(500, BODY_ALREADY_PARSED)
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

/**
 * The raw body of a Fetch API request, read up to `maxBodyBytes` (a chunked body has no length to
 * trust). A body already read (`bodyUsed`) or being read (a locked stream) answers 500
 * `body_already_parsed`, like the Node adapter, rather than throwing `ReadableStream is locked`.
 */
export async function readFetchBody(request: Request, maxBodyBytes: number): Promise<Uint8Array | CallbackResponse> {
  if (request.bodyUsed || request.body?.locked === true) return answer(500, BODY_ALREADY_READ)
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

/** The structural part of Node's `ServerResponse` the adapters write. */
export interface NodeResponseLike {
  writeHead(status: number, headers: Record<string, string>): unknown
  end(body: string): unknown
}

/**
 * What one delivery's adapter call may pass besides the body: on a serverless platform, the hook
 * that keeps the function alive after the answer (Workers' `ctx.waitUntil`, Vercel's `waitUntil`),
 * so `onEvent` runs before the instance is frozen.
 */
export interface CallbackDeliveryOptions {
  /**
   * Given the promise of this instance's runs (`drain()`) once the event is recorded and the answer
   * is ready. Without it on a serverless platform, a run cut short by the freeze is taken up again
   * by `recover()` after its lease (`holdMs`).
   */
  readonly waitUntil?: (promise: Promise<unknown>) => void
}
