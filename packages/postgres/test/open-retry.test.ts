/**
 * Which failures of the journal's `open` are sent again: a lost connection (whatever node calls it:
 * ECONNRESET, EPIPE, ETIMEDOUT…) is, since the upsert may or may not have landed; an answer of the
 * server about the statement itself (a SQLSTATE such as 23505 or 42P01) is not. No server needed: a
 * pool that fails as told.
 */

import { PaywireError } from '@paywire/core'
import { expect, it } from 'vitest'
import { intentOf } from '../../../tests/support/store-conformance.js'
import { type NamedStatement, type PgPool, PostgresIntentStore } from '../src/index.js'

/** A pool whose queries fail with `failures` in turn, then succeed; it records every statement. */
function failingPool(failures: Error[]): PgPool & { sent: string[] } {
  const sent: string[] = []
  const query = async (statement: string | NamedStatement) => {
    const text = typeof statement === 'string' ? statement : statement.text
    sent.push(text.trim().split(/\s+/)[0] as string)
    const failure = failures.shift()
    if (failure) throw failure
    return { rows: [], rowCount: 1 }
  }
  // The store sends each statement on a connection it checks out (so it can destroy one that stalls).
  return { sent, query, connect: async () => ({ query, release: () => {} }) }
}

const nodeError = (code: string) => Object.assign(new Error(`write ${code}`), { code, errno: -32, syscall: 'write' })
const serverError = (code: string) => Object.assign(new Error('refused'), { code, severity: 'ERROR' })

for (const code of ['EPIPE', 'ECONNRESET', 'ETIMEDOUT', 'ECONNREFUSED']) {
  it(`a connection lost with ${code} during open is sent again, and open resolves`, async () => {
    const pool = failingPool([nodeError(code)])
    await new PostgresIntentStore({ pool }).open(intentOf())
    expect(pool.sent).toStrictEqual(['INSERT', 'INSERT'])
  })
}

it('a server shutdown (SQLSTATE 57P01) during open is sent again', async () => {
  const pool = failingPool([Object.assign(new Error('terminating connection'), { code: '57P01', severity: 'FATAL' })])
  await new PostgresIntentStore({ pool }).open(intentOf())
  expect(pool.sent).toStrictEqual(['INSERT', 'INSERT'])
})

it('a refusal of the statement (SQLSTATE 42P01: no such table) is not sent again: open rejects naming it', async () => {
  const pool = failingPool([serverError('42P01')])
  await expect(new PostgresIntentStore({ pool }).open(intentOf())).rejects.toThrow(
    /PostgreSQL refused to write intent .*: refused/,
  )
  expect(pool.sent).toStrictEqual(['INSERT'])
})

it('every attempt lost: open rejects (the call is not sent) after undoing what may have landed', async () => {
  const pool = failingPool([nodeError('EPIPE'), nodeError('EPIPE'), nodeError('EPIPE')])
  const error = await new PostgresIntentStore({ pool }).open(intentOf()).catch((e: unknown) => e)
  expect(error).toBeInstanceOf(PaywireError)
  expect(String((error as Error).message)).toMatch(/failed 3 times .* nothing was left in the journal/)
  expect(pool.sent).toStrictEqual(['INSERT', 'INSERT', 'INSERT', 'DELETE'])
})
