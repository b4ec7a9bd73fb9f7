import { describe, expect, expectTypeOf, it } from 'vitest'
import { z } from 'zod'
import { type LookupBanksResult, RemittanceError } from '../src/index.js'
import { remittanceFixtures } from '../src/testing/index.js'
import { createBeneficiary, mobileTransferBody, record, setup } from './helpers.js'

describe('lookups', () => {
  it('serve the reference data: countries, banks, branches, collection points, operators, credit types', async () => {
    const { remit } = await setup()
    expect(await remit.lookup.destinationCountries()).toEqual(remittanceFixtures.destinationCountries)
    expect(await remit.lookup.banks()).toEqual(remittanceFixtures.banks)
    expect(await remit.lookup.deliveryBanks()).toEqual(remittanceFixtures.deliveryBanks)
    expect(await remit.lookup.deliveryBankBranches()).toEqual(remittanceFixtures.deliveryBankBranches)
    expect(await remit.lookup.collectionPoints()).toEqual(remittanceFixtures.collectionPoints)
    expect(await remit.lookup.mobileOperators()).toEqual(remittanceFixtures.mobileOperators)
    expect(await remit.lookup.mobileOperatorCreditTypes()).toEqual(remittanceFixtures.mobileOperatorCreditTypes)
  })

  it('send the optional query object as given, arrays repeated, undefined left out', async () => {
    const { remit, server } = await setup()
    const banks = await remit.lookup.deliveryBanks({ countryCode: 'NG', page: 1, active: true, skip: undefined })
    expect(Array.isArray(banks) && banks.map((b) => record(b).bankId)).toEqual(['NG-GTB', 'NG-ZEN'])
    await remit.lookup.collectionPoints({ countryCode: ['GH', 'NG'] })
    expect(server.requests.map((r) => r.url)).toEqual([
      '/api/lookup/delivery-banks?countryCode=NG&page=1&active=true',
      '/api/lookup/collection-points?countryCode=GH&countryCode=NG',
    ])
  })

  it('rates are computed from the fixture rate: SOURCE from sendingAmountSLE', async () => {
    const { remit } = await setup()
    const quote = record(
      await remit.lookup.rates({ sendingAmountSLE: 1000, amountType: 'SOURCE', destCurrency: 'GHS' }),
    )
    expect(quote).toMatchObject({
      rate: 0.65,
      sendingAmountSLE: 1000,
      receivingAmountFX: 650,
      fees: 15,
      totalAmountSLE: 1015,
    })
  })

  it('rates: DESTINATION from receivingAmountFX, currency from the destination country', async () => {
    const { remit } = await setup()
    const quote = record(
      await remit.lookup.rates({ receivingAmountFX: 7025, amountType: 'DESTINATION', destinationCountry: 'NG' }),
    )
    expect(quote).toMatchObject({ destCurrency: 'NGN', sendingAmountSLE: 100, receivingAmountFX: 7025, fees: 5 })
  })

  it('rates for an unknown country answer 400 with the field in the errors map', async () => {
    const { remit } = await setup()
    const error = (await remit.lookup
      .rates({ sendingAmountSLE: 10, destinationCountry: 'XX' })
      .catch((e: unknown) => e)) as RemittanceError
    expect(error).toBeInstanceOf(RemittanceError)
    expect(error.fieldErrors).toEqual({ destinationCountry: ['Unknown destination country XX.'] })
  })

  it('name enquiry works as POST (body) and as GET (query), both answering the account name', async () => {
    const { remit, server } = await setup()
    expect(await remit.lookup.nameEnquiry({ bankCode: 'RCB', accountNumber: '0012345678' })).toMatchObject({
      accountName: 'Aminata Kamara',
    })
    expect(await remit.lookup.nameEnquiryLookup({ bankCode: 'SLCB', accountNumber: '0087654321' })).toMatchObject({
      accountName: 'Mohamed Sesay',
    })
    expect(server.requests.map((r) => r.method)).toEqual(['POST', 'GET'])
  })

  it('transaction status shows a confirmed transfer by its reference number, and by agentTransactionRef', async () => {
    const { remit } = await setup()
    const transfer = record(await remit.transactions.mobileTransfer(mobileTransferBody(await createBeneficiary(remit))))
    const transactionId = String(transfer.transactionId)
    const pending = record(await remit.lookup.transactionStatus(String(transfer.agentTransactionRef)))
    expect(pending).toMatchObject({ status: 'ENTERED', referenceNumber: null, transactionId })
    const confirmed = record(await remit.transactions.confirm(transactionId))
    const referenceNumber = String(confirmed.referenceNumber)
    expect(record(await remit.lookup.transactionStatus(referenceNumber))).toMatchObject({
      status: 'AGENT_OK',
      referenceNumber,
      transactionId,
      agentTransactionRef: transfer.agentTransactionRef,
    })
  })

  it('transaction status of an unknown reference is a typed not_found error', async () => {
    const { remit } = await setup()
    const error = (await remit.lookup.transactionStatus('RN-NOPE').catch((e: unknown) => e)) as RemittanceError
    expect(error).toBeInstanceOf(RemittanceError)
    expect([error.status, error.reason, error.title]).toEqual([404, 'not_found', 'Not Found'])
  })

  it("results have the lookup's own type by default, and are typed by a zod schema when one is given", async () => {
    const { remit } = await setup()
    const plain = remit.lookup.banks()
    expectTypeOf(plain).resolves.toEqualTypeOf<LookupBanksResult>()
    const timed = remit.lookup.banks(undefined, { timeout: 5_000 })
    expectTypeOf(timed).resolves.toEqualTypeOf<LookupBanksResult>()
    await Promise.all([plain, timed])
    const Banks = z.array(z.object({ bankCode: z.string(), bankName: z.string() }))
    const banks = await remit.lookup.banks(undefined, { schema: Banks })
    expectTypeOf(banks).toEqualTypeOf<{ bankCode: string; bankName: string }[]>()
    expect(banks[0]?.bankCode).toBe('RCB')
  })

  it('a success body that does not match the given schema rejects as response_schema_mismatch', async () => {
    const { remit } = await setup()
    const error = (await remit.lookup
      .banks(undefined, { schema: z.array(z.object({ swift: z.string() })) })
      .catch((e: unknown) => e)) as RemittanceError
    expect(error).toBeInstanceOf(RemittanceError)
    expect(error.reason).toBe('response_schema_mismatch')
    expect(error.status).toBe(200)
    expect(error.message).toContain('0.swift')
  })
})
