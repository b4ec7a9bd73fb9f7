/** The targets, each judged pass or miss against the measured figures. */

import type { CallbackResult } from './callbacks.js'
import type { ColdStartResult } from './cold-start.js'
import type { MemoryResult } from './memory.js'
import type { SignerResult } from './signer.js'
import type { SizeResult } from './size.js'
import type { ScenarioResult } from './throughput.js'

export interface TargetCheck {
  readonly target: string
  /** Where it was measured (scenario, package). */
  readonly subject: string
  readonly actual: number
  readonly limit: number
  readonly unit: string
  readonly pass: boolean
}

export interface Measured {
  readonly scenarios: readonly ScenarioResult[]
  readonly signer?: SignerResult
  readonly callbacks?: CallbackResult
  readonly coldStart?: readonly ColdStartResult[]
  readonly sizes?: readonly SizeResult[]
  readonly memory?: MemoryResult
}

const atLeast = (target: string, subject: string, actual: number, limit: number, unit = '×'): TargetCheck => ({
  target,
  subject,
  actual,
  limit,
  unit,
  pass: actual >= limit,
})

const atMost = (target: string, subject: string, actual: number, limit: number, unit = '×'): TargetCheck => ({
  target,
  subject,
  actual,
  limit,
  unit,
  pass: actual <= limit,
})

export function checkTargets(m: Measured): TargetCheck[] {
  const checks: TargetCheck[] = []
  for (const s of m.scenarios) {
    if (Number.isNaN(s.throughputRatio.undici)) continue
    checks.push(atLeast('SDK throughput ≥ 0.90× raw undici', s.name, s.throughputRatio.undici, 0.9))
    checks.push(atMost('SDK client CPU/request ≤ 1.15× raw undici', s.name, s.cpuRatio.undici, 1.15))
    // Read literally: SDK requests/s at least 3× those of the hand-rolled fetch and axios clients.
    if (!Number.isNaN(s.throughputRatio.fetch)) {
      checks.push(atLeast('SDK throughput ≥ 3× fetch client', s.name, s.throughputRatio.fetch, 3))
    }
    if (!Number.isNaN(s.throughputRatio.axios)) {
      checks.push(atLeast('SDK throughput ≥ 3× axios client', s.name, s.throughputRatio.axios, 3))
    }
  }
  if (m.signer) checks.push(atLeast('signer ≥ 0.9× bare node:crypto', 'sign()', m.signer.ratio, 0.9))
  for (const c of m.coldStart ?? []) {
    checks.push(atMost('own import cost ≤ 15 ms over what it imports', c.pkg, c.ownMs, 15, 'ms'))
  }
  for (const s of m.sizes ?? []) {
    if (s.service) checks.push(atMost('own dist ≤ 25 KB minified', s.pkg, s.minified / 1024, 25, 'KB'))
  }
  if (m.memory) {
    checks.push(
      atMost(`heap growth ≤ 10 MB over ${m.memory.calls} calls`, 's2s.getTransStatus', m.memory.growthMb, 10, 'MB'),
    )
  }
  return checks
}
