import { describe, expect, it } from 'vitest'
import { type PaywireError, RequestValidationError } from '../src/index.js'
import { rejection, type Setup, setup } from './fixtures/setup.js'

let env: Setup

async function issuesOf(call: () => PromiseLike<unknown>) {
  const error = await rejection(call())
  expect(error).toBeInstanceOf(RequestValidationError)
  return (error as RequestValidationError).issues
}

describe('Request bodies are plain JSON objects, refused before sending otherwise', () => {
  it('refuses a body that is not a plain object (array, null, string, class instance)', async () => {
    env = await setup()
    const t = env.bills.transactions
    for (const bad of [[], null, 'text', new Map(), undefined]) {
      expect(await issuesOf(() => t.execute(bad as never))).toEqual([
        { path: 'body', message: 'must be a plain JSON object ({ ... })' },
      ])
    }
    expect(await issuesOf(() => t.filter([] as never))).toEqual([
      { path: 'filter', message: 'must be a plain JSON object ({ ... })' },
    ])
    expect(env.server.requests).toHaveLength(0)
  })

  it('refuses values JSON would change or drop, naming each path', async () => {
    env = await setup()
    const cyclic: Record<string, unknown> = { a: 1 }
    cyclic.self = cyclic
    const issues = await issuesOf(() =>
      env.bills.transactions.execute({
        productId: 'EDSA-PREPAID',
        amount: Number.NaN,
        fee: Number.POSITIVE_INFINITY,
        big: 10n,
        callback: () => 1,
        tag: Symbol('x'),
        items: [1, undefined, { at: new Date(0) }],
        nested: cyclic,
      }),
    )
    expect(issues).toEqual([
      { path: 'amount', message: 'NaN is not a JSON number (it would be sent as null)' },
      { path: 'fee', message: 'Infinity is not a JSON number (it would be sent as null)' },
      { path: 'big', message: 'a BigInt cannot be sent as JSON; pass a string or a number' },
      { path: 'callback', message: 'a function cannot be sent as JSON' },
      { path: 'tag', message: 'a symbol cannot be sent as JSON' },
      { path: 'items.1', message: 'undefined cannot be sent as JSON (in an array it would become null)' },
      { path: 'items.2.at', message: 'a Date is not a plain JSON value (send a string, e.g. date.toISOString())' },
      { path: 'nested.self', message: 'circular reference; JSON cannot represent it' },
    ])
    expect(env.server.requests).toHaveLength(0)
    expect(env.simulator.ledger).toHaveLength(0)
  })

  it('leaves out undefined object members, as JSON does', async () => {
    env = await setup()
    await env.bills.transactions.execute({ productId: 'EDSA-PREPAID', amount: 10, customerReference: undefined })
    expect(env.server.requests[0]?.body).toBe('{"productId":"EDSA-PREPAID","amount":10}')
  })

  it('deep bodies: valid nesting beyond the quick check is sent; a cycle or a bad value deep inside is refused by path', async () => {
    env = await setup()
    const deep = (depth: number, leaf: unknown): Record<string, unknown> => {
      let body: Record<string, unknown> = { v: leaf }
      for (let i = 1; i < depth; i++) body = { n: body }
      return body
    }
    await env.bills.transactions.filter(deep(40, 'ok') as never).catch(() => undefined)
    expect(env.server.requests).toHaveLength(1)

    const nanPath = `${'n.'.repeat(39)}v`
    const refusedNaN = await env.bills.transactions.filter(deep(40, Number.NaN) as never).catch((e: unknown) => e)
    expect(refusedNaN).toBeInstanceOf(RequestValidationError)
    expect((refusedNaN as RequestValidationError).issues.map((i) => i.path)).toEqual([nanPath])

    const looped = deep(40, 'x')
    let inner = looped
    for (let i = 1; i < 40; i++) inner = inner['n'] as Record<string, unknown>
    inner['back'] = looped
    const refusedCycle = await env.bills.transactions.filter(looped as never).catch((e: unknown) => e)
    expect((refusedCycle as RequestValidationError).issues[0]?.message).toBe(
      'circular reference; JSON cannot represent it',
    )
    expect(env.server.requests).toHaveLength(1)
  })

  it('accepts a shared (non-circular) object used twice', async () => {
    env = await setup()
    const shared = { k: 1 }
    await env.bills.transactions.filter({ a: shared, b: shared } as never).then(
      () => undefined,
      () => undefined,
    )
    expect(env.server.requests[0]?.body).toBe('{"a":{"k":1},"b":{"k":1}}')
  })

  it('the message lists every issue and says nothing was sent', async () => {
    env = await setup()
    const error = (await rejection(env.bills.catalog.enable({ productId: 1n }))) as RequestValidationError
    expect(error.message).toBe(
      'catalog.enable: invalid request, nothing was sent. productId: a BigInt cannot be sent as JSON; pass a string or a number',
    )
    expect(error.requestSent).toBe(false)
  })

  it('rejects the returned promise rather than throwing synchronously', async () => {
    env = await setup()
    const promise = env.bills.catalog.disable(null as never)
    await expect(promise).rejects.toBeInstanceOf(RequestValidationError)
  })
})

describe('Path variables, query and options', () => {
  it('refuses an empty id or reference', async () => {
    env = await setup()
    expect(await issuesOf(() => env.bills.catalog.get('  '))).toEqual([
      { path: 'id', message: 'must be a non-empty string (or a whole number)' },
    ])
    expect(await issuesOf(() => env.bills.transactions.get(undefined as never))).toEqual([
      { path: 'transReference', message: 'must be a non-empty string (or a whole number)' },
    ])
    expect(env.server.requests).toHaveLength(0)
  })

  it('accepts an integer product id', async () => {
    env = await setup()
    await rejection(env.bills.catalog.get(42))
    expect(env.lines()).toEqual(['GET /api/catalog/42'])
  })

  it('refuses query values that are not scalars', async () => {
    env = await setup()
    expect(await issuesOf(() => env.bills.transactions.list({ page: { n: 1 } } as never))).toEqual([
      { path: 'page', message: 'must be a string, finite number, boolean, null/undefined, or an array of those' },
    ])
    expect(await issuesOf(() => env.bills.transactions.list('x' as never))).toEqual([
      { path: 'query', message: 'must be a plain object of query parameters' },
    ])
  })

  it('sends array query values as repeated names', async () => {
    env = await setup()
    await env.bills.transactions.list({ status: ['A', 'B'] })
    expect(env.lines()).toEqual(['GET /api/transactions?status=A&status=B'])
  })

  it('refuses an Idempotency-Key that is empty, too long or not visible ASCII', async () => {
    env = await setup()
    for (const key of ['', 'has space', 'x'.repeat(256), 'clé', 'a\r\nb']) {
      expect(await issuesOf(() => env.bills.catalog.list({ idempotencyKey: key }))).toEqual([
        { path: 'idempotencyKey', message: 'must be 1 to 255 visible ASCII characters (no spaces)' },
      ])
    }
    expect(env.server.requests).toHaveLength(0)
  })

  it('a refused Idempotency-Key is not reported as the key of the failed call', async () => {
    env = await setup()
    const error = await rejection(env.bills.transactions.execute({ amount: 1 }, { idempotencyKey: 'a b' }))
    expect((error as PaywireError).idempotencyKey).toBeUndefined()
  })

  it('refuses a schema option that is not a zod schema', async () => {
    env = await setup()
    expect(await issuesOf(() => env.bills.catalog.list({ schema: {} as never }))).toEqual([
      {
        path: 'schema',
        message: 'must be a Standard Schema (a zod, valibot or arktype schema: one with ~standard.validate)',
      },
    ])
  })
})
