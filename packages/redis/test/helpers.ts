/** What the Redis tests share: clients of node-redis 6 and 5, polling with a deadline, fixture processes. */

import type { ChildProcess } from 'node:child_process'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { deserialize, serialize } from 'node:v8'
import type { Intent } from '@paywire/core'
import { createClient } from 'redis'
import { createClient as createClient5 } from 'redis-5'
import { expect } from 'vitest'
import {
  type FixturePackage,
  killFixtures,
  spawnFixture as spawnPackageFixture,
} from '../../../tests/support/fixture-process.js'
import { RedisClaimStore, type RedisClient, RedisIntentStore } from '../src/index.js'
import type { StoreSubject } from './contract.js'

export type Connected = RedisClient & { close(): Promise<unknown> }

/** A node-redis client of the given major, connected to `url`; RESP2 for 5 (its default), RESP3 for 6. */
export async function connect(url: string, major: 5 | 6 = 6): Promise<Connected> {
  const client = major === 6 ? createClient({ url }) : createClient5({ url })
  client.on('error', () => {}) // a server stopped by a test is expected; commands still reject
  await client.connect()
  return client as unknown as Connected
}

/**
 * Resolves once `until()` holds, polling every 10 ms; rejects after `deadlineMs`. The way every
 * Redis test waits for real time (a TTL) to pass: never a fixed sleep.
 */
export async function eventually(until: () => Promise<boolean>, deadlineMs: number, what: string): Promise<void> {
  const deadline = Date.now() + deadlineMs
  while (Date.now() < deadline) {
    if (await until()) return
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
  throw new Error(`${what}: still not true after ${deadlineMs} ms`)
}

/** Redis stores over `clients` (one store instance per call, round robin over the connections). */
export function redisSubject(clients: RedisClient[], keyPrefix: string, holdMs = 400): StoreSubject {
  let next = 0
  const client = () => clients[next++ % clients.length] as RedisClient
  return {
    claims: () => new RedisClaimStore({ client: client(), keyPrefix }),
    intents: () => new RedisIntentStore({ client: client(), keyPrefix }),
    holdMs,
    // Redis runs on this machine: its TIME and Date.now() read the same clock, a few ms apart at most.
    clockSkewMs: 50,
    pass: (ms, until) => eventually(until, ms + 5_000, `after ${ms} ms`),
  }
}

const here = dirname(fileURLToPath(import.meta.url))
const fixtures: FixturePackage = { packageDir: join(here, '..'), external: ['redis'] }

/**
 * Runs `test/fixtures/<name>` in a new Node process, as a merchant's separate process would (bundled
 * once per file: see tests/support/fixture-process.ts).
 */
export function spawnFixture(name: string, args: string[]): Promise<ChildProcess> {
  return spawnPackageFixture(fixtures, name, args)
}

export { killFixtures }

/** The next line `child` prints, parsed as JSON; rejects with its stderr when it exits first or 30 s pass. */
export function nextLine<T>(child: ChildProcess): Promise<T> {
  return new Promise((resolve, reject) => {
    let out = ''
    let err = ''
    const timer = setTimeout(() => fail(new Error(`no line from the fixture in 30 s:\n${err}`)), 30_000)
    const onData = (chunk: Buffer) => {
      out += chunk.toString('utf8')
      const end = out.indexOf('\n')
      if (end === -1) return
      cleanup()
      resolve(JSON.parse(out.slice(0, end)) as T)
    }
    const onErr = (chunk: Buffer) => {
      err += chunk.toString('utf8')
    }
    const onExit = (code: number | null, signal: string | null) =>
      fail(new Error(`the fixture exited (${code ?? signal}) before printing a line:\n${err}`))
    const cleanup = () => {
      clearTimeout(timer)
      child.stdout?.off('data', onData)
      child.stderr?.off('data', onErr)
      child.off('exit', onExit)
    }
    const fail = (error: Error) => {
      cleanup()
      reject(error)
    }
    child.stdout?.on('data', onData)
    child.stderr?.on('data', onErr)
    child.once('exit', onExit)
  })
}

/** Kills `child` with SIGKILL (no exit handlers, no socket shutdown) and resolves once it is gone. */
export async function sigkill(child: ChildProcess): Promise<void> {
  const gone = child.exitCode !== null || child.signalCode !== null
  if (!gone) {
    const exited = new Promise((resolve) => child.once('exit', resolve))
    child.kill('SIGKILL')
    await exited
  }
  expect(child.signalCode).toBe('SIGKILL')
}

/** A value as `structuredClone` keeps it (undefined members too), for passing to and from a fixture. */
export const pack = (value: unknown): string => serialize(value).toString('base64')
export const unpack = <T>(text: string): T => deserialize(Buffer.from(text, 'base64')) as T

/**
 * What a `RedisIntentStore` lists, each intent without the `writtenAt` Redis stamped on it (checked
 * here to be a time on Redis's clock): for comparing with the intents as written.
 */
export async function listed(
  store: { openIntents(service: string): Promise<Intent[]> },
  service: string,
): Promise<Intent[]> {
  const intents = await store.openIntents(service)
  return intents.map(({ writtenAt, ...intent }) => {
    expect(Number.isFinite(writtenAt), `writtenAt of ${intent.id}`).toBe(true)
    return intent
  })
}
