import { describe, expect, it } from 'vitest'
import type { RemittanceError } from '../src/index.js'
import { BENEFICIARIES } from '../src/resources/beneficiaries.js'
import { LOOKUP } from '../src/resources/lookup.js'
import { TRANSACTIONS } from '../src/resources/transactions.js'
import { RemittanceSimulator } from '../src/testing/index.js'
import { createBeneficiary, mobileTransferBody, setup } from './helpers.js'

describe('the simulator (@paywire/remittance/testing)', () => {
  it('rejects a request without x-code with a 401 ProblemDetails', async () => {
    const { url } = await setup()
    const response = await fetch(`${url}/api/lookup/banks`)
    expect(response.status).toBe(401)
    expect(response.headers.get('content-type')).toBe('application/problem+json')
    expect(await response.json()).toMatchObject({
      status: 401,
      title: 'Unauthorized',
      detail: 'The x-code header is missing.',
    })
  })

  it('refuses a body that is not JSON with 415, and JSON that is not an object with 400', async () => {
    const { remit } = await setup()
    const form = (await remit
      .request({ method: 'POST', path: '/api/lookup/rates', form: { a: '1' } })
      .catch((e: unknown) => e)) as RemittanceError
    expect([form.status, form.title]).toEqual([415, 'Unsupported Media Type'])
    const list = (await remit
      .request({ method: 'POST', path: '/api/lookup/rates', body: [1] })
      .catch((e: unknown) => e)) as RemittanceError
    expect(list.fieldErrors).toEqual({ $: ['The request body must be a JSON object.'] })
  })

  it('failNext() fails any path; a count fails that many requests, then the service answers again', async () => {
    const { remit, simulator } = await setup({ maxRetries: 0 })
    simulator.failNext({ count: 2, status: 503, body: '' })
    await expect(remit.lookup.banks()).rejects.toMatchObject({ status: 503 })
    await expect(remit.lookup.mobileOperators()).rejects.toMatchObject({ status: 503 })
    await expect(remit.lookup.banks()).resolves.toHaveLength(4)
  })

  it('a failure injected on a path prefix hits the routes below it only', async () => {
    const { remit, simulator } = await setup({ maxRetries: 0 })
    simulator.failNext({ path: '/api/transactions/confirm' })
    await expect(remit.lookup.banks()).resolves.toHaveLength(4)
    await expect(remit.transactions.confirm('TX1')).rejects.toMatchObject({ status: 502, reason: 'upstream_failure' })
  })

  it('the ledger lists executed transfers only, and reset() forgets everything', async () => {
    const { remit, simulator } = await setup()
    await remit.transactions.mobileTransfer(mobileTransferBody(await createBeneficiary(remit)))
    await remit.transactions.mobileTransfer({ ...mobileTransferBody('BEN-NOPE') }).catch(() => undefined)
    expect(simulator.ledger).toHaveLength(1)
    expect(simulator.ledger[0]?.body).toMatchObject({ amountSLE: 1000, beneficiaryMobileTransferNetworkId: 'MTN-GH' })
    simulator.reset()
    expect([simulator.ledger, simulator.beneficiaries]).toEqual([[], []])
  })

  it('takes custom fixtures and key', () => {
    const simulator = new RemittanceSimulator({ apiKey: 'k2', fixtures: { rates: { GHS: 1 } } })
    expect(simulator.apiKey).toBe('k2')
    expect(simulator.fixtures.rates).toEqual({ GHS: 1 })
    expect(simulator.fixtures.banks.length).toBeGreaterThan(0)
    // A handler per endpoint row: the simulator serves every method of the client.
    const rows = [...Object.values(BENEFICIARIES), ...Object.values(LOOKUP), ...Object.values(TRANSACTIONS)]
    expect(simulator.handlers).toHaveLength(rows.length)
  })
})
