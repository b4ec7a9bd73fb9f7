/**
 * A test fixture run as a merchant's separate process: bundled once per test file by esbuild (the
 * database driver left external, resolved from the package's node_modules), so a process starts in
 * ~0.3 s instead of ~1.5 s through tsx. That is what makes dozens of SIGKILLs per test affordable.
 */

import { type ChildProcess, spawn } from 'node:child_process'
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'

const bundles = new Map<string, Promise<string>>()
const running = new Set<ChildProcess>()

/**
 * `<packageDir>/test/fixtures/<name>` bundled into `bundleDir` (default the package's node_modules),
 * once per test process, list of modules left outside (one fixture may be bundled both ways) and place.
 */
function bundled(pkg: FixturePackage, name: string): Promise<string> {
  const { packageDir, external } = pkg
  const entry = join(packageDir, 'test', 'fixtures', name)
  const outside = external.length === 0 ? 'all-inside' : external.join('+').replace(/[^\w+-]/g, '_')
  const dir = pkg.bundleDir ?? join(packageDir, 'node_modules', '.paywire-fixtures')
  const key = `${entry}\0${outside}\0${dir}`
  let made = bundles.get(key)
  if (!made) {
    const outfile = join(dir, `${process.pid}-${outside}-${name.replace(/\.ts$/, '.mjs')}`)
    made = build({
      entryPoints: [entry],
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      external: [...external],
      tsconfig: join(packageDir, 'tsconfig.json'),
      outfile,
      logLevel: 'warning',
    }).then(() => {
      // This test process's bundles go with it.
      process.once('exit', () => rmSync(outfile, { force: true }))
      return outfile
    })
    bundles.set(key, made)
  }
  return made
}

/** Where a package's fixtures live and which modules stay outside their bundles. */
export interface FixturePackage {
  readonly packageDir: string
  readonly external: readonly string[]
  /**
   * Where the bundle is written; default the package's node_modules, so what is left outside
   * resolves from it. A directory with no node_modules above it runs the bundle as deployed alone.
   */
  readonly bundleDir?: string
}

/**
 * Runs a fixture of `pkg` in a new Node process. With `stepped`, its stdin is a pipe the test writes
 * one line to per step it lets the fixture take; `env` is added to this process's environment (what
 * Node reads only at start, such as `NODE_EXTRA_CA_CERTS`).
 */
export async function spawnFixture(
  pkg: FixturePackage,
  name: string,
  args: string[],
  stepped = false,
  env: Record<string, string> = {},
): Promise<ChildProcess> {
  const child = spawn(process.execPath, [await bundled(pkg, name), ...args], {
    cwd: pkg.packageDir,
    env: { ...process.env, ...env },
    stdio: [stepped ? 'pipe' : 'ignore', 'pipe', 'pipe'],
  })
  // A step granted to a process killed a moment before fails with EPIPE: nothing to do about it.
  child.stdin?.on('error', () => {})
  running.add(child)
  child.once('exit', () => running.delete(child))
  return child
}

/** Kills every fixture process still running (after a failed test). */
export function killFixtures(): void {
  for (const child of running) child.kill('SIGKILL')
}

/** A fixture run to its end: the one JSON line it printed, and what it wrote to stderr. */
export interface FixtureRun<T> {
  readonly value: T
  readonly stderr: string
}

/**
 * Runs a fixture of `pkg` to its end and reads the one JSON line it prints; a non-zero exit fails
 * with what it wrote to stderr. `env` as `spawnFixture` takes it (NODE_EXTRA_CA_CERTS).
 */
export async function runFixtureToEnd<T>(
  pkg: FixturePackage,
  name: string,
  args: string[],
  env: Record<string, string> = {},
): Promise<FixtureRun<T>> {
  const child = await spawnFixture(pkg, name, args, false, env)
  let out = ''
  let stderr = ''
  child.stdout?.on('data', (chunk: Buffer) => {
    out += chunk.toString('utf8')
  })
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8')
  })
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve))
  if (code !== 0) throw new Error(`the fixture ${name} exited ${code}:\n${stderr}`)
  return { value: JSON.parse(out) as T, stderr }
}

/** The test certificate and key for 127.0.0.1 (tests/support/tls): made for these tests, trusted nowhere else. */
export const TEST_CERT = fileURLToPath(new URL('./tls/loopback-cert.pem', import.meta.url))
export const TEST_KEY = fileURLToPath(new URL('./tls/loopback-key.pem', import.meta.url))

/**
 * Runs a fixture that serves or calls over TLS to its end: it gets the key and certificate files as
 * its first two arguments and trusts the certificate (NODE_EXTRA_CA_CERTS, read by Node at start only).
 */
export async function runTlsFixture<T>(pkg: FixturePackage, name: string, args: string[] = []): Promise<T> {
  const run = await runFixtureToEnd<T>(pkg, name, [TEST_KEY, TEST_CERT, ...args], { NODE_EXTRA_CA_CERTS: TEST_CERT })
  return run.value
}
