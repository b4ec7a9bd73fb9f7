import { inspect } from 'node:util'
import { faults, HTML_ERROR_PAGE, startFaultServer } from '@paywire/core/testing'
import { describe, expect, it, onTestFinished } from 'vitest'
import { Remittance, Secret } from '../src/index.js'
import { setup } from './helpers.js'

const KEY = 'sk-remit-TOP-SECRET-0042'

function expectNoKey(value: unknown): void {
  expect(inspect(value, { depth: 20, showHidden: true })).not.toContain(KEY)
  expect(JSON.stringify(value) ?? '').not.toContain(KEY)
  expect(String(value)).not.toContain(KEY)
}

describe('the API key is a secret', () => {
  it('is sent in x-code, and never shown by inspect, JSON.stringify or String of the client', async () => {
    const { remit, server } = await setup({ apiKey: KEY }, { apiKey: KEY })
    await remit.lookup.banks()
    expect(server.requests[0]?.headers['x-code']).toBe(KEY)
    expectNoKey(remit)
    expectNoKey(remit.lookup)
    expect(inspect(remit)).toBe(`Remittance { baseUrl: '${remit.baseUrl}' }`)
    expect(JSON.stringify(remit)).toBe(JSON.stringify({ baseUrl: remit.baseUrl }))
  })

  it('given as a Secret, it works the same', async () => {
    const { remit, server } = await setup({ apiKey: new Secret(KEY) }, { apiKey: KEY })
    await remit.lookup.banks()
    expect(server.requests[0]?.headers['x-code']).toBe(KEY)
    expectNoKey(remit)
  })

  it('never appears in errors: 401, 400, 502, connection resets, validation', async () => {
    const { remit, simulator } = await setup({ apiKey: KEY, maxRetries: 0 })
    expectNoKey(await remit.lookup.banks().catch((e: unknown) => e))
    const right = new Remittance({ baseUrl: remit.baseUrl, apiKey: simulator.apiKey })
    onTestFinished(() => right.close())
    expectNoKey(await right.beneficiaries.create({}).catch((e: unknown) => e))
    simulator.failNext({ body: HTML_ERROR_PAGE })
    expectNoKey(await right.lookup.banks().catch((e: unknown) => e))
    expectNoKey(await remit.lookup.rates({ sendingAmountSLE: -1 }).catch((e: unknown) => e))

    const fault = await startFaultServer(faults.resetBeforeAnswer())
    const faulty = new Remittance({ baseUrl: fault.url, apiKey: KEY })
    onTestFinished(async () => {
      await faulty.close()
      await fault.close()
    })
    expectNoKey(await faulty.transactions.mobileTransfer({}).catch((e: unknown) => e))
  })

  it('never reaches hooks or the logger: x-code is redacted in every event', async () => {
    const events: unknown[] = []
    const lines: unknown[] = []
    const logger = { debug: (...args: unknown[]) => lines.push(args), warn: (...args: unknown[]) => lines.push(args) }
    const hooks = {
      onRequest: (e: unknown) => events.push(e),
      onResponse: (e: unknown) => events.push(e),
      onRetry: (e: unknown) => events.push(e),
      onError: (e: unknown) => events.push(e),
    }
    const { remit, simulator } = await setup({ apiKey: KEY, hooks, logger }, { apiKey: KEY })
    simulator.failNext({ path: '/api/lookup/banks' })
    await remit.lookup.banks()
    simulator.failNext({ path: '/api/transactions/confirm' })
    await remit.transactions.confirm('TX1').catch(() => undefined)
    expect(events.map((e) => (e as { attempt?: number; status?: number }).status ?? 'event')).toContain(502)
    expect(events.length).toBeGreaterThanOrEqual(6)
    expectNoKey(events)
    expectNoKey(lines)
    const request = events[0] as { headers: Record<string, string> }
    expect(request.headers['x-code']).toBe('[redacted]')
  })
})
