/**
 * `ServiceClient` on its own: the shell a service client extends (a small `Shop` client here, the
 * way docs build one on `@paywire/core/engine`), through the real undici transport against a
 * loopback server. What every client inherits from it: options refused in the client's name,
 * credentials read per call, the User-Agent, the raw escape hatch held to the client's base URL,
 * what `inspect` and JSON show, reconciliation refusing what another client or account made before
 * any lookup, and `close`.
 */

import { createServer, type IncomingMessage, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { inspect } from 'node:util'
import {
  type ClientOptions,
  type Intent,
  MemoryIntentStore,
  PaywireError,
  ProblemDetailsError,
  type Reconciled,
  type ReconcileOptions,
  RequestValidationError,
  Secret,
} from '@paywire/core'
import {
  accountFingerprint,
  defineOperation,
  type OperationClient,
  problemAnswers,
  reconcileRule,
  resource,
  ServiceClient,
  safe,
  unsentOnly,
} from '@paywire/core/engine'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { rejection } from './helpers.js'

class ShopError extends ProblemDetailsError {}

const ROWS = {
  get: defineOperation({ name: 'catalog.get', method: 'GET', path: '/api/catalog/{id}', retry: safe }),
  buy: defineOperation({
    name: 'orders.buy',
    method: 'POST',
    path: '/api/orders',
    params: z.strictObject({ orderId: z.string() }),
    retry: unsentOnly,
    reconcile: reconcileRule(['orderId'], ({ wire }) => {
      const orderId = wire?.['orderId']
      return typeof orderId === 'string'
        ? { key: 'orderId', value: orderId, lookup: `shop.catalog.get(${orderId})` }
        : undefined
    }),
  }),
}

class Catalog extends resource<unknown, typeof ROWS>(ROWS) {}

/** The smallest client: one resource, a key sent as a header and read per call, lookups that find nothing. */
class Shop extends ServiceClient {
  readonly catalog: Catalog
  readonly lookups: string[] = []
  readonly #baseUrl: string

  constructor(options: ClientOptions & { baseUrl: string; key: Secret }) {
    const { baseUrl, key, ...core } = options
    super({
      client: 'Shop',
      packageName: 'shop',
      packageVersion: '1.0.0',
      options: core,
      baseUrls: { default: baseUrl },
      context: undefined,
      authHeaders: () => ({ 'x-key': key.reveal() }),
      answers: problemAnswers(ShopError),
      endpoints: { catalog: ROWS },
      account: accountFingerprint('shop', [key]),
    })
    this.#baseUrl = baseUrl
    this.catalog = new Catalog(this.engine as OperationClient<unknown>)
  }

  async reconcile(subject: PaywireError | Intent, options?: ReconcileOptions): Promise<Reconciled> {
    const checked = await this.reconcileSubject(subject, options)
    this.lookups.push(checked.operation)
    return this.closeSettled(subject, { outcome: 'not_applied', operation: checked.operation } as Reconciled)
  }

  toJSON(): Record<string, unknown> {
    return { baseUrl: this.#baseUrl }
  }
}

interface Seen {
  readonly method: string | undefined
  readonly url: string | undefined
  readonly key: string | string[] | undefined
  readonly userAgent: string | undefined
}

let server: Server
let baseUrl: string
const seen: Seen[] = []

beforeAll(async () => {
  server = createServer((request: IncomingMessage, response) => {
    seen.push({
      method: request.method,
      url: request.url,
      key: request.headers['x-key'],
      userAgent: request.headers['user-agent'],
    })
    request.resume()
    response.writeHead(200, { 'content-type': 'application/json' }).end('{"id":"P1"}')
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/shop`
})

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

beforeEach(() => {
  seen.length = 0
})

describe('ServiceClient', () => {
  it("refuses a bad core option in the client's name, before anything is built", () => {
    let thrown: unknown
    try {
      new Shop({ baseUrl, key: new Secret('k-1'), timeout: -5 } as never)
    } catch (error) {
      thrown = error
    }
    expect(thrown).toBeInstanceOf(RequestValidationError)
    const refusal = thrown as RequestValidationError
    expect(refusal.operation).toBe('Shop')
    expect(refusal.stage).toBe('options')
    expect(refusal.issues.map((issue) => issue.path)).toEqual(['timeout'])
  })

  it("sends its User-Agent and its own account's credential header on every call", async () => {
    const shop = new Shop({ baseUrl, key: new Secret('k-1') })
    try {
      expect(shop.userAgent).toMatch(/^paywire-shop\/1\.0\.0 /)
      await shop.catalog.get('P1')
      const rotated = new Shop({ baseUrl, key: new Secret('k-2') })
      await rotated.catalog.get('P1')
      await rotated.close()
      expect(seen.map((s) => [s.method, s.url, s.key])).toEqual([
        ['GET', '/shop/api/catalog/P1', 'k-1'],
        ['GET', '/shop/api/catalog/P1', 'k-2'],
      ])
      expect(seen[0]?.userAgent).toBe(shop.userAgent)
    } finally {
      await shop.close()
    }
  })

  it('holds the raw escape hatch below its base URL: another host or a dot segment is refused, nothing sent', async () => {
    const shop = new Shop({ baseUrl, key: new Secret('k-1') })
    try {
      expect(await shop.request({ method: 'GET', path: '/api/catalog/P2' })).toEqual({ id: 'P1' })
      // Each would reach another path of the host (another environment's, under a path base URL).
      const outside = [
        'https://evil.example/api',
        '//evil.example/api',
        '/../admin',
        '/%2e%2e/admin',
        '/api/../../admin',
        '/api\\..\\..\\admin',
        '/.%2E/admin',
        '/.\t./admin',
        '/./api',
      ]
      for (const path of outside) {
        const error = await rejection(shop.request({ method: 'GET', path }))
        expect(error, `${path} -> ${(error as Error).message}`).toBeInstanceOf(RequestValidationError)
      }
      expect(seen.map((s) => s.url)).toEqual(['/shop/api/catalog/P2'])
    } finally {
      await shop.close()
    }
  })

  it('shows its class name and toJSON() in inspect and JSON, never the credential', async () => {
    const shop = new Shop({ baseUrl, key: new Secret('sk_live_do_not_show') })
    try {
      expect(inspect(shop, { depth: 10, showHidden: true })).toBe(`Shop ${inspect({ baseUrl })}`)
      expect(JSON.stringify(shop)).toBe(JSON.stringify({ baseUrl }))
      expect(`${inspect(shop)}${JSON.stringify(shop)}`).not.toContain('sk_live')
    } finally {
      await shop.close()
    }
  })

  it("reconciles only what it made: another client's error and another account's intent are refused before any lookup", async () => {
    const journal = new MemoryIntentStore()
    const shop = new Shop({ baseUrl, key: new Secret('k-1'), journal })
    const other = new Shop({ baseUrl, key: new Secret('k-other'), journal })
    try {
      // An error no call of this client raised (another client's, or made by hand).
      const foreign = new PaywireError('lost', {
        outcomeUnknown: true,
        reconciliation: { key: 'orderId', value: 'O-9', lookup: 'shop.catalog.get(O-9)' },
      })
      const refused = await rejection(shop.reconcile(foreign))
      expect(refused).toBeInstanceOf(RequestValidationError)
      // An intent the other account wrote: this client lists and settles none of it.
      await journal.open({
        id: 'i-1',
        service: 'shop',
        operation: 'orders.buy',
        params: { orderId: 'O-1' },
        reconciliation: { key: 'orderId', value: 'O-1', lookup: 'shop.catalog.get(O-1)' },
        idempotencyKey: undefined,
        createdAt: Date.now() - 60_000,
        target: baseUrl,
        account: accountFingerprint('shop', [new Secret('k-other')]),
      })
      expect(await shop.pendingIntents()).toEqual([])
      expect(await shop.reconcileAll()).toEqual([])
      expect(shop.lookups).toEqual([])
      // Its own account lists it, settles it, and the intent is closed.
      expect((await other.pendingIntents()).map((intent) => intent.id)).toEqual(['i-1'])
      expect((await other.reconcileAll()).map((settled) => settled.intent.id)).toEqual(['i-1'])
      expect(other.lookups).toEqual(['orders.buy'])
      expect(await other.pendingIntents()).toEqual([])
      expect(seen).toEqual([])
    } finally {
      await shop.close()
      await other.close()
    }
  })

  it('closes once and again without error', async () => {
    const shop = new Shop({ baseUrl, key: new Secret('k-1') })
    await shop.catalog.get('P1')
    await shop.close()
    await expect(shop.close()).resolves.toBeUndefined()
  })
})
