/**
 * A real PostgreSQL server per test file: the newest /usr/lib/postgresql/<n>/bin (Debian package
 * `postgresql`), a fresh cluster (`initdb`) in a temp folder, listening on a free loopback port with
 * its unix socket in that folder, stopped after the file. initdb and postgres refuse to run as root:
 * as root (CI) they run as the `postgres` user, which owns the folder. Without the binaries the tests
 * skip with a message, unless PAYWIRE_REQUIRE_POSTGRES=1 (CI), where they fail.
 */

import { type ChildProcess, execFileSync, spawn } from 'node:child_process'
import { accessSync, chmodSync, chownSync, constants, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'
import { freePort } from '../../../tests/support/free-port.js'

/** The bin folder of the newest PostgreSQL installed: POSTGRES_BIN when set, else /usr/lib/postgresql/<newest>/bin. */
export function findPostgresBin(): string | undefined {
  const chosen = process.env.POSTGRES_BIN
  let candidates: string[] = chosen ? [chosen] : []
  if (!chosen) {
    try {
      candidates = readdirSync('/usr/lib/postgresql')
        .filter((v) => /^\d+$/.test(v))
        .sort((a, b) => Number(b) - Number(a))
        .map((v) => `/usr/lib/postgresql/${v}/bin`)
    } catch {}
  }
  for (const dir of candidates) {
    try {
      accessSync(join(dir, 'initdb'), constants.X_OK)
      accessSync(join(dir, 'postgres'), constants.X_OK)
      return dir
    } catch {}
  }
  return undefined
}

export const POSTGRES_BIN = findPostgresBin()
export const REQUIRE_POSTGRES = process.env.PAYWIRE_REQUIRE_POSTGRES === '1'
export const MISSING = 'no PostgreSQL server binaries in /usr/lib/postgresql/*/bin (apt-get install -y postgresql)'

export interface PostgresServer {
  /** A connection string for the superuser `postgres` on 127.0.0.1 (trust auth, loopback only). */
  readonly url: string
  readonly port: number
  /** A pool of `max` connections to `port` (default: the server's). */
  pool(options?: { port?: number; max?: number }): pg.Pool
  /**
   * Stops the server and starts it again on the same port and data: a fast shutdown (every
   * connection cut, in-flight transactions rolled back), or with `immediate` an immediate one (no
   * checkpoint: the next start recovers from the WAL, as after a crash), staying down `downMs`.
   */
  restart(options?: { immediate?: boolean; downMs?: number }): Promise<void>
  stop(): Promise<void>
}

/**
 * As root, the uid and gid of `postgres`, whom initdb and postgres run as; otherwise ourselves. They
 * run in the temp folder, so nothing depends on the caller's directory, which `postgres` may not be
 * allowed to read (a checkout under /root).
 */
export function runAs(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined
  const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim())
  const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim())
  return { uid, gid }
}

export function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve()
  return new Promise((resolve) => child.once('exit', () => resolve()))
}

/** Starts a fresh cluster for this file. */
export async function startPostgres(): Promise<PostgresServer> {
  const bin = POSTGRES_BIN
  if (!bin) throw new Error(MISSING)
  const as = runAs()
  const dir = mkdtempSync(join(tmpdir(), 'paywire-pg-'))
  if (as) chownSync(dir, as.uid, as.gid)
  chmodSync(dir, 0o700)
  const data = join(dir, 'data')
  execFileSync(
    join(bin, 'initdb'),
    ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--locale=C', '--no-sync'],
    { stdio: 'pipe', cwd: dir, ...(as ?? {}) },
  )
  let port = 0
  let child: ChildProcess | undefined
  let log = ''
  const start = async () => {
    let lastError: unknown
    for (let attempt = 0; attempt < 3; attempt++) {
      port = await freePort()
      try {
        await startOn()
        return
      } catch (error) {
        lastError = error
      }
    }
    throw lastError
  }
  await start()
  const onExit = () => child?.kill('SIGKILL')
  process.once('exit', onExit)
  const stopChild = async (signal: 'SIGINT' | 'SIGQUIT' = 'SIGINT') => {
    const c = child
    if (!c) return
    c.kill(signal) // SIGINT: fast shutdown (roll back, disconnect every session); SIGQUIT: immediate
    await exited(c)
    child = undefined
  }
  return {
    get url() {
      return `postgres://postgres@127.0.0.1:${port}/postgres`
    },
    get port() {
      return port
    },
    pool(options = {}) {
      const pool = new pg.Pool({
        host: '127.0.0.1',
        port: options.port ?? port,
        user: 'postgres',
        database: 'postgres',
        max: options.max ?? 10,
      })
      pool.on('error', () => {}) // an idle connection cut by a test is expected
      return pool
    },
    async restart(options = {}) {
      await stopChild(options.immediate ? 'SIGQUIT' : 'SIGINT')
      if (options.downMs) await new Promise((resolve) => setTimeout(resolve, options.downMs))
      const keep = port
      // Same port: the pools of the test reconnect to it.
      for (let attempt = 0; ; attempt++) {
        try {
          port = keep
          await startOn()
          return
        } catch (error) {
          if (attempt >= 20) throw error
          await new Promise((resolve) => setTimeout(resolve, 100))
        }
      }
    },
    async stop() {
      process.removeListener('exit', onExit)
      await stopChild()
      rmSync(dir, { recursive: true, force: true })
    },
  }

  async function startOn(): Promise<void> {
    const c = spawn(
      join(bin as string, 'postgres'),
      [
        ...['-D', data, '-p', String(port), '-k', dir, '-c', 'listen_addresses=127.0.0.1'],
        // The client processes are what the tests kill, never the server: fsync does not matter.
        ...['-c', 'fsync=off', '-c', 'max_connections=200'],
      ],
      { stdio: ['ignore', 'pipe', 'pipe'], cwd: dir, ...(as ?? {}) },
    )
    log = ''
    c.stdout?.on('data', (chunk) => {
      log += chunk
    })
    c.stderr?.on('data', (chunk) => {
      log += chunk
    })
    try {
      await ready(c, port, () => log)
      child = c
    } catch (error) {
      c.kill('SIGKILL')
      await exited(c)
      throw error
    }
  }
}

/** Resolves once the server accepts a query; rejects with its output when it exits first or 15 s pass. */
export async function ready(child: ChildProcess, port: number, output: () => string): Promise<void> {
  const deadline = Date.now() + 15_000
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`postgres exited before accepting connections:\n${output()}`)
    }
    const client = new pg.Client({ host: '127.0.0.1', port, user: 'postgres', database: 'postgres' })
    client.on('error', () => {})
    try {
      await client.connect()
      await client.query('SELECT 1')
      await client.end()
      return
    } catch {
      await client.end().catch(() => {})
    }
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
  throw new Error(`postgres did not accept connections on 127.0.0.1:${port} within 15 s:\n${output()}`)
}
