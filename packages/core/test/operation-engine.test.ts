/**
 * The operation engine from the attacker's side: every promise of `OperationClient` is attacked
 * through the real `HttpClient` (undici) against a loopback server that records what arrived.
 * A refusal must be a `RequestValidationError` naming the field, with zero requests on the wire.
 */

import { createHash } from 'node:crypto'
import {
  ApiError,
  ConnectionError,
  type OperationOptions,
  ProblemDetailsError,
  RequestValidationError,
} from '@paywire/core'
import {
  defineOperation,
  jsonAnswer,
  OperationClient,
  problemAnswers,
  reconcileRule,
  safe,
  unsentOnly,
} from '@paywire/core/engine'
import {
  createTestClock,
  type FaultBehaviour,
  faults,
  type RecordedRequest,
  startFaultServer,
  startMockServer,
} from '@paywire/core/testing'
import { HttpResponse, http } from 'msw'
import { describe, expect, expectTypeOf, it, onTestFinished } from 'vitest'
import { z } from 'zod'
import { makeClient, rejection } from './helpers.js'

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/

/** A service's own error class, as the ProblemDetails packages declare theirs. */
class ShopError extends ProblemDetailsError {
  override name = 'ShopError'
}

interface Ctx {
  readonly merchant: string
  readonly secret: string
}

interface Item {
  readonly id: string
  readonly name: string
}

const item = (value: unknown, reject: (problem: string) => never): Item => {
  if (typeof value !== 'object' || value === null || typeof (value as { id?: unknown }).id !== 'string') {
    return reject('the answer has no item id')
  }
  return value as Item
}

const rows = {
  getItem: defineOperation({
    name: 'items.get',
    method: 'GET',
    path: '/items/{id}',
    retry: safe,
    decode: item,
  }),
  twoVars: defineOperation({
    name: 'items.variant',
    method: 'GET',
    path: '/items/{id}/variants/{variant}',
    retry: safe,
  }),
  search: defineOperation({
    name: 'items.search',
    method: 'GET',
    path: '/search',
    query: true,
    retry: safe,
    decode: jsonAnswer<unknown>,
  }),
  /** A payment: a generated header key, never repeated once sent unless the caller opts in. */
  pay: defineOperation({
    name: 'payments.create',
    method: 'POST',
    path: '/payments',
    params: z.object({ amount: z.string(), currency: z.string() }).strict(),
    retry: unsentOnly,
    idempotency: { header: 'Idempotency-Key', generate: true },
  }),
  /** A payment whose key header is only sent when the caller gives one. */
  charge: defineOperation({
    name: 'charges.create',
    method: 'POST',
    path: '/charges',
    params: z.object({ amount: z.string() }).strict(),
    retry: unsentOnly,
    idempotency: { header: 'Idempotency-Key' },
  }),
  /** A lookup that carries a generated key and may be repeated freely. */
  lookup: defineOperation({
    name: 'payments.lookup',
    method: 'GET',
    path: '/payments/{id}',
    retry: safe,
    idempotency: { header: 'Idempotency-Key', generate: true },
  }),
  /** A transfer deduplicated on a body field. */
  transfer: defineOperation({
    name: 'transfers.create',
    method: 'POST',
    path: '/transfers',
    params: z.object({ ref: z.string().optional(), amount: z.number() }).strict(),
    retry: unsentOnly,
    idempotency: { bodyField: 'ref', generate: true },
  }),
  /** A transfer whose body key is only sent when the caller gives one. */
  transferNoGenerate: defineOperation({
    name: 'transfers.createOwnRef',
    method: 'POST',
    path: '/transfers',
    params: z.object({ ref: z.string().optional(), amount: z.number() }).strict(),
    retry: unsentOnly,
    idempotency: { bodyField: 'ref' },
  }),
  /** A money movement without any key. */
  order: defineOperation({
    name: 'orders.create',
    method: 'POST',
    path: '/orders',
    params: z.object({ sku: z.string(), quantity: z.number().int().positive() }).strict(),
    precheck: (input) =>
      typeof input === 'object' && input !== null && 'card' in input
        ? [{ path: 'card', message: 'card details belong to payments.create, not orders.create' }]
        : [],
    retry: unsentOnly,
  }),
  onOtherBase: defineOperation({
    name: 'other.ping',
    method: 'GET',
    base: 'other',
    path: '/ping',
    retry: safe,
  }),
  onMissingBase: defineOperation({
    name: 'nowhere.ping',
    method: 'GET',
    base: 'nowhere',
    path: '/ping',
    retry: safe,
  }),
}

let finalizeSaw: Record<string, unknown> | undefined

function signature(operation: string, wire: Record<string, unknown>, secret: string): string {
  const text = [operation, ...Object.values(wire).map(String), secret].join('|')
  return createHash('sha256').update(text).digest('hex')
}

/** The card-signer shape: fixed fields from the client, field order, then a hash of the very strings sent. */
const signed = defineOperation({
  name: 'sale.create',
  method: 'POST',
  path: '/sale',
  params: z.object({ orderId: z.string(), amount: z.string() }).strict(),
  retry: unsentOnly,
  toWire: (params, ctx: Ctx) => ({ merchant: ctx.merchant, order_id: params.orderId, amount: params.amount }),
  finalize: (wire, ctx: Ctx, operation) => {
    finalizeSaw = { ...wire }
    wire.hash = signature(operation, wire, ctx.secret)
  },
  reconcile: reconcileRule(['hash'], (sent) => ({
    key: 'hash',
    value: String(sent.wire?.hash),
    lookup: 'sale.status by hash',
  })),
})

const form = defineOperation({
  name: 'sale.form',
  method: 'POST',
  path: '/form',
  encoding: 'form',
  params: z.object({ a: z.string(), b: z.string(), c: z.string() }).strict(),
  retry: unsentOnly,
  toWire: (params) => ({ c: params.c, a: params.a, b: params.b }),
})

const OK: FaultBehaviour = faults.json(200, { id: 'i-1', name: 'thing' })

/** The first `failures` requests answer 503, then `then` answers. */
function failFirst(failures: number, then: FaultBehaviour = OK): FaultBehaviour {
  return (req, res, n) => (n <= failures ? faults.json(503, { title: 'busy' }) : then)(req, res, n)
}

async function setup(behaviour: FaultBehaviour = OK) {
  const server = await startFaultServer(behaviour)
  onTestFinished(() => server.close())
  const httpClient = makeClient({ clock: createTestClock(), random: () => 0, backoff: { baseDelayMs: 0 } })
  onTestFinished(() => httpClient.close())
  const ops = new OperationClient<Ctx>({
    http: httpClient,
    baseUrls: { default: server.url, other: `${server.url}/other` },
    context: { merchant: 'm-1', secret: 'shh' },
    authHeaders: () => ({ 'x-api-key': 'key-1' }),
    requestIdempotencyHeader: 'Idempotency-Key',
    journal: undefined,
    answers: problemAnswers(ShopError),
  })
  return { server, ops }
}

/** Asserts a refusal naming `paths` (in any order) and that the server saw nothing. */
async function expectRefused(
  promise: PromiseLike<unknown>,
  server: { requests: readonly unknown[] },
  paths: readonly string[],
): Promise<RequestValidationError> {
  const error = await rejection(promise)
  expect(error).toBeInstanceOf(RequestValidationError)
  const refusal = error as RequestValidationError
  expect(refusal.requestSent).toBe(false)
  expect(refusal.issues.map((issue) => issue.path).sort()).toEqual([...paths].sort())
  for (const issue of refusal.issues) expect(issue.message).not.toBe('')
  expect(server.requests).toHaveLength(0)
  return refusal
}

const sentJson = (server: { requests: readonly { body: string }[] }, index = 0): Record<string, unknown> =>
  JSON.parse(server.requests[index]?.body ?? 'null') as Record<string, unknown>

describe('bad input: RequestValidationError naming the field, nothing sent', () => {
  describe('path variables', () => {
    it.each([
      ['no path object at all', undefined],
      ['the variable missing', {}],
      ['the wrong variable name', { ID: 'x' }],
      ['empty', { id: '' }],
      ['whitespace', { id: '   ' }],
      ['a tab and newline', { id: '\t\n' }],
      ['a no-break space', { id: '\u00a0' }],
      ['null', { id: null }],
      ['undefined', { id: undefined }],
      ['an object', { id: { toString: () => 'x' } }],
      ['an array', { id: ['a'] }],
      ['a boolean', { id: true }],
      ['a fraction', { id: 1.5 }],
      ['NaN', { id: Number.NaN }],
      ['Infinity', { id: Number.POSITIVE_INFINITY }],
      ['an unsafe integer', { id: 2 ** 53 }],
      ['a bigint', { id: 10n }],
    ])('%s', async (_name, path) => {
      const { server, ops } = await setup()
      await expectRefused(ops.call(rows.getItem, { path }), server, ['id'])
    })

    it.each([['.'], ['..'], ['%2e%2e'], ['%2E%2E'], ['%2e'], ['.%2E'], ['%2e.']])('the dot segment %j', async (id) => {
      const { server, ops } = await setup()
      await expectRefused(ops.call(rows.getItem, { path: { id } }), server, ['id'])
    })

    it('a lone surrogate is refused by name', async () => {
      const { server, ops } = await setup()
      await expectRefused(ops.call(rows.getItem, { path: { id: 'a\ud800' } }), server, ['id'])
    })

    it('every missing variable of a template is named', async () => {
      const { server, ops } = await setup()
      await expectRefused(ops.call(rows.twoVars, { path: { id: ' ' } }), server, ['id', 'variant'])
    })

    it.each([
      ['a/b?c#d', '/items/a%2Fb%3Fc%23d'],
      ['../admin', '/items/..%2Fadmin'],
      ['..%2Fadmin', '/items/..%252Fadmin'],
      ['%2e%2e/', '/items/%252e%252e%2F'],
      ['...', '/items/...'],
      [' a ', '/items/%20a%20'],
      ['ü&=+', '/items/%C3%BC%26%3D%2B'],
      [0, '/items/0'],
      [-7, '/items/-7'],
    ])('%j is encoded and stays inside the route', async (id, url) => {
      const { server, ops } = await setup()
      await ops.call(rows.getItem, { path: { id } })
      expect(server.requests).toHaveLength(1)
      expect(server.requests[0]?.url).toBe(url)
      expect(new URL(server.requests[0]?.url ?? '', 'http://x').pathname.split('/')).toHaveLength(3)
    })

    it('the second variable is encoded on its own too', async () => {
      const { server, ops } = await setup()
      await ops.call(rows.twoVars, { path: { id: 'a/b', variant: '?x=1#y' } })
      expect(server.requests[0]?.url).toBe('/items/a%2Fb/variants/%3Fx%3D1%23y')
    })
  })

  describe('query', () => {
    it.each([
      ['a string', 'a=1'],
      ['a number', 42],
      ['a boolean', true],
      ['null', null],
      ['an array', [['a', '1']]],
      ['a function', () => 'a=1'],
    ])('a non-object query (%s) is refused', async (_name, query) => {
      const { server, ops } = await setup()
      await expectRefused(ops.call(rows.search, { query }), server, ['query'])
    })

    it.each([
      ['a nested object', { a: { b: 1 } }],
      ['an object in an array', { a: [{ b: 1 }] }],
      ['a nested array', { a: [['1']] }],
      ['NaN', { a: Number.NaN }],
      ['Infinity', { a: Number.POSITIVE_INFINITY }],
      ['-Infinity', { a: Number.NEGATIVE_INFINITY }],
      ['NaN in an array', { a: [1, Number.NaN] }],
      ['a bigint', { a: 1n }],
      ['a Date', { a: new Date(0) }],
      ['a symbol', { a: Symbol('s') }],
      ['a function', { a: () => 1 }],
    ])('%s is refused, naming the parameter', async (_name, query) => {
      const { server, ops } = await setup()
      await expectRefused(ops.call(rows.search, { query }), server, ['a'])
    })

    it('every bad parameter is named at once', async () => {
      const { server, ops } = await setup()
      await expectRefused(ops.call(rows.search, { query: { ok: 'x', a: Number.NaN, b: { c: 1 } } }), server, ['a', 'b'])
    })

    it('a good query goes out encoded, null and undefined left out, arrays repeated', async () => {
      const { server, ops } = await setup()
      await ops.call(rows.search, {
        query: { q: 'a&b=c#d', n: 1.5, neg: -2, flag: false, none: undefined, nil: null, tag: ['x', 2, null] },
      })
      expect(server.requests[0]?.url).toBe('/search?q=a%26b%3Dc%23d&n=1.5&neg=-2&flag=false&tag=x&tag=2')
    })

    it("a raw request's path goes out as URL parsing writes it: encoded, no fragment", async () => {
      const { server, ops } = await setup()
      await ops.request({ method: 'GET', path: '/a b/c/d?x=é#frag' })
      expect(server.requests[0]?.url).toBe('/a%20b/c/d?x=%C3%A9')
    })

    it("a raw request's path with a dot segment is refused, nothing sent: it would leave the base URL", async () => {
      const { server, ops } = await setup()
      await expectRefused(ops.request({ method: 'GET', path: '/a b/./c/../d?x=é#frag' }), server, ['path'])
    })

    // Regression test for an engine defect found in review (operation.ts queryIssues): any non-array object passes, so a Map or URLSearchParams
    // has no own entries and the caller's filters vanish silently; the call goes out unfiltered.
    it.each([
      ['a Map', new Map([['status', 'failed']])],
      ['URLSearchParams', new URLSearchParams('status=failed')],
    ])('a query that is not a plain object (%s) is refused instead of dropped', async (_name, query) => {
      const { server, ops } = await setup()
      await expectRefused(ops.call(rows.search, { query }), server, ['query'])
    })
  })

  describe('the idempotencyKey option', () => {
    it.each([
      ['with a space', 'pay 1'],
      ['with a leading space', ' pay-1'],
      ['empty', ''],
      ['256 characters', 'k'.repeat(256)],
      ['non-ASCII', 'clé-1'],
      ['Cyrillic', 'ключ'],
      ['a line break', 'pay-1\r\nX-Evil: 1'],
      ['a tab', 'pay\t1'],
      ['DEL', 'pay\x7f'],
      ['a number', 123],
      ['null', null],
      ['an object', { toString: () => 'pay-1' }],
      ['a boolean', true],
    ])('%s is refused', async (_name, idempotencyKey) => {
      const { server, ops } = await setup()
      await expectRefused(
        ops.call(
          rows.pay,
          { body: { amount: '1.00', currency: 'EUR' } },
          {
            idempotencyKey: idempotencyKey as string,
          },
        ),
        server,
        ['idempotencyKey'],
      )
    })

    it('255 visible ASCII characters are accepted and sent', async () => {
      const { server, ops } = await setup()
      const key = `!~${'k'.repeat(253)}`
      await ops.call(rows.pay, { body: { amount: '1.00', currency: 'EUR' } }, { idempotencyKey: key })
      expect(server.requests[0]?.headers['idempotency-key']).toBe(key)
    })

    it('is refused on an operation without a key, also on a GET', async () => {
      const { server, ops } = await setup()
      await expectRefused(
        ops.call(rows.order, { body: { sku: 's', quantity: 1 } }, { idempotencyKey: 'k-1' }),
        server,
        ['idempotencyKey'],
      )
      await expectRefused(ops.call(rows.getItem, { path: { id: '1' } }, { idempotencyKey: 'k-1' }), server, [
        'idempotencyKey',
      ])
    })

    it('an invalid key on an operation without a key is still refused', async () => {
      const { server, ops } = await setup()
      await expectRefused(
        ops.call(rows.order, { body: { sku: 's', quantity: 1 } }, { idempotencyKey: 'a b' }),
        server,
        ['idempotencyKey'],
      )
    })
  })

  describe('retryWithSameKey', () => {
    it('true is refused on an operation without a key', async () => {
      const { server, ops } = await setup()
      const refusal = await expectRefused(
        ops.call(rows.order, { body: { sku: 's', quantity: 1 } }, { retryWithSameKey: true }),
        server,
        ['retryWithSameKey'],
      )
      expect(refusal.message).toContain('retryWithSameKey')
    })

    it('false is accepted on an operation without a key', async () => {
      const { server, ops } = await setup()
      await ops.call(rows.order, { body: { sku: 's', quantity: 1 } }, { retryWithSameKey: false })
      expect(server.requests).toHaveLength(1)
    })

    it.each([['yes'], [1], [0], [null], ['true']])('a non-boolean %j is refused', async (value) => {
      const { server, ops } = await setup()
      await expectRefused(
        ops.call(
          rows.pay,
          { body: { amount: '1', currency: 'EUR' } },
          {
            retryWithSameKey: value as unknown as boolean,
          },
        ),
        server,
        ['retryWithSameKey'],
      )
    })

    it('is refused on request() when the client has no idempotency header', async () => {
      const server = await startFaultServer(OK)
      onTestFinished(() => server.close())
      const httpClient = makeClient({ clock: createTestClock() })
      onTestFinished(() => httpClient.close())
      const ops = new OperationClient({
        http: httpClient,
        baseUrls: { default: server.url },
        context: undefined,
        journal: undefined,
        answers: problemAnswers(ShopError),
      })
      await expectRefused(ops.request({ method: 'POST', path: '/x', body: {} }, { retryWithSameKey: true }), server, [
        'retryWithSameKey',
      ])
      await expectRefused(ops.request({ method: 'POST', path: '/x', body: {} }, { idempotencyKey: 'k' }), server, [
        'idempotencyKey',
      ])
    })
  })

  describe('the schema option', () => {
    it.each([
      ['an empty object', {}],
      ['null', null],
      ['a non-function safeParse', { safeParse: 'yes' }],
      ['a number', 42],
      ['a parse-only object', { parse: (v: unknown) => v }],
      // A zod-3-style object without the Standard Schema member: the SDK reads only `~standard`.
      ['a safeParse-only object', { safeParse: (v: unknown) => ({ success: true, data: v }) }],
      ['a Standard Schema of another version', { '~standard': { version: 2, vendor: 'x', validate: () => ({}) } }],
      ['a Standard Schema without validate', { '~standard': { version: 1, vendor: 'x' } }],
    ])('%s is refused, on call() and on request()', async (_name, schema) => {
      const { server, ops } = await setup()
      const options = { schema } as unknown as OperationOptions<undefined>
      await expectRefused(ops.call(rows.getItem, { path: { id: '1' } }, options), server, ['schema'])
      await expectRefused(ops.request({ method: 'GET', path: '/x' }, options), server, ['schema'])
    })
  })

  describe('base URLs', () => {
    it('an unknown base in request() is refused, naming the known ones', async () => {
      const { server, ops } = await setup()
      const refusal = await expectRefused(ops.request({ method: 'GET', path: '/x', base: 'staging' }), server, ['base'])
      expect(refusal.issues[0]?.message).toContain('"default"')
      expect(refusal.issues[0]?.message).toContain('"other"')
    })

    it('an unknown base on a row is refused', async () => {
      const { server, ops } = await setup()
      await expectRefused(ops.call(rows.onMissingBase, {}), server, ['base'])
    })

    it('a named base is used', async () => {
      const { server, ops } = await setup()
      await ops.call(rows.onOtherBase, {})
      await ops.request({ method: 'GET', path: '/raw', base: 'other' })
      expect(server.requests.map((r) => r.url)).toEqual(['/other/ping', '/other/raw'])
    })

    // Regression test for an engine defect found in review (operation.ts #baseUrl): `this.#config.baseUrls[base]` reads inherited members, so a
    // base named after an Object.prototype member resolves to a function or the prototype object
    // instead of being refused with the known names (should use Object.hasOwn).
    it.each([['constructor'], ['toString'], ['__proto__'], ['hasOwnProperty']])(
      'a base named after an Object.prototype member (%s) is refused as unknown',
      async (base) => {
        const { server, ops } = await setup()
        await expectRefused(ops.request({ method: 'GET', path: '/x', base }), server, ['base'])
      },
    )
  })

  describe('request()', () => {
    it.each([
      ['a scheme-relative path', '//evil.example/x'],
      ['an absolute URL', 'http://evil.example/x'],
      ['a path without a slash', 'x'],
    ])('%s is refused', async (_name, path) => {
      const { server, ops } = await setup()
      await expectRefused(ops.request({ method: 'GET', path }), server, ['path'])
    })

    it('an input idempotency header in any case is refused', async () => {
      const { server, ops } = await setup()
      await expectRefused(
        ops.request({ method: 'POST', path: '/x', body: {}, headers: { 'IDEMPOTENCY-key': 'mine' } }),
        server,
        ['headers.IDEMPOTENCY-key'],
      )
    })
  })

  describe('the body', () => {
    it('a body failing the schema names every field, unknown ones with a guess', async () => {
      const { server, ops } = await setup()
      const refusal = await expectRefused(ops.call(rows.order, { body: { sku: 5, quantity: 0, quantiy: 2 } }), server, [
        'sku',
        'quantity',
        'quantiy',
      ])
      expect(refusal.issues.find((i) => i.path === 'quantiy')?.message).toContain('"quantity"')
      expect(refusal.operation).toBe('orders.create')
    })

    it.each([
      ['missing', undefined],
      ['null', null],
      ['an array', [{ sku: 's', quantity: 1 }]],
      ['a string', '{"sku":"s","quantity":1}'],
    ])('a body that is %s is refused', async (_name, body) => {
      const { server, ops } = await setup()
      const error = await rejection(ops.call(rows.order, { body }))
      expect(error).toBeInstanceOf(RequestValidationError)
      expect((error as RequestValidationError).issues.length).toBeGreaterThan(0)
      expect(server.requests).toHaveLength(0)
    })

    it('precheck issues are reported by name', async () => {
      const { server, ops } = await setup()
      await expectRefused(ops.call(rows.order, { body: { sku: 's', quantity: 1, card: '4111' } }), server, ['card'])
    })

    it('option issues, path issues and query issues are reported together', async () => {
      const { server, ops } = await setup()
      await expectRefused(
        ops.call(rows.lookup, { path: { id: '' } }, { idempotencyKey: 'a b', retryWithSameKey: 'x' as never }),
        server,
        ['idempotencyKey', 'retryWithSameKey', 'id'],
      )
    })

    // Regression test for an engine defect found in review (operation.ts #build): `.`/`..` path values pass pathValues and are only refused
    // by expandPath after the issue list was thrown, toWire and finalize (the signer) ran, so a dot
    // segment is never named together with the other issues of the same call. Fix: run pathSegment's
    // dot-segment rule inside pathValues and collect it as an issue like the others.
    it('a dot-segment path value is named together with the other issues', async () => {
      const { server, ops } = await setup()
      await expectRefused(ops.call(rows.lookup, { path: { id: '..' } }, { idempotencyKey: 'a b' }), server, [
        'idempotencyKey',
        'id',
      ])
    })

    it('a body on a row without params is not sent', async () => {
      const { server, ops } = await setup()
      await ops.call(rows.getItem, { path: { id: '1' }, body: { secret: 'x' } })
      expect(server.requests[0]?.body).toBe('')
    })
  })
})

describe('idempotency keys', () => {
  describe('a generated header key', () => {
    it('is a UUID, sent in the header and on .withResponse()', async () => {
      const { server, ops } = await setup()
      const { response } = await ops.call(rows.pay, { body: { amount: '1.00', currency: 'EUR' } }).withResponse()
      const sent = server.requests[0]?.headers['idempotency-key']
      expect(sent).toMatch(UUID)
      expect(response.idempotencyKey).toBe(sent)
      expect(server.requests[0]?.headers['x-api-key']).toBe('key-1')
    })

    it('differs between calls', async () => {
      const { server, ops } = await setup()
      await ops.call(rows.pay, { body: { amount: '1.00', currency: 'EUR' } })
      await ops.call(rows.pay, { body: { amount: '1.00', currency: 'EUR' } })
      const [a, b] = server.requests.map((r) => r.headers['idempotency-key'])
      expect(a).toMatch(UUID)
      expect(b).toMatch(UUID)
      expect(a).not.toBe(b)
    })

    it('is the same on every attempt of a retryWithSameKey call', async () => {
      const { server, ops } = await setup(failFirst(2))
      const { response } = await ops
        .call(rows.pay, { body: { amount: '1.00', currency: 'EUR' } }, { retryWithSameKey: true })
        .withResponse()
      const keys = server.requests.map((r) => r.headers['idempotency-key'])
      expect(keys).toHaveLength(3)
      expect(new Set(keys).size).toBe(1)
      expect(keys[0]).toMatch(UUID)
      expect(response).toMatchObject({ attempts: 3, idempotencyKey: keys[0] })
      expect(new Set(server.requests.map((r) => r.body)).size).toBe(1)
    })

    it('is the same on every attempt of a safe lookup', async () => {
      const { server, ops } = await setup(failFirst(1))
      const { response } = await ops.call(rows.lookup, { path: { id: 'p-1' } }).withResponse()
      const keys = server.requests.map((r) => r.headers['idempotency-key'])
      expect(keys).toHaveLength(2)
      expect(keys[0]).toMatch(UUID)
      expect(keys[1]).toBe(keys[0])
      expect(response.idempotencyKey).toBe(keys[0])
    })

    it('is on the error, in its reconciliation, when every attempt fails', async () => {
      const { server, ops } = await setup(faults.json(503, { title: 'busy' }))
      const error = await rejection(
        ops.call(rows.pay, { body: { amount: '1.00', currency: 'EUR' } }, { retryWithSameKey: true }),
      )
      expect(error).toBeInstanceOf(ShopError)
      const keys = server.requests.map((r) => r.headers['idempotency-key'])
      expect(keys).toHaveLength(3)
      expect(new Set(keys).size).toBe(1)
      const key = keys[0] as string
      expect(key).toMatch(UUID)
      const apiError = error as ShopError
      expect(apiError.idempotencyKey).toBe(key)
      expect(apiError.reconciliation).toMatchObject({ key: 'Idempotency-Key', value: key })
      expect(apiError.reconciliation?.lookup).toContain(key)
    })

    it('is on a refused (4xx) answer and on a connection error', async () => {
      const { server, ops } = await setup(faults.json(409, { title: 'duplicate', status: 409 }))
      const conflict = (await rejection(ops.call(rows.pay, { body: { amount: '1', currency: 'EUR' } }))) as ShopError
      expect(conflict).toBeInstanceOf(ShopError)
      expect(conflict.idempotencyKey).toBe(server.requests[0]?.headers['idempotency-key'])
      expect(conflict.reconciliation?.value).toBe(conflict.idempotencyKey)
      server.behave(faults.resetBeforeAnswer())
      const reset = await rejection(ops.call(rows.pay, { body: { amount: '1', currency: 'EUR' } }))
      expect(reset).toBeInstanceOf(ConnectionError)
      expect((reset as ConnectionError).idempotencyKey).toBe(server.requests[1]?.headers['idempotency-key'])
      expect((reset as ConnectionError).reconciliation?.value).toMatch(UUID)
    })

    it('is replaced by the idempotencyKey option', async () => {
      const { server, ops } = await setup()
      const { response } = await ops
        .call(rows.pay, { body: { amount: '1', currency: 'EUR' } }, { idempotencyKey: 'order-77' })
        .withResponse()
      expect(server.requests[0]?.headers['idempotency-key']).toBe('order-77')
      expect(response.idempotencyKey).toBe('order-77')
    })

    it.each([['idempotency-key'], ['Idempotency-Key'], ['IDEMPOTENCY-KEY'], ['iDeMpOtEnCy-KeY']])(
      'a per-call header %s is refused, nothing sent',
      async (name) => {
        const { server, ops } = await setup()
        await expectRefused(
          ops.call(rows.pay, { body: { amount: '1', currency: 'EUR' } }, { headers: { [name]: 'x' } }),
          server,
          [`headers.${name}`],
        )
        // Also where the operation sends no key this time: the header is still the SDK's.
        await expectRefused(ops.call(rows.charge, { body: { amount: '1' } }, { headers: { [name]: 'x' } }), server, [
          `headers.${name}`,
        ])
        await expectRefused(
          ops.request({ method: 'POST', path: '/x', body: {} }, { headers: { [name]: 'x' } }),
          server,
          [`headers.${name}`],
        )
      },
    )

    it('a per-call credential header is refused too', async () => {
      const { server, ops } = await setup()
      await expectRefused(ops.call(rows.getItem, { path: { id: '1' } }, { headers: { 'X-API-KEY': 'x' } }), server, [
        'headers.X-API-KEY',
      ])
    })

    it('request() sends the idempotencyKey option in the client header', async () => {
      const { server, ops } = await setup()
      const { response } = await ops
        .request({ method: 'POST', path: '/raw', body: { a: 1 } }, { idempotencyKey: 'raw-1' })
        .withResponse()
      expect(server.requests[0]?.headers['idempotency-key']).toBe('raw-1')
      expect(response.idempotencyKey).toBe('raw-1')
    })
  })

  describe('a body-field key', () => {
    it('a generated key goes into the body as ref, and nowhere else', async () => {
      const { server, ops } = await setup()
      const { response } = await ops.call(rows.transfer, { body: { amount: 5 } }).withResponse()
      const body = sentJson(server)
      expect(body.ref).toMatch(UUID)
      expect(body.amount).toBe(5)
      expect(response.idempotencyKey).toBe(body.ref)
      expect(server.requests[0]?.headers['idempotency-key']).toBeUndefined()
    })

    it("the caller's ref is kept and is the key", async () => {
      const { server, ops } = await setup(faults.json(409, { title: 'duplicate ref' }))
      const error = (await rejection(ops.call(rows.transfer, { body: { ref: 'tr-9', amount: 5 } }))) as ShopError
      expect(sentJson(server)).toEqual({ ref: 'tr-9', amount: 5 })
      expect(error).toBeInstanceOf(ShopError)
      expect(error.idempotencyKey).toBe('tr-9')
      expect(error.reconciliation).toMatchObject({ key: 'ref', value: 'tr-9' })
    })

    it('an idempotencyKey option equal to the body ref is fine', async () => {
      const { server, ops } = await setup()
      const { response } = await ops
        .call(rows.transfer, { body: { ref: 'tr-9', amount: 5 } }, { idempotencyKey: 'tr-9' })
        .withResponse()
      expect(sentJson(server)).toEqual({ ref: 'tr-9', amount: 5 })
      expect(response.idempotencyKey).toBe('tr-9')
    })

    it('an idempotencyKey option alone fills the body ref', async () => {
      const { server, ops } = await setup()
      const { response } = await ops
        .call(rows.transfer, { body: { amount: 5 } }, { idempotencyKey: 'opt-1' })
        .withResponse()
      expect(sentJson(server)).toEqual({ amount: 5, ref: 'opt-1' })
      expect(response.idempotencyKey).toBe('opt-1')
    })

    it('an idempotencyKey option different from the body ref is refused, nothing sent', async () => {
      const { server, ops } = await setup()
      await expectRefused(
        ops.call(rows.transfer, { body: { ref: 'tr-9', amount: 5 } }, { idempotencyKey: 'tr-10' }),
        server,
        ['idempotencyKey'],
      )
    })

    it('the same ref is sent on every attempt of a retryWithSameKey call', async () => {
      const { server, ops } = await setup(failFirst(1))
      const { response } = await ops
        .call(rows.transfer, { body: { amount: 5 } }, { retryWithSameKey: true })
        .withResponse()
      const refs = server.requests.map((r) => (JSON.parse(r.body) as { ref: string }).ref)
      expect(refs).toHaveLength(2)
      expect(refs[0]).toMatch(UUID)
      expect(refs[1]).toBe(refs[0])
      expect(response.idempotencyKey).toBe(refs[0])
    })

    it("does not touch the caller's body object", async () => {
      const { ops } = await setup()
      const body = { amount: 5 }
      await ops.call(rows.transfer, { body })
      expect(body).toEqual({ amount: 5 })
    })

    // Regression test for an engine defect found in review (operation.ts withBodyKey + #build): a body key that is not a string (here a number the
    // row's schema coerces to the string "42") yields `key: undefined`, so #build then generates a
    // fresh UUID: response.idempotencyKey and error.reconciliation name a key that was never sent,
    // and repeating the call "with { idempotencyKey: <uuid> }" would move the money a second time.
    // The key of a body-field row should be read from the checked params / final wire.
    it('the key reported is the ref that was sent, even when the schema coerces it', async () => {
      const coercing = defineOperation({
        name: 'transfers.coerced',
        method: 'POST',
        path: '/transfers',
        params: z.object({ ref: z.coerce.string().optional(), amount: z.number() }).strict(),
        retry: unsentOnly,
        idempotency: { bodyField: 'ref', generate: true },
      })
      const { server, ops } = await setup(faults.json(409, { title: 'duplicate ref' }))
      const error = (await rejection(ops.call(coercing, { body: { ref: 42, amount: 5 } }))) as ShopError
      expect(sentJson(server).ref).toBe('42')
      expect(error.idempotencyKey).toBe('42')
      expect(error.reconciliation?.value).toBe('42')
    })
  })
})

describe('retries of a call that may move money', () => {
  it('a call without a key has none on its response or its errors', async () => {
    const { server, ops } = await setup()
    const { response } = await ops.call(rows.getItem, { path: { id: '1' } }).withResponse()
    expect(response.idempotencyKey).toBeUndefined()
    server.behave(faults.json(409, {}))
    const error = (await rejection(ops.call(rows.order, { body: { sku: 's', quantity: 1 } }))) as ShopError
    expect(error).toMatchObject({ idempotencyKey: undefined, reconciliation: undefined })
    expect(server.requests.map((r) => r.headers['idempotency-key'])).toEqual([undefined, undefined])
  })

  it('an unsent-only row is never repeated after a 503', async () => {
    const { server, ops } = await setup(failFirst(1))
    const error = (await rejection(ops.call(rows.pay, { body: { amount: '1', currency: 'EUR' } }))) as ShopError
    expect(server.requests).toHaveLength(1)
    expect(error).toBeInstanceOf(ShopError)
    expect(error).toMatchObject({ status: 503, reason: 'server_error' })
  })

  it('an unsent-only row is never repeated after a connection reset', async () => {
    const { server, ops } = await setup(faults.resetBeforeAnswer())
    const error = await rejection(ops.call(rows.pay, { body: { amount: '1', currency: 'EUR' } }))
    expect(error).toBeInstanceOf(ConnectionError)
    expect(server.requests).toHaveLength(1)
  })

  it('retryWithSameKey: false keeps the row policy', async () => {
    const { server, ops } = await setup(failFirst(1))
    await rejection(ops.call(rows.pay, { body: { amount: '1', currency: 'EUR' } }, { retryWithSameKey: false }))
    expect(server.requests).toHaveLength(1)
  })

  it('retryWithSameKey: true retries an unsent-only row after a 503', async () => {
    const { server, ops } = await setup(failFirst(1))
    const { data, response } = await ops
      .call(rows.pay, { body: { amount: '1', currency: 'EUR' } }, { retryWithSameKey: true })
      .withResponse()
    expect(data).toEqual({ id: 'i-1', name: 'thing' })
    expect(response.attempts).toBe(2)
    expect(server.requests).toHaveLength(2)
  })

  it('retryWithSameKey: true retries after a connection reset, and the error says the outcome is unknown', async () => {
    const { server, ops } = await setup(faults.resetBeforeAnswer())
    const error = (await rejection(
      ops.call(rows.pay, { body: { amount: '1', currency: 'EUR' } }, { retryWithSameKey: true, maxRetries: 1 }),
    )) as ConnectionError
    expect(server.requests).toHaveLength(2)
    expect(error).toBeInstanceOf(ConnectionError)
    expect(error.outcomeUnknown).toBe(true)
    expect(error.idempotencyKey).toBe(server.requests[0]?.headers['idempotency-key'])
  })

  it('retryWithSameKey on request() with a key resends the same key', async () => {
    const { server, ops } = await setup(failFirst(1))
    await ops.request({ method: 'POST', path: '/raw', body: {} }, { idempotencyKey: 'raw-7', retryWithSameKey: true })
    expect(server.requests.map((r) => r.headers['idempotency-key'])).toEqual(['raw-7', 'raw-7'])
  })

  // Regression test for an engine defect found in review (operation.ts #build `retry: options.retryWithSameKey === true ? keyed : row.retry`, and
  // optionIssues' `keyed` flag = "the row declares idempotency"): on a keyed row that does not
  // generate a key, a call without a key still switches to `keyed`, so the money-moving request is
  // resent with NO key at all, which the service cannot deduplicate (docs: keyed = "every attempt
  // carries the same Idempotency-Key"). Fix: refuse retryWithSameKey when the call ends up without a
  // key (or keep the row policy), in #build and in #buildRaw.
  /** A money movement may be resent only when every attempt carries the key (a fix may refuse or not retry). */
  const resentWithoutKey = (requests: readonly RecordedRequest[], hasKey: (r: RecordedRequest) => boolean) =>
    requests.length > 1 && !requests.every(hasKey)
  const hasHeaderKey = (r: RecordedRequest) => r.headers['idempotency-key'] !== undefined
  const hasBodyRef = (r: RecordedRequest) => 'ref' in (JSON.parse(r.body) as object)

  it('retryWithSameKey never resends a header-key row that carries no key', async () => {
    const { server, ops } = await setup(failFirst(1))
    await ops.call(rows.charge, { body: { amount: '1' } }, { retryWithSameKey: true }).catch(() => undefined)
    expect(resentWithoutKey(server.requests, hasHeaderKey)).toBe(false)
  })

  it('retryWithSameKey never resends a body-key row that carries no key', async () => {
    const { server, ops } = await setup(failFirst(1))
    await ops.call(rows.transferNoGenerate, { body: { amount: 5 } }, { retryWithSameKey: true }).catch(() => undefined)
    expect(resentWithoutKey(server.requests, hasBodyRef)).toBe(false)
  })

  it('retryWithSameKey never resends a request() POST that carries no key', async () => {
    const { server, ops } = await setup(failFirst(1))
    await ops
      .request({ method: 'POST', path: '/raw', body: { amount: '1' } }, { retryWithSameKey: true })
      .catch(() => undefined)
    expect(resentWithoutKey(server.requests, hasHeaderKey)).toBe(false)
  })
})

describe('the wire a row builds', () => {
  it('finalize runs after toWire, sees the final wire, and what it adds is sent', async () => {
    finalizeSaw = undefined
    const { server, ops } = await setup(faults.json(409, { title: 'declined' }))
    const error = (await rejection(ops.call(signed, { body: { amount: '10.00', orderId: 'o/1' } }))) as ShopError
    expect(finalizeSaw).toEqual({ merchant: 'm-1', order_id: 'o/1', amount: '10.00' })
    const raw = server.requests[0]?.body ?? ''
    const body = JSON.parse(raw) as Record<string, unknown>
    expect(Object.keys(body)).toEqual(['merchant', 'order_id', 'amount', 'hash'])
    const { hash, ...rest } = body
    expect(hash).toBe(signature('sale.create', rest, 'shh'))
    expect(server.requests[0]?.headers['content-type']).toBe('application/json')
    // The reconciliation key is read from what was sent, hash included.
    expect(error.reconciliation).toEqual({ key: 'hash', value: hash, lookup: 'sale.status by hash' })
  })

  it('nothing is signed or sent when the body is refused', async () => {
    finalizeSaw = undefined
    const { server, ops } = await setup()
    await expectRefused(ops.call(signed, { body: { amount: 10, orderId: 'o-1' } }), server, ['amount'])
    expect(finalizeSaw).toBeUndefined()
  })

  it('form encoding sends application/x-www-form-urlencoded, fields in wire order', async () => {
    const { server, ops } = await setup()
    await ops.call(form, { body: { a: '1 & =', b: 'ü', c: 'last+first' } })
    expect(server.requests[0]?.headers['content-type']).toBe('application/x-www-form-urlencoded')
    expect(server.requests[0]?.body).toBe('c=last%2Bfirst&a=1+%26+%3D&b=%C3%BC')
    expect([...new URLSearchParams(server.requests[0]?.body).entries()]).toEqual([
      ['c', 'last+first'],
      ['a', '1 & ='],
      ['b', 'ü'],
    ])
  })
})

describe('answers read by problemAnswers', () => {
  it('an empty 2xx is undefined', async () => {
    const { ops } = await setup(faults.text(200, '', 'application/json'))
    expect(await ops.call(rows.search, {})).toBeUndefined()
    expect(await ops.request({ method: 'GET', path: '/x' })).toBeUndefined()
  })

  it('a 204 is undefined', async () => {
    const { ops } = await setup((_req, res) => {
      res.writeHead(204)
      res.end()
    })
    expect(await ops.call(rows.search, {})).toBeUndefined()
  })

  it.each([
    ['42', 42],
    [' 42 ', 42],
    ['true', true],
    ['null', null],
    ['-1.5e3', -1500],
    ['"text"', 'text'],
    ['[1,2]', [1, 2]],
  ])('a bare JSON %j is %j', async (text, value) => {
    const { ops } = await setup(faults.text(200, text, 'application/json'))
    expect(await ops.call(rows.search, {})).toEqual(value)
    expect(await ops.request({ method: 'GET', path: '/x' })).toEqual(value)
  })

  it.each([['<html>ok</html>'], ['OK'], ['{"cut":'], ['NaN']])(
    'a non-JSON 2xx %j is unreadable_response for a call, text for request()',
    async (text) => {
      const { ops } = await setup(faults.text(200, text, 'text/html'))
      const error = (await rejection(ops.call(rows.search, {}))) as ShopError
      expect(error).toBeInstanceOf(ShopError)
      expect(error).toBeInstanceOf(ProblemDetailsError)
      expect(error).toMatchObject({ reason: 'unreadable_response', status: 200, rawBody: text })
      expect(error.message).toContain('not JSON')
      expect(await ops.request({ method: 'GET', path: '/x' })).toBe(text)
    },
  )

  it('a schema mismatch is response_schema_mismatch with every issue', async () => {
    const { ops } = await setup(faults.json(200, { a: 1, b: 'x' }))
    const schema = z.object({ a: z.string(), b: z.number() })
    for (const promise of [
      ops.call(rows.getItem, { path: { id: '1' } }, { schema }),
      ops.request({ method: 'GET', path: '/x' }, { schema }),
    ]) {
      const error = (await rejection(promise)) as ShopError
      expect(error).toBeInstanceOf(ShopError)
      expect(error.reason).toBe('response_schema_mismatch')
      expect(error.status).toBe(200)
      expect(error.issues.map((issue) => issue.path)).toEqual(['a', 'b'])
    }
  })

  /** A Standard Schema written by hand, as valibot or arktype would hand one over: no zod involved. */
  function standardSchema<T>(
    vendor: string,
    check: (
      value: unknown,
    ) =>
      | { value: T }
      | { issues: { message: string; path?: (PropertyKey | { key: PropertyKey })[] }[] }
      | Promise<{ value: T } | { issues: { message: string }[] }>,
  ) {
    return { '~standard': { version: 1 as const, vendor, validate: check } }
  }

  it('any Standard Schema types and checks the answer, with path segments given as keys', async () => {
    const { ops } = await setup(faults.json(200, { items: [{ id: 7 }] }))
    const accepting = standardSchema('hand', (value) => ({ value: value as { items: { id: number }[] } }))
    const data = await ops.call(rows.getItem, { path: { id: '1' } }, { schema: accepting })
    expect(data.items[0]?.id).toBe(7)
    const refusing = standardSchema<never>('hand', () => ({
      issues: [{ message: 'must be a string', path: ['items', { key: 0 }, 'id'] }, { message: 'whole body' }],
    }))
    const error = (await rejection(ops.request({ method: 'GET', path: '/x' }, { schema: refusing }))) as ShopError
    expect(error.reason).toBe('response_schema_mismatch')
    expect(error.issues).toEqual([
      { path: 'items.0.id', message: 'must be a string' },
      { path: '', message: 'whole body' },
    ])
  })

  it('a Standard Schema that checks asynchronously is awaited; its refusal is response_schema_mismatch', async () => {
    const { ops } = await setup(faults.json(200, { a: 'x' }))
    const later = standardSchema('async', async (value) => ({ value: value as { a: string } }))
    expect(await ops.call(rows.getItem, { path: { id: '1' } }, { schema: later })).toEqual({ a: 'x' })
    const refusing = standardSchema<never>('async', async () => ({ issues: [{ message: 'no' }] }))
    const error = (await rejection(ops.call(rows.getItem, { path: { id: '1' } }, { schema: refusing }))) as ShopError
    expect(error).toBeInstanceOf(ShopError)
    expect(error.reason).toBe('response_schema_mismatch')
    expect(error.issues).toEqual([{ path: '', message: 'no' }])
  })

  it('a matching schema replaces the row decoder', async () => {
    const { ops } = await setup(faults.json(200, { a: 'x', extra: 1 }))
    // The row decoder would reject this answer (no id); the schema decides instead.
    expect(await ops.call(rows.getItem, { path: { id: '1' } }, { schema: z.object({ a: z.string() }) })).toEqual({
      a: 'x',
    })
  })

  it("a decoder's reject is unreadable_response with its message", async () => {
    const { ops } = await setup(faults.json(200, { name: 'no id' }))
    const error = (await rejection(ops.call(rows.getItem, { path: { id: '1' } }))) as ShopError
    expect(error).toBeInstanceOf(ShopError)
    expect(error.reason).toBe('unreadable_response')
    expect(error.message).toContain('the answer has no item id')
    expect(error.body).toEqual({ name: 'no id' })
  })

  it.each([
    [301, { location: '/elsewhere' }],
    [302, { location: '/elsewhere' }],
    [303, { location: '/elsewhere' }],
    [307, { location: '/elsewhere' }],
    [308, { location: '/elsewhere' }],
    [304, {}],
  ])('a %s is an error, never followed nor retried', async (status, headers) => {
    const { server, ops } = await setup((req, res) => {
      if (req.url === '/elsewhere') return OK(req, res, 0)
      res.writeHead(status, headers)
      res.end()
    })
    const error = (await rejection(ops.call(rows.lookup, { path: { id: '1' } }))) as ShopError
    expect(error).toBeInstanceOf(ShopError)
    expect(error).toMatchObject({ status, reason: 'unexpected_redirect' })
    const raw = await rejection(ops.request({ method: 'GET', path: '/x' }))
    expect(raw).toMatchObject({ status, reason: 'unexpected_redirect' })
    expect(server.requests.map((r) => r.url)).toEqual(['/payments/1', '/x'])
  })

  it('a 4xx ProblemDetails is the error class with status, reason and problem', async () => {
    const server = await startMockServer([
      http.get('*/items/:id', () =>
        HttpResponse.json(
          { type: 'https://shop/errors/nf', title: 'Not Found', status: 404, detail: 'no item 9', traceId: 't-1' },
          { status: 404, headers: { 'content-type': 'application/problem+json' } },
        ),
      ),
      http.post('*/orders', () =>
        HttpResponse.json({ title: 'invalid', status: 422, errors: { sku: ['unknown sku'] } }, { status: 422 }),
      ),
    ])
    onTestFinished(() => server.close())
    const httpClient = makeClient({ clock: createTestClock() })
    onTestFinished(() => httpClient.close())
    const ops = new OperationClient<Ctx>({
      http: httpClient,
      baseUrls: { default: server.url },
      context: { merchant: 'm', secret: 's' },
      journal: undefined,
      answers: problemAnswers(ShopError),
    })
    const notFound = (await rejection(ops.call(rows.getItem, { path: { id: '9' } }))) as ShopError
    expect(notFound).toBeInstanceOf(ShopError)
    expect(notFound).toBeInstanceOf(ApiError)
    expect(notFound).toMatchObject({ name: 'ShopError', status: 404, reason: 'not_found', isNotFound: true })
    expect(notFound.detail).toBe('no item 9')
    expect(notFound.traceId).toBe('t-1')
    expect(notFound.code).toBe('https://shop/errors/nf')
    const invalid = (await rejection(ops.call(rows.order, { body: { sku: 's', quantity: 1 } }))) as ShopError
    expect(invalid).toMatchObject({ status: 422, reason: 'unprocessable' })
    expect(invalid.fieldErrors).toEqual({ sku: ['unknown sku'] })
    expect(server.requests).toHaveLength(2)
  })

  it('a non-ProblemDetails 4xx (an HTML page) is still the error class, problem undefined', async () => {
    const { ops } = await setup(faults.text(401, '<html>denied</html>'))
    const error = (await rejection(ops.call(rows.getItem, { path: { id: '1' } }))) as ShopError
    expect(error).toBeInstanceOf(ShopError)
    expect(error).toMatchObject({ status: 401, reason: 'unauthorized', isAuthError: true, problem: undefined })
    expect(error.rawBody).toBe('<html>denied</html>')
  })
})

describe('types', () => {
  it('a schema types the result of call() and request()', async () => {
    const { ops } = await setup(faults.json(200, { a: 'x', id: 'i', name: 'n' }))
    const withSchema = ops.call(rows.getItem, { path: { id: '1' } }, { schema: z.object({ a: z.string() }) })
    expectTypeOf(withSchema).resolves.toEqualTypeOf<{ a: string }>()
    expect(await withSchema).toEqual({ a: 'x' })

    const raw = ops.request({ method: 'GET', path: '/x' }, { schema: z.object({ id: z.string() }) })
    expectTypeOf(raw).resolves.toEqualTypeOf<{ id: string }>()
    expect(await raw).toEqual({ id: 'i' })

    const rawPlain = ops.request({ method: 'GET', path: '/x' })
    expectTypeOf(rawPlain).resolves.toBeUnknown()
    await rawPlain
  })

  it('with the schema type argument pinned to undefined, the row decoder types the result', async () => {
    const { ops } = await setup(faults.json(200, { id: 'i', name: 'n' }))
    const pinned = ops.call<undefined, Item>(rows.getItem, { path: { id: '1' } })
    expectTypeOf(pinned).resolves.toEqualTypeOf<Item>()
    expect(await pinned).toEqual({ id: 'i', name: 'n' })
  })

  // Regression test for an engine defect found in review (operation.ts `call<S extends ResponseSchema | undefined, Result>` and `request<S ...>`): S
  // has no default, so when no `schema` is passed TypeScript falls back to the constraint
  // `ResponseSchema | undefined`; ResultOf distributes over it to `unknown | Item`, which is `unknown`.
  // A direct engine call without a schema loses the row's decoded type. Fix: `S extends ResponseSchema
  // | undefined = undefined` (as the service packages' wrappers declare). Each `@ts-expect-error`
  // marks a line that should type-check; once fixed, tsc reports the directive as unused.
  it('without a schema the row decoder types the result', async () => {
    const { ops } = await setup(faults.json(200, { id: 'i', name: 'n' }))
    const plain = ops.call(rows.getItem, { path: { id: '1' } })
    expectTypeOf(plain).resolves.toEqualTypeOf<Item>()
    expect(await plain).toEqual({ id: 'i', name: 'n' })

    const withOptions = ops.call(rows.getItem, { path: { id: '1' } }, { maxRetries: 0 })
    expectTypeOf(withOptions).resolves.toEqualTypeOf<Item>()
    await withOptions

    const inferredRow = defineOperation({
      name: 'items.inferred',
      method: 'GET',
      path: '/items/{id}',
      retry: safe,
      decode: item,
    })
    const inferred = ops.call(inferredRow, { path: { id: '1' } })
    expectTypeOf(inferred).resolves.toEqualTypeOf<Item>()
    await inferred
  })
})
