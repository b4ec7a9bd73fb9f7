/**
 * The SDK's own work per call, without a network: the SDK clients and raw `undici.request` both send
 * through a stub Dispatcher that answers every request from `answers.ts` on the next turn of the
 * event loop. Whatever the SDK spends above raw undici on the same stub is its own work: checking,
 * encoding, signing, headers, deadlines, retry bookkeeping, reading and typing the answer.
 *
 * `undici.request(url, options)` parses the URL and copies the options by spreading them before it
 * calls the dispatcher's `request`; the SDK calls that same function directly, with the URL already
 * split and one options literal. So a second floor is printed beside the judged one: the stub's own
 * `dispatcher.request({ origin, path, ... })`, what the SDK's transport call is. Own work over it is
 * everything the SDK adds to the cheapest call undici has.
 */

import { Remittance } from '@paywire/remittance'
import { Dispatcher, request } from 'undici'
import { answerOf } from './answers.js'
import { createScenarios, type ScenarioName } from './clients.js'
import { interleave, median } from './measure.js'
import { billExecute, CREDENTIALS, checkoutPurchase, remittanceBanks, s2sStatus, type WireRequest } from './requests.js'

const JSON_TYPE = [Buffer.from('content-type'), Buffer.from('application/json')]

/**
 * Answers each request with `answerOf` (or always `status`), the legacy handler calls undici's own
 * `request` expects: connect, headers, one data chunk, complete.
 */
export class StubDispatcher extends Dispatcher {
  readonly #status: number | undefined

  constructor(status?: number) {
    super()
    this.#status = status
  }

  override dispatch(options: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): boolean {
    const answer = answerOf(options.method, options.path)
    const status = this.#status ?? answer.status
    const legacy = handler as unknown as {
      onConnect(abort: () => void): void
      onHeaders(status: number, headers: Buffer[], resume: () => void, text: string): boolean
      onData(chunk: Buffer): boolean
      onComplete(trailers: Buffer[]): void
    }
    const headers = [...JSON_TYPE, Buffer.from('content-length'), Buffer.from(String(answer.body.length))]
    setImmediate(() => {
      legacy.onConnect(() => {})
      legacy.onHeaders(status, headers, () => {}, status === 200 ? 'OK' : 'Not Found')
      legacy.onData(answer.body)
      legacy.onComplete([])
    })
    return true
  }

  override async close(): Promise<void> {}
  override async destroy(): Promise<void> {}
}

/** CPU µs per call of `calls` calls made one after another (one in flight: no overlap to share). */
async function cpuPerCall(call: () => Promise<unknown>, calls: number, expectFailure: boolean): Promise<number> {
  const start = process.cpuUsage()
  for (let i = 0; i < calls; i++) {
    try {
      await call()
      if (expectFailure) throw new Error('the failing call succeeded')
    } catch (error) {
      if (!expectFailure) throw error
    }
  }
  const used = process.cpuUsage(start)
  return (used.user + used.system) / calls
}

/** One row: µs per call of each side (medians) and the SDK's own work, the paired per-round difference. */
export interface OwnWorkRow {
  readonly name: ScenarioName | 'error-path'
  readonly label: string
  readonly sdkUs: number
  readonly undiciUs: number
  /** Median over rounds of (SDK − raw undici) in the same round: what the target judges. */
  readonly ownUs: number
  readonly ownRange: readonly [number, number]
  /** The stub's `dispatcher.request` with a split URL, µs per call (the scenarios only). */
  readonly directUs: number | undefined
  /** Median over rounds of (SDK − direct `dispatcher.request`): own work over undici's cheapest call. */
  readonly ownOverDirectUs: number | undefined
}

type Side = 'sdk' | 'undici' | 'direct'

function pairedDifference(a: readonly number[], b: readonly number[]): number[] {
  return a.map((value, i) => value - (b[i] ?? Number.NaN))
}

function row(name: OwnWorkRow['name'], label: string, samples: Partial<Record<Side, number[]>>): OwnWorkRow {
  const sdk = samples.sdk ?? []
  const own = pairedDifference(sdk, samples.undici ?? [])
  return {
    name,
    label,
    sdkUs: median(sdk),
    undiciUs: median(samples.undici ?? []),
    ownUs: median(own),
    ownRange: [Math.min(...own), Math.max(...own)],
    directUs: samples.direct && median(samples.direct),
    ownOverDirectUs: samples.direct && median(pairedDifference(sdk, samples.direct)),
  }
}

/**
 * The scenario's wire request sent with the dispatcher's own `request` method: the URL split at the
 * first `/` after the host (what the SDK does for its URLs), one options literal, the answer parsed.
 */
function directCall(dispatcher: Dispatcher, build: (base: string) => WireRequest, base: string) {
  return async (): Promise<unknown> => {
    const req = build(base)
    const pathStart = req.url.indexOf('/', req.url.indexOf('//') + 2)
    const res = await dispatcher.request({
      origin: req.url.slice(0, pathStart),
      path: req.url.slice(pathStart),
      method: req.method,
      headers: req.headers,
      body: req.body,
    })
    const text = await res.body.text()
    if (res.statusCode >= 400) throw new Error(`HTTP ${res.statusCode}`)
    return JSON.parse(text)
  }
}

const WIRE_REQUESTS: Record<ScenarioName, (base: string) => WireRequest> = {
  's2s-status': s2sStatus,
  'checkout-purchase': checkoutPurchase,
  'remittance-banks': remittanceBanks,
  'bill-execute': billExecute,
}

/**
 * Own work of the four scenarios, and of a failed call (a 404 answer: the SDK builds its typed error,
 * raw undici reads the body and throws an Error), in interleaved rounds of `calls` sequential calls.
 */
export async function measureOwnWork(rounds: number, calls: number): Promise<OwnWorkRow[]> {
  const base = 'https://stub.example'
  const stub = new StubDispatcher()
  const { scenarios, close } = createScenarios(base, stub)
  const rows: OwnWorkRow[] = []
  const sides = ['sdk', 'undici', 'direct'] as const
  for (const scenario of scenarios) {
    const direct = directCall(stub, WIRE_REQUESTS[scenario.name], base)
    const pick = (side: Side) => (side === 'direct' ? direct : (scenario.calls[side] as () => Promise<unknown>))
    for (const side of sides) await cpuPerCall(pick(side), calls, false)
    const samples = await interleave(sides, rounds, (side) => cpuPerCall(pick(side), calls, false))
    rows.push(row(scenario.name, scenario.label, samples))
  }
  await close()

  const failing = new StubDispatcher(404)
  const remit = new Remittance({ baseUrl: base, apiKey: CREDENTIALS.apiKey, dispatcher: failing, maxRetries: 0 })
  const raw = async () => {
    const req = remittanceBanks(base)
    const res = await request(req.url, { method: req.method, headers: req.headers, dispatcher: failing })
    const text = await res.body.text()
    if (res.statusCode >= 400) throw new Error(`HTTP ${res.statusCode}: ${text}`)
  }
  const failed = { sdk: () => remit.lookup.banks(), undici: raw }
  const errorSides = ['sdk', 'undici'] as const
  for (const side of errorSides) await cpuPerCall(failed[side], calls, true)
  const samples = await interleave(errorSides, rounds, (side) => cpuPerCall(failed[side], calls, true))
  rows.push(row('error-path', 'Remittance GET answered 404 (typed error vs thrown Error)', samples))
  await remit.close()
  return rows
}
