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
    evalSha: answer('EVALSHA', 1),
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
      /client: not a node-redis client .* lacks mGet, zRange, zScore, zRem, evalSha; ioredis is not supported, pass a node-redis client/,
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
  it('every duration must be finite ms above 0 (PX takes whole ms: 0.5 becomes 1); retryInMs may be 0', async () => {
    const client = recordingClient()
    const store = new RedisClaimStore({ client })
    const event = { key: 'k', previousKeys: [], fields: '{}', ref: 'r' }
    const release = { retryInMs: 1, counted: true, error: undefined, dead: false }
    for (const ms of [0, -5, Number.NaN, Number.POSITIVE_INFINITY, '5' as never]) {
      const cases: [Promise<unknown>, string][] = [
        [store.record(event, 't', ms), 'leaseMs'],
        [store.take('k', { token: 't', ms, maxAttempts: 3 }), 'lease.ms'],
        [store.takeDue({ token: 't', ms, maxAttempts: 3 }, 10), 'lease.ms'],
        [store.renew('k', 't', ms), 'ms'],
        [store.complete('k', 't', ms), 'keepMs'],
        [store.prune(ms), 'keepMs'],
      ]
      if (ms !== 0) cases.push([store.release('k', 't', { ...release, retryInMs: ms }), 'next.retryInMs'])
      for (const [promise, path] of cases) {
        expect((await rejection(promise)) as RequestValidationError).toMatchObject({ issues: [{ path }] })
      }
    }
    expect(client.sent).toEqual([])
    const sent: string[][] = []
    const accepting: RedisClient = {
      ...client,
      evalSha: async (_sha1, { arguments: args }) => {
        sent.push(args)
        return args[3] === '1' ? ['taken'] : 1
      },
    }
    expect(await new RedisClaimStore({ client: accepting }).record(event, 't', 0.5)).toBe('taken')
    expect(sent).toEqual([['paywire:', 'k', 't', '1', '{}', 'r', '0']])
    await new RedisClaimStore({ client: accepting }).release('k', 't', { ...release, retryInMs: 0 })
    expect(sent[1]?.[2]).toBe('0')
  })

  it('a lease needs a whole maxAttempts >= 1, a limit is a whole number >= 0, a release says counted and dead', async () => {
    const client = recordingClient()
    const store = new RedisClaimStore({ client })
    for (const maxAttempts of [0, -1, 1.5, Number.NaN, '3' as never]) {
      expect(
        (await rejection(store.take('k', { token: 't', ms: 1000, maxAttempts }))) as RequestValidationError,
      ).toMatchObject({
        issues: [{ path: 'lease.maxAttempts' }],
      })
    }
    for (const limit of [-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, '10' as never]) {
      const lease = { token: 't', ms: 1000, maxAttempts: 3 }
      expect((await rejection(store.takeDue(lease, limit))) as RequestValidationError).toMatchObject({
        issues: [{ path: 'limit' }],
      })
      expect((await rejection(store.failedEvents(limit))) as RequestValidationError).toMatchObject({
        issues: [{ path: 'limit' }],
      })
    }
    const bad = { retryInMs: 1, counted: 'yes', error: 42, dead: undefined } as never
    expect(paths((await rejection(store.release('k', 't', bad))) as RequestValidationError)).toEqual([
      'next.counted',
      'next.dead',
      'next.error',
    ])
    for (const fields of [42, null, { step: 1 }]) {
      const wrong = { retryInMs: 1, counted: true, error: undefined, dead: false, fields } as never
      const error = (await rejection(store.release('k', 't', wrong))) as RequestValidationError
      expect(paths(error)).toEqual(['next.fields'])
      expect(error.issues[0]?.message).toMatch(/^must be a string, got/)
    }
    expect(paths((await rejection(store.wake(7 as never))) as RequestValidationError)).toEqual(['key'])
    expect(paths((await rejection(store.take('k', null as never))) as RequestValidationError)).toEqual(['lease'])
    expect(paths((await rejection(store.release('k', 't', null as never))) as RequestValidationError)).toEqual(['next'])
    expect(client.sent).toEqual([])
    // A limit of 0 answers none without asking Redis (ZRANGE 0 -1 would list every dead event).
    expect(await store.takeDue({ token: 't', ms: 1000, maxAttempts: 3 }, 0)).toEqual([])
    expect(await store.failedEvents(0)).toEqual([])
    expect(client.sent).toEqual([])
  })

  it('an event must have a string key, previous keys, fields and ref; fields must come back as written', async () => {
    const client = recordingClient()
    const store = new RedisClaimStore({ client })
    const event = { key: 'k', previousKeys: [], fields: '{}', ref: 'r' }
    const cases: [unknown, string][] = [
      [null, 'event'],
      [{ ...event, key: 1 }, 'event.key'],
      [{ ...event, previousKeys: 'k0' }, 'event.previousKeys'],
      [{ ...event, previousKeys: ['k0', 2] }, 'event.previousKeys[1]'],
      [{ ...event, fields: { id: 1 } }, 'event.fields'],
      [{ ...event, fields: '{"a":"\ud800"}' }, 'event.fields'],
      [{ ...event, ref: undefined }, 'event.ref'],
    ]
    for (const [bad, path] of cases) {
      expect(paths((await rejection(store.record(bad as never, 't', 1000))) as RequestValidationError)).toEqual([path])
    }
    expect(client.sent).toEqual([])
  })

  it('keys, tokens, ids and services with a lone surrogate are refused: as UTF-8 they would collide with U+FFFD', async () => {
    const client = recordingClient()
    const claims = new RedisClaimStore({ client })
    const journal = new RedisIntentStore({ client })
    const lone = 'evt\udc00'
    const cases: [Promise<unknown>, string][] = [
      [claims.record({ key: lone, previousKeys: [], fields: '{}', ref: 'r' }, 't', 1000), 'event.key'],
      [
        claims.record({ key: 'k', previousKeys: ['ok', lone], fields: '{}', ref: 'r' }, 't', 1000),
        'event.previousKeys[1]',
      ],
      [claims.record({ key: 'k', previousKeys: [], fields: lone, ref: 'r' }, 't', 1000), 'event.fields'],
      [claims.record({ key: 'k', previousKeys: [], fields: '{}', ref: lone }, 't', 1000), 'event.ref'],
      [claims.record({ key: 'k', previousKeys: [], fields: '{}', ref: 'r' }, lone, 1000), 'token'],
      [claims.record({ key: 'k', previousKeys: [], fields: '{}', ref: 'r' }, '', 1000), 'token'],
      [claims.take(lone, { token: 't', ms: 1000, maxAttempts: 3 }), 'key'],
      [claims.take('k', { token: '', ms: 1000, maxAttempts: 3 }), 'token'],
      [claims.takeDue({ token: lone, ms: 1000, maxAttempts: 3 }, 1), 'token'],
      [claims.renew(lone, 't', 1000), 'key'],
      [claims.complete(lone, 't', 1000), 'key'],
      [claims.complete('k', '', 1000), 'token'],
      [claims.release('k', lone, { retryInMs: 1, counted: true, error: undefined, dead: false }), 'token'],
      [claims.retry(lone), 'key'],
      [claims.wake(lone), 'key'],
      [
        claims.release('k', 't', { retryInMs: 1, counted: true, error: undefined, dead: false, fields: lone }),
        'next.fields',
      ],
      [claims.forget(lone), 'ref'],
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

  it("a client whose scripts answer anything but the store's own answers is not trusted", async () => {
    const event = { key: 'k', previousKeys: [], fields: '{}', ref: 'r' }
    const queued = new RedisClaimStore({ client: { ...recordingClient(), evalSha: async () => 'QUEUED' } })
    expect(String(await rejection(queued.record(event, 't', 1000)))).toContain(
      'RedisClaimStore.record: the script answered "QUEUED", not a list',
    )
    const queuedInList = new RedisClaimStore({ client: { ...recordingClient(), evalSha: async () => ['QUEUED'] } })
    expect(String(await rejection(queuedInList.record(event, 't', 1000)))).toContain(
      'the record script answered "QUEUED"',
    )
    // An answer for each of two events, to a script that carried one: whose is which cannot be told.
    const extra = new RedisClaimStore({ client: { ...recordingClient(), evalSha: async () => ['taken', 'taken'] } })
    expect(String(await rejection(extra.record(event, 't', 1000)))).toContain(
      'RedisClaimStore.record: the store answered 2 records for a batch of 1',
    )
    expect(String(await rejection(queued.takeDue({ token: 't', ms: 1000, maxAttempts: 3 }, 5)))).toContain(
      'RedisClaimStore.takeDue: the script answered "QUEUED", not a list',
    )
    const garbled = new RedisClaimStore({
      client: { ...recordingClient(), evalSha: async () => ['k', '{}', 'r', 'x'] },
    })
    expect(String(await rejection(garbled.take('k', { token: 't', ms: 1000, maxAttempts: 3 })))).toContain(
      'RedisClaimStore.take: the script answered an event it could not read',
    )
  })

  it('undefined object members are left out, as JSON does; a shared (not cyclic) object is fine', async () => {
    const client = recordingClient()
    const shared = { x: 1 }
    await new RedisIntentStore({ client }).open(intentOf({ params: { a: undefined, b: shared, c: shared } }))
    expect(client.sent).toEqual(['EVALSHA'])
  })
})
