import { createTestClock, faults, HTML_ERROR_PAGE, refusedUrl, startFaultServer } from '@paywire/core/testing'
import { describe, expect, it, onTestFinished } from 'vitest'
import { ConnectionError, Remittance, RemittanceError, TimeoutError } from '../src/index.js'
import { beneficiary, createBeneficiary, mobileTransferBody, record, setup } from './helpers.js'

async function faultClient(behaviour: Parameters<typeof startFaultServer>[0], options: { timeout?: number } = {}) {
  const server = await startFaultServer(behaviour)
  const clock = createTestClock()
  const remit = new Remittance({ baseUrl: server.url, apiKey: 'fault-key', clock, ...options })
  onTestFinished(async () => {
    await remit.close()
    await server.close()
  })
  return { server, remit, clock }
}

describe('retries: lookups are safe', () => {
  it('a GET lookup is retried on 502 upstream failures and then succeeds, without really sleeping', async () => {
    const { remit, simulator, server, clock } = await setup()
    simulator.failNext({ path: '/api/lookup/banks', count: 2, body: HTML_ERROR_PAGE })
    const { data, response } = await remit.lookup.banks().withResponse()
    expect(Array.isArray(data) && data.length).toBe(4)
    expect(response.attempts).toBe(3)
    expect(server.requests).toHaveLength(3)
    expect(clock.sleeps).toHaveLength(2)
  })

  it('rates (POST) and name enquiry (POST) are lookups: retried on 502 with the identical body', async () => {
    const { remit, simulator, server } = await setup()
    simulator.failNext({ path: '/api/lookup/rates' })
    simulator.failNext({ path: '/api/lookup/name-enquiry' })
    await remit.lookup.rates({ sendingAmountSLE: 10, destCurrency: 'GHS' })
    await remit.lookup.nameEnquiry({ bankCode: 'RCB', accountNumber: '0012345678' })
    expect(server.requests.map((r) => r.url)).toEqual([
      '/api/lookup/rates',
      '/api/lookup/rates',
      '/api/lookup/name-enquiry',
      '/api/lookup/name-enquiry',
    ])
    expect(server.requests[0]?.body).toBe(server.requests[1]?.body)
  })

  it('the status lookup is retried too: it is how transfers are reconciled', async () => {
    const { remit, simulator } = await setup()
    const transfer = await remit.transactions.mobileTransfer(mobileTransferBody(await createBeneficiary(remit)))
    const agentTransactionRef = String(record(transfer).agentTransactionRef)
    simulator.failNext({ path: '/api/lookup/transaction/status' })
    expect(record(await remit.lookup.transactionStatus(agentTransactionRef)).status).toBe('ENTERED')
  })

  it('gives up after maxRetries with the last 502 as a RemittanceError', async () => {
    const { remit, simulator, server } = await setup({ maxRetries: 2 })
    simulator.failNext({ path: '/api/lookup/mobile-operators', count: 5 })
    const error = (await remit.lookup.mobileOperators().catch((e: unknown) => e)) as RemittanceError
    expect(error).toBeInstanceOf(RemittanceError)
    expect([error.status, error.attempts]).toEqual([502, 3])
    expect(server.requests).toHaveLength(3)
  })

  it('a lookup is retried after the connection was reset mid-request', async () => {
    const { remit, server } = await faultClient((req, res, n) =>
      n === 1 ? faults.resetBeforeAnswer()(req, res, n) : faults.json(200, [{ bankCode: 'RCB' }])(req, res, n),
    )
    expect(await remit.lookup.banks()).toEqual([{ bankCode: 'RCB' }])
    expect(server.requests).toHaveLength(2)
  })
})

describe('retries: writes are unsent-only', () => {
  it('a transfer answered 502 is not retried; the error carries the agentTransactionRef', async () => {
    const { remit, simulator, server } = await setup()
    const body = { ...mobileTransferBody(await createBeneficiary(remit)), agentTransactionRef: 'AGENT-502' }
    server.clearRequests()
    simulator.failNext({ path: '/api/transactions/mobile-transfer' })
    const error = (await remit.transactions.mobileTransfer(body).catch((e: unknown) => e)) as RemittanceError
    expect(error).toBeInstanceOf(RemittanceError)
    expect([error.status, error.attempts]).toEqual([502, 1])
    expect(error.idempotencyKey).toBe(body.agentTransactionRef)
    expect(error).toMatchObject({
      outcomeUnknown: true,
      reconciliation: { key: 'agentTransactionRef', value: body.agentTransactionRef },
    })
    expect(error.message).toContain(`Outcome unknown`)
    expect(error.message).toContain(`agentTransactionRef "${body.agentTransactionRef}"`)
    expect(server.requests).toHaveLength(1)
    expect(simulator.ledger).toHaveLength(0)
  })

  it('beneficiary create, update and confirm answered 502 are not retried', async () => {
    const { remit, simulator, server } = await setup()
    simulator.failNext({ count: 3 })
    await expect(remit.beneficiaries.create(beneficiary)).rejects.toMatchObject({ status: 502, attempts: 1 })
    await expect(remit.beneficiaries.update({ beneficiaryId: 'BEN1' })).rejects.toMatchObject({
      status: 502,
      attempts: 1,
    })
    await expect(remit.transactions.confirm('TX1')).rejects.toMatchObject({ status: 502, attempts: 1 })
    expect(server.requests).toHaveLength(3)
  })

  it.each([
    ['mobileTransfer', (r: Remittance) => r.transactions.mobileTransfer({ amountSLE: 10 })],
    ['cashCollection', (r: Remittance) => r.transactions.cashCollection({ amountSLE: 10 })],
    ['bankTransfer', (r: Remittance) => r.transactions.bankTransfer({ amountSLE: 10 })],
  ])(
    '%s is never retried after the request was sent: one request, ConnectionError.requestSent, agentTransactionRef carried',
    async (_name, call) => {
      const { remit, server } = await faultClient(faults.resetBeforeAnswer())
      const error = await call(remit).catch((e: unknown) => e)
      expect(error).toBeInstanceOf(ConnectionError)
      const connection = error as ConnectionError
      expect(connection.requestSent).toBe(true)
      expect(connection.attempts).toBe(1)
      expect(server.requests).toHaveLength(1)
      const sent = JSON.parse(server.requests[0]?.body ?? '{}') as { agentTransactionRef: string }
      expect(connection.idempotencyKey).toBe(sent.agentTransactionRef)
      expect(connection).toMatchObject({ outcomeUnknown: true, reconciliation: { value: sent.agentTransactionRef } })
      expect(connection.message).toContain(`agentTransactionRef "${sent.agentTransactionRef}"`)
      expect(connection.message).toContain('lookup.transactionStatus')
    },
  )

  it('confirm and beneficiary create are not retried after a reset either', async () => {
    const { remit, server } = await faultClient(faults.resetBeforeAnswer())
    await expect(remit.transactions.confirm('TX1')).rejects.toMatchObject({ requestSent: true, attempts: 1 })
    await expect(remit.beneficiaries.create(beneficiary)).rejects.toMatchObject({ requestSent: true, attempts: 1 })
    expect(server.requests).toHaveLength(2)
  })

  it('a transfer whose connection was refused is retried (it provably never left) with the same agentTransactionRef', async () => {
    const clock = createTestClock()
    const remit = new Remittance({ baseUrl: await refusedUrl(), apiKey: 'k', clock, maxRetries: 2 })
    onTestFinished(() => remit.close())
    const error = (await remit.transactions
      .mobileTransfer({ amountSLE: 5 })
      .catch((e: unknown) => e)) as ConnectionError
    expect(error).toBeInstanceOf(ConnectionError)
    expect(error.requestSent).toBe(false)
    expect(error.attempts).toBe(3)
    expect(clock.sleeps).toHaveLength(2)
    expect(error.idempotencyKey).toMatch(/^[0-9a-f-]{36}$/)
  })

  it('a transfer that times out is a TimeoutError (class kept) carrying the agentTransactionRef', async () => {
    const { remit, server } = await faultClient(faults.neverAnswer(), { timeout: 50 })
    const error = await remit.transactions.cashCollection({ agentTransactionRef: 'AGENT-T' }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(TimeoutError)
    expect((error as TimeoutError).phase).toBe('headers')
    expect((error as TimeoutError).idempotencyKey).toBe('AGENT-T')
    expect(server.requests).toHaveLength(1)
  })
})
