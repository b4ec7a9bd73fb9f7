import { HttpResponse, http } from 'msw'
import { describe, expect, expectTypeOf, it } from 'vitest'
import { z } from 'zod'
import { type DestinationCountry, type LookupRatesResult, type Remittance, RemittanceError } from '../src/index.js'
import { BENEFICIARY_KINDS } from '../src/resources/beneficiaries.js'
import {
  BANK_ACCOUNT_KINDS,
  BANK_KINDS,
  COLLECTION_POINT_KINDS,
  DELIVERY_BANK_BRANCH_KINDS,
  DELIVERY_BANK_KINDS,
  DESTINATION_COUNTRY_KINDS,
  MOBILE_OPERATOR_CREDIT_TYPE_KINDS,
  MOBILE_OPERATOR_KINDS,
  RATE_QUOTE_KINDS,
  TRANSACTION_STATUS_KINDS,
} from '../src/resources/lookup.js'
import { CONFIRMATION_KINDS, TRANSFER_KINDS } from '../src/resources/transactions.js'
import { bankTransferBody, beneficiary, cashCollectionBody, mobileTransferBody, setup } from './helpers.js'

/** The field names a result type declares (its kinds object lists exactly those, checked by the compiler). */
const fieldsOf = (kinds: object) => Object.keys(kinds).sort()

/** The members of a record the simulator answered. */
const membersOf = (value: unknown) => Object.keys(value as object).sort()

describe('typed results: the simulator answers every field the result types name, through the real client', () => {
  it('a transfer flow reads transactionId, then referenceNumber, then the status, with no cast', async () => {
    const { remit } = await setup()
    const created = await remit.beneficiaries.create(beneficiary)
    expectTypeOf(created?.beneficiaryId).toEqualTypeOf<string | number | null | undefined>()
    if (created?.beneficiaryId == null) throw new Error('the simulator answers the beneficiary')

    const transfer = await remit.transactions.mobileTransfer(mobileTransferBody(String(created.beneficiaryId)))
    expectTypeOf(transfer?.transactionId).toEqualTypeOf<string | number | null | undefined>()
    expectTypeOf(transfer?.status).toEqualTypeOf<string | number | null | undefined>()
    expect(transfer).toMatchObject({ transactionId: 'TX000002', status: 'ENTERED', transType: 'Mobile Transfer' })
    if (transfer?.transactionId == null) throw new Error('the simulator answers the transaction id')

    const confirmed = await remit.transactions.confirm(transfer.transactionId)
    expect(confirmed).toEqual({ transactionId: 'TX000002', referenceNumber: 'RN000003', status: 'AGENT_OK' })
    if (confirmed?.referenceNumber == null) throw new Error('the simulator answers the reference')

    const status = await remit.lookup.transactionStatus(confirmed.referenceNumber)
    expect(status?.status).toBe('AGENT_OK')
    expect(status?.agentTransactionRef).toBe(transfer.agentTransactionRef)
    expect(status?.receivingAmountFX).toBe(transfer.receivingAmountFX)
  })

  it('records: beneficiary, rate quote, name enquiry, transfers, confirm and status carry every typed field', async () => {
    const { remit } = await setup()
    const records: [string, unknown, object][] = []
    const created = await remit.beneficiaries.create(beneficiary)
    records.push(['beneficiaries.create', created, BENEFICIARY_KINDS])
    const beneficiaryId = String(created?.beneficiaryId)
    records.push([
      'beneficiaries.update',
      await remit.beneficiaries.update({ beneficiaryId, city: 'Kumasi' }),
      BENEFICIARY_KINDS,
    ])
    records.push([
      'lookup.rates',
      await remit.lookup.rates({ sendingAmountSLE: 100, destCurrency: 'GHS' }),
      RATE_QUOTE_KINDS,
    ])
    const account = { bankCode: 'RCB', accountNumber: '0012345678' }
    records.push(['lookup.nameEnquiry', await remit.lookup.nameEnquiry(account), BANK_ACCOUNT_KINDS])
    records.push(['lookup.nameEnquiryLookup', await remit.lookup.nameEnquiryLookup(account), BANK_ACCOUNT_KINDS])
    const mobile = await remit.transactions.mobileTransfer(mobileTransferBody(beneficiaryId))
    records.push(['transactions.mobileTransfer', mobile, TRANSFER_KINDS])
    const cash = await remit.transactions.cashCollection(cashCollectionBody(beneficiaryId))
    records.push(['transactions.cashCollection', cash, TRANSFER_KINDS])
    const bank = await remit.transactions.bankTransfer(bankTransferBody(beneficiaryId))
    records.push(['transactions.bankTransfer', bank, TRANSFER_KINDS])
    const confirmed = await remit.transactions.confirm(mobile?.transactionId ?? '')
    records.push(['transactions.confirm', confirmed, CONFIRMATION_KINDS])
    records.push([
      'lookup.transactionStatus',
      await remit.lookup.transactionStatus(confirmed?.referenceNumber ?? ''),
      TRANSACTION_STATUS_KINDS,
    ])
    for (const [operation, value, kinds] of records) {
      expect(membersOf(value), operation).toEqual(expect.arrayContaining(fieldsOf(kinds)))
    }
    expect([mobile?.transType, cash?.transType, bank?.transType]).toEqual([
      'Mobile Transfer',
      'Cash Collection',
      'Account',
    ])
  })

  it('lists: beneficiary finds and every reference-data lookup answer arrays of records with every typed field', async () => {
    const { remit } = await setup()
    await remit.beneficiaries.create(beneficiary)
    const lists: [string, (remit: Remittance) => Promise<readonly object[] | undefined>, object][] = [
      ['beneficiaries.getByPosId', (r) => r.beneficiaries.getByPosId(beneficiary.posid), BENEFICIARY_KINDS],
      ['beneficiaries.search', (r) => r.beneficiaries.search('Conteh'), BENEFICIARY_KINDS],
      ['beneficiaries.getByTelephone', (r) => r.beneficiaries.getByTelephone(beneficiary.mobile), BENEFICIARY_KINDS],
      ['lookup.destinationCountries', (r) => r.lookup.destinationCountries(), DESTINATION_COUNTRY_KINDS],
      ['lookup.deliveryBanks', (r) => r.lookup.deliveryBanks(), DELIVERY_BANK_KINDS],
      ['lookup.deliveryBankBranches', (r) => r.lookup.deliveryBankBranches(), DELIVERY_BANK_BRANCH_KINDS],
      ['lookup.collectionPoints', (r) => r.lookup.collectionPoints(), COLLECTION_POINT_KINDS],
      ['lookup.mobileOperators', (r) => r.lookup.mobileOperators(), MOBILE_OPERATOR_KINDS],
      [
        'lookup.mobileOperatorCreditTypes',
        (r) => r.lookup.mobileOperatorCreditTypes(),
        MOBILE_OPERATOR_CREDIT_TYPE_KINDS,
      ],
      ['lookup.banks', (r) => r.lookup.banks(), BANK_KINDS],
    ]
    for (const [operation, call, kinds] of lists) {
      const items = await call(remit)
      expect(Array.isArray(items) && items.length > 0, operation).toBe(true)
      for (const item of items ?? [])
        expect(membersOf(item), operation).toEqual(expect.arrayContaining(fieldsOf(kinds)))
    }
    const countries = await remit.lookup.destinationCountries({ countryCode: 'GM' })
    expectTypeOf(countries).toEqualTypeOf<readonly DestinationCountry[] | undefined>()
    expect(countries?.[0]?.serviceTypes).toEqual(['Cash Collection', 'Mobile Transfer'])
  })

  it('the result types are exported under their names and keep unknown members as unknown', async () => {
    const { remit, server } = await setup()
    server.use(http.post('*/api/lookup/rates', () => HttpResponse.json({ rate: '0.65', promoCode: 'NEWYEAR' })))
    const quote = await remit.lookup.rates({ sendingAmountSLE: 100, destCurrency: 'GHS' })
    expectTypeOf(quote).toEqualTypeOf<LookupRatesResult>()
    expectTypeOf(quote?.rate).toEqualTypeOf<string | number | null | undefined>()
    expectTypeOf(quote?.['promoCode']).toEqualTypeOf<unknown>()
    expect(quote).toEqual({ rate: '0.65', promoCode: 'NEWYEAR' })
  })
})

describe('typed results: the decoders check what the types promise', () => {
  it('identifiers and amounts may be numbers or strings, and any field null: a numeric transactionId confirms', async () => {
    const { remit, server } = await setup()
    server.use(
      http.post('*/api/transactions/mobile-transfer', () =>
        HttpResponse.json({ transactionId: 731, status: 4, fees: '15.00', destCurrency: null }, { status: 201 }),
      ),
      http.post('*/api/transactions/confirm/:transactionId', ({ params }) =>
        HttpResponse.json({ transactionId: Number(params.transactionId), referenceNumber: 90210 }),
      ),
    )
    const transfer = await remit.transactions.mobileTransfer(mobileTransferBody('BEN1'))
    expect(transfer).toEqual({ transactionId: 731, status: 4, fees: '15.00', destCurrency: null })
    const confirmed = await remit.transactions.confirm(transfer?.transactionId ?? 0)
    expect(confirmed?.referenceNumber).toBe(90210)
    expect(server.requests.at(-1)?.url).toBe('/api/transactions/confirm/731')
  })

  it('a transfer answer whose transactionId is an object is unreadable, and the transfer an unknown outcome to reconcile', async () => {
    const { remit, server } = await setup()
    server.use(
      http.post('*/api/transactions/mobile-transfer', () =>
        HttpResponse.json({ transactionId: { id: 7 }, status: 'ENTERED' }, { status: 201 }),
      ),
    )
    const error = (await remit.transactions
      .mobileTransfer({ ...mobileTransferBody('BEN1'), agentTransactionRef: 'AGENT-7' })
      .catch((e: unknown) => e)) as RemittanceError
    expect(error).toBeInstanceOf(RemittanceError)
    expect(error.reason).toBe('unreadable_response')
    expect(error.status).toBe(201)
    expect(error.message).toContain(
      'the success answer (HTTP 201) could not be read: transactionId is an object, not a string or number; pass a schema to accept another shape.',
    )
    expect(error.outcomeUnknown).toBe(true)
    expect(error.idempotencyKey).toBe('AGENT-7')
    expect(error.body).toEqual({ transactionId: { id: 7 }, status: 'ENTERED' })
  })

  it('a list lookup answered with an envelope is unreadable without a schema, and read with one', async () => {
    const { remit, server } = await setup()
    const envelope = { data: [{ bankCode: 'RCB', bankName: 'Rokel Commercial Bank' }] }
    server.use(http.get('*/api/lookup/banks', () => HttpResponse.json(envelope)))
    const error = (await remit.lookup.banks().catch((e: unknown) => e)) as RemittanceError
    expect(error.reason).toBe('unreadable_response')
    expect(error.message).toContain('a JSON array (or no body) was expected, not an object; pass a schema')
    const Envelope = z.object({ data: z.array(z.object({ bankCode: z.string() })) })
    const read = await remit.lookup.banks(undefined, { schema: Envelope })
    expect(read.data[0]?.bankCode).toBe('RCB')
  })

  it('a list item of the wrong kind is named by its index', async () => {
    const { remit, server } = await setup()
    server.use(http.get('*/api/lookup/mobile-operators', () => HttpResponse.json([{ networkId: 'MTN-GH' }, 'ORANGE'])))
    const error = (await remit.lookup.mobileOperators().catch((e: unknown) => e)) as RemittanceError
    expect(error.message).toContain('item 1 is a string, not a JSON object')
    server.use(http.get('*/api/lookup/mobile-operators', () => HttpResponse.json([{ networkId: ['MTN'] }])))
    const nested = (await remit.lookup.mobileOperators().catch((e: unknown) => e)) as RemittanceError
    expect(nested.message).toContain('item 0: networkId is an array, not a string or number')
  })

  it('an empty 200 stays undefined, and a JSON null is read as no body', async () => {
    const { remit, server } = await setup()
    server.use(http.get('*/api/lookup/banks', () => new HttpResponse(null, { status: 200 })))
    expect(await remit.lookup.banks()).toBeUndefined()
    server.use(http.get('*/api/lookup/banks', () => HttpResponse.json(null)))
    expect(await remit.lookup.banks()).toBeUndefined()
  })

  it('z.json() keeps the former any-JSON result', async () => {
    const { remit, server } = await setup()
    server.use(http.post('*/api/lookup/rates', () => HttpResponse.json([0.65, 'GHS'])))
    const raw = await remit.lookup.rates({ sendingAmountSLE: 1 }, { schema: z.json().optional() })
    expect(raw).toEqual([0.65, 'GHS'])
  })
})
