/**
 * Measurement primitives: a fixed-concurrency load window (requests/s and client CPU per request),
 * interleaved rounds over several contenders, a tight loop for synchronous work, and the median.
 */

import { performance } from 'node:perf_hooks'
import { setTimeout as sleep } from 'node:timers/promises'

/** One window of load from one client. */
export interface LoadSample {
  readonly requests: number
  readonly seconds: number
  readonly rps: number
  /** Client process CPU (user + system) per completed request, in µs. */
  readonly cpuUsPerRequest: number
}

export interface LoadOptions {
  /** In-flight requests, kept constant. */
  readonly concurrency: number
  /** Uncounted run-in (connections open, JIT settles). */
  readonly warmupMs: number
  /** The counted window. */
  readonly durationMs: number
}

/**
 * Keeps `concurrency` calls in flight for `warmupMs + durationMs`. Completions and CPU are read at
 * the two window edges only, so the run-in and the drain after the window are not counted.
 */
export async function measureLoad(call: () => Promise<unknown>, options: LoadOptions): Promise<LoadSample> {
  let completed = 0
  let running = true
  let failure: unknown
  const worker = async (): Promise<void> => {
    while (running) {
      try {
        await call()
      } catch (error) {
        failure ??= error
        running = false
        return
      }
      completed++
    }
  }
  const workers = Array.from({ length: options.concurrency }, worker)
  await sleep(options.warmupMs)
  const startCount = completed
  const startCpu = process.cpuUsage()
  const startTime = performance.now()
  await sleep(options.durationMs)
  const requests = completed - startCount
  const cpu = process.cpuUsage(startCpu)
  const seconds = (performance.now() - startTime) / 1_000
  running = false
  await Promise.all(workers)
  if (failure !== undefined) throw failure
  return {
    requests,
    seconds,
    rps: requests / seconds,
    cpuUsPerRequest: requests === 0 ? Number.NaN : (cpu.user + cpu.system) / requests,
  }
}

/**
 * Runs every contender once per round, `rounds` times, rotating who goes first each round
 * (A B C D, B C D A, …) so drift on a shared machine and position effects hit all alike.
 */
export async function interleave<K extends string, S>(
  names: readonly K[],
  rounds: number,
  run: (name: K, round: number) => Promise<S>,
): Promise<Record<K, S[]>> {
  const samples = Object.fromEntries(names.map((name) => [name, [] as S[]])) as Record<K, S[]>
  for (let round = 0; round < rounds; round++) {
    for (let i = 0; i < names.length; i++) {
      const name = names[(i + round) % names.length] as K
      samples[name].push(await run(name, round))
    }
  }
  return samples
}

/** Calls per second of a synchronous function over a window of about `durationMs`. */
export function opsPerSecond(fn: () => unknown, durationMs: number): number {
  let sink: unknown
  let ops = 0
  const start = performance.now()
  const end = start + durationMs
  let now = start
  while (now < end) {
    for (let i = 0; i < 1_000; i++) sink = fn()
    ops += 1_000
    now = performance.now()
  }
  if (sink === Symbol.for('never')) console.log(sink)
  return ops / ((now - start) / 1_000)
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  if (sorted.length === 0) return Number.NaN
  return sorted.length % 2 === 1 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2
}
