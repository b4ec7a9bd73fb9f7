/**
 * Where the Redis examples connect: `PAYWIRE_REDIS_URL` when set; else a throwaway redis-server on a
 * free loopback port (its data in a temporary folder) when the binary is installed; else nothing,
 * and the example says how to get one.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { RedisClient } from '@paywire/redis'
import { createClient } from 'redis'

export interface RedisConnection {
  readonly url: string
  /** A new connected client (each "instance" of a service has its own). */
  connect(): Promise<RedisClient & { close(): Promise<unknown> }>
  close(): Promise<void>
}

export const NO_REDIS =
  'skipped: no Redis. Install redis-server (apt-get install redis-server) or set PAYWIRE_REDIS_URL to run it.'

function hasRedisServer(): boolean {
  try {
    execFileSync('redis-server', ['--version'], { stdio: 'ignore' })
    return true
  } catch {
    return false
  }
}

async function freePort(): Promise<number> {
  const probe = createServer()
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve))
  const { port } = probe.address() as { port: number }
  await new Promise((resolve) => probe.close(resolve))
  return port
}

/** A Redis to use, or `undefined` when there is none on this machine. */
export async function redisConnection(): Promise<RedisConnection | undefined> {
  const clients: { close(): Promise<unknown> }[] = []
  const connectTo = (url: string) => async () => {
    const client = createClient({ url })
    client.on('error', () => {})
    await client.connect()
    clients.push(client)
    return client as unknown as RedisClient & { close(): Promise<unknown> }
  }
  const closeClients = async () => {
    for (const client of clients.splice(0)) await client.close().catch(() => {})
  }
  const given = process.env.PAYWIRE_REDIS_URL
  if (given) return { url: given, connect: connectTo(given), close: closeClients }
  if (!hasRedisServer()) return undefined

  const dir = mkdtempSync(join(tmpdir(), 'paywire-redis-example-'))
  const port = await freePort()
  const server: ChildProcess = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'no'],
    { stdio: 'ignore' },
  )
  const url = `redis://127.0.0.1:${port}`
  const deadline = Date.now() + 10_000
  for (;;) {
    try {
      const probe = createClient({ url })
      probe.on('error', () => {})
      await probe.connect()
      await probe.close()
      break
    } catch (error) {
      if (Date.now() > deadline) throw error
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
  }
  return {
    url,
    connect: connectTo(url),
    async close() {
      await closeClients()
      server.kill('SIGTERM')
      rmSync(dir, { recursive: true, force: true })
    },
  }
}
