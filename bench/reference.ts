/**
 * The reference build of the cold-start target, built on demand from its commit instead of kept in
 * the repository: `core`, `card-gateway` and `remittance` as built at `REFERENCE_COMMIT` (the day the
 * performance issue was measured: zod loaded from its 95 module files, undici's Agent and request
 * from their own modules), `dist/index.js` only, with `@paywire/core` rewritten to
 * `../core/index.js`. Their `zod` and `undici` resolve from the bench's own dependencies, so
 * `cold-start.ts` imports them beside today's dist in the same interleaved rounds.
 *
 * The first run checks the commit out in a temporary git worktree, installs it (from pnpm's store
 * when it can) and builds the three packages: about 35 s on the bench machine. The result is kept
 * in `bench/node_modules/.paywire-reference/<commit>/` and reused until node_modules goes.
 */

import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

/** The commit whose build the cold-start target (≤ 0.6× its import time) is judged against. */
export const REFERENCE_COMMIT = 'fd7d4b3'

const PACKAGES = ['core', 'card-gateway', 'remittance'] as const
type ReferencePackage = (typeof PACKAGES)[number]

const BENCH_DIR = fileURLToPath(new URL('.', import.meta.url))
/** Where the build is kept, relative to the bench folder (cold-start.ts runs its scripts there). */
const CACHE = `node_modules/.paywire-reference/${REFERENCE_COMMIT}`

/** The module path of one package's reference build, relative to the bench folder. */
export function referenceModule(name: ReferencePackage): string {
  return `./${CACHE}/${name}/index.js`
}

function run(command: string, args: readonly string[], cwd: string): void {
  execFileSync(command, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 64 * 1024 * 1024 })
}

/** pnpm as the bench was started with it (`pnpm bench`), else the one on PATH, else through npx. */
function pnpm(): { command: string; prefix: string[] } {
  const execPath = process.env['npm_execpath']
  if (execPath?.includes('pnpm')) return { command: process.execPath, prefix: [execPath] }
  try {
    execFileSync('pnpm', ['--version'], { stdio: 'ignore' })
    return { command: 'pnpm', prefix: [] }
  } catch {
    return { command: 'npx', prefix: ['-y', 'pnpm@10'] }
  }
}

/**
 * Makes sure the reference build is there, building it when it is not. Throws, saying why, when the
 * commit is not in this clone (a shallow one) or its build fails.
 */
export function ensureReferenceBuild(log: (text: string) => void): void {
  if (PACKAGES.every((name) => existsSync(join(BENCH_DIR, referenceModule(name))))) return
  const repo = execFileSync('git', ['rev-parse', '--show-toplevel'], { cwd: BENCH_DIR }).toString().trim()
  try {
    execFileSync('git', ['cat-file', '-e', `${REFERENCE_COMMIT}^{commit}`], { cwd: repo, stdio: 'ignore' })
  } catch {
    throw new Error(
      `the cold-start reference commit ${REFERENCE_COMMIT} is not in this clone (a shallow clone?): fetch it, e.g. git fetch --unshallow`,
    )
  }
  log(`  building the cold-start reference (commit ${REFERENCE_COMMIT}) once, into bench/${CACHE}`)
  const work = mkdtempSync(join(tmpdir(), 'paywire-reference-'))
  const { command, prefix } = pnpm()
  try {
    run('git', ['worktree', 'add', '--detach', work, REFERENCE_COMMIT], repo)
    run(command, [...prefix, 'install', '--frozen-lockfile', '--prefer-offline'], work)
    // core first: the other two read its types when they build.
    for (const name of PACKAGES) run(command, [...prefix, 'run', 'build'], join(work, 'packages', name))
    for (const name of PACKAGES) {
      const built = readFileSync(join(work, 'packages', name, 'dist', 'index.js'), 'utf8')
      const dir = join(BENCH_DIR, CACHE, name)
      mkdirSync(dir, { recursive: true })
      writeFileSync(join(dir, 'index.js'), built.replaceAll("from '@paywire/core'", "from '../core/index.js'"))
    }
  } finally {
    try {
      run('git', ['worktree', 'remove', '--force', work], repo)
    } catch {
      rmSync(work, { recursive: true, force: true })
      run('git', ['worktree', 'prune'], repo)
    }
  }
}
