/** The transfer fields every remittance example sends, and a beneficiary to send them to. */
import type { Remittance } from '@paywire/remittance'
import { z } from 'zod'

/** What the examples read from a created beneficiary (the spec documents no response body). */
export const CreatedBeneficiary = z.looseObject({ beneficiaryId: z.string() })

/** Creates a beneficiary in Ghana and returns its id. */
export async function ghanaBeneficiary(remit: Remittance): Promise<string> {
  const created = await remit.beneficiaries.create(
    {
      firstName: 'Kwame',
      lastName: 'Mensah',
      telephone: '+233201234567',
      mobile: '+233201234567',
      country: 'GH',
      nationality: 'GH',
      city: 'Accra',
      address1: '12 Independence Ave',
    },
    { schema: CreatedBeneficiary },
  )
  return created.beneficiaryId
}

/** The common fields of a transfer (spec: strings, except the numbers `amountSLE` and `fees`). */
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
