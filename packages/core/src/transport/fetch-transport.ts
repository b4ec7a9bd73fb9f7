/**
 * The `fetch` side of a call: one attempt sent with a `fetch` function (the runtime's own where undici
 * cannot load, or the caller's `fetch` option), within its deadline, its body read within the size cap.
 */

import { PaywireError, ResponseTooLargeError, type TimeoutPhase } from '../errors/errors.js'
import { parseJson, rawResponse } from '../operations/answer-shape.js'
import { isRetryableStatus } from '../operations/retry.js'
import {
  type AttemptOutcome,
  type AttemptPlan,
  classifyFailure,
  interimStatusOf,
  unbelieved,
} from './attempt-failure.js'
import { DeadlineList } from './deadlines.js'
import { flattenHeaders } from './headers.js'
import type { HttpRequest, RawResponse } from './request.js'

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
 * is the service's answer, as on undici); the attempt's deadline and the caller's signal abort it,
 * and end it then even when the `fetch` function or its body stream ignores the abort.
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
    // A `fetch` (or its body stream) may ignore the signal: every await below races this promise,
    // so the attempt ends at its deadline whatever the function does.
    let onAbort: (() => void) | undefined
    const aborted = new Promise<never>((_, reject) => {
      onAbort = () => reject(controller.signal.reason)
    })
    aborted.catch(ignore)
    deadline.on('abort', () => {
      controller.abort(abortReason(deadline.abortedBy))
      onAbort?.()
    })
    const onUserAbort = userSignal && (() => deadline.abort('user'))
    if (onUserAbort) {
      if (userSignal.aborted) onUserAbort()
      else userSignal.addEventListener('abort', onUserAbort, { once: true })
    }
    let phase: TimeoutPhase = 'headers'
    let status: number | undefined
    let responseHeaders: Record<string, string> | undefined
    try {
      // Called as a plain function: the Workers runtime refuses its fetch called with another `this`
      // ("Illegal invocation"), which `this.#fetch(…)` would pass (the transport).
      const send = this.#fetch
      const read = async (): Promise<RawResponse> => {
        phase = 'headers'
        status = undefined
        responseHeaders = undefined
        const answer = Promise.resolve(
          send(req.url, {
            method: req.method,
            headers,
            body: req.body?.text,
            redirect: 'manual',
            signal: controller.signal,
          }),
        )
        // An answer that comes after the deadline is nobody's: its body is released unread.
        answer.then((late) => controller.signal.aborted && cancelBody(late), ignore)
        const res = responseOf(await Promise.race([answer, aborted]))
        phase = 'body'
        status = res.status
        responseHeaders = flattenHeaders(headerRecord(res.headers), req.credentialHeaders)
        const rawBody = await readBody(res, responseHeaders, this.#maxResponseBytes, aborted, () =>
          tooLarge(req, attempt, this.#maxResponseBytes, res.status),
        )
        return rawResponse(res.status, responseHeaders, rawBody, parseJson(rawBody), attempt, req)
      }
      // A final status that is not 2xx is the service's answer even when its body never came whole:
      // the status decides, the body is left empty (and it is doubted like any other answer).
      const cut = (error: unknown): RawResponse => {
        const final = status !== undefined && (status < 200 || status >= 300)
        if (error instanceof PaywireError || !final || !responseHeaders || deadline.abortedBy === 'user') throw error
        return rawResponse(status as number, responseHeaders, '', undefined, attempt, req)
      }
      const exchange = () => read().catch(cut)
      // The runtime's connections may be reused, so any answer may be an earlier request's second
      // one: a bound call believes only its own (transport.ts, "Keep-alive where the answer is bound").
      let response = await exchange()
      // Which socket carried it is unknown: as if an earlier request had the same subject.
      let doubt = req.answerCheck?.(response.status, response.json, true)
      if (doubt !== undefined && req.retry.kind === 'safe' && !isRetryableStatus(response.status)) {
        // A lookup asks once more; whether the runtime gives it a fresh connection is the runtime's choice.
        response = await exchange()
        doubt = undefined
      }
      if (doubt !== undefined && req.reusesConnection) return unbelieved(plan, doubt, response, false)
      return { ok: true, response }
    } catch (error) {
      if (error instanceof PaywireError) return { ok: false, error, failure: undefined, mayHaveArrived: true }
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

/**
 * The `fetch` function's answer, checked for what is read of it: a numeric `status` and `headers`
 * that can be walked (any Response-like object will do, a polyfill's included). Anything else is a
 * failure after `fetch` was called, in words that name it.
 */
function responseOf(value: unknown): Response {
  const res = value as Partial<Response> | null
  const headers = res?.headers as Partial<Headers> | undefined
  if (
    typeof res !== 'object' ||
    res === null ||
    typeof res.status !== 'number' ||
    !Number.isInteger(res.status) ||
    typeof headers?.forEach !== 'function'
  ) {
    throw new TypeError(
      `the \`fetch\` function resolved with ${describeValue(value)}, not a Response (a status number and headers)`,
    )
  }
  return res as Response
}

function describeValue(value: unknown): string {
  if (value === null) return 'null'
  if (typeof value === 'object') return `an object without a Response's status and headers`
  return `a ${typeof value}`
}

function cancelBody(res: unknown): void {
  const body = (res as { body?: { cancel?: () => Promise<void> } } | null)?.body
  if (typeof body?.cancel === 'function') quietly(() => body.cancel?.())
}

/** Runs a cancel whose failure changes nothing (a hostile stream may throw or reject). */
function quietly(cancel: () => Promise<void> | undefined): void {
  try {
    cancel()?.catch(ignore)
  } catch {
    // The answer is already decided; a stream that cannot be cancelled is left to the collector.
  }
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
  aborted: Promise<never>,
  refuse: () => ResponseTooLargeError,
): Promise<string> {
  const body = res.body
  if (body === null || body === undefined) return ''
  const declared = Number(headers['content-length'])
  if (Number.isFinite(declared) && declared > limit) {
    quietly(() => body.cancel())
    throw refuse()
  }
  if (typeof body.getReader !== 'function') {
    throw new TypeError("the `fetch` function's Response has a body that is not a ReadableStream")
  }
  const reader = body.getReader()
  const chunks: Uint8Array[] = []
  let size = 0
  for (;;) {
    let read: Awaited<ReturnType<typeof reader.read>>
    try {
      // A stream that never ends and ignores cancel still ends at the deadline.
      read = await Promise.race([reader.read(), aborted])
    } catch (error) {
      quietly(() => reader.cancel())
      throw error
    }
    const { done, value } = read
    if (done) break
    if (!(value instanceof Uint8Array)) {
      quietly(() => reader.cancel())
      throw new TypeError("the `fetch` function's Response body gave a chunk that is not bytes (a Uint8Array)")
    }
    size += value.byteLength
    if (size > limit) {
      quietly(() => reader.cancel())
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
