/**
 * Intents and errors bound to the merchant account and base URL that wrote them, from the attacker's
 * side: two merchant accounts on one gateway host (or sandbox and live under two paths of one host)
 * share a journal. The gateway answers each account about its own orders only, so account B's lookup
 * of account A's RECURRING_SALE is told "Order does not exist." — which once closed A's booked charge
 * as `not_applied` (the docs say that means "call it again": a second charge).
 */

import { once } from 'node:events'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { type Intent, MemoryIntentStore } from '@paywire/core'
import { afterEach, describe, expect, it } from 'vitest'
import { CardGateway, type CardGatewayOptions, type PaywireError, RequestValidationError } from '../src/index.js'

const closers: (() => Promise<unknown>)[] = []
afterEach(async () => {
  for (const close of closers.splice(0)) await close()
})

async function body(req: IncomingMessage): Promise<URLSearchParams> {
  const chunks: Buffer[] = []
  for await (const chunk of req) chunks.push(chunk as Buffer)
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'))
}

/**
 * A gateway on loopback with two paths (`/sandbox`, `/live`). It books RECURRING_SALE under the
 * client key that sent it and never answers it (the answer is lost); a GET_TRANS_STATUS_BY_ORDER is
 * answered from the asking key's own orders only. Signatures are not checked: the point is which
 * account asks.
 */
async function gateway() {
  const booked = new Map<string, Set<string>>() // client_key → order_ids
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    void body(req).then((form) => {
      const key = form.get('client_key') ?? ''
      const order = form.get('order_id') ?? ''
      const json = (status: number, value: unknown) =>
        res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value))
      if (form.get('action') === 'RECURRING_SALE') {
        const orders = booked.get(key) ?? new Set<string>()
        orders.add(order)
        booked.set(key, orders)
        return // booked, and the answer is lost: the client times out, outcome unknown
      }
      if (form.get('action') === 'GET_TRANS_STATUS_BY_ORDER') {
        if (booked.get(key)?.has(order)) {
          return json(200, {
            action: 'GET_TRANS_STATUS_BY_ORDER',
            result: 'SUCCESS',
            status: 'SETTLED',
            order_id: order,
            trans_id: `t-${order}`,
            amount: '5.00',
            currency: 'USD',
          })
        }
        return json(400, { result: 'ERROR', error_code: 101000, error_message: 'Order does not exist.' })
      }
      json(404, { result: 'ERROR', error_code: 0, error_message: 'Route or parameters is not supported' })
    })
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  closers.push(async () => {
    server.closeAllConnections()
    await new Promise((resolve) => server.close(resolve))
  })
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, booked }
}

function client(
  url: string,
  path: string,
  keys: { merchantKey: string; clientKey: string },
  journal: MemoryIntentStore,
  more: Partial<CardGatewayOptions> = {},
) {
  const gw = new CardGateway({
    checkoutUrl: `${url}${path}`,
    s2sUrl: `${url}${path}`,
    ...keys,
    password: 'pw',
    journal,
    timeout: 300,
    maxRetries: 0,
    ...more,
  })
  closers.push(() => gw.close())
  return gw
}

const SALE = {
  order_amount: '5.00',
  order_description: 'Monthly',
  recurring_first_trans_id: 'first-1',
  recurring_token: 'token-1',
}
const A = { merchantKey: 'merchant-a', clientKey: 'client-a' }
const B = { merchantKey: 'merchant-b', clientKey: 'client-b' }

/** A RECURRING_SALE by `gw` whose answer is lost: booked at the gateway, its intent left open. */
async function lostSale(gw: CardGateway, order: string): Promise<PaywireError> {
  const error = (await gw.s2s.recurringSale({ ...SALE, order_id: order }).catch((e: unknown) => e)) as PaywireError
  expect(error.outcomeUnknown).toBe(true)
  return error
}

describe('two merchant accounts on one gateway host, one journal', () => {
  it("account B's reconcileAll() leaves account A's open intent alone; A's settles it applied, with no second charge", async () => {
    const gateway_ = await gateway()
    const journal = new MemoryIntentStore()
    const a = client(gateway_.url, '', A, journal)
    const b = client(gateway_.url, '', B, journal)
    await lostSale(a, 'sub-a-1')
    expect(await b.pendingIntents()).toEqual([])
    expect(await b.reconcileAll({ settleAfterMs: 1 })).toEqual([])
    expect(await journal.openIntents('card-gateway')).toHaveLength(1) // still open: never closed as not_applied
    const [settled] = await a.reconcileAll({ settleAfterMs: 1 })
    expect(settled?.result.outcome).toBe('applied')
    expect(settled?.closed).toBe(true)
    expect(gateway_.booked.get('client-a')?.size).toBe(1)
  })

  it("account B refuses to reconcile account A's error or intent by name, before any lookup", async () => {
    const gateway_ = await gateway()
    const journal = new MemoryIntentStore()
    const a = client(gateway_.url, '', A, journal)
    const b = client(gateway_.url, '', B, journal)
    const error = await lostSale(a, 'sub-a-2')
    const [intent] = await journal.openIntents('card-gateway')
    for (const subject of [error, intent as Intent]) {
      const refused = await b.reconcile(subject, { settleAfterMs: 1 }).catch((e: unknown) => e)
      expect(refused).toBeInstanceOf(RequestValidationError)
      expect(String((refused as Error).message)).toMatch(
        /was written by another merchant account \(keys fingerprint [0-9a-f]{16}; this client's is [0-9a-f]{16}\)/,
      )
    }
    expect(intent?.account).toMatch(/^[0-9a-f]{16}$/)
    expect(JSON.stringify(intent)).not.toMatch(/merchant-a|client-a/)
  })

  it('sandbox and live under two paths of one host: each reconciles only what it sent below its own base URL', async () => {
    const gateway_ = await gateway()
    const journal = new MemoryIntentStore()
    const sandbox = client(gateway_.url, '/sandbox', A, journal)
    const live = client(gateway_.url, '/live', A, journal)
    const error = await lostSale(sandbox, 'sub-s-1')
    const [intent] = await journal.openIntents('card-gateway')
    expect(intent?.target).toBe(`${gateway_.url}/sandbox`)
    const refused = await live.reconcile(error).catch((e: unknown) => e)
    expect(String((refused as Error).message)).toMatch(/not below this client's .*\/live/)
    const results = await live.reconcileAll({ settleAfterMs: 1 })
    expect(results.map((r) => r.result.outcome)).toEqual(['still_unknown'])
    expect(results[0]?.closed).toBe(false)
  })
})

describe('intents written before intents recorded their account (unbound)', () => {
  /** An intent as the former version wrote it: no account, an origin as its target. */
  function unbound(url: string, order: string): Intent {
    return {
      id: `old-${order}`,
      service: 'card-gateway',
      operation: 's2s.recurringSale',
      params: { ...SALE, order_id: order },
      reconciliation: {
        key: 'order_id',
        value: order,
        lookup: `gw.s2s.getTransStatusByOrder({ order_id: "${order}" })`,
      },
      idempotencyKey: undefined,
      createdAt: Date.now() - 60 * 60 * 1000,
      callLimitMs: 1_000,
      target: url,
    }
  }

  it('a lookup that finds it still settles it applied; one that finds nothing leaves it still_unknown, unless the caller adopts unbound intents', async () => {
    const gateway_ = await gateway()
    const journal = new MemoryIntentStore()
    const b = client(gateway_.url, '', B, journal)
    gateway_.booked.set('client-b', new Set(['old-booked']))
    await journal.open(unbound(gateway_.url, 'old-booked'))
    await journal.open(unbound(gateway_.url, 'old-missing'))
    const results = await b.reconcileAll()
    expect(results.map((r) => [r.intent.id, r.result.outcome, r.closed])).toEqual([
      ['old-old-booked', 'applied', true],
      ['old-old-missing', 'still_unknown', false],
    ])
    expect(results[1]?.result.next).toMatch(/adoptUnboundIntents: true/)
    const adopted = await b.reconcileAll({ adoptUnboundIntents: true })
    expect(adopted.map((r) => [r.intent.id, r.result.outcome, r.closed])).toEqual([
      ['old-old-missing', 'not_applied', true],
    ])
  })
})
