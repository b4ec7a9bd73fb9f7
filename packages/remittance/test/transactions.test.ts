import { describe, expect, expectTypeOf, it } from 'vitest'
import { z } from 'zod'
import { RemittanceError } from '../src/index.js'
import {
  bankTransferBody,
  cashCollectionBody,
  createBeneficiary,
  mobileTransferBody,
  record,
  sentBody,
  setup,
} from './helpers.js'

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/

describe('transactions', () => {
  it('a mobile transfer without agentTransactionRef gets a generated UUID, sent and returned', async () => {
    const { remit, server, simulator } = await setup()
    const body = mobileTransferBody(await createBeneficiary(remit))
    expect(body).not.toHaveProperty('agentTransactionRef')
    const { data, response } = await remit.transactions.mobileTransfer(body).withResponse()
    const agentTransactionRef = response.idempotencyKey
    expect(agentTransactionRef).toMatch(UUID)
    expect(sentBody(server.requests).agentTransactionRef).toBe(agentTransactionRef)
    expect(record(data)).toMatchObject({ transactionId: 'TX000002', status: 'ENTERED', agentTransactionRef })
    expect(simulator.ledger).toMatchObject([
      { kind: 'mobile-transfer', agentTransactionRef, amountSLE: 1000, fees: 15 },
    ])
  })

  it("keeps the caller's agentTransactionRef", async () => {
    const { remit, server } = await setup()
    const body = { ...mobileTransferBody(await createBeneficiary(remit)), agentTransactionRef: 'AGENT-0001' }
    const { response } = await remit.transactions.mobileTransfer(body).withResponse()
    expect(response.idempotencyKey).toBe('AGENT-0001')
    expect(sentBody(server.requests).agentTransactionRef).toBe('AGENT-0001')
  })

  it('each call generates a different agentTransactionRef', async () => {
    const { remit } = await setup()
    const beneficiaryId = await createBeneficiary(remit)
    const a = await remit.transactions.cashCollection(cashCollectionBody(beneficiaryId)).withResponse()
    const b = await remit.transactions.cashCollection(cashCollectionBody(beneficiaryId)).withResponse()
    expect(a.response.idempotencyKey).toMatch(UUID)
    expect(a.response.idempotencyKey).not.toBe(b.response.idempotencyKey)
  })

  it('cash collection and bank transfer are booked in the ledger with their kind', async () => {
    const { remit, simulator } = await setup()
    const beneficiaryId = await createBeneficiary(remit)
    await remit.transactions.cashCollection({ ...cashCollectionBody(beneficiaryId), amountSLE: 200.25 })
    await remit.transactions.bankTransfer(bankTransferBody(beneficiaryId))
    expect(simulator.ledger.map((e) => [e.kind, e.amountSLE, e.status])).toEqual([
      ['cash-collection', 200.25, 'ENTERED'],
      ['bank-transfer', 1000, 'ENTERED'],
    ])
  })

  it('a reused agentTransactionRef is refused (rule Platform 5) and the error names the first transaction', async () => {
    const { remit, simulator } = await setup()
    const body = { ...mobileTransferBody(await createBeneficiary(remit)), agentTransactionRef: 'AGENT-DUP' }
    await remit.transactions.mobileTransfer(body)
    const error = (await remit.transactions.mobileTransfer(body).catch((e: unknown) => e)) as RemittanceError
    expect(error).toBeInstanceOf(RemittanceError)
    expect(error.status).toBe(400)
    expect(error.title).toBe('Duplicate agentTransactionRef')
    expect(error.problem?.transactionId).toBe('TX000002')
    expect(error.fieldErrors.agentTransactionRef).toEqual(['This agentTransactionRef has already been used.'])
    expect(error.idempotencyKey).toBe('AGENT-DUP')
    expect(simulator.ledger).toHaveLength(1)
  })

  it('confirm commits the transaction and yields the reference number; a second confirm is refused', async () => {
    const { remit, simulator } = await setup()
    const data = await remit.transactions.mobileTransfer(mobileTransferBody(await createBeneficiary(remit)))
    const transactionId = String(record(data).transactionId)
    const confirmed = record(await remit.transactions.confirm(transactionId))
    expect(confirmed).toEqual({ transactionId, referenceNumber: 'RN000003', status: 'AGENT_OK' })
    expect(simulator.ledger[0]).toMatchObject({ status: 'AGENT_OK', referenceNumber: 'RN000003' })
    const again = (await remit.transactions.confirm(transactionId).catch((e: unknown) => e)) as RemittanceError
    expect(again).toBeInstanceOf(RemittanceError)
    expect([again.status, again.title, again.problem?.referenceNumber]).toEqual([
      400,
      'Transaction already confirmed',
      'RN000003',
    ])
  })

  it('confirm of an unknown transaction is a typed not_found error', async () => {
    const { remit } = await setup()
    const error = (await remit.transactions.confirm('TX-NOPE').catch((e: unknown) => e)) as RemittanceError
    expect([error.status, error.reason]).toEqual([404, 'not_found'])
  })

  it('a transfer to an unknown beneficiary is a 400 naming beneficiaryId, and carries the agentTransactionRef', async () => {
    const { remit } = await setup()
    const error = (await remit.transactions
      .mobileTransfer(mobileTransferBody('BEN-NOPE'))
      .catch((e: unknown) => e)) as RemittanceError
    expect(error.fieldErrors).toEqual({ beneficiaryId: ['Unknown beneficiary BEN-NOPE.'] })
    expect(error.idempotencyKey).toMatch(UUID)
  })

  it('the simulator can move a transaction on, and the status lookup shows it', async () => {
    const { remit, simulator } = await setup()
    const transfer = await remit.transactions.mobileTransfer(mobileTransferBody(await createBeneficiary(remit)))
    const agentTransactionRef = String(record(transfer).agentTransactionRef)
    simulator.setStatus(agentTransactionRef, 'PROCESSED')
    expect(record(await remit.lookup.transactionStatus(agentTransactionRef)).status).toBe('PROCESSED')
  })

  it('a transfer result is typed by a zod schema when one is given', async () => {
    const { remit } = await setup()
    const Created = z.object({ transactionId: z.string(), status: z.string() })
    const result = await remit.transactions.mobileTransfer(mobileTransferBody(await createBeneficiary(remit)), {
      schema: Created,
    })
    expectTypeOf(result).toEqualTypeOf<{ transactionId: string; status: string }>()
    expect(result.transactionId).toBe('TX000002')
  })

  it('.withResponse() gives the transfer result together with the HTTP answer', async () => {
    const { remit } = await setup()
    const { data, response } = await remit.transactions
      .bankTransfer(bankTransferBody(await createBeneficiary(remit)))
      .withResponse()
    expect(response.idempotencyKey).toMatch(UUID)
    expect(record(data).agentTransactionRef).toBe(response.idempotencyKey)
    expect(record(data).transType).toBe('Account')
    expect(response.status).toBe(201)
    expect(response.attempts).toBe(1)
  })
})
