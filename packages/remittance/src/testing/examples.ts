/**
 * One sample call of every remittance endpoint, for the endpoint checklist: each the argument list
 * of its method, made from a client on the remittance simulator, which answers it with success. A
 * call that needs state creates it through `setup.client` first (a beneficiary before an update, a
 * transfer before its confirm, a confirmed transfer before its status). Not part of the testing
 * kit's exports.
 */

import type { EndpointExamples } from '@paywire/core/engine'
import type { Remittance } from '../client.js'
import type { ENDPOINTS } from '../endpoints.js'

/** What every example is made from: a client on a fresh `RemittanceSimulator`. */
export interface ExampleSetup {
  readonly client: Remittance
}

const BENEFICIARY = {
  linkedRemitterId: 'REM-1',
  firstName: 'Fatmata',
  lastName: 'Conteh',
  address1: '12 Siaka Stevens Street',
  city: 'Freetown',
  country: 'GH',
  nationality: 'SL',
  telephone: '+233 24 555 0101',
  posid: 'POS-7',
  mobile: '+233245550101',
  idDetails: 'PASSPORT P1234567',
} as const

/** A beneficiary registered on the simulator, by its id. */
async function beneficiaryId(client: Remittance): Promise<string> {
  const created = await client.beneficiaries.create(BENEFICIARY)
  if (created?.beneficiaryId == null) throw new Error('the simulator answered the create without a beneficiaryId')
  return String(created.beneficiaryId)
}

/** The fields every transfer to Ghana shares; `agentTransactionRef` is left to the client to generate. */
function transfer(beneficiaryId: string) {
  return {
    remitterId: 'REM-1',
    beneficiaryId,
    destinationCountry: 'GH',
    purpose: 'Family support',
    sourceOfIncome: 'Salary',
    sourceCurrency: 'SLE',
    destinationCurrency: 'GHS',
    amountType: 'SOURCE',
    amountSLE: 1000,
  }
}

function mobileTransfer(beneficiaryId: string) {
  return {
    ...transfer(beneficiaryId),
    transType: 'Mobile Transfer',
    beneficiaryMobileTransferNumber: '+233245550101',
    beneficiaryMobileTransferNetworkId: 'MTN-GH',
    beneficiaryMobileTransferNetworkCreditTypeId: 'MTN-GH-WALLET',
  }
}

/** The id of a transfer made on the simulator, not yet confirmed. */
async function transactionId(client: Remittance): Promise<string> {
  const made = await client.transactions.mobileTransfer(mobileTransfer(await beneficiaryId(client)))
  if (made?.transactionId == null) throw new Error('the simulator answered the transfer without a transactionId')
  return String(made.transactionId)
}

const ACCOUNT = { bankCode: 'RCB', accountNumber: '0012345678' }

/** One example per row of each group of `ENDPOINTS`. */
export const EXAMPLES: {
  readonly [G in keyof typeof ENDPOINTS]: EndpointExamples<(typeof ENDPOINTS)[G], ExampleSetup>
} = {
  beneficiaries: {
    create: () => [BENEFICIARY],
    // With its posid: the key a beneficiary write is reconciled by (an update without one carries none).
    update: async ({ client }) => [
      { beneficiaryId: await beneficiaryId(client), posid: BENEFICIARY.posid, city: 'Kumasi' },
    ],
    getByPosId: async ({ client }) => {
      await beneficiaryId(client)
      return [BENEFICIARY.posid]
    },
    search: async ({ client }) => {
      await beneficiaryId(client)
      return ['Conteh']
    },
    getByTelephone: async ({ client }) => {
      await beneficiaryId(client)
      return [BENEFICIARY.telephone]
    },
  },
  lookup: {
    rates: () => [{ sendingAmountSLE: 100, destCurrency: 'GHS' }],
    nameEnquiry: () => [ACCOUNT],
    nameEnquiryLookup: () => [ACCOUNT],
    destinationCountries: () => [],
    deliveryBankBranches: () => [{ bankId: 'GH-GCB' }],
    deliveryBanks: () => [{ countryCode: 'GH' }],
    collectionPoints: () => [],
    mobileOperatorCreditTypes: () => [],
    mobileOperators: () => [],
    banks: () => [],
    transactionStatus: async ({ client }) => {
      const confirmed = await client.transactions.confirm(await transactionId(client))
      if (confirmed?.referenceNumber == null) throw new Error('the simulator confirmed without a referenceNumber')
      return [confirmed.referenceNumber]
    },
  },
  transactions: {
    mobileTransfer: async ({ client }) => [mobileTransfer(await beneficiaryId(client))],
    cashCollection: async ({ client }) => [
      {
        ...transfer(await beneficiaryId(client)),
        transType: 'Cash Collection',
        collectionPointId: 'CP-GH-001',
        collectionPin: '4321',
      },
    ],
    bankTransfer: async ({ client }) => [
      { ...transfer(await beneficiaryId(client)), transType: 'Account', bankId: 'GH-GCB', accountNumber: '1020304050' },
    ],
    confirm: async ({ client }) => [await transactionId(client)],
  },
}
