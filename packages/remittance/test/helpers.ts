/** Shared test set-up: a fresh simulator on loopback and a client with a test clock, closed after the test. */

import { createTestClock } from '@paywire/core/testing'
import { onTestFinished } from 'vitest'
import { Remittance, type RemittanceOptions } from '../src/index.js'
import { type RemittanceSimulatorOptions, startRemittanceSimulator } from '../src/testing/index.js'

export async function setup(
  options: Partial<RemittanceOptions> = {},
  simulatorOptions: RemittanceSimulatorOptions = {},
) {
  const started = await startRemittanceSimulator(simulatorOptions)
  const clock = createTestClock()
  const remit = new Remittance({ ...started.clientOptions, clock, ...options })
  onTestFinished(async () => {
    await remit.close()
    await started.close()
  })
  return { ...started, apiKey: started.clientOptions.apiKey, remit, clock }
}

/** The body of the `index`-th recorded request (default: the last), parsed. */
export function sentBody(requests: readonly { body: string }[], index = requests.length - 1): Record<string, unknown> {
  const request = requests[index]
  if (!request) throw new Error(`no request #${index}`)
  return JSON.parse(request.body) as Record<string, unknown>
}

export const beneficiary = {
  linkedRemitterId: 'REM-1',
  firstName: 'Fatmata',
  lastName: 'Conteh',
  address1: '12 Siaka Stevens Street',
  city: 'Freetown',
  state: 'Western Area',
  postcode: '00232',
  country: 'GH',
  nationality: 'SL',
  telephone: '+233 24 555 0101',
  posid: 'POS-7',
  mobile: '+233245550101',
  idDetails: 'PASSPORT P1234567',
} as const

/** Creates a beneficiary in the simulator and returns its id. */
export async function createBeneficiary(remit: Remittance, fields: Record<string, string> = {}): Promise<string> {
  const created = await remit.beneficiaries.create({ ...beneficiary, ...fields })
  if (typeof created !== 'object' || created === null || Array.isArray(created)) throw new Error('no record')
  return String(created.beneficiaryId)
}

export function mobileTransferBody(beneficiaryId: string) {
  return {
    remitterId: 'REM-1',
    beneficiaryId,
    destinationCountry: 'GH',
    transType: 'Mobile Transfer',
    purpose: 'Family support',
    sourceOfIncome: 'Salary',
    paymentMethod: 'Cash',
    amountDeposited: '1015.00',
    bankBranchDeposited: 'Freetown Main',
    serviceLevel: 'STANDARD',
    smsConfirmation: 'Y',
    smsNotification: 'Y',
    smsMobile: '+23276123456',
    sourceCurrency: 'SLE',
    destinationCurrency: 'GHS',
    amountType: 'SOURCE',
    benefTransRef: 'B-1',
    amountToSend: '1000.00',
    amountSLE: 1000,
    fees: 15,
    beneficiaryMobileTransferNumber: '+233245550101',
    beneficiaryMobileTransferNetworkId: 'MTN-GH',
    beneficiaryMobileTransferNetworkCreditTypeId: 'MTN-GH-WALLET',
  }
}

export function cashCollectionBody(beneficiaryId: string) {
  const {
    beneficiaryMobileTransferNumber,
    beneficiaryMobileTransferNetworkId,
    beneficiaryMobileTransferNetworkCreditTypeId,
    ...common
  } = mobileTransferBody(beneficiaryId)
  return { ...common, transType: 'Cash Collection', collectionPointId: 'CP-GH-001', collectionPin: '4321' }
}

export function bankTransferBody(beneficiaryId: string) {
  const { collectionPointId, collectionPin, ...common } = cashCollectionBody(beneficiaryId)
  return { ...common, transType: 'Account', bankId: 'GH-GCB', accountNumber: '1020304050' }
}

/** Narrows a JSON result to an object for assertions. */
export function record(value: unknown): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new Error(`not an object: ${String(value)}`)
  return value as Record<string, unknown>
}
