/**
 * Card gateway: handle typed errors with a `switch` on `reason`, one case per documented error.
 * Here: a refund on a pending payment (use VOID instead), a capture of an unknown transaction, and
 * bad input refused before anything is sent.
 *
 * Run: npx tsx examples/card-gateway/error-handling.ts
 * Env: PAYWIRE_CARD_* (see purchase-and-status.ts; else a local simulator)
 */
import { CardGateway, CardGatewayError, ConnectionError, RequestValidationError } from '@paywire/card-gateway'
import { cardGatewayConnection } from '../shared/connect.js'
import { expectThat, runIfMain, show } from '../shared/run.js'
import { authorisedPayment } from './shared.js'

/** What a merchant backend does with each failure; returns the reason it handled. */
function handle(error: unknown): string {
  if (error instanceof RequestValidationError) {
    show('refused before sending:', error.issues)
    return 'invalid_input'
  }
  if (error instanceof ConnectionError) {
    // requestSent: true means the gateway may have acted: look the payment up before repeating.
    show(`no answer (requestSent: ${error.requestSent}):`, error.message)
    return 'connection'
  }
  if (!(error instanceof CardGatewayError)) throw error
  switch (error.reason) {
    case 'refund_requires_settled':
    case 'refund_not_allowed':
      show(`${error.code} ${error.reason}: void the authorisation instead —`, error.message)
      break
    case 'transaction_does_not_exist':
    case 'order_does_not_exist':
    case 'payment_not_found':
      show(`${error.code} ${error.reason} (isNotFound: ${error.isNotFound})`)
      break
    case 'capture_not_pending':
      show('already captured or voided: read the status, do not capture again')
      break
    case 'key_environment_mismatch':
    case 'hash_invalid':
    case 'ip_not_allowed':
      show('configuration problem, page the on-call engineer:', error.message)
      break
    default:
      show(`unhandled gateway error ${error.code} ${error.reason}:`, error.message)
  }
  return error.reason
}

export async function main(): Promise<void> {
  const connection = await cardGatewayConnection()
  const gw = new CardGateway(connection.options)
  try {
    const pending = await authorisedPayment(gw, connection)
    const refund = await gw.s2s.creditVoid({ trans_id: pending.trans_id }).catch(handle)
    expectThat(refund === 'refund_requires_settled', 'a pending payment cannot be refunded')

    const unknown = await gw.s2s.capture({ trans_id: 'no-such-transaction' }).catch(handle)
    expectThat(unknown === 'transaction_does_not_exist', 'capture of an unknown transaction is not found (101000)')

    const bad = await gw.s2s.deleteSchedule({ schedule_id: 'not-a-uuid' }).catch(handle)
    expectThat(bad === 'invalid_input', 'a malformed schedule_id never leaves the process')
  } finally {
    await gw.close()
    await connection.close()
  }
}

runIfMain(import.meta.url, main)
