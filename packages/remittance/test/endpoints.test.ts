import type { Operation } from '@paywire/core/engine'
import { describe, expect, it } from 'vitest'
import type { Remittance } from '../src/index.js'
import { BENEFICIARIES } from '../src/resources/beneficiaries.js'
import { LOOKUP } from '../src/resources/lookup.js'
import { TRANSACTIONS } from '../src/resources/transactions.js'
import {
  bankTransferBody,
  beneficiary,
  cashCollectionBody,
  createBeneficiary,
  mobileTransferBody,
  record,
  sentBody,
  setup,
} from './helpers.js'

interface Row {
  readonly name: string
  readonly method: string
  readonly path: string
  /** Runs the call; may prepare state first (requests before the last one are not checked). */
  readonly run: (remit: Remittance) => Promise<unknown>
  /** Expected JSON types of the sent body, by field name; absent when there is no body. */
  readonly types?: Record<string, 'string' | 'number'>
}

const strings = (names: readonly string[]) => Object.fromEntries(names.map((n) => [n, 'string' as const]))
const commonTypes = {
  ...strings([
    'remitterId',
    'beneficiaryId',
    'destinationCountry',
    'transType',
    'purpose',
    'sourceOfIncome',
    'paymentMethod',
    'amountDeposited',
    'bankBranchDeposited',
    'serviceLevel',
    'smsConfirmation',
    'smsNotification',
    'smsMobile',
    'sourceCurrency',
    'destinationCurrency',
    'amountType',
    'agentTransactionRef',
    'benefTransRef',
    'amountToSend',
  ]),
  amountSLE: 'number' as const,
  fees: 'number' as const,
}

const rows: Row[] = [
  {
    name: 'beneficiaries.create',
    method: 'POST',
    path: '/api/beneficiaries',
    run: (r) => r.beneficiaries.create(beneficiary),
    types: strings(Object.keys(beneficiary)),
  },
  {
    name: 'beneficiaries.update',
    method: 'PUT',
    path: '/api/beneficiaries',
    run: async (r) => r.beneficiaries.update({ beneficiaryId: await createBeneficiary(r), city: 'Kumasi' }),
    types: { beneficiaryId: 'string', city: 'string' },
  },
  {
    name: 'beneficiaries.getByPosId',
    method: 'GET',
    path: '/api/beneficiaries/posid/POS-7',
    run: (r) => r.beneficiaries.getByPosId('POS-7'),
  },
  {
    name: 'beneficiaries.search',
    method: 'GET',
    path: '/api/beneficiaries/any/Conteh',
    run: (r) => r.beneficiaries.search('Conteh'),
  },
  {
    name: 'beneficiaries.getByTelephone',
    method: 'GET',
    path: '/api/beneficiaries/telephone/%2B23324',
    run: (r) => r.beneficiaries.getByTelephone('+23324'),
  },
  {
    name: 'lookup.nameEnquiry',
    method: 'POST',
    path: '/api/lookup/name-enquiry',
    run: (r) => r.lookup.nameEnquiry({ bankCode: 'RCB', accountNumber: '0012345678' }),
    types: { bankCode: 'string', accountNumber: 'string' },
  },
  {
    name: 'lookup.nameEnquiryLookup',
    method: 'GET',
    path: '/api/lookup/name-enquiry?bankCode=RCB&accountNumber=0012345678',
    run: (r) => r.lookup.nameEnquiryLookup({ bankCode: 'RCB', accountNumber: '0012345678' }),
  },
  {
    name: 'lookup.rates',
    method: 'POST',
    path: '/api/lookup/rates',
    run: (r) =>
      r.lookup.rates({
        sendingAmountSLE: 1000.5,
        receivingAmountFX: 0,
        amountType: 'SOURCE',
        sourceCurrency: 'SLE',
        destinationCountry: 'GH',
        destCurrency: 'GHS',
        serviceType: 'Mobile Transfer',
      }),
    types: {
      sendingAmountSLE: 'number',
      receivingAmountFX: 'number',
      ...strings(['amountType', 'sourceCurrency', 'destinationCountry', 'destCurrency', 'serviceType']),
    },
  },
  {
    name: 'lookup.destinationCountries',
    method: 'GET',
    path: '/api/lookup/destination-countries',
    run: (r) => r.lookup.destinationCountries(),
  },
  {
    name: 'lookup.deliveryBankBranches',
    method: 'GET',
    path: '/api/lookup/delivery-bank-branches?bankId=GH-GCB',
    run: (r) => r.lookup.deliveryBankBranches({ bankId: 'GH-GCB' }),
  },
  {
    name: 'lookup.deliveryBanks',
    method: 'GET',
    path: '/api/lookup/delivery-banks?countryCode=GH',
    run: (r) => r.lookup.deliveryBanks({ countryCode: 'GH' }),
  },
  {
    name: 'lookup.collectionPoints',
    method: 'GET',
    path: '/api/lookup/collection-points',
    run: (r) => r.lookup.collectionPoints(),
  },
  {
    name: 'lookup.mobileOperatorCreditTypes',
    method: 'GET',
    path: '/api/lookup/mobile-operator-credit-types?networkId=MTN-GH',
    run: (r) => r.lookup.mobileOperatorCreditTypes({ networkId: 'MTN-GH' }),
  },
  {
    name: 'lookup.mobileOperators',
    method: 'GET',
    path: '/api/lookup/mobile-operators',
    run: (r) => r.lookup.mobileOperators(),
  },
  { name: 'lookup.banks', method: 'GET', path: '/api/lookup/banks', run: (r) => r.lookup.banks() },
  {
    name: 'lookup.transactionStatus',
    method: 'GET',
    path: '/api/lookup/transaction/status/RN%2F1%20x',
    run: (r) => r.lookup.transactionStatus('RN/1 x').catch(() => undefined),
  },
  {
    name: 'transactions.mobileTransfer',
    method: 'POST',
    path: '/api/transactions/mobile-transfer',
    run: async (r) => r.transactions.mobileTransfer(mobileTransferBody(await createBeneficiary(r))),
    types: {
      ...commonTypes,
      ...strings([
        'beneficiaryMobileTransferNumber',
        'beneficiaryMobileTransferNetworkId',
        'beneficiaryMobileTransferNetworkCreditTypeId',
      ]),
    },
  },
  {
    name: 'transactions.cashCollection',
    method: 'POST',
    path: '/api/transactions/cash-collection',
    run: async (r) => r.transactions.cashCollection(cashCollectionBody(await createBeneficiary(r))),
    types: { ...commonTypes, ...strings(['collectionPointId', 'collectionPin']) },
  },
  {
    name: 'transactions.bankTransfer',
    method: 'POST',
    path: '/api/transactions/bank-transfer',
    run: async (r) => r.transactions.bankTransfer(bankTransferBody(await createBeneficiary(r))),
    types: { ...commonTypes, ...strings(['bankId', 'accountNumber']) },
  },
  {
    name: 'transactions.confirm',
    method: 'POST',
    path: '/api/transactions/confirm/TX000002',
    run: async (r) => {
      const data = await r.transactions.mobileTransfer(mobileTransferBody(await createBeneficiary(r)))
      expect(record(data).transactionId).toBe('TX000002')
      return r.transactions.confirm('TX000002')
    },
  },
]

/** The SDK's operation tables, by name: what the rows above (the service's endpoint list, rules Endpoints 1–20, restated on purpose) are checked against. */
const table = new Map<string, Operation<never>>(
  [...Object.values(BENEFICIARIES), ...Object.values(LOOKUP), ...Object.values(TRANSACTIONS)].map((row) => [
    row.name,
    row,
  ]),
)

/** `/api/transactions/confirm/{transactionId}` as a pattern a concrete path must match. */
function pathPattern(template: string): RegExp {
  const escaped = template.replace(/[.*+?^$()|[\]\\]/g, '\\$&')
  return new RegExp(`^${escaped.replace(/\\?\{\w+\\?\}/g, '[^/?]+')}(\\?.*)?$`)
}

describe('every endpoint of the service (rules Endpoints 1–20)', () => {
  it('has a row for each documented endpoint, each once (a row the service adds later is its own)', () => {
    expect(new Set(rows.map((row) => row.name)).size).toBe(rows.length)
    for (const row of rows) expect([...table.keys()], row.name).toContain(row.name)
  })

  it.each(rows)('$name: the operation table has the documented method and path', (row) => {
    const operation = table.get(row.name)
    expect(operation?.method).toBe(row.method)
    expect(row.path).toMatch(pathPattern(typeof operation?.path === 'string' ? operation.path : '(missing)'))
  })

  it.each(rows)('$name sends $method $path with x-code and the documented JSON types', async (row) => {
    const { remit, server, apiKey } = await setup()
    await row.run(remit)
    const sent = server.requests.at(-1)
    expect(sent?.method).toBe(row.method)
    expect(sent?.url).toBe(row.path)
    // Rule Authentication 1: every call, not only this one, carries the key.
    for (const request of server.requests) expect(request.headers['x-code']).toBe(apiKey)
    if (!row.types) {
      expect(sent?.body).toBe('')
      expect(sent?.headers['content-type']).toBeUndefined()
      return
    }
    expect(sent?.headers['content-type']).toBe('application/json')
    const body = sentBody(server.requests)
    expect(Object.keys(body).sort()).toEqual(Object.keys(row.types).sort())
    for (const [field, type] of Object.entries(row.types)) expect([field, typeof body[field]]).toEqual([field, type])
  })
})
