#!/usr/bin/env node
/**
 * `node scripts/check-undici-latest.mjs`: core's undici tests on the newest undici 7 from the npm
 * registry, not only the locked one. core takes undici with a caret range (merchants get undici's
 * fixes without a paywire release) but loads two of its private modules (packages/core/src/transport/undici.ts):
 * this check fails the day a 7.x release moves or changes them, before merchants meet it. Installs
 * `undici@7` into a temp folder and runs the tests with `PAYWIRE_UNDICI_DIR` pointing there
 * (vitest.shared.ts resolves `undici` from it, core's own loads included). Exits as vitest does.
 */
import { execFileSync, spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

const dir = mkdtempSync(join(tmpdir(), 'paywire-undici-latest-'))
writeFileSync(join(dir, 'package.json'), '{"private":true}')
execFileSync('npm', ['install', 'undici@7', '--no-audit', '--no-fund', '--loglevel=error'], {
  cwd: dir,
  stdio: 'inherit',
})
const { version } = JSON.parse(readFileSync(join(dir, 'node_modules', 'undici', 'package.json'), 'utf8'))
const locked = JSON.parse(
  readFileSync(new URL('../packages/core/node_modules/undici/package.json', import.meta.url), 'utf8'),
)
console.log(`undici ${version} (newest 7 on the registry; the lockfile has ${locked.version})`)

// The tests that reach into undici: its private modules, the attempt handler on its public handler
// interface, and the transport's promises (odd statuses, sizes, deadlines, aborts, queued calls, socket caps).
const tests = [
  'undici-private-paths',
  'attempt-handler-adversary',
  'attempt-handler',
  'adversary',
  'timeouts',
  'size-cap',
  'unsent-while-queued',
  'max-sockets',
  'money-safety',
].map((name) => `packages/core/test/${name}.test.ts`)
const result = spawnSync('npx', ['vitest', 'run', ...tests], {
  cwd: new URL('..', import.meta.url),
  stdio: 'inherit',
  env: { ...process.env, PAYWIRE_UNDICI_DIR: dir },
})
rmSync(dir, { recursive: true, force: true })
process.exit(result.status ?? 1)
