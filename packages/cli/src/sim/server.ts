/**
 * `paywire sim`'s HTTP server: each service's msw handlers mounted under its prefix, the control
 * API, the card hosted page, one log entry per request, and callback delivery.
 */

import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { fetchRequestOf, sendFetchResponse } from '@paywire/core/testing'
import { getResponse, HttpHandler, matchRequestUrl, type RequestHandler } from 'msw'
import { displayPath, printable } from '../io.js'
import { SimClock } from './clock.js'
import { CONTROL_PREFIX, ControlError, control, decodePathSegment } from './control.js'
import { CallbackDeliverer, type Delivery, type DeliveryAttempt } from './deliveries.js'
import { hostedPage } from './hosted-page.js'
import { MOUNTS, type ServiceName, Services } from './services.js'

/** The largest request body the simulator reads (a real gateway refuses far smaller). */
const MAX_BODY_BYTES = 1024 * 1024

export interface SimOptions {
  readonly port: number
  readonly host: string
  readonly services: ReadonlySet<ServiceName>
  readonly seed: string | undefined
  /** The card simulator's signature preset. */
  readonly signature: 'seed' | 'card-md5-strrev'
  /** `--lenient`: accept the looser inputs the live services refuse. */
  readonly lenient?: boolean
  /** `--s2s-callbacks`: S2S actions send S2S-shaped callbacks on the seed signature too. */
  readonly s2sCallbacks?: boolean
  /** `--password-env`, given once or more (a rotation, older first): the card passwords. */
  readonly passwords?: readonly { readonly env: string; readonly value: string }[]
  readonly callbackUrl: string | undefined
  readonly callbackTimeoutMs: number
  /** Hears one entry per request served. */
  readonly onRequest: (entry: RequestLogEntry) => void
  /** Hears every callback delivery attempt. */
  readonly onDelivery: (delivery: Delivery, attempt: DeliveryAttempt) => void
}

/** One request as the log shows it: no body, no header, query values of secret-looking names masked. */
export interface RequestLogEntry {
  readonly time: string
  readonly service: ServiceName | 'control' | 'none'
  readonly method: string
  readonly path: string
  /** S2S action, or the route the request matched (e.g. `/api/transactions/:transReference`). */
  readonly operation: string
  readonly status: number
  readonly ms: number
}

export interface RunningSim {
  readonly url: string
  /** What `--json` prints first: the URLs and sandbox credentials of each service served. */
  readonly description: Record<string, unknown>
  close(): Promise<void>
}

/** Starts the server; resolves once it listens. */
export async function startSim(options: SimOptions): Promise<RunningSim> {
  const clock = new SimClock()
  let deliverer: CallbackDeliverer | undefined
  if (options.callbackUrl !== undefined) {
    deliverer = new CallbackDeliverer(options.callbackUrl, options.callbackTimeoutMs, clock, options.onDelivery)
  }
  const services = new Services({
    enabled: options.services,
    clock,
    seed: options.seed,
    signature: options.signature,
    lenient: options.lenient ?? false,
    passwords: options.passwords ?? [],
    s2sCallbacks: options.s2sCallbacks ?? false,
    onCallback: (body) => deliverer?.enqueue(body),
  })
  let base = ''
  const describe = () => describeServices(base, services)

  const server = createServer((req, res) => {
    const started = performance.now()
    const ms = () => Math.round((performance.now() - started) * 10) / 10
    serve(req, res).then(
      (entry) => options.onRequest({ ...entry, ms: ms() }),
      (error: unknown) => {
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' })
        res.end(
          JSON.stringify({ error: `simulator failure: ${error instanceof Error ? error.message : String(error)}` }),
        )
        // Every request gets its line, a failed one too.
        options.onRequest({
          time: new Date(clock.date()).toISOString(),
          service: 'none',
          method: printable(req.method ?? '?'),
          path: printable(req.url ?? '/'),
          operation: '-',
          status: 500,
          ms: ms(),
        })
      },
    )
  })

  async function serve(req: IncomingMessage, res: ServerResponse): Promise<Omit<RequestLogEntry, 'ms'>> {
    const method = req.method ?? 'GET'
    // Joined as text, so a path starting `//` stays a path instead of naming another host.
    const raw = req.url ?? '/'
    const target = new URL(raw.startsWith('/') ? `${base}${raw}` : raw, base)
    const entry = (service: RequestLogEntry['service'], operation: string, status: number) => ({
      time: new Date(clock.date()).toISOString(),
      service,
      method,
      path: displayPath(target, secretValues(services)),
      operation,
      status,
    })
    const body = await readBody(req)
    if (body === undefined) {
      res.setHeader('connection', 'close')
      sendJson(res, 413, { error: `body: over ${MAX_BODY_BYTES} bytes` })
      return entry('none', '-', 413)
    }
    const path = target.pathname

    if (path === CONTROL_PREFIX || path.startsWith(`${CONTROL_PREFIX}/`)) {
      const sub = path.slice(CONTROL_PREFIX.length) || '/'
      try {
        const answer = control({ services, clock, deliverer, describe }, method, sub, body.toString('utf8'))
        sendJson(res, 200, answer ?? null)
        return entry('control', '-', 200)
      } catch (error) {
        if (!(error instanceof ControlError)) throw error
        sendJson(res, error.status, { error: error.message })
        return entry('control', '-', error.status)
      }
    }

    const hosted = /^\/card\/checkout\/([^/]+)$/.exec(path)
    if (hosted && services.card && (method === 'GET' || method === 'POST')) {
      const form = new URLSearchParams(method === 'POST' ? body.toString('utf8') : '')
      const page = hostedPage(services.card, method, decodePathSegment(hosted[1] as string), form)
      res.writeHead(page.status, {
        'content-type': 'text/html; charset=utf-8',
        ...(page.location !== undefined ? { location: page.location } : {}),
      })
      res.end(page.html)
      return entry('card', 'hosted page', page.status)
    }

    const name = (Object.keys(MOUNTS) as ServiceName[]).find(
      (key) => path === MOUNTS[key] || path.startsWith(`${MOUNTS[key]}/`),
    )
    const simulator = name ? services.get(name) : undefined
    if (!name || !simulator) {
      sendJson(res, 404, { error: `no service at ${path}`, services: describe() })
      return entry('none', '-', 404)
    }
    // The Fetch API has no TRACE, CONNECT or TRACK: no simulated service answers them.
    if (/^(TRACE|TRACK|CONNECT)$/i.test(method)) {
      sendJson(res, 405, { error: `method ${method} is not served` })
      return entry(name, '-', 405)
    }
    const request = fetchRequestOf(req, target, body)
    const operation = operationOf(name, simulator.handlers, request, body)
    const response = await getResponse([...simulator.handlers], request)
    if (!response) {
      sendJson(res, 404, {
        error: `the ${name} simulator has no endpoint ${method} ${path.slice(MOUNTS[name].length)}`,
      })
      return entry(name, operation, 404)
    }
    return entry(name, operation, await sendFetchResponse(req, res, response))
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(options.port, options.host, () => {
      server.off('error', reject)
      resolve()
    })
  })
  const address = server.address() as AddressInfo
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address
  base = `http://${host}:${address.port}`

  return {
    url: base,
    description: describe(),
    close: () =>
      new Promise<void>((resolve) => {
        deliverer?.stop()
        server.close(() => resolve())
        server.closeAllConnections()
      }),
  }
}

/** The URLs and sandbox credentials of each service served (the `--json` line). */
function describeServices(base: string, services: Services): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  if (services.card) {
    const url = base + MOUNTS.card
    out['card'] = {
      checkoutUrl: url,
      s2sUrl: url,
      merchantKey: services.card.merchantKey,
      clientKey: services.card.clientKey,
      password: services.card.password,
      signature: services.card.signature,
      ...(services.s2sCallbackFields !== undefined ? { s2sCallbackFields: services.s2sCallbackFields } : {}),
      ...(services.passwordRotation !== undefined
        ? { passwordEnv: services.passwordRotation.current, passwordEnvs: services.passwordRotation.envs }
        : {}),
    }
  }
  if (services.remittance) out['remittance'] = { baseUrl: base + MOUNTS.remittance, apiKey: services.remittance.apiKey }
  if (services.billPayment) {
    out['billPayment'] = {
      baseUrl: base + MOUNTS.billPayment,
      clientId: services.billPayment.clientId,
      clientSecret: services.billPayment.clientSecret,
    }
  }
  out['controlUrl'] = base + CONTROL_PREFIX
  return out
}

/** The S2S action of a card `/post`, else the route pattern the request matches. */
function operationOf(name: ServiceName, handlers: readonly RequestHandler[], request: Request, body: Buffer): string {
  const path = new URL(request.url).pathname
  if (name === 'card' && path.endsWith('/post')) {
    const action = new URLSearchParams(body.toString('utf8')).get('action')
    // Printable ASCII only: a newline in a field must not write a second log line.
    return action ? action.slice(0, 40).replace(/[^\x20-\x7e]/g, '?') : '(no action)'
  }
  for (const handler of handlers) {
    if (!(handler instanceof HttpHandler)) continue
    const { method, path: pattern } = handler.info
    if (typeof method === 'string' && method !== request.method) continue
    if (typeof pattern !== 'string' && !(pattern instanceof RegExp)) continue
    if (matchRequestUrl(new URL(request.url), pattern).matches) return String(pattern).replace(/^\*/, '')
  }
  return '-'
}

/** The sandbox secrets of the running simulators: masked in the log under any query name. */
function secretValues(services: Services): Set<string> {
  const values = [
    services.card?.password,
    services.card?.merchantKey,
    services.card?.clientKey,
    services.remittance?.apiKey,
    services.billPayment?.clientSecret,
  ]
  return new Set(values.filter((v): v is string => v !== undefined))
}

/** The body, or `undefined` once it passes the cap (the rest is read and dropped, not kept). */
function readBody(req: IncomingMessage): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let size = 0
    req.on('data', (chunk: Buffer) => {
      if (size > MAX_BODY_BYTES) return
      size += chunk.length
      if (size > MAX_BODY_BYTES) resolve(undefined)
      else chunks.push(chunk)
    })
    req.on('end', () => resolve(Buffer.concat(chunks)))
    req.on('error', reject)
  })
}

function sendJson(res: ServerResponse, status: number, value: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' })
  res.end(JSON.stringify(value, null, 2))
}
