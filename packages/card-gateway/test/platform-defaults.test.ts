import { createHash } from 'node:crypto'
import { RequestValidationError } from '@paywire/core'
import { faults, startFaultServer } from '@paywire/core/testing'
import { describe, expect, it, onTestFinished } from 'vitest'
import { CardGateway, type CardGatewayOptions, explainSignature, sign } from '../src/index.js'
import { simulatorHash } from '../src/testing/index.js'
import { form, orderId, PASSWORD, rejection, setup } from './helpers.js'

const urls = { success_url: 'https://shop.example/ok', cancel_url: 'https://shop.example/cancel' }

/** A plain loopback server that records what arrives and answers every call with success. */
async function recorder(options: Partial<CardGatewayOptions> = {}) {
  const server = await startFaultServer(
    faults.json(200, {
      result: 'SUCCESS',
      schedule_id: '9b0c6e1a-3f7d-4c2e-8a51-7d2f0e4b9c13',
      redirect_url: 'https://pay.example/s/1',
    }),
  )
  const gw = new CardGateway({
    checkoutUrl: server.url,
    s2sUrl: server.url,
    merchantKey: 'mk',
    clientKey: 'ck',
    password: PASSWORD,
    hashInputs: { 's2s.createSchedule': ['name'] },
    maxRetries: 0,
    ...options,
  })
  onTestFinished(async () => {
    await gw.close()
    await server.close()
  })
  return { gw, server }
}

/** sha1(md5(X)) with JavaScript's full Unicode uppercasing, computed here without the SDK. */
function unicodeReference(text: string): string {
  const inner = createHash('md5').update(Buffer.from(text.toUpperCase(), 'utf8')).digest('hex')
  return createHash('sha1').update(inner).digest('hex')
}

describe('platform defaults can be overridden: interval_unit', () => {
  it('by default accepts only "day" or "month" and sends nothing else', async () => {
    const { gw, server } = await recorder()
    const error = await rejection(
      gw.s2s.createSchedule({ name: 'W', interval_length: 1, interval_unit: 'week', payments_count: 2 }),
    )
    expect((error as RequestValidationError).issues).toEqual([
      { path: 'interval_unit', message: 'must be "day" or "month"' },
    ])
    expect(server.requests).toHaveLength(0)
  })

  it('platformDefaults.intervalUnits widens the list for CREATE_SCHEDULE and UPDATE_SCHEDULE', async () => {
    const { gw, server } = await recorder({ platformDefaults: { intervalUnits: ['day', 'week', 'month'] } })
    await gw.s2s.createSchedule({ name: 'W', interval_length: 1, interval_unit: 'week', payments_count: 2 })
    await gw.s2s.updateSchedule({ schedule_id: '9b0c6e1a-3f7d-4c2e-8a51-7d2f0e4b9c13', interval_unit: 'week' })
    expect(server.requests.map((r) => form(r.body)['interval_unit'])).toEqual(['week', 'week'])
    const error = await rejection(
      gw.s2s.createSchedule({ name: 'Y', interval_length: 1, interval_unit: 'year', payments_count: 2 }),
    )
    expect((error as RequestValidationError).issues[0]).toEqual({
      path: 'interval_unit',
      message: 'must be one of "day", "week", "month"',
    })
    expect(server.requests).toHaveLength(2)
  })
})

describe('platform defaults can be overridden: purchase order.description and order.number lengths', () => {
  it('by default order.description is 2 to 1024 characters and order.number at most 255', async () => {
    const ctx = await setup()
    const error = await rejection(
      ctx.gw.checkout.purchase({
        order: { number: 'n'.repeat(256), amount: '1.00', currency: 'USD', description: 'd'.repeat(1025) },
        ...urls,
      }),
    )
    expect((error as RequestValidationError).issues).toEqual([
      { path: 'order.number', message: 'must be 1 to 255 characters' },
      { path: 'order.description', message: 'must be 2 to 1024 characters' },
    ])
    expect(ctx.server.requests).toHaveLength(0)
  })

  it('platformDefaults.orderDescriptionLength and orderNumberMaxLength change the bounds', async () => {
    const { gw, server } = await recorder({
      platformDefaults: { orderDescriptionLength: { min: 1, max: 2048 }, orderNumberMaxLength: 300 },
    })
    await gw.checkout.purchase({
      order: { number: 'n'.repeat(300), amount: '1.00', currency: 'USD', description: 'd'.repeat(2048) },
      ...urls,
    })
    await gw.checkout.purchase({
      order: { number: orderId(), amount: '1.00', currency: 'USD', description: 'x' },
      ...urls,
    })
    expect(server.requests).toHaveLength(2)
    const error = await rejection(
      gw.checkout.purchase({
        order: { number: 'n'.repeat(301), amount: '1.00', currency: 'USD', description: '' },
        ...urls,
      }),
    )
    expect((error as RequestValidationError).issues).toEqual([
      { path: 'order.number', message: 'must be 1 to 300 characters' },
      { path: 'order.description', message: 'must be 1 to 2048 characters' },
    ])
    expect(server.requests).toHaveLength(2)
  })

  it('refuses nonsensical bounds when the client is built', () => {
    const base = {
      checkoutUrl: 'https://c.example',
      s2sUrl: 'https://s.example',
      merchantKey: 'm',
      clientKey: 'c',
      password: 'p',
    }
    expect(
      () => new CardGateway({ ...base, platformDefaults: { orderDescriptionLength: { min: 5, max: 2 } } }),
    ).toThrow(RequestValidationError)
    expect(() => new CardGateway({ ...base, platformDefaults: { intervalUnits: [] } })).toThrow(/intervalUnits/)
    // @ts-expect-error not a mode
    expect(() => new CardGateway({ ...base, platformDefaults: { uppercase: 'turkish' } })).toThrow(/uppercase/)
  })
})

describe('platform defaults can be overridden: uppercasing in the signature', () => {
  const values = ['order-1', '10.00', 'EUR', 'Café straße']

  it('sign() and explainSignature() uppercase ASCII only by default, and fully with { uppercase: "unicode" }', () => {
    expect(sign(values, PASSWORD)).toBe(simulatorHash(values, PASSWORD))
    expect(sign(values, PASSWORD, 'md5', { uppercase: 'ascii' })).toBe(simulatorHash(values, PASSWORD))
    const unicode = unicodeReference(values.join('') + PASSWORD)
    expect(unicode).not.toBe(simulatorHash(values, PASSWORD))
    expect(sign(values, PASSWORD, 'md5', { uppercase: 'unicode' })).toBe(unicode)
    const explained = explainSignature(values, PASSWORD, 'md5', { uppercase: 'unicode' })
    expect(explained.hash).toBe(unicode)
    expect(explained.uppercased).toBe('ORDER-110.00EURCAFÉ STRASSE{PASSWORD}')
  })

  it('the client signs requests with platformDefaults.uppercase, and its sign/explainSignature agree', async () => {
    const { gw, server } = await recorder({ platformDefaults: { uppercase: 'unicode' } })
    await gw.checkout.purchase({
      order: { number: 'order-1', amount: '10.00', currency: 'EUR', description: 'Café straße' },
      ...urls,
    })
    const unicode = unicodeReference(values.join('') + PASSWORD)
    expect(JSON.parse(server.requests[0]?.body ?? '').hash).toBe(unicode)
    expect(gw.sign(values)).toBe(unicode)
    expect(gw.explainSignature(values).hash).toBe(unicode)
  })

  it('the client signs with ASCII-only uppercasing by default', async () => {
    const { gw, server } = await recorder()
    await gw.checkout.purchase({
      order: { number: 'order-1', amount: '10.00', currency: 'EUR', description: 'Café straße' },
      ...urls,
    })
    expect(JSON.parse(server.requests[0]?.body ?? '').hash).toBe(simulatorHash(values, PASSWORD))
  })
})
