import { faults, startFaultServer } from '@paywire/core/testing'
import { describe, expect, it, onTestFinished } from 'vitest'
import { Remittance, type RemittanceOptions, RequestValidationError } from '../src/index.js'
import { cashCollectionBody, setup } from './helpers.js'

/** A plain loopback server that records what arrives and answers 200 `{}` (the simulator keeps 2 decimals). */
async function recorder(options: Partial<RemittanceOptions>) {
  const server = await startFaultServer(faults.json(200, {}))
  const remit = new Remittance({ baseUrl: server.url, apiKey: 'k', maxRetries: 0, ...options })
  onTestFinished(async () => {
    await remit.close()
    await server.close()
  })
  return { remit, server }
}

async function refused(promise: Promise<unknown>): Promise<RequestValidationError> {
  const error = await promise.catch((e: unknown) => e)
  expect(error).toBeInstanceOf(RequestValidationError)
  return error as RequestValidationError
}

describe('platform defaults can be overridden: SLE decimal places', () => {
  it('by default an SLE amount has at most 2 decimals (rates and transfers), and nothing is sent', async () => {
    const { remit, server } = await setup()
    const rates = await refused(remit.lookup.rates({ sendingAmountSLE: 10.125, destCurrency: 'GHS' }))
    expect(rates.issues).toEqual([{ path: 'sendingAmountSLE', message: 'SLE amounts have at most 2 decimal places' }])
    const transfer = await refused(remit.transactions.bankTransfer({ amountSLE: 1.001, bankId: 'B' }))
    expect(transfer.issues.map((i) => i.path)).toEqual(['amountSLE'])
    expect(server.requests).toHaveLength(0)
  })

  it('platformDefaults.sleDecimals: 3 accepts three decimals and still refuses four', async () => {
    const { remit, server } = await recorder({ platformDefaults: { sleDecimals: 3 } })
    await remit.lookup.rates({ sendingAmountSLE: 10.125, destCurrency: 'GHS' })
    await remit.transactions.cashCollection({ ...cashCollectionBody('BEN-X'), amountSLE: 1.001 })
    expect(server.requests).toHaveLength(2)
    expect(JSON.parse(server.requests[0]?.body ?? '').sendingAmountSLE).toBe(10.125)
    expect(JSON.parse(server.requests[1]?.body ?? '').amountSLE).toBe(1.001)
    const error = await refused(remit.lookup.rates({ sendingAmountSLE: 10.1255, destCurrency: 'GHS' }))
    expect(error.issues).toEqual([{ path: 'sendingAmountSLE', message: 'SLE amounts have at most 3 decimal places' }])
    expect(server.requests).toHaveLength(2)
  })

  it('platformDefaults.sleDecimals: 0 allows whole leones only', async () => {
    const { remit, server } = await setup({ platformDefaults: { sleDecimals: 0 } })
    const error = await refused(remit.lookup.rates({ sendingAmountSLE: 10.5, destCurrency: 'GHS' }))
    expect(error.issues).toEqual([{ path: 'sendingAmountSLE', message: 'SLE amounts are whole numbers' }])
    expect(server.requests).toHaveLength(0)
  })

  it('refuses a nonsensical sleDecimals when the client is built', () => {
    expect(
      () => new Remittance({ baseUrl: 'https://r.example', apiKey: 'k', platformDefaults: { sleDecimals: 2.5 } }),
    ).toThrow(/platformDefaults.sleDecimals/)
  })
})
