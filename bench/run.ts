/**
 * `pnpm bench` (full) or `pnpm bench --quick` (CI: a second or two per scenario, speed not judged).
 * Profiling and partial runs: `--only s2s-status,bill-execute`, `--clients sdk,undici`,
 * `--skip signer,cold,size,memory`; a partial run writes `results/partial.json`.
 * Load runs at 1, 16 and 256 calls in flight; fetch and axios, for reference, at 16 only.
 */

import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { type CallbackResult, measureCallbacks } from './callbacks.js'
import { CLIENT_NAMES, type ClientName, createScenarios, SCENARIO_NAMES, type ScenarioName } from './clients.js'
import { type ColdStartResult, measureColdStart } from './cold-start.js'
import { type MemoryResult, measureMemory } from './memory.js'
import { machine, type Report, renderReport, writeReport } from './report.js'
import { startServer } from './server.js'
import { measureSigner, type SignerResult } from './signer.js'
import { measureSizes, type SizeResult } from './size.js'
import { measureSockets, type SocketResult } from './sockets.js'
import { measureStores, type StoreResult } from './stores.js'
import { measureOwnWork, type OwnWorkRow } from './stub.js'
import { checkTargets } from './targets.js'
import { measureScenario, type ScenarioResult } from './throughput.js'
import { measureTls, measureTlsLatency, type TlsLatencyResult, type TlsResult } from './tls.js'

/** Calls in flight the load runs at. */
const CONCURRENCIES = [1, 16, 256] as const
const RESULTS = join(dirname(fileURLToPath(import.meta.url)), 'results')
const EXTRAS = ['signer', 'callbacks', 'cold', 'size', 'memory', 'load', 'stub', 'sockets', 'tls', 'stores'] as const
type Extra = (typeof EXTRAS)[number]

const SETTINGS = {
  full: {
    concurrency: 16,
    warmupMs: 150,
    durationMs: 600,
    rounds: 11,
    scenarioWarmupMs: 500,
    stubRounds: 9,
    stubCalls: 20_000,
    socketMs: 600,
    tlsConcurrencies: [1, 16, 64, 256],
    keptConcurrencies: [1, 16, 256],
    tlsRounds: 5,
    latencyRtts: [20, 80],
    latencyCalls: 30,
    signerRounds: 31,
    signerMs: 150,
    coldRuns: 30,
    memoryCalls: 100_000,
    storeConcurrency: 32,
    storeRounds: 5,
    storeMs: 600,
  },
  quick: {
    concurrency: 16,
    warmupMs: 50,
    durationMs: 100,
    rounds: 3,
    scenarioWarmupMs: 100,
    stubRounds: 3,
    stubCalls: 1_000,
    socketMs: 100,
    tlsConcurrencies: [16],
    keptConcurrencies: [16],
    tlsRounds: 1,
    latencyRtts: [20],
    latencyCalls: 5,
    signerRounds: 3,
    signerMs: 100,
    coldRuns: 3,
    memoryCalls: 5_000,
    storeConcurrency: 32,
    storeRounds: 1,
    storeMs: 100,
  },
} as const

function pick<T extends string>(flag: string, value: string | undefined, allowed: readonly T[]): T[] {
  if (value === undefined) return [...allowed]
  const chosen = value.split(',').map((v) => v.trim())
  for (const v of chosen)
    if (!allowed.includes(v as T)) throw new Error(`--${flag}: "${v}" is not one of ${allowed.join(', ')}`)
  return chosen as T[]
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      quick: { type: 'boolean', default: false },
      only: { type: 'string' },
      clients: { type: 'string' },
      skip: { type: 'string' },
    },
  })
  const settings = values.quick ? SETTINGS.quick : SETTINGS.full
  const scenarioNames = pick<ScenarioName>('only', values.only, SCENARIO_NAMES)
  const clientNames = pick<ClientName>('clients', values.clients, CLIENT_NAMES)
  const skipped = new Set<Extra>(values.skip === undefined ? [] : pick<Extra>('skip', values.skip, EXTRAS))
  const partial = values.only !== undefined || values.clients !== undefined || skipped.size > 0
  const mode = partial ? 'partial' : values.quick ? 'quick' : 'full'
  const log = (text: string) => process.stderr.write(`${text}\n`)

  const server = await startServer()
  log(`bench server pid ${server.pid} at ${server.url}; client pid ${process.pid}`)
  const { scenarios: all, close } = createScenarios(server.url)
  const scenarios: ScenarioResult[] = []
  let ownWork: OwnWorkRow[] | undefined
  let sockets: SocketResult[] | undefined
  let tls: TlsResult[] | undefined
  let tlsLatency: TlsLatencyResult[] | undefined
  let signer: SignerResult | undefined
  let callbacks: CallbackResult | undefined
  let stores: StoreResult[] | undefined
  let coldStart: ColdStartResult[] | undefined
  let nodeEmptyMs: number | undefined
  let sizes: SizeResult[] | undefined
  let memory: MemoryResult | undefined
  try {
    if (!skipped.has('load')) {
      for (const scenario of all.filter((s) => scenarioNames.includes(s.name))) {
        for (const concurrency of CONCURRENCIES) {
          log(`load: ${scenario.label}, ${concurrency} in flight`)
          const clients = clientNames.filter((c) => concurrency === 16 || (c !== 'fetch' && c !== 'axios'))
          const result = await measureScenario(
            scenario,
            {
              load: { concurrency, warmupMs: settings.warmupMs, durationMs: settings.durationMs },
              rounds: settings.rounds,
              warmupMs: settings.scenarioWarmupMs,
              clients,
            },
            (client, round, s) =>
              log(
                `  round ${round + 1} ${client.padEnd(11)} ${s.rps.toFixed(0)} req/s ${s.cpuUsPerRequest.toFixed(1)} µs/req`,
              ),
          )
          scenarios.push(result)
        }
      }
    }
    await close()
    if (!skipped.has('stub')) {
      log('own work on the stub dispatcher')
      ownWork = await measureOwnWork(settings.stubRounds, settings.stubCalls)
    }
    if (!skipped.has('sockets')) {
      log('sockets')
      sockets = await measureSockets(server, [16, 256], settings.socketMs)
    }
    if (!skipped.has('tls')) {
      log('payments over TLS: a connection of its own (purchase), kept alive (capture), HTTP/2 (purchase)')
      const over = { rounds: settings.tlsRounds, warmupMs: settings.warmupMs, durationMs: settings.durationMs }
      const kept = settings.keptConcurrencies
      tls = [
        ...(await measureTls(
          { ...over, operation: 'checkout purchase', protocol: 'http/1.1', concurrencies: settings.tlsConcurrencies },
          log,
        )),
        ...(await measureTls({ ...over, operation: 's2s capture', protocol: 'http/1.1', concurrencies: kept }, log)),
        ...(await measureTls({ ...over, operation: 'checkout purchase', protocol: 'h2', concurrencies: kept }, log)),
      ]
      log('latency with added round-trip time: a capture kept alive, a purchase on HTTP/2')
      const { latencyRtts: rtts, latencyCalls: calls } = settings
      tlsLatency = [
        ...(await measureTlsLatency('s2s capture', 'http/1.1', rtts, calls, log)),
        ...(await measureTlsLatency('checkout purchase', 'h2', rtts, calls, log)),
      ]
    }
    if (!skipped.has('signer')) {
      log('signer')
      signer = await measureSigner(settings.signerRounds, settings.signerMs)
    }
    if (!skipped.has('callbacks')) {
      log('callbacks')
      callbacks = await measureCallbacks(settings.signerRounds, settings.signerMs)
    }
    if (!skipped.has('stores')) {
      log('callback stores against real servers')
      const { storeConcurrency: concurrency, storeRounds: rounds, storeMs: durationMs } = settings
      stores = await measureStores({ concurrency, rounds, warmupMs: 100, durationMs }, log)
    }
    if (!skipped.has('memory')) {
      log(`memory: ${settings.memoryCalls} calls`)
      memory = await measureMemory(server.url, settings.memoryCalls, settings.concurrency)
    }
    if (!skipped.has('cold')) {
      // The first answers come from the bench server, in its own process; nothing else runs meanwhile.
      log(`cold start: ${settings.coldRuns} runs`)
      const cold = await measureColdStart(settings.coldRuns, server.url, log)
      coldStart = cold.results
      nodeEmptyMs = cold.nodeEmptyMs
    }
  } finally {
    await server.stop()
  }
  if (!skipped.has('size')) sizes = await measureSizes()

  const measured = { scenarios, ownWork, sockets, tls, tlsLatency, signer, callbacks, stores, coldStart, sizes, memory }
  const report: Report = {
    mode,
    machine: machine(),
    settings: {
      ...settings,
      tlsConcurrencies: settings.tlsConcurrencies.join(','),
      keptConcurrencies: settings.keptConcurrencies.join(','),
      latencyRtts: settings.latencyRtts.join(','),
      server: 'node:http, separate process, loopback (TLS: node:https in the bench process)',
    },
    ...measured,
    nodeEmptyMs,
    targets: checkTargets(measured),
  }
  process.stdout.write(renderReport(report))
  const file = join(RESULTS, `${mode === 'full' ? 'latest' : mode}.json`)
  writeReport(file, report)
  log(`wrote ${file}`)
  const failed = values.quick ? [] : report.targets.filter((t) => t.failsRun && !t.pass)
  for (const t of failed) log(`MISS fails the run: ${t.target} (${t.subject}: ${t.actual.toFixed(2)})`)
  if (failed.length > 0) process.exitCode = 1
}

main().catch((error: unknown) => {
  console.error(error)
  process.exitCode = 1
})
