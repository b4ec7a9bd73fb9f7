import { inspect } from 'node:util'
import { describe, expect, it } from 'vitest'
import { BillPayment, type BillPaymentError } from '../src/index.js'
import { SIMULATOR_CREDENTIALS } from '../src/testing/index.js'
import { rejection, setup } from './fixtures/setup.js'

const SECRET = SIMULATOR_CREDENTIALS.clientSecret

describe('the client secret never leaks', () => {
  it('inspect and JSON.stringify of the client show the base URL only', () => {
    const bills = new BillPayment({ baseUrl: 'https://bills.example.com', clientId: 'cid-123', clientSecret: SECRET })
    for (const text of [inspect(bills, { depth: 10, showHidden: true }), JSON.stringify(bills), String(bills)]) {
      expect(text).not.toContain(SECRET)
      expect(text).not.toContain('cid-123')
    }
    expect(inspect(bills)).toBe("BillPayment { baseUrl: 'https://bills.example.com' }")
    expect(JSON.stringify(bills)).toBe('{"baseUrl":"https://bills.example.com"}')
    expect(inspect(bills.catalog, { depth: 10, showHidden: true })).not.toContain(SECRET)
    expect(inspect(bills.transactions, { depth: 10, showHidden: true })).not.toContain(SECRET)
  })

  it('never appears in errors (API, connection, validation) or in hook and logger events', async () => {
    const seen: unknown[] = []
    const logLines: unknown[] = []
    const env = await setup({
      hooks: {
        onRequest: (e) => seen.push(e),
        onResponse: (e) => seen.push(e),
        onRetry: (e) => seen.push(e),
        onError: (e) => seen.push(e),
      },
      logger: {
        debug: (message, data) => logLines.push(message, data),
        warn: (message, data) => logLines.push(message, data),
      },
    })
    env.simulator.failNext({ status: 503 })
    await env.bills.catalog.list()
    const errors: unknown[] = []
    errors.push(await rejection(env.bills.catalog.get('NOPE')))
    errors.push(await rejection(env.bills.transactions.execute({ productId: 'WATER-FREETOWN', amount: 5 })))
    errors.push(await rejection(env.bills.transactions.execute({ amount: 1n })))
    env.simulator.failNext({ status: 401 })
    errors.push(await rejection(env.bills.transactions.list()))

    const requestEvent = seen[0] as { headers: Record<string, string> }
    expect(requestEvent.headers['X-Service-Client-Secret']).toBe('[redacted]')
    expect(requestEvent.headers['X-Service-Internal-Client-Id']).toBe('[redacted]')

    for (const error of errors) {
      const e = error as BillPaymentError
      expect(inspect(e, { depth: 10, showHidden: true })).not.toContain(SECRET)
      expect(JSON.stringify(e)).not.toContain(SECRET)
      expect(e.message).not.toContain(SECRET)
      expect(String(e.stack)).not.toContain(SECRET)
    }
    expect(inspect(seen, { depth: 10 })).not.toContain(SECRET)
    expect(JSON.stringify(seen)).not.toContain(SECRET)
    expect(inspect(logLines, { depth: 10 })).not.toContain(SECRET)
    expect(seen.length).toBeGreaterThan(5)
    expect(logLines.length).toBeGreaterThan(5)
  })

  it('the construction error for a malformed secret does not echo it', () => {
    try {
      new BillPayment({ baseUrl: 'https://bills.example.com', clientId: 'x', clientSecret: `${SECRET} ` })
      expect.unreachable()
    } catch (error) {
      expect(inspect(error)).not.toContain(SECRET)
    }
  })
})
