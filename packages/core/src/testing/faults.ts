/** Injected failures, the same on every paywire simulator: `simulator.failNext({ ... })`. */

import { HttpResponse } from 'msw'

/** A proxy's HTML error page, for `failNext({ body: HTML_ERROR_PAGE })`: what a gateway in front of a service answers. */
export const HTML_ERROR_PAGE =
  '<html><head><title>502 Bad Gateway</title></head><body><h1>502 Bad Gateway</h1></body></html>'

/** One `failNext` call: which requests fail, how, and whether the simulator acts first. */
export interface FailNextOptions {
  /** Only requests to this path or below it (`/api/transactions` matches `/api/transactions/confirm/1`); default any path. */
  readonly path?: string
  /** How many matching requests fail; default 1. */
  readonly count?: number
  /** The status; default the simulated service's usual failure (card gateway 500, remittance 502, bill payment 503). */
  readonly status?: number
  /**
   * The answer body: an object or array is sent as JSON, a string as it is (`text/html` when it
   * starts with `<`, else `text/plain`), `''` as an empty body. Default: the service's own error body.
   */
  readonly body?: string | object
  /** Extra answer headers, e.g. `{ 'retry-after': '2' }`. */
  readonly headers?: Readonly<Record<string, string>>
  /**
   * `before` (default): answer the fault without acting. `after`: act on the request first (book the
   * payment, capture, transfer), then answer the fault, as when the answer of a processed call is lost.
   */
  readonly when?: 'before' | 'after'
}

/** A fault taken for one request. */
export interface InjectedFault {
  readonly status: number | undefined
  readonly body: string | object | undefined
  readonly headers: Readonly<Record<string, string>>
  readonly when: 'before' | 'after'
}

interface Pending {
  readonly options: FailNextOptions
  remaining: number
}

/** The pending faults of one simulator, taken in the order they were added. */
export class FaultQueue {
  #pending: Pending[] = []

  /** Queues `options.count` failures (checked: a simulator misconfigured by a test fails loudly). */
  add(options: FailNextOptions): void {
    const count = options.count ?? 1
    if (!Number.isInteger(count) || count < 1) throw new RangeError('failNext: count must be a whole number >= 1')
    const status = options.status
    if (status !== undefined && (!Number.isInteger(status) || status < 100 || status > 599)) {
      throw new RangeError('failNext: status must be an HTTP status from 100 to 599')
    }
    if (options.path !== undefined && !options.path.startsWith('/')) {
      throw new RangeError('failNext: path must start with "/"')
    }
    this.#pending.push({ options, remaining: count })
  }

  /** The fault for a request to `pathname`, if one is pending for it. */
  take(pathname: string): InjectedFault | undefined {
    const pending = this.#pending.find((p) => matches(p.options.path, pathname))
    if (!pending) return undefined
    pending.remaining -= 1
    if (pending.remaining === 0) this.#pending = this.#pending.filter((p) => p !== pending)
    const { status, body, headers = {}, when = 'before' } = pending.options
    return { status, body, headers, when }
  }

  /** Drops every pending fault. */
  clear(): void {
    this.#pending = []
  }
}

function matches(path: string | undefined, pathname: string): boolean {
  if (path === undefined) return true
  const prefix = path.endsWith('/') ? path.slice(0, -1) : path
  return pathname === prefix || pathname.startsWith(`${prefix}/`)
}

/**
 * The answer of a fault: its body (or the service's default for the status) with its headers.
 * `serviceBody` gives the simulated service's own error body and content type for a status.
 */
export function faultAnswer(
  fault: InjectedFault,
  defaultStatus: number,
  serviceBody: (status: number) => { readonly body: object; readonly contentType: string },
): Response {
  const status = fault.status ?? defaultStatus
  if (fault.body === undefined) {
    const { body, contentType } = serviceBody(status)
    return HttpResponse.json(body, { status, headers: { 'content-type': contentType, ...fault.headers } })
  }
  if (typeof fault.body === 'object') return HttpResponse.json(fault.body, { status, headers: { ...fault.headers } })
  if (fault.body === '') return new HttpResponse(null, { status, headers: { ...fault.headers } })
  const type = fault.body.trimStart().startsWith('<') ? 'text/html' : 'text/plain'
  return new HttpResponse(fault.body, { status, headers: { 'content-type': type, ...fault.headers } })
}
