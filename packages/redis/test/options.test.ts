import { RequestValidationError } from '@paywire/core'
import { rejection } from '@paywire/core/testing'
import { createClient, createClientPool, createCluster } from 'redis'
import { createClient as createClient5, createCluster as createCluster5 } from 'redis-5'
import { describe, expect, it } from 'vitest'
import { RedisClaimStore, type RedisClient, RedisIntentStore } from '../src/index.js'
import { intentOf } from './contract.js'

/** A client that records every command and answers like an empty Redis: nothing must reach it when input is refused. */
function recordingClient(): RedisClient & { sent: string[] } {
  const sent: string[] = []
  const transaction = {
    set: () => transaction,
    zAdd: () => transaction,
    zRem: () => transaction,
    del: () => transaction,
    exec: async () => {
      sent.push('EXEC')
      return []
    },
  }
  const answer = (command: string, reply: unknown) => async () => {
    sent.push(command)
    return reply
  }
  return {
    sent,
    set: answer('SET', 'OK'),
    get: answer('GET', null),
    mGet: answer('MGET', []),
    zRange: answer('ZRANGE', []),
    zScore: answer('ZSCORE', null),
    zRem: answer('ZREM', 0),
    eval: answer('EVAL', 1),
    multi: () => transaction,
  }
}

const refused = (fn: () => unknown) => {
  try {
    fn()
  } catch (error) {
    expect(error).toBeInstanceOf(RequestValidationError)
    return error as RequestValidationError
  }
  throw new Error('not refused')
}
const paths = (error: RequestValidationError) => error.issues.map((i) => i.path)

describe('store options', () => {
  it('take node-redis 5 and 6 clients, pools and clusters, RESP2 or RESP3 (this file type-checks)', () => {
    const url = 'redis://127.0.0.1:1' // never connected: the stores only keep the client
    const clients = [
      createClient({ url }),
      createClient({ url, RESP: 2 }),
      createClient5({ url }),
      createClient5({ url, RESP: 3 }),
      createClientPool({ url }),
      createCluster({ rootNodes: [{ url }] }),
      createCluster5({ rootNodes: [{ url }] }),
    ]
    for (const client of clients) {
      expect(new RedisClaimStore({ client })).toBeInstanceOf(RedisClaimStore)
      expect(new RedisIntentStore({ client, keyPrefix: '{paywire}:' })).toBeInstanceOf(RedisIntentStore)
    }
  })

  it('refuse a missing client, naming the option, in the "options" stage', () => {
    for (const Store of [RedisClaimStore, RedisIntentStore]) {
      const error = refused(() => new Store({} as never))
      expect(error.stage).toBe('options')
      expect(error.operation).toBe(Store.name)
      expect(paths(error)).toEqual(['client'])
      expect(paths(refused(() => new Store(undefined as never)))).toEqual(['(options)'])
    }
  })

  it('refuse an ioredis-style client (mget, zrange, SET flags as strings) rather than half-work with it', () => {
    const ioredisLike = {
      set: async () => 'OK',
      get: async () => null,
      mget: async () => [],
      zrange: async () => [],
      eval: async () => 0,
      multi: () => ({}),
    }
    const error = refused(() => new RedisClaimStore({ client: ioredisLike as never }))
    expect(error.message).toMatch(
      /client: not a node-redis client .* lacks mGet, zRange, zScore, zRem; ioredis is not supported, pass a node-redis client/,
    )
  })

  it('refuse an empty or non-string keyPrefix, or one with a lone surrogate, naming keyPrefix', () => {
    const client = recordingClient()
    for (const keyPrefix of ['', 42, '\ud800x']) {
      expect(paths(refused(() => new RedisClaimStore({ client, keyPrefix: keyPrefix as string })))).toEqual([
        'keyPrefix',
      ])
    }
  })

  it('refuse a maxIntentBytes that is not a whole number of bytes from 1 to 512 MiB, with every issue listed', () => {
    for (const maxIntentBytes of [0, -1, 1.5, Number.NaN, 512 * 1024 * 1024 + 1, '1024']) {
      const error = refused(
        () => new RedisIntentStore({ client: {} as never, maxIntentBytes: maxIntentBytes as number }),
      )
      expect(paths(error)).toEqual(['client', 'maxIntentBytes'])
    }
  })
})

describe('onOrphan', () => {
  it('must be a function when given', () => {
    const error = refused(() => new RedisIntentStore({ client: recordingClient(), onOrphan: 'log' as never }))
    expect(paths(error)).toEqual(['onOrphan'])
  })
})

describe('refused input sends nothing to Redis', () => {
  it('holdMs and keepMs must be finite ms above 0 (PX takes whole ms: 0.5 becomes 1)', async () => {
    const client = recordingClient()
    const store = new RedisClaimStore({ client })
    for (const ms of [0, -5, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect((await rejection(store.claim('k', 't', ms))) as RequestValidationError).toMatchObject({
        issues: [{ path: 'holdMs' }],
      })
      expect((await rejection(store.complete('k', 't', ms))) as RequestValidationError).toMatchObject({
        issues: [{ path: 'keepMs' }],
      })
    }
    expect(client.sent).toEqual([])
    const sent: string[][] = []
    const accepting: RedisClient = {
      ...client,
      eval: async (_script, { arguments: args }) => {
        sent.push(args)
        return 'claimed'
      },
    }
    expect(await new RedisClaimStore({ client: accepting }).claim('k', 't', 0.5)).toBe('claimed')
    expect(sent).toEqual([['held:t', '1']])
  })

  it('keys, tokens, ids and services with a lone surrogate are refused: as UTF-8 they would collide with U+FFFD', async () => {
    const client = recordingClient()
    const claims = new RedisClaimStore({ client })
    const journal = new RedisIntentStore({ client })
    const lone = 'evt\udc00'
    const cases: [Promise<unknown>, string][] = [
      [claims.claim(lone, 't', 1000), 'key'],
      [claims.claim('k', lone, 1000), 'token'],
      [claims.claim('k', '', 1000), 'token'],
      [claims.complete(lone, 't', 1000), 'key'],
      [claims.release('k', lone), 'token'],
      [journal.open(intentOf({ id: lone })), 'intent.id'],
      [journal.open(intentOf({ service: lone })), 'intent.service'],
      [journal.close(lone, 'applied'), 'id'],
      [journal.openIntents(lone), 'service'],
    ]
    for (const [promise, path] of cases) {
      const error = (await rejection(promise)) as RequestValidationError
      expect(error).toBeInstanceOf(RequestValidationError)
      expect(paths(error)).toEqual([path])
    }
    expect(client.sent).toEqual([])
  })

  it('params JSON would not give back as they were are refused, each path named', async () => {
    const client = recordingClient()
    const journal = new RedisIntentStore({ client })
    const cyclic: Record<string, unknown> = { a: 1 }
    cyclic.self = cyclic
    let deep: unknown = 'bottom'
    for (let i = 0; i < 10_000; i++) deep = { d: deep }
    const cases: [unknown, string, RegExp][] = [
      [{ amount: 10n }, 'intent.params.amount', /bigint is not JSON/],
      [{ at: new Date(0) }, 'intent.params.at', /a Date is not JSON/],
      [{ m: new Map() }, 'intent.params.m', /a Map is not JSON/],
      [{ n: Number.NaN }, 'intent.params.n', /NaN is not JSON/],
      [{ n: Number.POSITIVE_INFINITY }, 'intent.params.n', /Infinity is not JSON/],
      [{ n: -0 }, 'intent.params.n', /-0 is not JSON/],
      [{ f: () => 1 }, 'intent.params.f', /function is not JSON/],
      [{ s: Symbol('s') }, 'intent.params.s', /symbol is not JSON/],
      [{ list: [1, undefined] }, 'intent.params.list[1]', /undefined or a hole/],
      // biome-ignore lint/suspicious/noSparseArray: the hole is the point
      [{ list: [1, , 3] }, 'intent.params.list[1]', /undefined or a hole/],
      [cyclic, 'intent.params.self', /a cycle/],
      [deep, 'intent.params', /nested deeper than 200 levels/],
      [{ buf: Buffer.from('x') }, 'intent.params.buf', /a Buffer is not JSON/],
    ]
    for (const [params, path, message] of cases) {
      const error = (await rejection(journal.open(intentOf({ params })))) as RequestValidationError
      expect(error).toBeInstanceOf(RequestValidationError)
      expect(error.operation).toBe('RedisIntentStore.open')
      expect(error.issues[0]?.path.startsWith(path)).toBe(true)
      expect(error.message).toMatch(message)
    }
    const bad = (await rejection(
      journal.open(intentOf({ createdAt: Number.NaN, reconciliation: { key: 'k', value: 1n } as never })),
    )) as RequestValidationError
    expect(paths(bad)).toEqual(['intent.createdAt', 'intent.reconciliation.value'])
    expect(client.sent).toEqual([])
  })

  it('an intent with fields of the wrong type is refused, each field named', async () => {
    const client = recordingClient()
    const journal = new RedisIntentStore({ client })
    expect(paths((await rejection(journal.open(null as never))) as RequestValidationError)).toEqual(['intent'])
    expect(paths((await rejection(journal.open(intentOf({ id: 42 as never })))) as RequestValidationError)).toEqual([
      'intent.id',
    ])
    const wrong = intentOf({ operation: 1 as never, idempotencyKey: 2 as never, createdAt: '1' as never })
    expect(paths((await rejection(journal.open(wrong))) as RequestValidationError)).toEqual([
      'intent.operation',
      'intent.createdAt',
      'intent.idempotencyKey',
    ])
    expect(client.sent).toEqual([])
  })

  it('a client whose claim script answers anything but claimed, held or done is not trusted', async () => {
    const client = { ...recordingClient(), eval: async () => 'QUEUED' }
    expect(String(await rejection(new RedisClaimStore({ client }).claim('k', 't', 1000)))).toContain(
      'the claim script answered "QUEUED"',
    )
  })

  it('undefined object members are left out, as JSON does; a shared (not cyclic) object is fine', async () => {
    const client = recordingClient()
    const shared = { x: 1 }
    await new RedisIntentStore({ client }).open(intentOf({ params: { a: undefined, b: shared, c: shared } }))
    expect(client.sent).toEqual(['EVAL'])
  })
})
