/**
 * Summarises a V8 `.cpuprofile` (from `node --cpu-prof`): the functions with the most self time,
 * and the paywire package frames (packages/*) by total time, with file:line.
 *
 *   node_modules/.bin/tsx bench/profile.ts bench/results/prof/<file>.cpuprofile [top]
 */

import { readFileSync } from 'node:fs'

interface CallFrame {
  readonly functionName: string
  readonly url: string
  readonly lineNumber: number
  readonly columnNumber: number
}

interface ProfileNode {
  readonly id: number
  readonly callFrame: CallFrame
  readonly children?: readonly number[]
}

interface CpuProfile {
  readonly nodes: readonly ProfileNode[]
  readonly samples: readonly number[]
  readonly timeDeltas: readonly number[]
}

function where(frame: CallFrame): string {
  const url = frame.url.replace(/^file:\/\//, '').replace(/^.*\/(packages|node_modules)\//, '$1/')
  return `${frame.functionName || '(anonymous)'} ${url || '(native)'}:${frame.lineNumber + 1}`
}

export function summarise(profile: CpuProfile, top: number): string {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]))
  const parent = new Map<number, number>()
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id)
  const self = new Map<number, number>()
  profile.samples.forEach((id, i) => {
    self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0))
  })
  const total = [...self.values()].reduce((a, b) => a + b, 0)
  const selfByFrame = new Map<string, number>()
  const totalByFrame = new Map<string, number>()
  for (const [id, time] of self) {
    const node = byId.get(id)
    if (!node) continue
    const key = where(node.callFrame)
    selfByFrame.set(key, (selfByFrame.get(key) ?? 0) + time)
    // Inclusive time: credit each distinct frame on the stack once.
    const seen = new Set<string>()
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
      const frame = byId.get(cur)?.callFrame
      if (!frame) break
      const k = where(frame)
      if (seen.has(k)) continue
      seen.add(k)
      totalByFrame.set(k, (totalByFrame.get(k) ?? 0) + time)
    }
  }
  const pct = (t: number) => `${((100 * t) / total).toFixed(1).padStart(5)}%`
  const list = (map: Map<string, number>, filter: (k: string) => boolean) =>
    [...map]
      .filter(([k]) => filter(k))
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([k, t]) => `${pct(t)}  ${k}`)
      .join('\n')
  return [
    `total sampled: ${(total / 1_000).toFixed(0)} ms`,
    'self time:',
    list(selfByFrame, () => true),
    'paywire frames (packages/*), total time:',
    list(totalByFrame, (k) => k.includes('packages/')),
  ].join('\n')
}

if (process.argv[1]?.endsWith('profile.ts')) {
  const [file, top = '25'] = process.argv.slice(2)
  if (!file) throw new Error('usage: tsx bench/profile.ts <file.cpuprofile> [top]')
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile
  process.stdout.write(`${summarise(profile, Number(top))}\n`)
}
