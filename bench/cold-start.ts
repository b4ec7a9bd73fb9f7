/**
 * Cold start: wall time of a fresh `node -e "import('<pkg>')"` for each package, against a fresh
 * node importing only the package's dependencies. The difference is the SDK's own import cost.
 */

import { spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { builtinModules } from 'node:module'
import { dirname, join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { fileURLToPath } from 'node:url'
import { median } from './measure.js'

const BENCH_DIR = dirname(fileURLToPath(import.meta.url))

/** What the brief calls the runtime deps: the declared `dependencies` of each package. */
const CORE_DEPS = ['undici', 'zod']
const SERVICE_DEPS = ['undici', 'zod', '@paywire/core']

export interface ColdStartTarget {
  readonly pkg: string
  /** Declared runtime dependencies (the brief's baseline). */
  readonly deps: readonly string[]
  /** What the built `dist/index.js` actually imports: the baseline the target is judged on. */
  readonly loads: readonly string[]
}

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

export function coldStartTargets(): ColdStartTarget[] {
  return ['core', 'card-gateway', 'remittance', 'bill-payment'].map((name) => ({
    pkg: `@paywire/${name}`,
    deps: name === 'core' ? CORE_DEPS : SERVICE_DEPS,
    loads: distImports(name),
  }))
}

export interface ColdStartResult {
  readonly pkg: string
  readonly runs: number
  /** Median wall ms of `node -e "import('<pkg>')"`. */
  readonly importMs: number
  readonly baseline: string
  /** Median wall ms of importing the declared deps alone. */
  readonly baselineMs: number
  /** `importMs - baselineMs`: the target's figure. */
  readonly ownOverDepsMs: number
  /** Median wall ms of importing only what the dist actually loads. */
  readonly loadsBaseline: string
  readonly loadsMs: number
  /** `importMs - loadsMs`: the SDK's own import cost, judged by the target. */
  readonly ownMs: number
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
  const targets = coldStartTargets()
  const scripts = new Set<string>(['0'])
  for (const t of targets) {
    scripts.add(script([t.pkg]))
    scripts.add(script(t.deps))
    scripts.add(script(t.loads))
  }
  const list = [...scripts]
  const times = new Map<string, number[]>(list.map((s) => [s, []]))
  for (let round = 0; round < runs; round++) {
    for (let i = 0; i < list.length; i++) {
      const code = list[(i + round) % list.length] as string
      times.get(code)?.push(wallMs(code))
    }
  }
  const med = (code: string) => median(times.get(code) ?? [])
  const results = targets.map((t): ColdStartResult => {
    const importMs = med(script([t.pkg]))
    const baselineMs = med(script(t.deps))
    const loadsMs = med(script(t.loads))
    return {
      pkg: t.pkg,
      runs,
      importMs,
      baseline: t.deps.join(' + '),
      baselineMs,
      ownOverDepsMs: importMs - baselineMs,
      loadsBaseline: t.loads.join(' + ') || '(nothing)',
      loadsMs,
      ownMs: importMs - loadsMs,
    }
  })
  return { results, nodeEmptyMs: med('0') }
}
