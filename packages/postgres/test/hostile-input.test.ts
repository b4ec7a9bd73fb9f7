/**
 * Bad input to the stores is refused with a RequestValidationError naming the field, before anything
 * is sent: a pool that records every statement shows none.
 */

import { RequestValidationError } from '@paywire/core'
import { expect, it } from 'vitest'
import { intentOf } from '../../../tests/support/store-conformance.js'
import {
  type NamedStatement,
  type PgPool,
  PostgresClaimStore,
  PostgresInbox,
  PostgresIntentStore,
} from '../src/index.js'

function recordingPool(): PgPool & { sent: string[] } {
  const sent: string[] = []
  return {
    sent,
    async query(text: string | NamedStatement) {
      sent.push(typeof text === 'string' ? text : text.text)
      return { rows: [], rowCount: 0 }
    },
    connect: () => Promise.reject(new Error('nothing may be sent')),
  }
}

const event = (over: Record<string, unknown> = {}) =>
  ({ key: 'k', previousKeys: [], fields: '{}', ref: 'order:1', ...over }) as never
const lease = (over: Record<string, unknown> = {}) => ({ token: 't', ms: 1000, maxAttempts: 3, ...over }) as never
const release = (over: Record<string, unknown> = {}) =>
  ({ retryInMs: 1000, counted: true, error: undefined, dead: false, ...over }) as never
const claims = (pool: PgPool) => new PostgresClaimStore({ pool })

const cases: [string, (pool: PgPool) => Promise<unknown>, string][] = [
  ['leaseMs far past any date', (pool) => claims(pool).record(event(), 't', 1e300), 'leaseMs'],
  ['a lease of NaN ms', (pool) => claims(pool).take('k', lease({ ms: Number.NaN })), 'lease.ms'],
  ['keepMs negative', (pool) => claims(pool).complete('k', 't', -1), 'keepMs'],
  ['renew by 0 ms', (pool) => claims(pool).renew('k', 't', 0), 'ms'],
  ['prune with keepMs 0', (pool) => claims(pool).prune(0), 'keepMs'],
  ['a key with a lone surrogate', (pool) => claims(pool).take('k\ud800', lease()), 'key'],
  [
    'an event key with a lone surrogate',
    (pool) => claims(pool).record(event({ key: 'k\udc00' }), 't', 1000),
    'event.key',
  ],
  [
    'a previous key with a lone surrogate',
    (pool) => claims(pool).record(event({ previousKeys: ['ok', 'k\ud800'] }), 't', 1000),
    'event.previousKeys[1]',
  ],
  [
    'previous keys not an array',
    (pool) => claims(pool).record(event({ previousKeys: 'k' }), 't', 1000),
    'event.previousKeys',
  ],
  [
    'fields with a lone surrogate',
    (pool) => claims(pool).record(event({ fields: '{"a":"\ud800"}' }), 't', 1000),
    'event.fields',
  ],
  [
    'fields that are not a string',
    (pool) => claims(pool).record(event({ fields: { a: 1 } }), 't', 1000),
    'event.fields',
  ],
  ['a ref that is not a string', (pool) => claims(pool).record(event({ ref: 7 }), 't', 1000), 'event.ref'],
  ['a ref to forget with a lone surrogate', (pool) => claims(pool).forget('order \udfff'), 'ref'],
  ['a key to retry that is not a string', (pool) => claims(pool).retry(undefined as never), 'key'],
  ['a key to wake that is not a string', (pool) => claims(pool).wake(42 as never), 'key'],
  ['a key to wake with a lone surrogate', (pool) => claims(pool).wake('k\udc00'), 'key'],
  [
    'release fields that are not a string',
    (pool) => claims(pool).release('k', 't', release({ fields: { step: 1 } })),
    'next.fields',
  ],
  ['release fields of null', (pool) => claims(pool).release('k', 't', release({ fields: null })), 'next.fields'],
  [
    'release fields with a lone surrogate',
    (pool) => claims(pool).release('k', 't', release({ fields: '{"a":"\ud800"}' })),
    'next.fields',
  ],
  ['a token with NUL', (pool) => claims(pool).release('k', 't\u0000', release()), 'token'],
  ['a lease token with NUL', (pool) => claims(pool).takeDue(lease({ token: 'a\u0000b' }), 10), 'lease.token'],
  ['an empty token', (pool) => claims(pool).complete('k', '', 1000), 'token'],
  ['an empty record token', (pool) => claims(pool).record(event(), '', undefined), 'token'],
  ['maxAttempts 0', (pool) => claims(pool).takeDue(lease({ maxAttempts: 0 }), 10), 'lease.maxAttempts'],
  ['maxAttempts 1.5', (pool) => claims(pool).take('k', lease({ maxAttempts: 1.5 })), 'lease.maxAttempts'],
  ['a limit of -1', (pool) => claims(pool).takeDue(lease(), -1), 'limit'],
  ['a limit of 2.5', (pool) => claims(pool).failedEvents(2.5), 'limit'],
  ['a limit of NaN', (pool) => claims(pool).failedEvents(Number.NaN), 'limit'],
  ['a negative retry time', (pool) => claims(pool).release('k', 't', release({ retryInMs: -5 })), 'next.retryInMs'],
  ['counted not a boolean', (pool) => claims(pool).release('k', 't', release({ counted: 'yes' })), 'next.counted'],
  [
    'an error that is not a string',
    (pool) => claims(pool).release('k', 't', release({ error: new Error('x') })),
    'next.error',
  ],
  [
    'params with NaN',
    (pool) => new PostgresIntentStore({ pool }).open(intentOf({ params: { amount: Number.NaN } })),
    'intent.params.amount',
  ],
  ['an id that is not a string', (pool) => new PostgresIntentStore({ pool }).close(42 as never, 'applied'), 'id'],
  ['olderThanMs of 0', (pool) => new PostgresInbox({ pool }).prune(0), 'olderThanMs'],
  ['work that is not a function', (pool) => new PostgresInbox({ pool }).runOnce('k', 'INSERT' as never), 'work'],
]

for (const [what, send, path] of cases) {
  it(`${what}: refused naming ${path}, nothing sent`, async () => {
    const pool = recordingPool()
    const error = await send(pool).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(RequestValidationError)
    expect((error as RequestValidationError).issues.map((i) => i.path)).toContain(path)
    expect(pool.sent).toStrictEqual([])
  })
}

it('a limit of 0 answers nothing, and sends nothing', async () => {
  const pool = recordingPool()
  expect(await claims(pool).takeDue(lease(), 0)).toStrictEqual([])
  expect(await claims(pool).failedEvents(0)).toStrictEqual([])
  expect(pool.sent).toStrictEqual([])
})
