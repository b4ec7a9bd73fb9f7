/**
 * What telemetry costs: the SDK's CPU per request over raw undici, with nobody subscribed to the
 * paywire diagnostics channels (what every merchant without `@paywire/otel` runs) and with
 * `@paywire/otel` subscribed to the real OpenTelemetry SDK (spans and the duration histogram made,
 * then dropped by a no-op exporter). With `--main <dir>` (a checkout of the base commit, its core and
 * card gateway built), that build's SDK runs in the same rounds, so the no-subscriber ratio can be
 * compared with the one before the channels existed, paired per round.
 *
 * Two settings: the stub dispatcher (no network: the SDK's own work alone, calls one after another)
 * and the loopback server of the main bench (a separate process) at 16 calls in flight.
 *
 * Run (after building the packages):
 *   node_modules/.bin/tsx --tsconfig bench/tsconfig.run.json bench/telemetry.ts [--main /path/to/base] [--rounds 11]
 */

import { type Attributes, context, SpanKind, trace } from '@opentelemetry/api'
import { MeterProvider } from '@opentelemetry/sdk-metrics'
import { BasicTracerProvider, SimpleSpanProcessor, type SpanExporter } from '@opentelemetry/sdk-trace-base'
import { CardGateway, type CardGatewayOptions } from '@paywire/card-gateway'
import { instrumentPaywire } from '@paywire/otel'
import { Agent, type Dispatcher, request } from 'undici'
import { interleave, measureLoad, median } from './measure.js'
import { CREDENTIALS, checkoutPurchase, PURCHASE_PARAMS, S2S_PARAMS, s2sStatus, type WireRequest } from './requests.js'
import { startServer } from './server.js'
import { StubDispatcher } from './stub.js'

const args = process.argv.slice(2)
const option = (name: string) => {
  const i = args.indexOf(name)
  return i === -1 ? undefined : args[i + 1]
}
const mainDir = option('--main')
const rounds = Number(option('--rounds') ?? 11)
const stubCalls = Number(option('--calls') ?? 5_000)
const loadMs = Number(option('--load-ms') ?? 600)

type Side = 'undici' | 'sdk' | 'sdk-otel' | 'sdk-hand' | 'sdk-main'
type Gateway = new (options: CardGatewayOptions) => CardGateway

/** A span exporter that drops everything: the spans are made and ended, only the export is free. */
const dropAll: SpanExporter = {
  export: (_spans, done) => done({ code: 0 }),
  shutdown: async () => {},
}
const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(dropAll)] })
const meterProvider = new MeterProvider()

const handTracer = tracerProvider.getTracer('by-hand')
const handDuration = meterProvider.getMeter('by-hand').createHistogram('by-hand.duration', {
  unit: 's',
  advice: { explicitBucketBoundaries: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120] },
})

/**
 * What a merchant would write by hand for the same telemetry as `@paywire/otel`: the operation's
 * span, its attempt as a child span, the same attributes on each at start and end, and one point of
 * the duration histogram with the same attributes. The baseline of the issue's ≤ 1.05× goal.
 */
function byHand(operation: string, method: string, base: string, call: () => PromiseLike<object>) {
  const { hostname, port } = new URL(base)
  const serverPort = Number(port || 443)
  return async () => {
    const started = performance.now()
    const shared = {
      'paywire.operation': operation,
      'paywire.service': 'card-gateway',
      'http.request.method': method,
      'server.address': hostname,
      'server.port': serverPort,
    }
    const span = handTracer.startSpan(`card-gateway ${operation}`, { kind: SpanKind.INTERNAL, attributes: shared })
    const attempt = handTracer.startSpan(
      `${method} ${operation}`,
      { kind: SpanKind.CLIENT, attributes: { ...shared, 'paywire.attempt': 1 } },
      trace.setSpan(context.active(), span),
    )
    const answer = await call()
    attempt.setAttribute('http.response.status_code', 200)
    attempt.end()
    const shown = (answer as { result?: unknown }).result
    const result = typeof shown === 'string' ? shown : undefined
    const ended: Attributes = { 'paywire.retry_count': 0, 'paywire.attempts': 1, 'paywire.outcome_unknown': false }
    ended['http.response.status_code'] = 200
    if (result !== undefined) ended['paywire.result'] = result
    span.setAttributes(ended)
    span.end()
    const point: Attributes = { ...shared, 'paywire.outcome_unknown': false, 'http.response.status_code': 200 }
    if (result !== undefined) point['paywire.result'] = result
    handDuration.record((performance.now() - started) / 1000, point)
    return answer
  }
}

/** Runs `work` with `@paywire/otel` subscribed when `side` is `sdk-otel`, unsubscribed after. */
async function withSide<T>(side: Side, work: () => Promise<T>): Promise<T> {
  if (side !== 'sdk-otel') return work()
  const instrumentation = instrumentPaywire({ tracerProvider, meterProvider })
  try {
    return await work()
  } finally {
    instrumentation.disable()
  }
}

function rawUndici(dispatcher: Dispatcher) {
  return async (req: WireRequest, singleUse: boolean) => {
    const res = await request(req.url, {
      method: req.method,
      headers: req.headers,
      body: req.body,
      dispatcher,
      reset: singleUse,
    })
    const text = await res.body.text()
    if (res.statusCode >= 400) throw new Error(`HTTP ${res.statusCode}`)
    return JSON.parse(text) as unknown
  }
}

async function gateways(base: string, dispatcher: Dispatcher | undefined) {
  const { merchantKey, clientKey, password } = CREDENTIALS
  const options: CardGatewayOptions = {
    checkoutUrl: base,
    s2sUrl: base,
    merchantKey,
    clientKey,
    password,
    timeout: 30_000,
    ...(dispatcher ? { dispatcher } : {}),
  }
  const current = new CardGateway(options)
  const main = mainDir
    ? new ((await import(`${mainDir}/packages/card-gateway/dist/index.js`)) as { CardGateway: Gateway }).CardGateway(
        options,
      )
    : undefined
  return { current, main }
}

type Scenario = { name: string; calls: Partial<Record<Side, () => Promise<unknown>>> }

function scenarios(
  base: string,
  current: CardGateway,
  main: CardGateway | undefined,
  raw: ReturnType<typeof rawUndici>,
) {
  const list: Scenario[] = [
    {
      name: 'S2S GET_TRANS_STATUS',
      calls: {
        undici: () => raw(s2sStatus(base), false),
        sdk: () => current.s2s.getTransStatus(S2S_PARAMS),
        'sdk-otel': () => current.s2s.getTransStatus(S2S_PARAMS),
        'sdk-hand': byHand('s2s.getTransStatus', 'POST', base, () => current.s2s.getTransStatus(S2S_PARAMS)),
        ...(main ? { 'sdk-main': () => main.s2s.getTransStatus(S2S_PARAMS) } : {}),
      },
    },
    {
      name: 'Checkout purchase',
      calls: {
        undici: () => raw(checkoutPurchase(base), true),
        sdk: () => current.checkout.purchase(PURCHASE_PARAMS),
        'sdk-otel': () => current.checkout.purchase(PURCHASE_PARAMS),
        'sdk-hand': byHand('checkout.purchase', 'POST', base, () => current.checkout.purchase(PURCHASE_PARAMS)),
        ...(main ? { 'sdk-main': () => main.checkout.purchase(PURCHASE_PARAMS) } : {}),
      },
    },
  ]
  return list
}

async function cpuPerCall(call: () => Promise<unknown>, calls: number): Promise<number> {
  const start = process.cpuUsage()
  for (let i = 0; i < calls; i++) await call()
  const used = process.cpuUsage(start)
  return (used.user + used.system) / calls
}

const fmt = (n: number) => n.toFixed(3)
const spreadOf = (values: number[]) =>
  `${fmt(median(values))} (${fmt(Math.min(...values))}–${fmt(Math.max(...values))})`

/** Prints, per scenario, each side's µs per call and the paired per-round ratios. */
function report(setting: string, name: string, samples: Record<Side, number[]>, sides: readonly Side[]) {
  const ratio = (a: Side, b: Side) => samples[a].map((v, i) => v / (samples[b][i] ?? Number.NaN))
  console.log(`\n${setting} — ${name}`)
  for (const side of sides)
    console.log(`  ${side.padEnd(9)} ${median(samples[side]).toFixed(2)} µs CPU per call (median)`)
  console.log(`  sdk ÷ undici (no subscriber):      ${spreadOf(ratio('sdk', 'undici'))}`)
  console.log(`  sdk-otel ÷ undici (otel on):       ${spreadOf(ratio('sdk-otel', 'undici'))}`)
  console.log(`  sdk-otel ÷ sdk:                    ${spreadOf(ratio('sdk-otel', 'sdk'))}`)
  console.log(`  sdk-otel ÷ sdk-hand (goal ≤ 1.05): ${spreadOf(ratio('sdk-otel', 'sdk-hand'))}`)
  if (sides.includes('sdk-main')) {
    console.log(`  sdk-main ÷ undici (base build):    ${spreadOf(ratio('sdk-main', 'undici'))}`)
    console.log(`  sdk ÷ sdk-main (no subscriber):    ${spreadOf(ratio('sdk', 'sdk-main'))}`)
  }
}

async function stubSetting() {
  const base = 'https://stub.example'
  const stub = new StubDispatcher()
  const { current, main } = await gateways(base, stub)
  for (const scenario of scenarios(base, current, main, rawUndici(stub))) {
    const sides = Object.keys(scenario.calls) as Side[]
    const call = (side: Side) => scenario.calls[side] as () => Promise<unknown>
    for (const side of sides) await withSide(side, () => cpuPerCall(call(side), stubCalls))
    const samples = await interleave(sides, rounds, (side) => withSide(side, () => cpuPerCall(call(side), stubCalls)))
    report(`stub dispatcher, ${stubCalls} sequential calls per round, ${rounds} rounds`, scenario.name, samples, sides)
  }
  await current.close()
  await main?.close()
}

async function loopbackSetting() {
  const server = await startServer()
  const agent = new Agent({ keepAliveTimeout: 4_000, connections: 16, headersTimeout: 30_000, bodyTimeout: 30_000 })
  const { current, main } = await gateways(server.url, undefined)
  try {
    for (const scenario of scenarios(server.url, current, main, rawUndici(agent))) {
      const sides = Object.keys(scenario.calls) as Side[]
      const call = (side: Side) => scenario.calls[side] as () => Promise<unknown>
      const load = { concurrency: 16, warmupMs: 150, durationMs: loadMs }
      for (const side of sides) await withSide(side, () => measureLoad(call(side), { ...load, durationMs: 300 }))
      const samples = await interleave(sides, rounds, (side) =>
        withSide(side, async () => (await measureLoad(call(side), load)).cpuUsPerRequest),
      )
      report(`loopback server, 16 in flight, ${rounds} rounds of ${loadMs} ms`, scenario.name, samples, sides)
    }
  } finally {
    await current.close()
    await main?.close()
    await agent.close()
    await server.stop()
  }
}

console.log(`node ${process.version}; base build: ${mainDir ?? '(none: pass --main <dir>)'}`)
await stubSetting()
await loopbackSetting()
await tracerProvider.shutdown()
await meterProvider.shutdown()
