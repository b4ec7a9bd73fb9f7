/**
 * The `fetch` side of a call: one attempt sent with a `fetch` function (the runtime's own where undici
 * cannot load, or the caller's `fetch` option), within its deadline, its body read within the size cap.
 */

import { parseJson, rawResponse } from './answer-shape.js'
import { type AttemptOutcome, type AttemptPlan, classifyFailure, interimStatusOf } from './attempt-failure.js'
import { DeadlineList } from './deadlines.js'
import { PaywireError, ResponseTooLargeError, type TimeoutPhase } from './errors.js'
import { flattenHeaders } from './headers.js'
import type { HttpRequest } from './request.js'

/** What a transport does for the client: load what it needs, send one attempt, close. */
export interface CallTransport {
  /**
   * What the first call waits for before its first attempt (`undefined`: nothing). It may resolve
   * with another transport to use instead (undici could not load: `fetch` takes over).
   */
  loading(): Promise<CallTransport | undefined> | undefined
  /** Whether a request handed over now would be refused before anything is written. */
  readonly shut: boolean
  close(): Promise<void>
  attempt(plan: AttemptPlan): Promise<AttemptOutcome>
}

/**
 * Sends attempts with a `fetch` function. Redirects are never followed (`redirect: 'manual'`: a 3xx
 * is the service's answer, as on undici); the attempt's deadline and the caller's signal abort it.
 * `fetch` does not say whether the request was written before a failure, so every failure after
 * `fetch` was called counts as "may have been written" (an unknown outcome for a money-moving
 * call), unless its error names a cause raised before connecting (a refused connection, an unknown
 * host). fetch also hides interim (1xx) answers: a failure before the final status, once the request
 * may have arrived, is retried only where a repeat after an interim answer would be (attempt-failure.ts).
 * Connections are the runtime's: a money-moving call cannot be given one of its own.
 */
export class FetchTransport implements CallTransport {
  readonly #fetch: typeof fetch
  readonly #maxResponseBytes: number
  /** Per-attempt deadlines, one timer for all of them (deadlines.ts). */
  readonly #deadlines = new DeadlineList()
  #closed = false

  constructor(fetchFunction: typeof fetch, maxResponseBytes: number) {
    this.#fetch = fetchFunction
    this.#maxResponseBytes = maxResponseBytes
  }

  loading(): undefined {
    return undefined
  }

  get shut(): boolean {
    return this.#closed
  }

  /** Later calls are refused unsent; calls in flight finish (the connections are the runtime's). */
  close(): Promise<void> {
    this.#closed = true
    return Promise.resolve()
  }

  /** One attempt within its budget: the answer, or what its failure means (attempt-failure.ts). */
  async attempt(plan: AttemptPlan): Promise<AttemptOutcome> {
    const { request: req, headers, attempt, budget, signal: userSignal } = plan
    const deadline = this.#deadlines.start(budget.ms)
    // fetch listens to an AbortSignal only: one controller per attempt, aborted by the deadline entry.
    const controller = new AbortController()
    deadline.on('abort', () => controller.abort(abortReason(deadline.abortedBy)))
    const onUserAbort = userSignal && (() => deadline.abort('user'))
    if (onUserAbort) {
      if (userSignal.aborted) onUserAbort()
      else userSignal.addEventListener('abort', onUserAbort, { once: true })
    }
    let phase: TimeoutPhase = 'headers'
    let status: number | undefined
    let responseHeaders: Record<string, string> | undefined
    try {
      const res = await this.#fetch(req.url, {
        method: req.method,
        headers,
        body: req.body?.text,
        redirect: 'manual',
        signal: controller.signal,
      })
      phase = 'body'
      status = res.status
      responseHeaders = flattenHeaders(headerRecord(res.headers), req.credentialHeaders)
      const rawBody = await readBody(res, responseHeaders, this.#maxResponseBytes, () =>
        tooLarge(req, attempt, this.#maxResponseBytes, res.status),
      )
      return { ok: true, response: rawResponse(status, responseHeaders, rawBody, parseJson(rawBody), attempt, req) }
    } catch (error) {
      if (error instanceof PaywireError) return { ok: false, error, failure: undefined, mayHaveArrived: true }
      // A final status that is not 2xx is the service's answer even when its body never came whole.
      if (status !== undefined && responseHeaders && deadline.abortedBy !== 'user' && (status < 200 || status >= 300)) {
        return { ok: true, response: rawResponse(status, responseHeaders, '', undefined, attempt, req) }
      }
      // Node's fetch (undici inside) reports a dropped 100 or 101 as the cause of its "fetch failed".
      const interimStatus = interimStatusOf(error) ?? interimStatusOf((error as { cause?: unknown } | null)?.cause)
      return classifyFailure(error, plan, {
        abortedBy: deadline.abortedBy,
        phase,
        interimStatus,
        written: undefined,
        interimHidden: true,
      })
    } finally {
      this.#deadlines.finish(deadline)
      if (onUserAbort) userSignal?.removeEventListener('abort', onUserAbort)
    }
  }
}

function abortReason(cause: 'timeout' | 'user' | undefined): Error {
  return Object.assign(new Error(cause === 'user' ? 'Request aborted' : 'Attempt timed out'), { name: 'AbortError' })
}

function tooLarge(req: HttpRequest, attempts: number, limitBytes: number, status: number): ResponseTooLargeError {
  return new ResponseTooLargeError({ ...req, attempts, limitBytes, status })
}

/** The answer's headers as one record; a repeated field (two `set-cookie`) is joined with `, `. */
function headerRecord(headers: Headers): Record<string, string> {
  const record: Record<string, string> = {}
  headers.forEach((value, name) => {
    record[name] = name in record ? `${record[name]}, ${value}` : value
  })
  const cookies = typeof headers.getSetCookie === 'function' ? headers.getSetCookie() : []
  if (cookies.length > 0) record['set-cookie'] = cookies.join(', ')
  return record
}

/**
 * The body as UTF-8 text within `limit` bytes: a declared length over it is refused before reading,
 * and any body is read chunk by chunk and cancelled as soon as it passes the limit (a declared
 * length may not hold: the runtime may decompress).
 */
async function readBody(
  res: Response,
  headers: Record<string, string>,
  limit: number,
  refuse: () => ResponseTooLargeError,
): Promise<string> {
  const body = res.body
  if (body === null) return ''
  const declared = Number(headers['content-length'])
  if (Number.isFinite(declared) && declared > limit) {
    body.cancel().catch(ignore)
    throw refuse()
  }
  const reader = body.getReader()
  const chunks: Uint8Array[] = []
  let size = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    size += value.byteLength
    if (size > limit) {
      reader.cancel().catch(ignore)
      throw refuse()
    }
    chunks.push(value)
  }
  if (chunks.length === 1) return decoder.decode(chunks[0])
  const whole = new Uint8Array(size)
  let at = 0
  for (const chunk of chunks) {
    whole.set(chunk, at)
    at += chunk.byteLength
  }
  return decoder.decode(whole)
}

const decoder = new TextDecoder()

function ignore(): void {}
