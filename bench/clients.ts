/**
 * The four ways of sending each scenario's request: the SDK, raw `undici.request` on an Agent set up
 * like core's (the floor), global `fetch`, and axios on a keep-alive `http.Agent`. Every call reads
 * and parses the JSON answer, so all four do the whole round trip.
 */

import { Agent as HttpAgent } from 'node:http'
import { BillPayment } from '@paywire/bill-payment'
import { CardGateway } from '@paywire/card-gateway'
import { Remittance } from '@paywire/remittance'
import axios, { type AxiosInstance } from 'axios'
import { Agent, request } from 'undici'
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

export const CLIENT_NAMES = ['sdk', 'undici', 'fetch', 'axios'] as const
export type ClientName = (typeof CLIENT_NAMES)[number]

export const SCENARIO_NAMES = ['s2s-status', 'checkout-purchase', 'remittance-banks', 'bill-execute'] as const
export type ScenarioName = (typeof SCENARIO_NAMES)[number]

export interface Scenario {
  readonly name: ScenarioName
  readonly label: string
  readonly calls: Record<ClientName, Call>
}

/** A transport for hand-rolled requests. */
type Send = (req: WireRequest) => Promise<unknown>

/**
 * Raw undici: the Agent options of core's `HttpClient` (keep-alive 4 s, undici's own timeouts off,
 * at most 64 sockets per origin), so both sides run on the same number of sockets.
 */
function undiciTransport(): { send: Send; close: () => Promise<void> } {
  const dispatcher = new Agent({
    keepAliveTimeout: 4_000,
    connections: 64,
    headersTimeout: 0,
    bodyTimeout: 0,
    connect: { timeout: 10_000 },
  })
  const send: Send = async (req) => {
    const res = await request(req.url, { method: req.method, headers: req.headers, body: req.body, dispatcher })
    const text = await res.body.text()
    if (res.statusCode >= 400) throw new Error(`HTTP ${res.statusCode}`)
    return JSON.parse(text)
  }
  return { send, close: () => dispatcher.close() }
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

/** The four scenarios against `baseUrl`, and a `close` for every pool they opened. */
export function createScenarios(baseUrl: string): { scenarios: Scenario[]; close: () => Promise<void> } {
  const { merchantKey, clientKey, password } = CREDENTIALS
  const gw = new CardGateway({ checkoutUrl: baseUrl, s2sUrl: baseUrl, merchantKey, clientKey, password })
  const remit = new Remittance({ baseUrl, apiKey: CREDENTIALS.apiKey })
  const bills = new BillPayment({ baseUrl, clientId: CREDENTIALS.clientId, clientSecret: CREDENTIALS.clientSecret })
  const raw = undiciTransport()
  const ax = axiosTransport()

  const handRolled = (build: (base: string) => WireRequest) => ({
    undici: () => raw.send(build(baseUrl)),
    fetch: () => fetchSend(build(baseUrl)),
    axios: () => ax.send(build(baseUrl)),
  })

  const scenarios: Scenario[] = [
    {
      name: 's2s-status',
      label: 'S2S GET_TRANS_STATUS (form + hash)',
      calls: { sdk: () => gw.s2s.getTransStatus(S2S_PARAMS), ...handRolled(s2sStatus) },
    },
    {
      name: 'checkout-purchase',
      label: 'Checkout purchase (JSON + hash)',
      calls: { sdk: () => gw.checkout.purchase(PURCHASE_PARAMS), ...handRolled(checkoutPurchase) },
    },
    {
      name: 'remittance-banks',
      label: 'Remittance GET lookup/banks',
      calls: { sdk: () => remit.lookup.banks(), ...handRolled(remittanceBanks) },
    },
    {
      name: 'bill-execute',
      label: 'Bill payment execute (POST JSON)',
      calls: { sdk: () => bills.transactions.execute(EXECUTE_BODY), ...handRolled(billExecute) },
    },
  ]

  const close = async () => {
    await Promise.all([gw.close(), remit.close(), bills.close(), raw.close(), ax.close()])
  }
  return { scenarios, close }
}
