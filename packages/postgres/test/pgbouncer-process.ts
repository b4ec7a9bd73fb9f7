/**
 * A real PgBouncer (Debian package `pgbouncer`) in front of a test file's PostgreSQL, in transaction
 * mode: each transaction, and each statement outside one, may run on another server session, so a
 * statement a client prepared on one session is unknown on the next (PgBouncer before 1.21; a later
 * one is started with `max_prepared_statements = 0`, which does the same). PgBouncer refuses to run as root: as root (CI) it runs as the
 * `postgres` user, as the server does.
 */

import { type ChildProcess, execFileSync, spawn } from 'node:child_process'
import { accessSync, chmodSync, chownSync, constants, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, it } from 'vitest'
import { freePort } from '../../../tests/support/free-port.js'
import { exited, REQUIRE_POSTGRES, ready, runAs } from './postgres-process.js'

export const PGBOUNCER_BIN = ((path) => {
  try {
    accessSync(path, constants.X_OK)
    return path
  } catch {
    return undefined
  }
})('/usr/sbin/pgbouncer')

export const PGBOUNCER_MISSING = 'no /usr/sbin/pgbouncer (apt-get install -y pgbouncer)'

/** The installed PgBouncer's version, as `[major, minor]`. */
export function pgBouncerVersion(): [number, number] {
  const text = execFileSync(PGBOUNCER_BIN ?? PGBOUNCER_MISSING, ['--version']).toString()
  const [, major, minor] = /PgBouncer (\d+)\.(\d+)/.exec(text) ?? []
  return [Number(major), Number(minor)]
}

export interface PgBouncer {
  readonly port: number
  stop(): Promise<void>
}

/** Starts PgBouncer on a free loopback port, pooling `serverSessions` sessions of the server on `targetPort`. */
export async function startPgBouncer(targetPort: number, serverSessions: number): Promise<PgBouncer> {
  if (!PGBOUNCER_BIN) throw new Error(PGBOUNCER_MISSING)
  const as = runAs()
  const dir = mkdtempSync(join(tmpdir(), 'paywire-pgbouncer-'))
  if (as) chownSync(dir, as.uid, as.gid)
  chmodSync(dir, 0o700)
  const port = await freePort()
  // From 1.21 PgBouncer can keep prepared statements across sessions: switched off, as before 1.21.
  const [major, minor] = pgBouncerVersion()
  const keepsPrepared = major > 1 || (major === 1 && minor >= 21)
  const config = join(dir, 'pgbouncer.ini')
  writeFileSync(
    config,
    `[databases]
postgres = host=127.0.0.1 port=${targetPort} dbname=postgres user=postgres

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = ${port}
unix_socket_dir =
auth_type = any
pool_mode = transaction
default_pool_size = ${serverSessions}
max_client_conn = 200
server_login_retry = 1
ignore_startup_parameters = extra_float_digits
logfile = ${join(dir, 'pgbouncer.log')}
${keepsPrepared ? 'max_prepared_statements = 0\n' : ''}`,
  )
  if (as) chownSync(config, as.uid, as.gid)
  const child: ChildProcess = spawn(PGBOUNCER_BIN, [config], {
    stdio: ['ignore', 'pipe', 'pipe'],
    cwd: dir,
    ...(as ?? {}),
  })
  let log = ''
  child.stdout?.on('data', (chunk) => {
    log += chunk
  })
  child.stderr?.on('data', (chunk) => {
    log += chunk
  })
  const onExit = () => child.kill('SIGKILL')
  process.once('exit', onExit)
  try {
    await ready(child, port, () => log)
  } catch (error) {
    child.kill('SIGKILL')
    await exited(child)
    throw error
  }
  return {
    port,
    async stop() {
      process.removeListener('exit', onExit)
      child.kill('SIGINT')
      await exited(child)
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

/**
 * `describe` for tests that need PgBouncer: skipped with a message where it is not installed,
 * unless PAYWIRE_REQUIRE_POSTGRES=1 (CI), where its tests fail saying so.
 */
export function describeWithPgBouncer(name: string, body: () => void): void {
  if (PGBOUNCER_BIN) {
    describe(name, body)
  } else if (REQUIRE_POSTGRES) {
    describe(name, () => {
      it('needs PgBouncer (PAYWIRE_REQUIRE_POSTGRES=1 forbids skipping)', () => {
        throw new Error(`PAYWIRE_REQUIRE_POSTGRES=1 but ${PGBOUNCER_MISSING}`)
      })
    })
  } else {
    console.warn(`@paywire/postgres: "${name}" skipped: ${PGBOUNCER_MISSING}`)
    describe.skip(`${name} [skipped: ${PGBOUNCER_MISSING}; CI sets PAYWIRE_REQUIRE_POSTGRES=1 to fail instead]`, body)
  }
}
