/**
 * The control API of `paywire sim`, under `/__paywire` (JSON in, JSON out): reset, the clock,
 * faults, ledgers, card payment states and callback deliveries. Documented in docs/cli.md.
 */

import type { FailNextOptions } from '@paywire/core/testing'
import type { SimClock } from './clock.js'
import type { CallbackDeliverer } from './deliveries.js'
import { MOUNTS, type ServiceName, type Services } from './services.js'

/** Where the control API lives; no simulated service uses a path under it. */
export const CONTROL_PREFIX = '/__paywire'

const PAYMENT_STATES = ['3ds', 'pending', 'settled', 'decline', 'void', 'refund'] as const
const EXPIRIES = ['01/2038', '02/2038', '03/2038', '05/2038', '06/2038']
/** Ten years: far enough for any window or retry, small enough to stay an exact number. */
const MAX_ADVANCE_MS = 10 * 365 * 24 * 3600 * 1000

/** A percent-decoded path segment; a malformed escape stays as it was (it then matches nothing). */
export function decodePathSegment(segment: string): string {
  try {
    return decodeURIComponent(segment)
  } catch {
    return segment
  }
}

/** A refused control request: its status and a message naming the field and the rule. */
export class ControlError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message)
  }
}

export interface ControlContext {
  readonly services: Services
  readonly clock: SimClock
  readonly deliverer: CallbackDeliverer | undefined
  /** The `--json` description of the running server (URLs and credentials). */
  readonly describe: () => Record<string, unknown>
}

/** Answers one control request (`path` below the prefix, e.g. `/clock/advance`). */
export function control(ctx: ControlContext, method: string, path: string, rawBody: string): unknown {
  const body = method === 'POST' ? readObject(rawBody) : {}
  const route = `${method} ${path.replace(/\/+$/, '') || '/'}`
  const { services, clock } = ctx

  if (route === 'GET /') return { ...ctx.describe(), endpoints: ENDPOINTS }
  if (route === 'POST /reset') {
    services.reset()
    clock.reset()
    ctx.deliverer?.stop(true)
    return { reset: true, clock: clockState(clock) }
  }
  if (route === 'GET /clock') return clockState(clock)
  if (route === 'POST /clock/advance') {
    const ms = body['ms']
    if (typeof ms !== 'number' || !Number.isInteger(ms) || ms < 1 || ms > MAX_ADVANCE_MS) {
      throw new ControlError(400, `ms: a whole number of milliseconds from 1 to ${MAX_ADVANCE_MS} is required`)
    }
    clock.advance(ms)
    ctx.deliverer?.runDue()
    return clockState(clock)
  }
  if (route === 'POST /faults') return addFault(services, body)
  if (route === 'GET /ledger') {
    const ledgers: Record<string, unknown> = {}
    for (const name of services.enabled) ledgers[name] = services.get(name)?.ledger ?? []
    return ledgers
  }
  if (route === 'GET /callbacks') {
    const deliveries = ctx.deliverer?.deliveries ?? []
    return (services.card?.callbacks ?? []).map((body, i) => ({
      fields: Object.fromEntries(new URLSearchParams(body)),
      body,
      delivery: deliveries[i] ? { ...deliveries[i], body: undefined } : undefined,
    }))
  }

  if (route === 'GET /card/password' || route === 'POST /card/password') {
    needs('card', services.card)
    const rotation = services.passwordRotation
    if (rotation === undefined)
      throw new ControlError(409, 'env: start paywire sim with --password-env (twice to rotate)')
    if (method === 'POST') {
      const env = body['env']
      if (typeof env !== 'string' || !rotation.envs.includes(env)) {
        throw new ControlError(400, `env: one of the --password-env variables, ${rotation.envs.join(', ')}`)
      }
      services.usePassword(env)
    }
    // The variables' names only: the passwords stay in the environment they came from.
    return { env: services.passwordRotation?.current, envs: rotation.envs }
  }
  const card = /^(GET|POST) \/card\/payments(?:\/([^/]+)(?:\/(pay|3ds|status))?)?$/.exec(route)
  if (card) return cardPayment(services, card[1] as string, card[2], card[3], body)
  const remittance = /^POST \/remittance\/transactions\/([^/]+)\/status$/.exec(route)
  if (remittance) {
    const simulator = needs('remittance', services.remittance)
    const status = body['status']
    if (typeof status !== 'string' || status === '')
      throw new ControlError(400, 'status: a non-empty string is required, e.g. "PAID"')
    const id = decodePathSegment(remittance[1] as string)
    try {
      simulator.setStatus(id, status)
    } catch {
      throw new ControlError(
        404,
        `no remittance transaction "${id}" (by transaction id, reference number or agentTransactionRef)`,
      )
    }
    return simulator.ledger.find(
      (t) => t.transactionId === id || t.referenceNumber === id || t.agentTransactionRef === id,
    )
  }
  throw new ControlError(404, `no control endpoint ${route}; GET ${CONTROL_PREFIX} lists them`)
}

const ENDPOINTS = [
  'GET  /__paywire                                   this description',
  'POST /__paywire/reset                             fresh simulators, clock back to real time, deliveries forgotten',
  'GET  /__paywire/clock                             the simulated time',
  'POST /__paywire/clock/advance {"ms":16000}        move time forward (dedup windows, callback retries)',
  'POST /__paywire/faults {"service":"card","path":"/post","status":500,"count":1,"when":"after"}',
  'POST /__paywire/faults {"service":"card","action":"CAPTURE"}  or {"service":"card","operation":"s2s.capture"}',
  'GET  /__paywire/ledger                            every side effect, per service',
  'GET  /__paywire/callbacks                         signed card callbacks and their deliveries',
  'GET  /__paywire/card/payments[/<ref>]             card payments (ref: payment_id, trans_id or order number)',
  'POST /__paywire/card/payments/<ref>/pay {"expiry":"01/2038","capture":false}',
  'POST /__paywire/card/payments/<ref>/3ds           answer an open 3DS challenge',
  'POST /__paywire/card/payments/<ref>/status {"status":"settled"}',
  'POST /__paywire/card/password {"env":"CARD_PASSWORD_B"}  the gateway switches password (--password-env)',
  'POST /__paywire/remittance/transactions/<id>/status {"status":"PAID"}',
]

function clockState(clock: SimClock) {
  return { date: new Date(clock.date()).toISOString(), offsetMs: clock.offset }
}

function readObject(text: string): Record<string, unknown> {
  if (text.trim() === '') return {}
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    throw new ControlError(400, 'body: JSON expected')
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new ControlError(400, 'body: a JSON object expected')
  return value as Record<string, unknown>
}

function needs<T>(name: ServiceName, simulator: T | undefined): T {
  if (simulator === undefined) throw new ControlError(409, `the ${name} simulator is not running (see --services)`)
  return simulator
}

function addFault(services: Services, body: Record<string, unknown>) {
  const name = body['service']
  if (name !== 'card' && name !== 'remittance' && name !== 'billPayment') {
    throw new ControlError(400, 'service: "card", "remittance" or "billPayment" is required')
  }
  const simulator = needs(name, services.get(name))
  const known = new Set(['service', 'path', 'count', 'status', 'body', 'headers', 'when', 'action', 'operation'])
  const unknown = Object.keys(body).filter((key) => !known.has(key))
  if (unknown.length > 0)
    throw new ControlError(
      400,
      `${unknown[0]}: not a fault option (service, path, count, status, body, headers, when, action, operation)`,
    )
  const { path, count, status, headers, when, action, operation } = body
  if (action !== undefined && typeof action !== 'string')
    throw new ControlError(400, 'action: a card S2S action name, e.g. "CAPTURE"')
  if (operation !== undefined && typeof operation !== 'string') {
    throw new ControlError(400, 'operation: an SDK operation name, e.g. "s2s.capture"')
  }
  if (path !== undefined && (typeof path !== 'string' || !path.startsWith('/'))) {
    throw new ControlError(400, 'path: a path of the service starting with "/" (e.g. "/post", "/api/transactions")')
  }
  if (when !== undefined && when !== 'before' && when !== 'after')
    throw new ControlError(400, 'when: "before" or "after"')
  if (count !== undefined && typeof count !== 'number') throw new ControlError(400, 'count: a whole number >= 1')
  // A 1xx is not a final answer: the client would wait for the real one.
  if (
    status !== undefined &&
    (typeof status !== 'number' || !Number.isInteger(status) || status < 200 || status > 599)
  ) {
    throw new ControlError(400, 'status: a final HTTP status from 200 to 599')
  }
  if (headers !== undefined && !isHeaderRecord(headers)) {
    throw new ControlError(
      400,
      "headers: an object of header names (letters, digits and !#$%&'*+-.^_`|~) to values without control characters",
    )
  }
  const options: FailNextOptions = {
    // The service sees the whole path, mount included.
    ...(path !== undefined ? { path: MOUNTS[name] + path } : { path: MOUNTS[name] }),
    ...(count !== undefined ? { count } : {}),
    ...(status !== undefined ? { status } : {}),
    ...(body['body'] !== undefined ? { body: body['body'] as string | object } : {}),
    ...(headers !== undefined ? { headers } : {}),
    ...(when !== undefined ? { when } : {}),
    ...(action !== undefined ? { action } : {}),
    ...(operation !== undefined ? { operation } : {}),
  }
  try {
    simulator.failNext(options)
  } catch (error) {
    throw new ControlError(400, (error as Error).message.replace(/^failNext: /, ''))
  }
  return { queued: { service: name, ...options, path } }
}

/** Control characters a header value may not hold (a tab is allowed). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
const HEADER_VALUE_CONTROL = /[\u0000-\u0008\u000a-\u001f\u007f]/

function isHeaderRecord(value: unknown): value is Record<string, string> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false
  return Object.entries(value).every(
    ([name, v]) =>
      /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/.test(name) && typeof v === 'string' && !HEADER_VALUE_CONTROL.test(v),
  )
}

function cardPayment(
  services: Services,
  method: string,
  ref: string | undefined,
  action: string | undefined,
  body: Record<string, unknown>,
) {
  const simulator = needs('card', services.card)
  if (ref === undefined) {
    if (method !== 'GET') throw new ControlError(405, 'POST needs a payment: /card/payments/<ref>/pay, /3ds or /status')
    return simulator.payments
  }
  const id = decodePathSegment(ref)
  if (!simulator.payment(id))
    throw new ControlError(404, `no card payment "${id}" (by payment_id, trans_id or order number)`)
  if (action === undefined) {
    if (method !== 'GET') throw new ControlError(405, 'POST needs an action: /pay, /3ds or /status')
    return simulator.payment(id)
  }
  if (method !== 'POST') throw new ControlError(405, `/${action} takes POST`)
  try {
    if (action === 'pay') {
      const expiry = body['expiry'] ?? EXPIRIES[0]
      if (typeof expiry !== 'string' || !EXPIRIES.includes(expiry)) {
        throw new ControlError(400, `expiry: one of the test card expiries ${EXPIRIES.join(', ')}`)
      }
      if (body['capture'] !== undefined && typeof body['capture'] !== 'boolean')
        throw new ControlError(400, 'capture: true or false')
      return simulator.pay(id, { card: '4111111111111111', expiry, capture: body['capture'] === true })
    }
    if (action === '3ds') return simulator.complete3ds(id)
    const status = body['status']
    if (typeof status !== 'string' || !(PAYMENT_STATES as readonly string[]).includes(status)) {
      throw new ControlError(400, `status: one of ${PAYMENT_STATES.join(', ')}`)
    }
    return simulator.setStatus(id, status as (typeof PAYMENT_STATES)[number])
  } catch (error) {
    if (error instanceof ControlError) throw error
    throw new ControlError(409, (error as Error).message.replace(/^simulator: /, ''))
  }
}
