/**
 * The ways of sending each scenario's request: the SDK; raw `undici.request` on an Agent set up like
 * core's (the floor), once with a per-request deadline and once without; global `fetch`; and axios
 * on a keep-alive `http.Agent`. Every call reads and parses the JSON answer: the whole round trip.
 * On a stub dispatcher (no network) only the SDK and raw undici run, both on the stub.
 */

import { Agent as HttpAgent } from 'node:http'
import { BillPayment } from '@paywire/bill-payment'
import { CardGateway } from '@paywire/card-gateway'
import { Remittance } from '@paywire/remittance'
import axios, { type AxiosInstance } from 'axios'
import { Agent, type Dispatcher, request } from 'undici'
import {
  billExecute,
  CREDENTIALS,
  checkoutPurchase,
  EXECUTE_BODY,
  PURCHASE_PARAMS,
  remittanceBanks,
  S2S_PARAMS,
  s2sStatus,
  type WireRequest,
} from './requests.js'

/** One complete request: send, read, parse. */
export type Call = () => Promise<unknown>

export const CLIENT_NAMES = ['sdk', 'undici', 'undici-bare', 'fetch', 'axios'] as const
export type ClientName = (typeof CLIENT_NAMES)[number]

export const SCENARIO_NAMES = ['s2s-status', 'checkout-purchase', 'remittance-banks', 'bill-execute'] as const
export type ScenarioName = (typeof SCENARIO_NAMES)[number]

export interface Scenario {
  readonly name: ScenarioName
  readonly label: string
  /** Absent clients do not run in this setting (fetch and axios on the stub). */
  readonly calls: Partial<Record<ClientName, Call>>
}

/** The SDK clients' per-attempt time limit, which the deadline-carrying raw client mirrors. */
export const ATTEMPT_TIMEOUT_MS = 30_000

/**
 * A transport for hand-rolled requests. `singleUse`: the request goes on a connection of its own,
 * closed after its answer (undici's `reset`), the policy the SDK applies to every money-moving call.
 */
type Send = (req: WireRequest, singleUse?: boolean) => Promise<unknown>

/**
 * Raw undici on the Agent options of core's `HttpClient` (keep-alive 4 s, at most 16 sockets per
 * origin, so both sides run on the same number of sockets), or on `dispatcher` (the stub).
 * `deadline`: undici's own per-request `headersTimeout`/`bodyTimeout` at the SDK's attempt limit,
 * the cheapest deadline raw undici offers; without it, no time limit at all (the "bare" column).
 */
function undiciTransport(deadline: boolean, stub: Dispatcher | undefined): { send: Send; close: () => Promise<void> } {
  const limit = deadline ? ATTEMPT_TIMEOUT_MS : 0
  const dispatcher =
    stub ??
    new Agent({
      keepAliveTimeout: 4_000,
      connections: 16,
      headersTimeout: limit,
      bodyTimeout: limit,
      connect: { timeout: 10_000 },
    })
  const send: Send = async (req, singleUse = false) => {
    const res = await request(req.url, {
      method: req.method,
      headers: req.headers,
      body: req.body,
      dispatcher,
      reset: singleUse,
    })
    const text = await res.body.text()
    if (res.statusCode >= 400) throw new Error(`HTTP ${res.statusCode}`)
    return JSON.parse(text)
  }
  return { send, close: async () => (stub ? undefined : dispatcher.close()) }
}

/** Global fetch (Node's bundled undici, its default keep-alive dispatcher). */
const fetchSend: Send = async (req) => {
  const res = await fetch(req.url, { method: req.method, headers: req.headers, body: req.body ?? null })
  const text = await res.text()
  if (!res.ok) throw new Error(`HTTP ${res.status}`)
  return JSON.parse(text)
}

/** axios with a keep-alive agent; it parses JSON and rejects non-2xx itself. */
function axiosTransport(): { send: Send; close: () => Promise<void> } {
  const httpAgent = new HttpAgent({ keepAlive: true })
  const instance: AxiosInstance = axios.create({ httpAgent, timeout: 30_000 })
  const send: Send = async (req) => {
    const res = await instance.request({ method: req.method, url: req.url, headers: req.headers, data: req.body })
    return res.data
  }
  return {
    send,
    close: async () => {
      httpAgent.destroy()
    },
  }
}

/**
 * The four scenarios against `baseUrl`, and a `close` for every pool they opened. With `stub`, the
 * SDK clients and raw undici send through it instead (no network): the SDK's own work shows alone.
 */
export function createScenarios(
  baseUrl: string,
  stub?: Dispatcher,
): { scenarios: Scenario[]; close: () => Promise<void> } {
  const { merchantKey, clientKey, password } = CREDENTIALS
  const on = { timeout: ATTEMPT_TIMEOUT_MS, ...(stub ? { dispatcher: stub } : {}) }
  const gw = new CardGateway({ checkoutUrl: baseUrl, s2sUrl: baseUrl, merchantKey, clientKey, password, ...on })
  const remit = new Remittance({ baseUrl, apiKey: CREDENTIALS.apiKey, ...on })
  const bills = new BillPayment({
    baseUrl,
    clientId: CREDENTIALS.clientId,
    clientSecret: CREDENTIALS.clientSecret,
    ...on,
  })
  const raw = undiciTransport(true, stub)
  const bare = undiciTransport(false, stub)
  const ax = axiosTransport()

  // The judged floor (raw undici with a deadline) keeps the SDK's connection policy: a money-moving
  // call on a connection of its own, so the ratio measures the SDK's work, not that choice (whose
  // cost docs/reliability.md gives against keep-alive). The other columns stay on keep-alive.
  const handRolled = (build: (base: string) => WireRequest, singleUse = false): Partial<Record<ClientName, Call>> =>
    stub
      ? { undici: () => raw.send(build(baseUrl), singleUse) }
      : {
          undici: () => raw.send(build(baseUrl), singleUse),
          'undici-bare': () => bare.send(build(baseUrl)),
          fetch: () => fetchSend(build(baseUrl)),
          axios: () => ax.send(build(baseUrl)),
        }

  const scenarios: Scenario[] = [
    {
      name: 's2s-status',
      label: 'S2S GET_TRANS_STATUS (form + hash)',
      calls: { sdk: () => gw.s2s.getTransStatus(S2S_PARAMS), ...handRolled(s2sStatus) },
    },
    {
      name: 'checkout-purchase',
      label: 'Checkout purchase (JSON + hash)',
      calls: { sdk: () => gw.checkout.purchase(PURCHASE_PARAMS), ...handRolled(checkoutPurchase, true) },
    },
    {
      name: 'remittance-banks',
      label: 'Remittance GET lookup/banks',
      calls: { sdk: () => remit.lookup.banks(), ...handRolled(remittanceBanks) },
    },
    {
      name: 'bill-execute',
      label: 'Bill payment execute (POST JSON)',
      calls: { sdk: () => bills.transactions.execute(EXECUTE_BODY), ...handRolled(billExecute, true) },
    },
  ]

  const close = async () => {
    await Promise.all([gw.close(), remit.close(), bills.close(), raw.close(), bare.close(), ax.close()])
  }
  return { scenarios, close }
}
