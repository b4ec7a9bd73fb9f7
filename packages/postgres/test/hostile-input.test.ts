/**
 * Bad input to the stores is refused with a RequestValidationError naming the field, before anything
 * is sent: a pool that records every statement shows none.
 */

import { RequestValidationError } from '@paywire/core'
import { expect, it } from 'vitest'
import { intentOf } from '../../../tests/support/store-conformance.js'
import { type PgPool, PostgresClaimStore, PostgresInbox, PostgresIntentStore } from '../src/index.js'

function recordingPool(): PgPool & { sent: string[] } {
  const sent: string[] = []
  return {
    sent,
    async query(text: string) {
      sent.push(text)
      return { rows: [], rowCount: 0 }
    },
    connect: () => Promise.reject(new Error('nothing may be sent')),
  }
}

const cases: [string, (pool: PgPool) => Promise<unknown>, string][] = [
  ['holdMs far past any date', (pool) => new PostgresClaimStore({ pool }).claim('k', 't', 1e300), 'holdMs'],
  ['holdMs NaN', (pool) => new PostgresClaimStore({ pool }).claim('k', 't', Number.NaN), 'holdMs'],
  ['keepMs negative', (pool) => new PostgresClaimStore({ pool }).complete('k', 't', -1), 'keepMs'],
  ['a key with a lone surrogate', (pool) => new PostgresClaimStore({ pool }).claim('k\ud800', 't', 1000), 'key'],
  ['a token with NUL', (pool) => new PostgresClaimStore({ pool }).release('k', 't\u0000'), 'token'],
  ['an empty token', (pool) => new PostgresClaimStore({ pool }).complete('k', '', 1000), 'token'],
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
