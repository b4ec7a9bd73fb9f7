/** Per scenario: the four clients under the same fixed-concurrency load, interleaved in rounds. */

import { CLIENT_NAMES, type ClientName, type Scenario, type ScenarioName } from './clients.js'
import { interleave, type LoadOptions, type LoadSample, measureLoad, median } from './measure.js'

export interface ClientFigures {
  /** Median requests/s over the rounds. */
  readonly rps: number
  /** Median client CPU µs per request over the rounds. */
  readonly cpuUsPerRequest: number
  readonly samples: readonly LoadSample[]
}

/** SDK figure ÷ the other client's, per other client. */
export type Ratios = Record<Exclude<ClientName, 'sdk'>, number>

export interface ScenarioResult {
  readonly name: ScenarioName
  readonly label: string
  readonly clients: Record<ClientName, ClientFigures>
  /** SDK rps ÷ other rps: higher is better for the SDK. */
  readonly throughputRatio: Ratios
  /** SDK CPU/request ÷ other CPU/request: lower is better for the SDK. */
  readonly cpuRatio: Ratios
  /** The same ratios taken round by round (neighbours in time), then the median: less drift-prone. */
  readonly pairedThroughputRatio: Ratios
  readonly pairedCpuRatio: Ratios
}

export interface ThroughputOptions {
  readonly load: LoadOptions
  readonly rounds: number
  /** Uncounted load per client before the first round (JIT, pools). */
  readonly warmupMs: number
  readonly clients: readonly ClientName[]
}

function figures(samples: readonly LoadSample[]): ClientFigures {
  return {
    rps: median(samples.map((s) => s.rps)),
    cpuUsPerRequest: median(samples.map((s) => s.cpuUsPerRequest)),
    samples,
  }
}

const EMPTY_SAMPLE: LoadSample = { requests: 0, seconds: 0, rps: Number.NaN, cpuUsPerRequest: Number.NaN }
const EMPTY: ClientFigures = { rps: Number.NaN, cpuUsPerRequest: Number.NaN, samples: [] }

export async function measureScenario(
  scenario: Scenario,
  options: ThroughputOptions,
  onSample?: (client: ClientName, round: number, sample: LoadSample) => void,
): Promise<ScenarioResult> {
  for (const name of options.clients) {
    if (options.warmupMs > 0) {
      await measureLoad(scenario.calls[name], { ...options.load, warmupMs: 0, durationMs: options.warmupMs })
    }
  }
  const samples = await interleave(options.clients, options.rounds, async (name, round) => {
    const sample = await measureLoad(scenario.calls[name], options.load)
    onSample?.(name, round, sample)
    return sample
  })
  const clients = Object.fromEntries(
    CLIENT_NAMES.map((name) => [name, samples[name] ? figures(samples[name]) : EMPTY]),
  ) as Record<ClientName, ClientFigures>
  const ratio = (pick: (f: ClientFigures) => number): Ratios => ({
    undici: pick(clients.sdk) / pick(clients.undici),
    fetch: pick(clients.sdk) / pick(clients.fetch),
    axios: pick(clients.sdk) / pick(clients.axios),
  })
  const paired = (pick: (s: LoadSample) => number): Ratios => {
    const one = (other: ClientName) =>
      median(clients.sdk.samples.map((s, i) => pick(s) / pick(clients[other].samples[i] ?? EMPTY_SAMPLE)))
    return { undici: one('undici'), fetch: one('fetch'), axios: one('axios') }
  }
  return {
    name: scenario.name,
    label: scenario.label,
    clients,
    throughputRatio: ratio((f) => f.rps),
    cpuRatio: ratio((f) => f.cpuUsPerRequest),
    pairedThroughputRatio: paired((s) => s.rps),
    pairedCpuRatio: paired((s) => s.cpuUsPerRequest),
  }
}
