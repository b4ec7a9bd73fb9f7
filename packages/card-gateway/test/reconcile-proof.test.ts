/**
 * What a card lookup must show before reconcile says `applied`, from the attacker's side: a loopback
 * gateway of our own loses the money call's answer (500, outcome unknown), then answers the lookup
 * with an empty, null, non-JSON, foreign or status-less record. Only a readable record that names the
 * very transaction or order, with a status, proves the call acted; anything else is `still_unknown`
 * with the reason (issue 26: a lookup answered `{}` used to count as applied, closing the intent).
 */

import type { PaywireError } from '@paywire/core'
import { type FaultServer, startFaultServer } from '@paywire/core/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CardGateway } from '../src/index.js'
import { rejection } from './helpers.js'

interface Answer {
  readonly status: number
  readonly body: string
}

const json = (value: unknown): Answer => ({ status: 200, body: JSON.stringify(value) })

/** The S2S action of a request, or its path for Checkout. */
const nameOf = (request: { url: string; body: string }) =>
  new URLSearchParams(request.body).get('action') ?? request.url
const isLookup = (name: string) => name.startsWith('GET_TRANS_STATUS') || name === '/api/v1/payment/status'

/** The next answers of the fake gateway: to the money call, then to the lookup. */
let script: { call: Answer; lookup: Answer } = { call: json({}), lookup: json({}) }
let server: FaultServer
let gw: CardGateway

beforeAll(async () => {
  server = await startFaultServer((_req, res, n) => {
    const answer = isLookup(nameOf(server.requests[n - 1] as { url: string; body: string }))
      ? script.lookup
      : script.call
    res.writeHead(answer.status, { 'content-type': 'application/json' }).end(answer.body)
  })
  gw = new CardGateway({
    checkoutUrl: server.url,
    s2sUrl: server.url,
    merchantKey: 'merchant-key',
    clientKey: 'client-key',
    password: 'password',
    maxRetries: 0,
  })
})

afterAll(async () => {
  await gw.close()
  await server.close()
})

const LOST = { status: 500, body: JSON.stringify({ result: 'ERROR', error_code: 0, error_message: 'busy' }) }

/** Runs `call` against a lost answer, then reconciles it against `lookup`. */
async function reconcileAgainst(call: () => Promise<unknown>, lookup: Answer) {
  script = { call: LOST, lookup }
  const error = (await rejection(call())) as PaywireError
  expect(error.outcomeUnknown).toBe(true)
  const from = server.requests.length
  const result = await gw.reconcile(error, { settleAfterMs: 0 })
  return { result, sent: server.requests.slice(from).map(nameOf) }
}

const capture = () => gw.s2s.capture({ trans_id: 'tx-1' })
const purchase = () =>
  gw.checkout.purchase({
    order: { number: 'order-1', amount: '10.00', currency: 'USD', description: 'A mug' },
    success_url: 'https://shop.example/ok',
    cancel_url: 'https://shop.example/cancel',
  })
const credit = () =>
  gw.checkout.credit({
    order_id: 'refund-1',
    order_amount: '5.00',
    order_currency: 'USD',
    order_description: 'Refund',
    card_token: 'tok_1',
    name: 'Ada Lovelace',
  })
const recurringSale = () =>
  gw.s2s.recurringSale({
    order_id: 'rs-1',
    order_amount: '5.00',
    order_description: 'Monthly',
    recurring_first_trans_id: 'tx-0',
    recurring_token: 'rtok',
  })

type Row = readonly [string, () => Promise<unknown>, Answer, RegExp]

const UNPROVEN: readonly Row[] = [
  ['capture, lookup {}', capture, json({}), /no status|does not name/],
  ['capture, lookup null', capture, { status: 200, body: 'null' }, /cannot be read|no record/],
  ['capture, lookup []', capture, json([]), /cannot be read|no record/],
  ['capture, lookup not JSON', capture, { status: 200, body: '<html>ok</html>' }, /cannot be read/],
  ['capture, lookup empty body', capture, { status: 200, body: '' }, /cannot be read|no record/],
  [
    'capture, another transaction',
    capture,
    json({ status: 'SETTLED', trans_id: 'tx-2' }),
    /does not name trans_id tx-1/,
  ],
  ['capture, record without trans_id', capture, json({ status: 'SETTLED' }), /does not name trans_id tx-1/],
  ['purchase, lookup {}', purchase, json({}), /no status|does not name/],
  [
    'purchase, another order',
    purchase,
    json({ status: 'settled', order: { number: 'order-2' } }),
    /does not name order_id order-1/,
  ],
  ['purchase, record without order', purchase, json({ status: 'settled' }), /does not name order_id order-1/],
  ['purchase, record without status', purchase, json({ order: { number: 'order-1' } }), /no status/],
  [
    'credit, a purchase under its order_id',
    credit,
    json({ status: 'settled', order: { number: 'refund-1' } }),
    /not a credit/,
  ],
  ['credit, lookup {}', credit, json({}), /no status|does not name/],
  [
    'recurring sale, another order',
    recurringSale,
    json({ status: 'SETTLED', order_id: 'rs-2' }),
    /does not name order_id rs-1/,
  ],
  ['recurring sale, lookup {}', recurringSale, json({}), /no status|does not name/],
  ['recurring sale, lookup not JSON', recurringSale, { status: 200, body: 'OK' }, /cannot be read/],
]

describe('card reconcile: applied only on a record of the very call (issue 26, item 3 for card)', () => {
  it.each(UNPROVEN)('%s → still_unknown with the reason, never applied', async (_name, call, lookup, why) => {
    const { result, sent } = await reconcileAgainst(call, lookup)
    expect(result.outcome).toBe('still_unknown')
    expect(result.evidence).toMatch(why)
    expect(result.next).toBeTruthy()
    // Lookups only: the money call is never sent again.
    expect(sent.length).toBeGreaterThan(0)
    expect(sent.every(isLookup)).toBe(true)
  })

  it('a record that names the call, with a status, is applied', async () => {
    expect((await reconcileAgainst(capture, json({ status: 'SETTLED', trans_id: 'tx-1' }))).result.outcome).toBe(
      'applied',
    )
    expect(
      (await reconcileAgainst(credit, json({ status: 'refund', order: { number: 'refund-1' } }))).result.outcome,
    ).toBe('applied')
    expect((await reconcileAgainst(recurringSale, json({ status: 'SETTLED', order_id: 'rs-1' }))).result.outcome).toBe(
      'applied',
    )
  })

  it('issue 26 item 10: an applied purchase says how to get the lost redirect_url back', async () => {
    const { result } = await reconcileAgainst(purchase, json({ status: 'prepare', order: { number: 'order-1' } }))
    expect(result.outcome).toBe('applied')
    expect(result.next).toMatch(/redirect_url/)
    expect(result.next).toMatch(/identical.*15 s/s)
  })
})
