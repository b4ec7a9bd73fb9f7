/**
 * What a merchant reads when something is refused or fails: our words, naming the field and the
 * rule; never the schema library's default wording; "nothing was sent" only where a request
 * existed; no reconciliation advice for a read-only lookup.
 */

import { RequestValidationError, TimeoutError } from '@paywire/core'
import { checkParams, HttpClient, readCredentials, safe, unsentOnly } from '@paywire/core/engine'
import { createTestClock, faults, startFaultServer } from '@paywire/core/testing'
import { describe, expect, it, onTestFinished } from 'vitest'
import { z } from 'zod'
import { get, jsonHandler, makeClient, post, rejection } from './helpers.js'

function issuesOf(schema: z.ZodType, input: unknown) {
  const checked = checkParams(schema, input)
  if (checked.ok) throw new Error('expected the input to be refused')
  return checked.issues
}

describe('validation messages are ours, for every check a schema leaves unworded', () => {
  const schema = z.strictObject({
    name: z.string(),
    count: z.number().int().min(1).max(9),
    code: z.string().min(3).max(5),
    tags: z.array(z.string()).min(1),
    flag: z.boolean(),
    kind: z.enum(['a', 'b']),
    nested: z.strictObject({ id: z.string() }),
    step: z.number().multipleOf(5),
    either: z.union([z.number(), z.string().regex(/^\d+$/)]),
    mail: z.email(),
  })

  it.each([
    ['name', {}, 'is required'],
    ['name', { name: 42 }, 'must be a string, not a number'],
    ['name', { name: null }, 'must be a string, not null'],
    ['name', { name: ['x'] }, 'must be a string, not an array'],
    ['count', { count: '3' }, 'must be a number, not a string'],
    ['count', { count: Number.NaN }, 'must be a number, not NaN'],
    ['count', { count: Number.POSITIVE_INFINITY }, 'must be a number, not Infinity'],
    ['count', { count: 1.5 }, 'must be a whole number, not a number'],
    ['count', { count: 0 }, 'must be at least 1'],
    ['count', { count: 10 }, 'must be at most 9'],
    ['code', { code: 'ab' }, 'must be at least 3 characters'],
    ['code', { code: 'abcdef' }, 'must be at most 5 characters'],
    ['tags', { tags: [] }, 'must be at least 1 item'],
    ['flag', { flag: 'yes' }, 'must be true or false, not a string'],
    ['kind', { kind: 'c' }, 'must be "a" or "b"'],
    ['nested', { nested: 'x' }, 'must be an object, not a string'],
    ['nested.id', { nested: {} }, 'is required'],
    ['step', { step: 7 }, 'must be a multiple of 5'],
    ['either', { either: true }, 'matches none of the accepted shapes'],
    ['either', { either: 'x' }, 'has the wrong format'],
    ['mail', { mail: 'not-mail' }, 'must be a valid email'],
  ])('%s of %j: "%s"', (path, input, message) => {
    const issues = issuesOf(schema, input)
    expect(issues).toContainEqual({ path, message })
    for (const issue of issues)
      expect(issue.message).not.toMatch(/Invalid input|expected \w+, received|Too (small|big)/)
  })

  it("keeps a schema's own message", () => {
    const own = z.strictObject({ amount: z.string({ error: 'must be the amount string' }).min(1, 'must not be empty') })
    expect(issuesOf(own, {})).toEqual([{ path: 'amount', message: 'must be the amount string' }])
    expect(issuesOf(own, { amount: '' })).toEqual([{ path: 'amount', message: 'must not be empty' }])
  })
})

describe('refused client options are not called a request', () => {
  it('a bad option of a client under construction says "invalid client options", not "nothing was sent"', () => {
    const error = (() => {
      try {
        new HttpClient({ packageName: 'p', packageVersion: '0', options: { timeout: -1 } })
      } catch (e) {
        return e
      }
      return undefined
    })()
    expect(error).toBeInstanceOf(RequestValidationError)
    expect(error).toMatchObject({ stage: 'options', operation: 'client', requestSent: false })
    expect((error as Error).message).toBe('client: invalid client options. timeout: must be a finite number >= 0')
  })

  it('a bad per-call option is a refused request, and says nothing was sent', async () => {
    const client = makeClient()
    onTestFinished(() => client.close())
    const error = await rejection(client.send(get('http://127.0.0.1:9/x'), jsonHandler, { timeout: -1 }))
    expect(error).toMatchObject({ stage: 'request', operation: 'test.get' })
    expect((error as Error).message).toBe(
      'test.get: invalid request, nothing was sent. timeout: must be a finite number >= 0',
    )
  })

  it('a credential refusal names the client, the option and the rule, never the value', () => {
    try {
      readCredentials('Shop', { key: 'paste-s3cr3t ' }, { key: 'text' })
      throw new Error('expected a refusal')
    } catch (error) {
      expect(error).toBeInstanceOf(RequestValidationError)
      expect((error as Error).message).toBe(
        'Shop: invalid client options. key: must not begin or end with whitespace (a copy-paste leftover?)',
      )
      expect((error as Error).message).not.toContain('s3cr3t')
    }
  })

  it.each([' leading', 'trailing ', 'newline\n', '\ttab'])('refuses a text credential of %j', (value) => {
    expect(() => readCredentials('Shop', { password: value }, { password: 'text' })).toThrow(RequestValidationError)
  })
})

describe('a retried read-only lookup that times out', () => {
  it('says it is safe to repeat, with no reconciliation advice', async () => {
    const server = await startFaultServer(faults.neverAnswer())
    onTestFinished(server.close)
    const client = makeClient({ clock: createTestClock(), timeout: 50, maxRetries: 1, backoff: { baseDelayMs: 1 } })
    onTestFinished(() => client.close())
    const error = await rejection(client.send(get(server.url, { retry: safe }), jsonHandler))
    expect(error).toBeInstanceOf(TimeoutError)
    expect(error).toMatchObject({ outcomeUnknown: false, attempts: 2 })
    expect((error as Error).message).not.toMatch(/reconcile|outcome unknown/i)
    expect((error as Error).message).toMatch(/safe to repeat/)
  })

  it('while a money movement in the same situation does carry it', async () => {
    const server = await startFaultServer(faults.neverAnswer())
    onTestFinished(server.close)
    const client = makeClient({ clock: createTestClock(), timeout: 50, maxRetries: 1 })
    onTestFinished(() => client.close())
    const error = await rejection(client.send(post(server.url, { retry: unsentOnly }), jsonHandler))
    expect(error).toMatchObject({ outcomeUnknown: true })
    expect((error as Error).message).toMatch(/reconcile/)
  })
})
