/** The transfer fields every remittance example sends, and a beneficiary to send them to. */
import type { Remittance } from '@paywire/remittance'

/** Creates a beneficiary in Ghana and returns its id, as transfers send it (a string). */
export async function ghanaBeneficiary(remit: Remittance): Promise<string> {
  const created = await remit.beneficiaries.create({
    firstName: 'Kwame',
    lastName: 'Mensah',
    telephone: '+233201234567',
    mobile: '+233201234567',
    country: 'GH',
    nationality: 'GH',
    city: 'Accra',
    address1: '12 Independence Ave',
  })
  // The 201 may come without a body (rule Endpoints 1), and an id may be a number (rule Platform 11).
  const beneficiaryId =
    created?.beneficiaryId ?? (await remit.beneficiaries.getByTelephone('+233201234567'))?.[0]?.beneficiaryId
  if (beneficiaryId == null) throw new Error('the service registered no beneficiary')
  return String(beneficiaryId)
}

/** The common fields of a transfer: strings, except the numbers `amountSLE` and `fees` (rule Resources 3). */
export function transferBasics(beneficiaryId: string) {
  return {
    remitterId: 'REM-0001',
    beneficiaryId,
    destinationCountry: 'GH',
    destinationCurrency: 'GHS',
    sourceCurrency: 'SLE',
    purpose: 'Family support',
    sourceOfIncome: 'Salary',
    amountType: 'SOURCE',
    amountSLE: 1500.5,
  }
}
