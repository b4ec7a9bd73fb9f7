/**
 * From the attacker's side: a merchant who builds `new pg.Pool(...)` and hands it to the stores,
 * without an `error` listener of its own (the recipe once read so), loses its process at the first
 * PostgreSQL restart: node-postgres emits `error` on the pool for each idle connection the server
 * cuts, and an `error` event nobody listens to ends a Node process. A store made on a pool without a
 * listener now adds one, which reports through the store's `onError` (default: a `console.warn`
 * naming the error, never the connection's settings).
 */

import { EventEmitter } from 'node:events'
import type pg from 'pg'
import { afterAll, afterEach, beforeAll, expect, it, vi } from 'vitest'
import { type PgPool, PostgresClaimStore, PostgresInbox, PostgresIntentStore } from '../src/index.js'
import { eventually, freshSchema, killFixtures, spawnFixture } from './helpers.js'
import { describeWithPostgres } from './postgres-server.js'

afterEach(killFixtures)
afterEach(() => {
  vi.restoreAllMocks()
})

/** A pool that is an EventEmitter, as `pg.Pool` is; its statements are never sent here. */
function emitterPool(): PgPool & EventEmitter {
  const query = async () => ({ rows: [], rowCount: 0 })
  return Object.assign(new EventEmitter(), { query, connect: async () => ({ query, release: () => {} }) })
}

const idleError = () =>
  Object.assign(new Error('terminating connection due to administrator command'), {
    code: '57P01',
    severity: 'FATAL',
  })

it('a store made on a pool without an error listener adds one: an idle connection error is reported, not thrown', () => {
  const warn = vi.spyOn(console, 'warn').mockImplementation(() => {})
  const pool = emitterPool()
  new PostgresIntentStore({ pool })
  new PostgresClaimStore({ pool })
  expect(pool.listenerCount('error')).toBe(1)
  // Without a listener this emit would throw (and, from a socket's callback, end the process).
  expect(() => pool.emit('error', idleError())).not.toThrow()
  expect(warn).toHaveBeenCalledTimes(1)
  const line = String(warn.mock.calls[0]?.[0])
  expect(line).toMatch(
    /^@paywire\/postgres: an idle connection of the pool failed \(Error 57P01: terminating connection/,
  )
  expect(line).not.toMatch(/password|postgres:\/\//)
})

it("onError hears the pool's errors instead of the warning; every store's onError, once each", () => {
  const warn = vi.spyOn(console, 'warn').mockImplementation(() => {})
  const pool = emitterPool()
  const heard: string[] = []
  new PostgresInbox({ pool, onError: (error) => heard.push(`inbox: ${error.message}`) })
  new PostgresIntentStore({ pool, onError: (error) => heard.push(`journal: ${error.message}`) })
  new PostgresClaimStore({ pool })
  pool.emit('error', idleError())
  expect(heard).toStrictEqual([
    'inbox: terminating connection due to administrator command',
    'journal: terminating connection due to administrator command',
  ])
  expect(warn).not.toHaveBeenCalled()
  expect(pool.listenerCount('error')).toBe(1)
})

it('a pool with a listener of its own is left alone: the merchant handles its errors', () => {
  const warn = vi.spyOn(console, 'warn').mockImplementation(() => {})
  const pool = emitterPool()
  const own: Error[] = []
  pool.on('error', (error: Error) => own.push(error))
  const onError = vi.fn()
  new PostgresIntentStore({ pool, onError })
  expect(pool.listenerCount('error')).toBe(1)
  pool.emit('error', idleError())
  expect(own).toHaveLength(1)
  expect(onError).not.toHaveBeenCalled()
  expect(warn).not.toHaveBeenCalled()
})

it('a listener the merchant adds after the store: the default warning is left to it', () => {
  const warn = vi.spyOn(console, 'warn').mockImplementation(() => {})
  const pool = emitterPool()
  new PostgresIntentStore({ pool })
  const own: Error[] = []
  pool.on('error', (error: Error) => own.push(error))
  pool.emit('error', idleError())
  expect(own).toHaveLength(1)
  expect(warn).not.toHaveBeenCalled()
})

it('an onError that is not a function is refused, naming it', () => {
  expect(() => new PostgresIntentStore({ pool: emitterPool(), onError: 'log' as never })).toThrow(
    /onError: must be a function/,
  )
})

describeWithPostgres('a merchant process whose pool has no error listener of its own', (server) => {
  let pool: pg.Pool
  let schema: string
  beforeAll(async () => {
    pool = server().pool()
    schema = await freshSchema(pool, 'pool_errors')
  })
  afterAll(async () => {
    await pool.end()
  })

  it('survives a restart of the server, and its stores keep working after it', async () => {
    const child = await spawnFixture('stores-only.ts', [String(server().port), schema], true)
    const rounds: Record<string, unknown>[] = []
    let stderr = ''
    let out = ''
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8')
      for (let end = out.indexOf('\n'); end !== -1; end = out.indexOf('\n')) {
        rounds.push(JSON.parse(out.slice(0, end)) as Record<string, unknown>)
        out = out.slice(end + 1)
      }
    })
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8')
    })
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
    const alive = () => child.exitCode === null && child.signalCode === null
    const round = async () => {
      const before = rounds.length
      child.stdin?.write('\n')
      await eventually(async () => rounds.length > before || !alive(), 10_000, 'a round answered')
      return rounds.at(-1)
    }

    expect(await round()).toMatchObject({ ok: true })
    // The pool now holds idle connections; a fast shutdown cuts every one of them.
    await server().restart()
    await eventually(
      async () => stderr.includes('an idle connection of the pool failed') || !alive(),
      10_000,
      'the idle connections cut by the restart are reported',
    )
    expect(alive(), `the process died at the restart:\n${stderr}`).toBe(true)
    expect(stderr).toMatch(/an idle connection of the pool failed \(.*(terminat|Connection)/)

    // It keeps working: a round right after may meet a connection the restart cut; then rounds pass.
    let last: Record<string, unknown> | undefined
    await eventually(
      async () => {
        last = await round()
        return last?.ok === true || !alive()
      },
      15_000,
      'a round passes after the restart',
    )
    expect(alive(), `the process died after the restart:\n${stderr}`).toBe(true)
    expect(last).toMatchObject({ ok: true })
    child.stdin?.write('end\n')
    expect(await exited).toBe(0)
    const reported = stderr.split('\n').filter((line) => line.includes('an idle connection of the pool failed'))
    console.info(
      `pool error figures: the restart cut the idle connections, ${reported.length} reported by the stores' listener, the process alive; ${rounds.length} rounds, ${rounds.filter((r) => r.ok !== true).length} failed after the restart before one passed`,
    )
  }, 60_000)
})

it('a connection that reports a FATAL in the very turn the pool hands it out (a restart) is heard, not thrown', async () => {
  // node-postgres parses every message of a chunk in one go: the ReadyForQuery that completes a new
  // connection hands it out (the pool stops listening to it), and a FATAL 57P01 in the same chunk
  // is emitted before a promise continuation could add a listener. Found by CI: an uncaught
  // exception during a restart test. With the pool's callback the store listens at once.
  let ended = false
  const client = Object.assign(new EventEmitter(), {
    query: async () => {
      if (ended) throw idleError()
      return { rows: [], rowCount: 0 }
    },
    release: vi.fn(),
  })
  const endSession = () => {
    ended = true
    client.emit('error', idleError())
  }
  // Both forms of pg.Pool's connect; either way the session ends in the turn the connection is handed out.
  const pool: PgPool = {
    query: async () => ({ rows: [], rowCount: 0 }),
    connect: ((callback?: (error: Error | undefined, handedOut?: EventEmitter) => void) => {
      if (callback !== undefined) {
        callback(undefined, client)
        endSession()
        return undefined
      }
      const handedOut = Promise.resolve(client)
      endSession()
      return handedOut
    }) as PgPool['connect'],
  }
  const store = new PostgresClaimStore({ pool, onError: () => {} })
  await expect(store.take('k', { token: 't', ms: 1_000, maxAttempts: 3 })).rejects.toThrow(/terminating connection/)
  // The connection was destroyed, never handed back as healthy.
  expect(client.release).toHaveBeenCalledWith(expect.objectContaining({ code: '57P01' }))
})
