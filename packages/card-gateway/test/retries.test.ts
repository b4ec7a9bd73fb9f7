import { ConnectionError } from '@paywire/core'
import { createTestClock, faults, refusedUrl, startFaultServer } from '@paywire/core/testing'
import { describe, expect, it, onTestFinished } from 'vitest'
import { CardGateway, type CardGatewayOptions } from '../src/index.js'

const urls = { success_url: 'https://shop.example/ok', cancel_url: 'https://shop.example/cancel' }
const okPurchase = { redirect_url: 'https://pay.example/s/1' }

async function client(url: string, extra: Partial<CardGatewayOptions> = {}) {
  const clock = createTestClock()
  const gw = new CardGateway({
    checkoutUrl: url,
    s2sUrl: url,
    merchantKey: 'mk',
    clientKey: 'ck',
    password: 'secret-pass',
    clock,
    random: () => 0.5,
    ...extra,
  })
  onTestFinished(() => gw.close())
  return { gw, clock }
}

async function faultServer(behaviour: Parameters<typeof startFaultServer>[0]) {
  const server = await startFaultServer(behaviour)
  onTestFinished(() => server.close())
  return server
}

describe('retries: purchase, credit and RECURRING_SALE only inside the 15 s dedup window', () => {
  it('retries a purchase inside the window with the byte-identical body', async () => {
    const server = await faultServer((req, res, n) =>
      n === 1 ? faults.json(503, { error: 'busy' })(req, res, n) : faults.json(200, okPurchase)(req, res, n),
    )
    const { gw } = await client(server.url)
    const result = await gw.checkout.purchase({
      order: { number: 'o-1', amount: '10.00', currency: 'USD', description: 'Test order' },
      ...urls,
    })
    expect(result.redirect_url).toBe(okPurchase.redirect_url)
    expect(server.requests).toHaveLength(2)
    expect(server.requests[1]?.body).toBe(server.requests[0]?.body)
  })

  it('does not retry a purchase once the 15 s window has passed', async () => {
    let clock: ReturnType<typeof createTestClock> | undefined
    const server = await faultServer((req, res, n) => {
      clock?.advance(16_000) // the first attempt took longer than the window
      faults.json(503, { error: 'busy' })(req, res, n)
    })
    const made = await client(server.url, { timeout: 60_000, totalTimeout: 600_000 })
    clock = made.clock
    const error = await made.gw.checkout
      .purchase({ order: { number: 'o-2', amount: '10.00', currency: 'USD', description: 'Test order' }, ...urls })
      .catch((e: unknown) => e)
    expect(error).toMatchObject({ status: 503 })
    expect(server.requests).toHaveLength(1)
  })

  it('does not retry RECURRING_SALE after a possibly-sent failure by default: its duplicate rule names merchant_key, which S2S does not send', async () => {
    const server = await faultServer((req, res, n) =>
      n === 1 ? faults.json(502, {})(req, res, n) : faults.json(200, { result: 'SUCCESS' })(req, res, n),
    )
    const { gw } = await client(server.url)
    const error = await gw.s2s
      .recurringSale({
        order_id: 'r-0',
        order_amount: '1.00',
        order_description: 'Plan',
        recurring_first_trans_id: 't',
        recurring_token: 'tok',
      })
      .catch((e: unknown) => e)
    expect(server.requests).toHaveLength(1)
    expect(error).toMatchObject({ outcomeUnknown: true, reconciliation: { key: 'order_id', value: 'r-0' } })
  })

  it('retries RECURRING_SALE inside the window, identical body, when the account opts in (platformDefaults.recurringSaleDedup)', async () => {
    const server = await faultServer((req, res, n) =>
      n === 1 ? faults.json(502, {})(req, res, n) : faults.json(200, { result: 'SUCCESS' })(req, res, n),
    )
    const { gw, clock } = await client(server.url, { platformDefaults: { recurringSaleDedup: true } })
    await gw.s2s.recurringSale({
      order_id: 'r-1',
      order_amount: '1.00',
      order_description: 'Plan',
      recurring_first_trans_id: 't',
      recurring_token: 'tok',
    })
    expect(server.requests).toHaveLength(2)
    expect(server.requests[1]?.body).toBe(server.requests[0]?.body)
    expect(clock.sleeps).toHaveLength(1)
  })
})

describe('retries: CAPTURE, VOID, CREDITVOID and schedules only when provably unsent', () => {
  it('does not retry CAPTURE after a connection reset: exactly one request arrived', async () => {
    const server = await faultServer(faults.resetBeforeAnswer())
    const { gw } = await client(server.url)
    const error = await gw.s2s.capture({ trans_id: 't-1' }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(ConnectionError)
    expect((error as ConnectionError).requestSent).toBe(true)
    expect(server.requests).toHaveLength(1)
  })

  it('does not retry VOID on a 503', async () => {
    const server = await faultServer(faults.json(503, {}))
    const { gw } = await client(server.url)
    await expect(gw.s2s.void({ trans_id: 't' })).rejects.toMatchObject({ status: 503 })
    expect(server.requests).toHaveLength(1)
  })

  it('retries CAPTURE when the connection was refused (nothing was sent)', async () => {
    const { gw, clock } = await client(await refusedUrl())
    const error = await gw.s2s.capture({ trans_id: 't' }).catch((e: unknown) => e)
    expect((error as ConnectionError).requestSent).toBe(false)
    expect(clock.sleeps).toHaveLength(2)
  })
})

describe('retries: lookups are safe', () => {
  it('retries GET_TRANS_STATUS after a reset', async () => {
    const server = await faultServer((req, res, n) =>
      n === 1
        ? faults.resetBeforeAnswer()(req, res, n)
        : faults.json(200, { result: 'SUCCESS', trans_id: 't', status: 'PENDING' })(req, res, n),
    )
    const { gw } = await client(server.url)
    const result = await gw.s2s.getTransStatus({ trans_id: 't' }).withResponse()
    expect(result.data.status).toBe('PENDING')
    expect(result.response.attempts).toBe(2)
    expect(server.requests).toHaveLength(2)
  })

  it('retries the Checkout status lookup on 502 long after 15 s', async () => {
    let clock: ReturnType<typeof createTestClock> | undefined
    const server = await faultServer((req, res, n) => {
      clock?.advance(20_000)
      if (n === 1) faults.json(502, {})(req, res, n)
      else faults.json(200, { payment_id: 'p', status: 'settled' })(req, res, n)
    })
    const made = await client(server.url)
    clock = made.clock
    await expect(made.gw.checkout.status({ payment_id: 'p' })).resolves.toMatchObject({ status: 'settled' })
    expect(server.requests).toHaveLength(2)
  })
})
