import { inspect } from 'node:util'
import { RequestValidationError } from '@paywire/core'
import { describe, expect, it } from 'vitest'
import { CardGateway } from '../src/index.js'
import { orderId, PASSWORD, paidPayment, setup } from './helpers.js'

const base = {
  checkoutUrl: 'https://checkout.example',
  s2sUrl: 'https://s2s.example',
  merchantKey: 'merchant-key-value',
  clientKey: 'client-key-value',
  password: 'very-secret-password',
}

describe('CardGateway construction', () => {
  it('refuses plain http to a non-loopback host', () => {
    expect(() => new CardGateway({ ...base, checkoutUrl: 'http://checkout.example' })).toThrow(RequestValidationError)
  })

  it('refuses empty credentials and unknown digests', () => {
    expect(() => new CardGateway({ ...base, password: '' })).toThrow(/password: is required: a non-empty string/)
    // @ts-expect-error options are required
    expect(() => new CardGateway(undefined)).toThrow(RequestValidationError)
    // @ts-expect-error not a digest
    expect(() => new CardGateway({ ...base, digest: 'sha1' })).toThrow(/digest/)
  })

  it('refuses hashInputs that are not lists of wire field names, naming the entry, before anything is sent', () => {
    const withHole: string[] = []
    withHole[0] = 'name'
    withHole[2] = 'interval_length' // withHole[1] is a hole: a missing name
    const refusals: Array<[unknown, RegExp]> = [
      [{ 's2s.createSchedule': withHole }, /hashInputs\.s2s\.createSchedule\[1\]: must be a wire field name/],
      [{ 's2s.capture': ['trans_id', 7] }, /hashInputs\.s2s\.capture\[1\]: must be a wire field name/],
      [{ 's2s.capture': ['trans_id', ''] }, /hashInputs\.s2s\.capture\[1\]: must be a wire field name/],
      [{ 's2s.capture': 'trans_id' }, /hashInputs\.s2s\.capture: must be an array of wire field names/],
      [{ 's2s.captur': ['trans_id'] }, /hashInputs\.s2s\.captur: is not a signed operation; one of checkout\.purchase/],
      [['trans_id'], /hashInputs: must be an object/],
    ]
    for (const [hashInputs, message] of refusals) {
      const build = () => new CardGateway({ ...base, hashInputs } as never)
      expect(build).toThrow(RequestValidationError)
      expect(build).toThrow(message)
    }
  })

  it('signs with a copy of hashInputs: changing the array afterwards changes nothing', async () => {
    const names = ['name']
    const ctx = await setup({
      sim: { hashInputs: { CREATE_SCHEDULE: ['name'] } },
      client: { hashInputs: { 's2s.createSchedule': names } },
    })
    names.push('interval_length')
    const schedule = { name: 'Monthly', interval_length: 1, interval_unit: 'month', payments_count: 12 } as const
    await expect(ctx.gw.s2s.createSchedule(schedule)).resolves.toBeDefined()
  })

  it('shows base URLs only in inspect and JSON.stringify', () => {
    const gw = new CardGateway({ ...base, environment: 'production' })
    for (const text of [inspect(gw, { depth: 10, showHidden: true }), JSON.stringify(gw), String(gw)]) {
      expect(text).not.toContain(base.password)
      expect(text).not.toContain(base.merchantKey)
      expect(text).not.toContain(base.clientKey)
    }
    expect(JSON.parse(JSON.stringify(gw))).toEqual({
      checkoutUrl: 'https://checkout.example',
      s2sUrl: 'https://s2s.example',
      environment: 'production',
    })
  })
})

describe('the password is never sent and never logged', () => {
  it('is absent from every byte of every request, across every operation', async () => {
    const events: unknown[] = []
    const logs: unknown[] = []
    const logger = { debug: (...a: unknown[]) => logs.push(a), warn: (...a: unknown[]) => logs.push(a) }
    const ctx = await setup({
      client: {
        hooks: {
          onRequest: (e) => events.push(e),
          onResponse: (e) => events.push(e),
          onRetry: (e) => events.push(e),
          onError: (e) => events.push(e),
        },
        logger,
        hashInputs: { 's2s.createSchedule': [] },
      },
    })
    const p = await paidPayment(ctx, { recurring: true })
    await ctx.gw.checkout.status({ payment_id: p.payment_id })
    await ctx.gw.checkout.status({ order_id: p.order_id })
    await ctx.gw.s2s.getTransStatus({ trans_id: p.trans_id })
    await ctx.gw.s2s.getTransStatusByOrder({ order_id: p.order_id })
    await ctx.gw.s2s.capture({ trans_id: p.trans_id })
    await ctx.gw.checkout.credit({
      order_id: orderId('cr'),
      order_amount: '1.00',
      order_currency: 'USD',
      order_description: 'Refund',
      card_token: p.card_token as string,
      name: 'A',
    })
    await ctx.gw.s2s.void({ trans_id: p.trans_id }).catch(() => undefined)
    await ctx.gw.s2s.creditVoid({ trans_id: p.trans_id }).catch(() => undefined)
    await ctx.gw.s2s
      .recurringSale({
        order_id: orderId('r'),
        order_amount: '1.00',
        order_description: 'Plan',
        recurring_first_trans_id: p.trans_id,
        recurring_token: p.recurring_token as string,
      })
      .catch(() => undefined)
    const s = await ctx.gw.s2s.createSchedule({
      name: 'N',
      interval_length: 1,
      interval_unit: 'day',
      payments_count: 2,
    })
    await ctx.gw.s2s.updateSchedule({ schedule_id: s.schedule_id as string, name: 'M' })
    await ctx.gw.s2s.deleteSchedule({ schedule_id: s.schedule_id as string })
    const error = await ctx.gw.s2s.getTransStatus({ trans_id: 'missing' }).catch((e: unknown) => e)

    expect(ctx.server.requests.length).toBeGreaterThanOrEqual(13)
    const forms = [PASSWORD, PASSWORD.toUpperCase(), encodeURIComponent(PASSWORD)]
    for (const req of ctx.server.requests) {
      const bytes = `${req.method} ${req.url}\n${JSON.stringify(req.headers)}\n${req.body}`
      for (const f of forms) expect(bytes).not.toContain(f)
    }
    const observed = `${inspect(events, { depth: 10 })} ${inspect(logs, { depth: 10 })} ${inspect(error, { depth: 10 })} ${JSON.stringify(error)}`
    for (const f of forms) expect(observed).not.toContain(f)
    expect(events.length).toBeGreaterThan(0)
  })

  it('sends a paywire User-Agent and exposes the response with withResponse()', async () => {
    const ctx = await setup()
    const p = await paidPayment(ctx)
    const { data, response } = await ctx.gw.s2s.getTransStatus({ trans_id: p.trans_id }).withResponse()
    expect(data.status).toBe('PENDING')
    expect(response.status).toBe(200)
    expect(response.rawBody).toContain('PENDING')
    expect(ctx.server.requests.at(-1)?.headers['user-agent']).toMatch(/^paywire-card-gateway\/\d+\.\d+\.\d+ node\//)
  })

  it('takes per-call options (extra headers, abort signal)', async () => {
    const ctx = await setup()
    const p = await paidPayment(ctx)
    await ctx.gw.s2s.getTransStatus({ trans_id: p.trans_id }, { headers: { 'x-trace': 'abc' } })
    expect(ctx.server.requests.at(-1)?.headers['x-trace']).toBe('abc')
    const controller = new AbortController()
    controller.abort()
    await expect(
      ctx.gw.s2s.getTransStatus({ trans_id: p.trans_id }, { signal: controller.signal }),
    ).rejects.toMatchObject({
      name: 'UserAbortError',
    })
  })
})
