/**
 * Remittance: typed ProblemDetails handling. A 400 carries the RFC 9457 record with the ASP.NET
 * `errors` map; bad input is refused before sending; a rejected key names the `x-code` header.
 *
 * Run: npx tsx examples/remittance/problem-details.ts
 * Env: PAYWIRE_REMIT_BASE_URL, PAYWIRE_REMIT_API_KEY (else a local simulator)
 */
import { Remittance, RemittanceError, RequestValidationError } from '@paywire/remittance'
import { remittanceConnection } from '../shared/connect.js'
import { expectThat, runIfMain, show } from '../shared/run.js'

export async function main(): Promise<void> {
  const connection = await remittanceConnection()
  const remit = new Remittance(connection.options)
  const wrongKey = new Remittance({ ...connection.options, apiKey: 'not-the-key' })
  try {
    try {
      await remit.beneficiaries.create({ firstName: 'NoSurname' })
      expectThat(false, 'the service refuses an incomplete beneficiary')
    } catch (error) {
      if (!(error instanceof RemittanceError)) throw error
      show(`${error.status} ${error.reason}: ${error.title} —`, error.fieldErrors)
    }

    try {
      // @ts-expect-error sendingAmountSLE is a number (rule Resources 2); the SDK refuses a string before sending.
      await remit.lookup.rates({ sendingAmountSLE: '100', amountType: 'SOURCE' })
    } catch (error) {
      if (!(error instanceof RequestValidationError)) throw error
      show('refused before sending:', error.issues)
    }

    try {
      await wrongKey.lookup.banks()
    } catch (error) {
      if (!(error instanceof RemittanceError)) throw error
      show(`${error.status} ${error.reason}:`, error.message)
      expectThat(error.message.includes('x-code'), 'the message names the x-code header')
    }
  } finally {
    await wrongKey.close()
    await remit.close()
    await connection.close()
  }
}

runIfMain(import.meta.url, main)
