/**
 * The merchant's answer to a callback the CLI posts (`paywire sim --callback-url`, `paywire callback
 * send`), read up to a cap. The gateway only needs the status and the plain body `OK`; a merchant
 * (or whatever sits at its URL) that answers 200 and then streams without end must not grow the
 * CLI's memory: one such answer grew it to 1.5 GB before the cap.
 */

/** The most the CLI reads of a merchant's answer body: far above `OK` or an error page's first lines. */
export const MAX_ANSWER_BYTES = 4096

/** A merchant's answer as the CLI read it. */
export interface CappedAnswer {
  readonly status: number
  /** The first `MAX_ANSWER_BYTES` bytes of the body, decoded as UTF-8 (a split character shows as U+FFFD). */
  readonly body: string
  /** Whether the body was longer than the cap: the rest was not read and the connection was closed. */
  readonly cut: boolean
}

/**
 * Reads `response`'s body up to `limit` bytes. Past the limit it stops reading and aborts the
 * request through `controller` (the one whose signal the fetch was given), which closes the
 * connection, so the sender's writes fail instead of filling our memory.
 */
export async function readCappedAnswer(
  response: Response,
  controller: AbortController,
  limit: number = MAX_ANSWER_BYTES,
): Promise<CappedAnswer> {
  const chunks: Uint8Array[] = []
  let size = 0
  let cut = false
  const reader = response.body?.getReader()
  if (reader) {
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      const room = limit - size
      if (value.byteLength > room) {
        chunks.push(value.subarray(0, room))
        size = limit
        cut = true
        break
      }
      chunks.push(value)
      size += value.byteLength
    }
    if (cut) {
      controller.abort(new Error(`answer cut at ${limit} bytes`))
      // The body is errored by the abort; cancelling it only releases the reader.
      await reader.cancel().catch(() => {})
    }
  }
  return { status: response.status, body: new TextDecoder().decode(concat(chunks, size)), cut }
}

function concat(chunks: readonly Uint8Array[], size: number): Uint8Array {
  const out = new Uint8Array(size)
  let at = 0
  for (const chunk of chunks) {
    out.set(chunk, at)
    at += chunk.byteLength
  }
  return out
}
