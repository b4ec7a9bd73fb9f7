/**
 * Cold start: wall time of a fresh `node -e "import('<pkg>')"`, every script once per round in a
 * rotated order (≥ 30 rounds), judged on per-round pairs: a package against what its dist imports
 * (its own cost) and, for the card gateway and remittance, against the reference build of the day
 * the target was set (built on demand from its commit, reference.ts). Since undici is loaded by the first request, the run also times
 * import + client + first answer over a real loopback socket to the bench server (`first-call.mjs`),
 * for both builds, and raw undici's first answer to the same request (`first-undici.mjs`): the import
 * alone would hide what the first call carries, and an answer from a stub dispatcher would skip
 * undici's HTTP parser, the connection and its first-request path. The first answer is judged against
 * raw undici's of the same round (the card gateway's first call is an S2S action, `getTransStatus`).
 *
 * A first answer is timed from the spawn to the line the child prints once its answer is read, not to
 * its exit: after the answer both processes wait on V8 finishing undici's HTTP parser (WebAssembly) in
 * optimized code, which the first response made hot, before they can exit (40–160 ms here, the same
 * work on both sides and not part of answering). The time to exit is reported beside it.
 */

import { spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { builtinModules } from 'node:module'
import { dirname, join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { fileURLToPath } from 'node:url'
import { median } from './measure.js'
import { ensureReferenceBuild, referenceModule } from './reference.js'
import { type Spread, spread } from './throughput.js'

const BENCH_DIR = dirname(fileURLToPath(import.meta.url))
const PACKAGES = ['core', 'card-gateway', 'remittance', 'bill-payment'] as const
/** The packages the cold-start target is set for, with a reference build and the kind of first call. */
const WITH_REFERENCE = new Map<string, 'card' | 'remittance'>([
  ['card-gateway', 'card'],
  ['remittance', 'remittance'],
])

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
  /**
   * Median wall ms from the spawn to the first answer (import, client, one call answered over a
   * loopback socket), and per-round ÷ the reference's.
   */
  readonly firstCallMs?: number
  /** Median wall ms from the spawn to that process's exit (the answer, closing, and V8's wait at exit). */
  readonly firstCallExitMs?: number
  readonly referenceFirstCallMs?: number
  readonly firstCallVsReference?: Spread
  /**
   * Per-round time to the first answer ÷ `node -e 0` spawned in the same round: what a cold process
   * (a serverless instance, a CLI run) pays for its first call, in units of a bare Node start.
   */
  readonly firstCallVsEmpty?: Spread
  /** Median wall ms of raw undici's first answer to the same request, and per-round first answer ÷ it (judged). */
  readonly undiciFirstCallMs?: number
  readonly firstCallVsUndici?: Spread
  /** The same two processes timed to their exit: median ms of raw undici's, and per-round ÷ (reported). */
  readonly undiciFirstCallExitMs?: number
  readonly firstCallExitVsUndici?: Spread
}

/** A fresh node process: `-e <code>`, or a bench script with its arguments. */
type Run = readonly string[]

const evalRun = (code: string): Run => ['-e', code]
const firstCallRun = (specifier: string, kind: string, url: string): Run => ['first-call.mjs', specifier, kind, url]
const undiciFirstRun = (kind: string, url: string): Run => ['first-undici.mjs', kind, url]

function script(specifiers: readonly string[]): string {
  if (specifiers.length === 0) return '0'
  return specifiers.length === 1
    ? `import('${specifiers[0]}')`
    : `Promise.all([${specifiers.map((s) => `import('${s}')`).join(', ')}])`
}

/** What a first-answer script prints once its answer is read (first-call.mjs, first-undici.mjs). */
const ANSWERED = 'answered'

/** Wall ms from the spawn to the process's exit, and to the line saying it has its answer (if it prints one). */
interface Timed {
  readonly exitMs: number
  readonly answerMs?: number
}

function timed(run: Run): Promise<Timed> {
  const env = { ...process.env }
  delete env['NODE_OPTIONS']
  return new Promise((resolve, reject) => {
    const start = performance.now()
    let answerMs: number | undefined
    let stdout = ''
    let stderr = ''
    const child = spawn(process.execPath, [...run], { cwd: BENCH_DIR, env, stdio: ['ignore', 'pipe', 'pipe'] })
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk
      if (answerMs === undefined && stdout.includes(ANSWERED)) answerMs = performance.now() - start
    })
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk
    })
    child.on('error', reject)
    child.on('close', (status) => {
      const exitMs = performance.now() - start
      if (status !== 0) reject(new Error(`cold start of ${run.join(' ')} failed: ${stderr.slice(0, 500)}`))
      else resolve(answerMs === undefined ? { exitMs } : { exitMs, answerMs })
    })
  })
}

/** `runs` rounds; every round spawns each distinct script once, in a rotated order. */
export async function measureColdStart(
  runs: number,
  url: string,
  log: (text: string) => void,
): Promise<{ results: ColdStartResult[]; nodeEmptyMs: number }> {
  ensureReferenceBuild(log)
  const targets = PACKAGES.map((name) => ({
    name,
    pkg: `@paywire/${name}`,
    loads: distImports(name),
    reference: name === 'card-gateway' || name === 'remittance' ? referenceModule(name) : undefined,
    kind: WITH_REFERENCE.get(name),
  }))
  const runsByKey = new Map<string, Run>([['0', evalRun('0')]])
  for (const t of targets) {
    for (const code of [script([t.pkg]), script(t.loads), ...(t.reference ? [script([t.reference])] : [])]) {
      runsByKey.set(code, evalRun(code))
    }
    if (t.reference && t.kind) {
      runsByKey.set(`first:${t.pkg}`, firstCallRun(t.pkg, t.kind, url))
      runsByKey.set(`first:${t.reference}`, firstCallRun(t.reference, t.kind, url))
      runsByKey.set(`first-undici:${t.kind}`, undiciFirstRun(t.kind, url))
    }
  }
  const keys = [...runsByKey.keys()]
  const times = new Map<string, Timed[]>(keys.map((key) => [key, []]))
  for (let round = 0; round < runs; round++) {
    for (let i = 0; i < keys.length; i++) {
      const key = keys[(i + round) % keys.length] as string
      times.get(key)?.push(await timed(runsByKey.get(key) as Run))
    }
  }
  // An import is timed to its exit; a first answer to its answer (`answerOf`) or to its exit (`exitOf`).
  const of = (key: string) => (times.get(key) ?? []).map((t) => t.exitMs)
  const answerOf = (key: string) => (times.get(key) ?? []).map((t) => t.answerMs ?? Number.NaN)
  const exitOf = of
  const ratios = (a: readonly number[], b: readonly number[]) => spread(a.map((ms, i) => ms / (b[i] ?? Number.NaN)))
  const results = targets.map((t): ColdStartResult => {
    const own = of(script([t.pkg]))
    const loads = of(script(t.loads))
    const reference = t.reference ? of(script([t.reference])) : undefined
    const first = answerOf(`first:${t.pkg}`)
    const referenceFirst = t.reference ? answerOf(`first:${t.reference}`) : []
    const undiciFirst = answerOf(`first-undici:${t.kind}`)
    return {
      pkg: t.pkg,
      runs,
      importMs: median(own),
      loads: t.loads.join(' + ') || '(nothing)',
      loadsMs: median(loads),
      ownMs: spread(own.map((ms, i) => ms - (loads[i] ?? Number.NaN))),
      ...(reference
        ? {
            referenceMs: median(reference),
            vsReference: ratios(own, reference),
            firstCallMs: median(first),
            firstCallExitMs: median(exitOf(`first:${t.pkg}`)),
            referenceFirstCallMs: median(referenceFirst),
            firstCallVsReference: ratios(first, referenceFirst),
            firstCallVsEmpty: ratios(first, of('0')),
            undiciFirstCallMs: median(undiciFirst),
            firstCallVsUndici: ratios(first, undiciFirst),
            undiciFirstCallExitMs: median(exitOf(`first-undici:${t.kind}`)),
            firstCallExitVsUndici: ratios(exitOf(`first:${t.pkg}`), exitOf(`first-undici:${t.kind}`)),
          }
        : {}),
    }
  })
  return { results, nodeEmptyMs: median(of('0')) }
}
