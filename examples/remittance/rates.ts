/**
 * Remittance: quote a transfer with the rate lookup, then list the reference data a transfer form needs.
 *
 * Run: npx tsx examples/remittance/rates.ts
 * Env: PAYWIRE_REMIT_BASE_URL, PAYWIRE_REMIT_API_KEY (else a local simulator)
 */
import { Remittance } from '@paywire/remittance'
import { remittanceConnection } from '../shared/connect.js'
import { runIfMain, show } from '../shared/run.js'

export async function main(): Promise<void> {
  const connection = await remittanceConnection()
  const remit = new Remittance(connection.options)
  try {
    // sendingAmountSLE and receivingAmountFX are numbers; SLE amounts have at most 2 decimals.
    const quote = await remit.lookup.rates({
      sendingAmountSLE: 2500,
      amountType: 'SOURCE',
      sourceCurrency: 'SLE',
      destinationCountry: 'GH',
      destCurrency: 'GHS',
      serviceType: 'Mobile Transfer',
    })
    show('lookup.rates →', quote)
    show(`  2500 SLE + ${quote?.fees} SLE fees buys`, `${quote?.receivingAmountFX} ${quote?.destCurrency}`)

    // Lookups are safe to repeat: retried on timeouts, 429 and 502/503/504 (upstream failures).
    const countries = await remit.lookup.destinationCountries()
    show(
      'lookup.destinationCountries →',
      countries?.map((country) => `${country.countryCode}: ${country.serviceTypes?.join(', ')}`),
    )
    show('lookup.mobileOperators →', await remit.lookup.mobileOperators({ countryCode: 'GH' }))
  } finally {
    await remit.close()
    await connection.close()
  }
}

runIfMain(import.meta.url, main)
