/**
 * A real redis-server per test file: found on PATH (Debian package `redis-server`), started on a free
 * loopback port with its data in a temp folder, stopped after the file. Without the binary the
 * Redis tests skip with a message, unless PAYWIRE_REQUIRE_REDIS=1 (CI), where they fail.
 */

import { type ChildProcess, spawn } from 'node:child_process'
import { accessSync, constants, mkdtempSync, rmSync } from 'node:fs'
import { createConnection } from 'node:net'
import { tmpdir } from 'node:os'
import { delimiter, join } from 'node:path'
import { freePort } from '../../../tests/support/free-port.js'

/** The redis-server binary: REDIS_SERVER when set (and only it), else PATH, else Debian's /usr/bin and /usr/sbin. */
export function findRedisServer(): string | undefined {
  const chosen = process.env.REDIS_SERVER
  const candidates = chosen
    ? [chosen]
    : [
        ...(process.env.PATH ?? '').split(delimiter).map((dir) => join(dir, 'redis-server')),
        '/usr/bin/redis-server',
        '/usr/sbin/redis-server',
        '/usr/local/bin/redis-server',
      ]
  for (const file of candidates) {
    if (!file) continue
    try {
      accessSync(file, constants.X_OK)
      return file
    } catch {}
  }
  return undefined
}

export const REDIS_SERVER = findRedisServer()
export const REQUIRE_REDIS = process.env.PAYWIRE_REQUIRE_REDIS === '1'

export const MISSING = 'no redis-server binary (install the Debian package: apt-get install -y redis-server)'

export interface RedisServer {
  readonly url: string
  readonly port: number
  /** The data folder (AOF files live here when `appendonly` is on). */
  readonly dir: string
  /** Kills the server with SIGKILL (no shutdown save) and starts it again on the same port and folder. */
  crashAndRestart(): Promise<void>
  stop(): Promise<void>
}

export interface RedisServerOptions {
  /** `appendonly yes` + `appendfsync always`: every acknowledged write is on disk. Off by default. */
  appendonly?: boolean
}

/** One PING over a raw socket: true on `+PONG`. */
function ping(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port })
    let answer = ''
    const done = (ok: boolean) => {
      socket.destroy()
      resolve(ok)
    }
    socket.setTimeout(500, () => done(false))
    socket.once('error', () => done(false))
    socket.on('data', (chunk) => {
      answer += chunk.toString('utf8')
      if (answer.includes('\r\n')) done(answer.startsWith('+PONG'))
    })
    socket.once('connect', () => socket.write('PING\r\n'))
  })
}

function launch(bin: string, port: number, dir: string, options: RedisServerOptions): ChildProcess {
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--daemonize', 'no']
  if (options.appendonly) args.push('--appendonly', 'yes', '--appendfsync', 'always')
  else args.push('--appendonly', 'no')
  return spawn(bin, args, { stdio: ['ignore', 'pipe', 'pipe'] })
}

/** Resolves once the server answers PING; rejects with its output when it exits first or 10 s pass. */
async function ready(child: ChildProcess, port: number, output: () => string): Promise<void> {
  const deadline = Date.now() + 10_000
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`redis-server exited before answering PING:\n${output()}`)
    }
    if (await ping(port)) return
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  throw new Error(`redis-server did not answer PING on 127.0.0.1:${port} within 10 s:\n${output()}`)
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve()
  return new Promise((resolve) => child.once('exit', () => resolve()))
}

/** Starts a redis-server for this file; retries on another port if the one picked was taken meanwhile. */
export async function startRedisServer(options: RedisServerOptions = {}): Promise<RedisServer> {
  const bin = REDIS_SERVER
  if (!bin) throw new Error(MISSING)
  const dir = mkdtempSync(join(tmpdir(), 'paywire-redis-'))
  let lastError: unknown
  for (let attempt = 0; attempt < 3; attempt++) {
    const port = await freePort()
    let log = ''
    const start = async () => {
      const child = launch(bin, port, dir, options)
      child.stdout?.on('data', (chunk) => {
        log += chunk
      })
      child.stderr?.on('data', (chunk) => {
        log += chunk
      })
      await ready(child, port, () => log)
      return child
    }
    let child: ChildProcess
    try {
      child = await start()
    } catch (error) {
      lastError = error
      continue
    }
    // A vitest worker that dies must not leave the server behind.
    const onExit = () => child.kill('SIGKILL')
    process.once('exit', onExit)
    return {
      url: `redis://127.0.0.1:${port}`,
      port,
      dir,
      async crashAndRestart() {
        child.kill('SIGKILL')
        await exited(child)
        process.removeListener('exit', onExit)
        child = await start()
        process.once('exit', onExit)
      },
      async stop() {
        process.removeListener('exit', onExit)
        child.kill('SIGTERM')
        await exited(child)
        rmSync(dir, { recursive: true, force: true })
      },
    }
  }
  rmSync(dir, { recursive: true, force: true })
  throw lastError
}
