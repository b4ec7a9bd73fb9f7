/**
 * Remittance: register a beneficiary, then find it by telephone, by any value and by posid.
 *
 * Run: npx tsx examples/remittance/beneficiaries.ts
 * Env: PAYWIRE_REMIT_BASE_URL, PAYWIRE_REMIT_API_KEY (else a local simulator)
 */
import { Remittance } from '@paywire/remittance'
import { remittanceConnection } from '../shared/connect.js'
import { runIfMain, show } from '../shared/run.js'

export async function main(): Promise<void> {
  const connection = await remittanceConnection()
  const remit = new Remittance(connection.options)
  try {
    // Every beneficiary field is a string (rule Resources 1); the service decides which are required.
    const created = await remit.beneficiaries.create({
      firstName: 'Aminata',
      lastName: 'Kamara',
      telephone: '+23276123456',
      posid: 'POS-7788',
      country: 'SL',
      city: 'Freetown',
    })
    show('beneficiaries.create →', created)
    show('  its id, which transfers send as beneficiaryId:', created?.beneficiaryId)

    const byTelephone = await remit.beneficiaries.getByTelephone('+23276123456')
    show(
      'beneficiaries.getByTelephone →',
      byTelephone?.map((found) => `${found.firstName} ${found.lastName}`),
    )
    show('beneficiaries.search("Kamara") →', await remit.beneficiaries.search('Kamara'))
    show('beneficiaries.getByPosId →', await remit.beneficiaries.getByPosId('POS-7788'))
  } finally {
    await remit.close()
    await connection.close()
  }
}

runIfMain(import.meta.url, main)
