/**
 * Per scenario and concurrency: the clients under the same fixed-concurrency load, interleaved in
 * rounds, judged on the paired per-round ratio (the SDK's figure over the other client's in the same
 * round, so drift hits both), reported as the median with its range.
 */

import type { ClientName, Scenario, ScenarioName } from './clients.js'
import { interleave, type LoadOptions, type LoadSample, measureLoad, median } from './measure.js'

export interface ClientFigures {
  /** Median requests/s over the rounds. */
  readonly rps: number
  /** Median client CPU µs per request over the rounds. */
  readonly cpuUsPerRequest: number
  readonly samples: readonly LoadSample[]
}

/** A paired ratio: its median over the rounds and the lowest and highest round. */
export interface Spread {
  readonly median: number
  readonly min: number
  readonly max: number
}

export interface ScenarioResult {
  readonly name: ScenarioName
  readonly label: string
  readonly concurrency: number
  readonly clients: Partial<Record<ClientName, ClientFigures>>
  /** SDK CPU/request ÷ the other client's, round by round: lower is better for the SDK. */
  readonly cpuRatio: Partial<Record<ClientName, Spread>>
  /** SDK requests/s ÷ the other client's, round by round: higher is better for the SDK. */
  readonly throughputRatio: Partial<Record<ClientName, Spread>>
}

export interface ThroughputOptions {
  readonly load: LoadOptions
  readonly rounds: number
  /** Uncounted load per client before the first round (JIT, pools). */
  readonly warmupMs: number
  readonly clients: readonly ClientName[]
}

export function spread(values: readonly number[]): Spread {
  return { median: median(values), min: Math.min(...values), max: Math.max(...values) }
}

export async function measureScenario(
  scenario: Scenario,
  options: ThroughputOptions,
  onSample?: (client: ClientName, round: number, sample: LoadSample) => void,
): Promise<ScenarioResult> {
  const names = options.clients.filter((name) => scenario.calls[name] !== undefined)
  const callOf = (name: ClientName) => scenario.calls[name] as () => Promise<unknown>
  for (const name of names) {
    if (options.warmupMs > 0) {
      await measureLoad(callOf(name), { ...options.load, warmupMs: 0, durationMs: options.warmupMs })
    }
  }
  const samples = await interleave(names, options.rounds, async (name, round) => {
    const sample = await measureLoad(callOf(name), options.load)
    onSample?.(name, round, sample)
    return sample
  })
  const clients: Partial<Record<ClientName, ClientFigures>> = {}
  for (const name of names) {
    const list = samples[name]
    clients[name] = {
      rps: median(list.map((s) => s.rps)),
      cpuUsPerRequest: median(list.map((s) => s.cpuUsPerRequest)),
      samples: list,
    }
  }
  const sdk = samples.sdk ?? []
  const paired = (pick: (s: LoadSample) => number) => {
    const ratios: Partial<Record<ClientName, Spread>> = {}
    for (const name of names) {
      if (name === 'sdk') continue
      ratios[name] = spread(sdk.map((s, i) => pick(s) / pick(samples[name][i] as LoadSample)))
    }
    return ratios
  }
  return {
    name: scenario.name,
    label: scenario.label,
    concurrency: options.load.concurrency,
    clients,
    cpuRatio: paired((s) => s.cpuUsPerRequest),
    throughputRatio: paired((s) => s.rps),
  }
}
