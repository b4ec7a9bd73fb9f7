/**
 * The simulator is strict by default: raw requests (the SDK refuses these before sending) that a
 * loose simulator would accept and the live gateway refuses. And `failNext` by action and operation.
 */

import { request } from 'undici'
import { describe, expect, it } from 'vitest'
import { SIMULATOR_CREDENTIALS, simulatorHash, startCardGatewaySimulator, TEST_CARDS } from '../src/testing/index.js'
import { orderId, paidPayment, secondClient, setup } from './helpers.js'

const { merchantKey, clientKey, password } = SIMULATOR_CREDENTIALS

async function started(options: { lenient?: boolean } = {}) {
  const sim = await startCardGatewaySimulator(options)
  return sim
}

/** A correctly signed purchase with `order.amount` and redirect targets as given. */
function purchase(amount: unknown, overrides: Record<string, unknown> = {}) {
  const number = orderId('strict')
  const order = { number, amount, currency: 'EUR', description: 'Strict order' }
  return {
    merchant_key: merchantKey,
    operation: 'purchase',
    order,
    success_url: 'https://shop.example/ok',
    cancel_url: 'https://shop.example/cancel',
    ...overrides,
    hash: simulatorHash([number, String(amount), 'EUR', 'Strict order'], password),
  }
}

async function postJson(url: string, path: string, body: unknown) {
  const answer = await request(`${url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
  return { status: answer.statusCode, body: (await answer.body.json()) as Record<string, unknown> }
}

async function postForm(url: string, fields: Record<string, string>) {
  const answer = await request(`${url}/post`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields).toString(),
  })
  return { status: answer.statusCode, body: (await answer.body.json()) as Record<string, unknown> }
}

function invalid(field: string) {
  return {
    result: 'ERROR',
    error_code: 100000,
    error_message: 'Request data is invalid.',
    errors: [expect.objectContaining({ error_code: 100000, error_message: expect.stringMatching(`^${field}: `) })],
  }
}

describe('simulator: strict by default (what the live gateway refuses)', () => {
  it.each([
    ['an amount as a JSON number', 10, {}, 'order.amount'],
    ['"10.0" EUR (one decimal)', '10.0', {}, 'order.amount'],
    ['an http:// success_url on a public host', '10.00', { success_url: 'http://shop.example/ok' }, 'success_url'],
    ['a cancel_url on a private address', '10.00', { cancel_url: 'https://192.168.1.4/cancel' }, 'cancel_url'],
  ])(
    'a session with %s is refused with 400 / 100000 naming the field, and no session is made',
    async (_name, amount, overrides, field) => {
      const sim = await started()
      try {
        const answer = await postJson(sim.url, '/api/v1/session', purchase(amount, overrides))
        expect(answer.status).toBe(400)
        expect(answer.body).toEqual(invalid(field))
        // It answers as the gateway does, to clients in any language: no SDK helper is named.
        expect(JSON.stringify(answer.body)).not.toMatch(/formatAmount|paywire/i)
        expect(sim.simulator.ledger).toEqual([])
      } finally {
        await sim.close()
      }
    },
  )

  it('loopback return URLs are accepted (the local purchase loop; before: http://localhost refused), every other non-https one refused', async () => {
    const sim = await started()
    try {
      for (const url of [
        'http://localhost:3000/paid',
        'http://127.0.0.1:8080/paid?order=A-1',
        'http://[::1]:3000/paid',
        'http://shop.localhost/paid',
      ]) {
        const answer = await postJson(sim.url, '/api/v1/session', purchase('10.00', { success_url: url }))
        expect([url, answer.status]).toEqual([url, 200])
      }
      for (const url of [
        'http://shop.example/paid',
        'http://192.168.1.4/paid',
        'http://localhost.shop.example/paid',
        'http://127.0.0.1.nip.io/paid',
        'ftp://localhost/paid',
      ]) {
        const answer = await postJson(sim.url, '/api/v1/session', purchase('10.00', { cancel_url: url }))
        expect([url, answer.status, answer.body]).toEqual([url, 400, invalid('cancel_url')])
      }
    } finally {
      await sim.close()
    }
  })

  it('a credit with a number amount or "5.5" EUR is refused naming order_amount', async () => {
    const sim = await started()
    try {
      for (const amount of [5.5, '5.5']) {
        const id = orderId('credit')
        const body = {
          merchant_key: merchantKey,
          operation: 'credit',
          order_id: id,
          order_amount: amount,
          order_currency: 'EUR',
          order_description: 'Refund',
          card_token: 'tok',
          hash: simulatorHash([id, String(amount), 'EUR', 'Refund'], password),
        }
        const answer = await postJson(sim.url, '/api/v1/payment/card/credit', body)
        expect(answer.status).toBe(400)
        expect(answer.body).toMatchObject({ error_code: 100000, error_message: 'Request data is invalid.' })
        expect(JSON.stringify(answer.body['errors'])).toContain('order_amount: ')
      }
    } finally {
      await sim.close()
    }
  })

  it('an S2S term_url_3ds that is not https is refused naming it', async () => {
    const sim = await started()
    try {
      const transId = '00000000-0000-4000-8000-000000000001'
      const answer = await postForm(sim.url, {
        action: 'GET_TRANS_STATUS',
        client_key: clientKey,
        trans_id: transId,
        term_url_3ds: 'http://shop.example:3000/3ds',
        hash: simulatorHash([transId], password),
      })
      expect(answer.status).toBe(400)
      expect(answer.body).toEqual(invalid('term_url_3ds'))
    } finally {
      await sim.close()
    }
  })

  it('per-currency forms the SDK can send are accepted ("10.500" KWD, "100" ISK)', async () => {
    const sim = await started()
    try {
      for (const [amount, currency] of [
        ['10.500', 'KWD'],
        ['100', 'ISK'],
        ['10.00', 'KWD'],
      ] as const) {
        const body = {
          ...purchase(amount),
          order: { number: orderId(), amount, currency, description: 'Strict order' },
        }
        body.hash = simulatorHash([body.order.number, amount, currency, 'Strict order'], password)
        expect((await postJson(sim.url, '/api/v1/session', body)).status).toBe(200)
      }
    } finally {
      await sim.close()
    }
  })

  it('a session on its route in other letter case answers a hosted page beside the API', async () => {
    const sim = await started()
    try {
      const answer = await postJson(sim.url, '/API/V1/Session', purchase('10.00'))
      expect(answer.status).toBe(200)
      expect(String(answer.body['redirect_url'])).toMatch(new RegExp(`^${sim.url}/checkout/[0-9a-f-]+$`))
    } finally {
      await sim.close()
    }
  })

  it('a credit of "1.500" KWD is refused as the credit endpoint refuses it (two decimals in every currency); "1.50" KWD refunds', async () => {
    const ctx = await setup({ client: { platformDefaults: { amountForm: 'per-currency' } } })
    const number = orderId('kwd')
    await ctx.gw.checkout.purchase({
      order: { number, amount: '10.500', currency: 'KWD', description: 'Kuwaiti order' },
      success_url: 'https://shop.example/ok',
      cancel_url: 'https://shop.example/cancel',
    })
    const paid = ctx.simulator.pay(number, { card: TEST_CARDS.number, expiry: TEST_CARDS.success, capture: true })
    const token = String(ctx.simulator.payment(paid.trans_id)?.card_token)
    const credit = (order_amount: string) => ({
      order_id: orderId('kwd-credit'),
      order_amount,
      order_currency: 'KWD',
      order_description: 'Part refund',
      card_token: token,
      name: 'A Payer',
    })
    // The SDK: the per-currency opt-in of purchases does not reach credit; nothing is sent.
    const before = ctx.server.requests.length
    const refused = await ctx.gw.checkout.credit(credit('1.500')).catch((e: unknown) => e)
    expect(refused).toMatchObject({
      name: 'RequestValidationError',
      issues: [expect.objectContaining({ path: 'order_amount' })],
    })
    expect(ctx.server.requests.length).toBe(before)
    // The strict simulator, sent the body around the SDK: refused as the gateway refuses it, nothing refunded.
    const id = orderId('kwd-raw')
    const answer = await postJson(ctx.url, '/api/v1/payment/card/credit', {
      merchant_key: merchantKey,
      operation: 'credit',
      order_id: id,
      order_amount: '1.500',
      order_currency: 'KWD',
      order_description: 'Part refund',
      card_token: token,
      hash: simulatorHash([id, '1.500', 'KWD', 'Part refund'], password),
    })
    expect(answer.body).toMatchObject(invalid('order_amount'))
    expect(ctx.simulator.payment(paid.trans_id)).toMatchObject({ status: 'settled' })
    expect(ctx.simulator.payment(paid.trans_id)?.refundedAmount).toBeUndefined()
    await ctx.gw.checkout.credit(credit('1.50'))
    expect(ctx.simulator.payment(paid.trans_id)).toMatchObject({ status: 'settled', refundedAmount: '1.500' })
  })

  it('lenient: true accepts a credit amount with one decimal ("5.5" EUR), as it does a session\'s', async () => {
    const sim = await started({ lenient: true })
    try {
      const id = orderId('credit')
      const body = {
        merchant_key: merchantKey,
        operation: 'credit',
        order_id: id,
        order_amount: '5.5',
        order_currency: 'EUR',
        order_description: 'Refund',
        card_token: 'tok',
        hash: simulatorHash([id, '5.5', 'EUR', 'Refund'], password),
      }
      const answer = await postJson(sim.url, '/api/v1/payment/card/credit', body)
      // Past the amount check: the (unknown) card token is what is refused.
      expect(answer.body).toMatchObject({ error_code: 205005 })
    } finally {
      await sim.close()
    }
  })

  it.each([
    ['CAPTURE', '5.000', false],
    ['CAPTURE', '5', false],
    ['CREDITVOID', '1.000', true],
    ['CREDITVOID', '1', true],
  ])(
    'an S2S %s of %s on a USD payment (not its form) is refused naming amount; nothing moves',
    async (action, amount, captured) => {
      const ctx = await setup()
      const p = await paidPayment(ctx, { capture: captured })
      const before = ctx.simulator.ledger.length
      const answer = await postForm(ctx.url, {
        action,
        client_key: clientKey,
        trans_id: p.trans_id,
        amount,
        hash: simulatorHash([p.trans_id], password),
      })
      expect(answer.status).toBe(400)
      expect(answer.body).toEqual(invalid('amount'))
      expect(ctx.simulator.ledger).toHaveLength(before)
      expect(ctx.simulator.payment(p.trans_id)).toMatchObject({ capturedAmount: captured ? '10.00' : undefined })
      expect(ctx.simulator.payment(p.trans_id)?.refundedAmount).toBeUndefined()
    },
  )

  it('lenient: true accepts the looser inputs', async () => {
    const sim = await started({ lenient: true })
    try {
      for (const [amount, overrides] of [
        [10, {}],
        ['10.0', {}],
        ['10.00', { success_url: 'http://shop.example/ok' }],
      ] as const) {
        expect((await postJson(sim.url, '/api/v1/session', purchase(amount, overrides))).status).toBe(200)
      }
      expect(sim.simulator.ledger.filter((e) => e.kind === 'session')).toHaveLength(3)
    } finally {
      await sim.close()
    }
  })
})

describe('simulator: failNext by action and operation', () => {
  it('a CAPTURE fault leaves GET_TRANS_STATUS on the same path untouched', async () => {
    const ctx = await setup()
    const p = await paidPayment(ctx)
    ctx.simulator.failNext({ action: 'CAPTURE' })
    expect((await ctx.gw.s2s.getTransStatus({ trans_id: p.trans_id })).status).toBe('PENDING')
    // The fault's 500 came on the lookup's kept-alive connection: not believed, and the payment still
    // PENDING proves nothing yet, so the capture's outcome is unknown (docs/reliability.md).
    await expect(ctx.gw.s2s.capture({ trans_id: p.trans_id })).rejects.toMatchObject({
      message: expect.stringMatching(/the 500 answer on a kept-alive connection is not believed/),
      outcomeUnknown: true,
    })
    expect(ctx.simulator.ledger.filter((e) => e.kind === 'capture')).toEqual([])
    // On a connection of its own the fault's own answer is read.
    ctx.simulator.failNext({ action: 'CAPTURE' })
    await expect(secondClient(ctx).s2s.capture({ trans_id: p.trans_id })).rejects.toThrow(/told to answer 500/)
  })

  it("operation 's2s.capture' (the SDK's own name) does the same", async () => {
    const ctx = await setup()
    const p = await paidPayment(ctx)
    ctx.simulator.failNext({ operation: 's2s.capture', status: 503 })
    expect((await ctx.gw.s2s.getTransStatus({ trans_id: p.trans_id })).status).toBe('PENDING')
    await expect(secondClient(ctx).s2s.capture({ trans_id: p.trans_id })).rejects.toThrow(/told to answer 503/)
  })

  it("when: 'after' with an action captures, then loses the answer", async () => {
    const ctx = await setup()
    const p = await paidPayment(ctx)
    ctx.simulator.failNext({ action: 'CAPTURE', when: 'after' })
    const raw = await postForm(ctx.url, {
      action: 'CAPTURE',
      client_key: clientKey,
      trans_id: p.trans_id,
      hash: simulatorHash([p.trans_id], password),
    })
    expect(raw.status).toBe(500)
    expect(ctx.simulator.payment(p.trans_id)?.status).toBe('settled')
  })

  it('a form that carries action twice is matched by the action it is acted on as (the last)', async () => {
    const ctx = await setup()
    const p = await paidPayment(ctx)
    ctx.simulator.failNext({ action: 'CAPTURE' })
    const hash = simulatorHash([p.trans_id], password)
    const body = new URLSearchParams([
      ['action', 'GET_TRANS_STATUS'],
      ['client_key', clientKey],
      ['trans_id', p.trans_id],
      ['hash', hash],
      ['action', 'CAPTURE'],
    ])
    const answer = await request(`${ctx.url}/post`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: body.toString(),
    })
    await answer.body.dump()
    expect(answer.statusCode).toBe(500)
    expect(ctx.simulator.ledger.filter((e) => e.kind === 'capture')).toEqual([])
  })

  it('a fault by operation is taken by its Checkout route written with a trailing slash or other letter case', async () => {
    const sim = await started()
    try {
      sim.simulator.failNext({ operation: 'checkout.purchase', count: 2 })
      for (const path of ['/api/v1/session/', '/API/V1/Session']) {
        const answer = await postJson(sim.url, path, purchase('10.00'))
        expect(answer.status).toBe(500)
      }
      expect(sim.simulator.ledger).toEqual([])
    } finally {
      await sim.close()
    }
  })

  it('an action and an operation that name two different requests (no request has both) are refused', async () => {
    const ctx = await setup()
    expect(() => ctx.simulator.failNext({ action: 'CAPTURE', operation: 's2s.void' })).toThrow(RangeError)
    expect(() => ctx.simulator.failNext({ action: 'CAPTURE', operation: 'checkout.purchase' })).toThrow(
      /action CAPTURE is operation s2s\.capture, not checkout\.purchase/,
    )
    // The same request named both ways is fine.
    ctx.simulator.failNext({ action: 'CAPTURE', operation: 's2s.capture' })
    const p = await paidPayment(ctx)
    await expect(ctx.gw.s2s.capture({ trans_id: p.trans_id })).rejects.toThrow(/told to answer 500/)
  })

  it('an unknown action or operation is refused, naming the known ones', async () => {
    const ctx = await setup()
    expect(() => ctx.simulator.failNext({ action: 'CAPTUR' })).toThrow(RangeError)
    expect(() => ctx.simulator.failNext({ action: 'CAPTUR' })).toThrow(/CAPTURE, VOID/)
    expect(() => ctx.simulator.failNext({ operation: 'capture' })).toThrow(/s2s\.capture/)
  })
})
