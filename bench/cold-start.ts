/**
 * Cold start: wall time of a fresh `node -e "import('<pkg>')"`, every script once per round in a
 * rotated order (≥ 30 rounds), judged on per-round pairs: a package against what its dist imports
 * (its own cost) and, for the card gateway and remittance, against the reference build of the day
 * the target was set (`reference/`).
 */

import { spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { builtinModules } from 'node:module'
import { dirname, join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { fileURLToPath } from 'node:url'
import { median } from './measure.js'
import { type Spread, spread } from './throughput.js'

const BENCH_DIR = dirname(fileURLToPath(import.meta.url))
const PACKAGES = ['core', 'card-gateway', 'remittance', 'bill-payment'] as const
/** The packages the cold-start target is set for, with a reference build in `reference/`. */
const WITH_REFERENCE = new Set(['card-gateway', 'remittance'])

const BUILTINS = new Set(builtinModules)
const IMPORT_FROM = /^import\s[^'"]*?from\s*['"]([^'"]+)['"]|^import\s*['"]([^'"]+)['"]/gm

/** The bare, non-builtin specifiers statically imported by `packages/<name>/dist/index.js`. */
function distImports(name: string): string[] {
  const code = readFileSync(join(BENCH_DIR, '..', 'packages', name, 'dist', 'index.js'), 'utf8')
  const found = new Set<string>()
  for (const match of code.matchAll(IMPORT_FROM)) {
    const spec = match[1] ?? match[2] ?? ''
    if (spec.startsWith('.') || spec.startsWith('node:') || BUILTINS.has(spec)) continue
    found.add(spec)
  }
  return [...found].sort()
}

export interface ColdStartResult {
  readonly pkg: string
  readonly runs: number
  /** Median wall ms of `node -e "import('<pkg>')"`. */
  readonly importMs: number
  /** What `dist/index.js` imports, and the median wall ms of importing only that. */
  readonly loads: string
  readonly loadsMs: number
  /** Per-round `import − loads`: the package's own import cost. */
  readonly ownMs: Spread
  /** Median wall ms of the reference build, and the per-round `import ÷ reference`. */
  readonly referenceMs?: number
  readonly vsReference?: Spread
}

function script(specifiers: readonly string[]): string {
  if (specifiers.length === 0) return '0'
  return specifiers.length === 1
    ? `import('${specifiers[0]}')`
    : `Promise.all([${specifiers.map((s) => `import('${s}')`).join(', ')}])`
}

function wallMs(code: string): number {
  const env = { ...process.env }
  delete env['NODE_OPTIONS']
  const start = performance.now()
  const result = spawnSync(process.execPath, ['-e', code], { cwd: BENCH_DIR, env, stdio: ['ignore', 'ignore', 'pipe'] })
  const elapsed = performance.now() - start
  if (result.status !== 0) throw new Error(`cold start of ${code} failed: ${result.stderr.toString().slice(0, 500)}`)
  return elapsed
}

/** `runs` rounds; every round spawns each distinct script once, in a rotated order. */
export function measureColdStart(runs: number): { results: ColdStartResult[]; nodeEmptyMs: number } {
  const targets = PACKAGES.map((name) => ({
    name,
    pkg: `@paywire/${name}`,
    loads: distImports(name),
    reference: WITH_REFERENCE.has(name) ? `./reference/${name}/index.js` : undefined,
  }))
  const scripts = new Set<string>(['0'])
  for (const t of targets) {
    scripts.add(script([t.pkg]))
    scripts.add(script(t.loads))
    if (t.reference) scripts.add(script([t.reference]))
  }
  const list = [...scripts]
  const times = new Map<string, number[]>(list.map((s) => [s, []]))
  for (let round = 0; round < runs; round++) {
    for (let i = 0; i < list.length; i++) {
      const code = list[(i + round) % list.length] as string
      times.get(code)?.push(wallMs(code))
    }
  }
  const of = (code: string) => times.get(code) ?? []
  const results = targets.map((t): ColdStartResult => {
    const own = of(script([t.pkg]))
    const loads = of(script(t.loads))
    const reference = t.reference ? of(script([t.reference])) : undefined
    return {
      pkg: t.pkg,
      runs,
      importMs: median(own),
      loads: t.loads.join(' + ') || '(nothing)',
      loadsMs: median(loads),
      ownMs: spread(own.map((ms, i) => ms - (loads[i] ?? Number.NaN))),
      ...(reference
        ? { referenceMs: median(reference), vsReference: spread(own.map((ms, i) => ms / (reference[i] ?? Number.NaN))) }
        : {}),
    }
  })
  return { results, nodeEmptyMs: median(of('0')) }
}
