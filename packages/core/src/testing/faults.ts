/** Injected failures, the same on every paywire simulator: `simulator.failNext({ ... })`. */

import { HttpResponse } from 'msw'
import type { Operation } from '../operations/operation.js'

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
  /**
   * Only requests carrying this card S2S `action` form field (`'CAPTURE'`): a status lookup on the
   * same path is left alone. Only simulators whose service has actions take it.
   */
  readonly action?: string
  /**
   * Only requests of this SDK operation, named as errors and telemetry name it (`'s2s.capture'`,
   * `'transactions.confirm'`).
   */
  readonly operation?: string
}

/** What a simulator knows of one request, to match it against the pending faults. */
export interface FaultTarget {
  readonly pathname: string
  /** The card S2S `action` form field, when the request has one. */
  readonly action?: string | undefined
  /** The SDK operation the request belongs to, when the simulator recognises it. */
  readonly operation?: string | undefined
}

/** The actions and operations a simulator can recognise, so that a fault naming another is refused. */
export interface FaultVocabulary {
  /** Card S2S action names; empty when the service has none. */
  readonly actions?: readonly string[]
  readonly operations?: readonly string[]
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
  readonly #vocabulary: FaultVocabulary

  /** `vocabulary`: the actions and operations this simulator recognises (a fault naming another is refused). */
  constructor(vocabulary: FaultVocabulary = {}) {
    this.#vocabulary = vocabulary
  }

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
    checkKnown('action', options.action, this.#vocabulary.actions ?? [])
    checkKnown('operation', options.operation, this.#vocabulary.operations ?? [])
    this.#pending.push({ options, remaining: count })
  }

  /** The fault for a request (to `pathname`, or the full `FaultTarget`), if one is pending for it. */
  take(target: string | FaultTarget): InjectedFault | undefined {
    const request = typeof target === 'string' ? { pathname: target } : target
    const pending = this.#pending.find(
      ({ options }) =>
        matches(options.path, request.pathname) &&
        (options.action === undefined || options.action === request.action) &&
        (options.operation === undefined || options.operation === request.operation),
    )
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

/** A fault naming an action or operation the simulator never sees would wait forever: refused, naming the known ones. */
function checkKnown(field: 'action' | 'operation', value: string | undefined, known: readonly string[]): void {
  if (value === undefined) return
  if (typeof value === 'string' && known.includes(value)) return
  const shown = typeof value === 'string' ? JSON.stringify(value) : String(value)
  if (known.length === 0) {
    throw new RangeError(`failNext: ${field} ${shown} is not known: this simulator's service has no ${field}s`)
  }
  throw new RangeError(`failNext: ${field} ${shown} is not known; one of ${known.join(', ')}`)
}

/**
 * The operation name of a request to `method` `pathname`, read from a package's rows (each with
 * `name`, `method` and a `path` whose `{name}` segments are parameters): the same names the SDK's
 * errors and telemetry use. Rows whose path is configurable (a function) are skipped. The pathname
 * may carry a prefix the simulator is mounted under (`/remit/api/...`), any letter case and a
 * trailing slash, as the routes themselves take it.
 */
export function operationOfRequest(
  rows: Iterable<{ readonly name: string; readonly method: string; readonly path: unknown }>,
  method: string,
  pathname: string,
): string | undefined {
  let best: { name: string; literal: number } | undefined
  for (const row of rows) {
    if (typeof row.path !== 'string' || row.method.toUpperCase() !== method.toUpperCase()) continue
    const pattern = row.path
      .split(/\{[^}]+\}/)
      .map((part) => part.replace(/[.*+?^$()|[\]\\]/g, '\\$&'))
      .join('[^/]+')
    // Routes are served whatever their letter case and with a trailing slash (as the services'
    // routers do): the same request must be named the same way, or its strict check and its
    // faults by operation would be skipped.
    if (!new RegExp(`${pattern}/?$`, 'i').test(pathname)) continue
    // The most literal row wins: /api/transactions/all over /api/transactions/{transReference}.
    const literal = row.path.replace(/\{[^}]+\}/g, '').length
    if (!best || literal > best.literal) best = { name: row.name, literal }
  }
  return best?.name
}

/** Any row of any package's endpoint table, whatever its context, schema and result. */
// biome-ignore lint/suspicious/noExplicitAny: rows differ in every type parameter; a simulator only reads them.
export type AnyOperation = Operation<any, any, any, any, any>

/** Every row of a package's endpoint table (`{ group: { method: row } }`). */
export function rowsOf(endpoints: object): AnyOperation[] {
  return Object.values(endpoints).flatMap((group) => Object.values(group as object)) as AnyOperation[]
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
