/**
 * Settling at once a CAPTURE or VOID whose answer on a kept-alive connection was not believed (it
 * may have been an earlier request's second answer, and the call's own answer was lost with the
 * connection): GET_TRANS_STATUS on a connection of its own, within what is left of the call's time.
 * Proof counts either way, on a record of this transaction and of the lookup or this action (rule
 * States 3): a status among the operation's `applied` ones proves it acted (by this call or an
 * earlier one: the state refuses a second); one among its `notApplied` ones other than PENDING
 * proves it did not and never will (the payment has left the state the operation needs, rules
 * States 1 and 2). PENDING proves nothing yet (the call may still be on its way): the unknown
 * outcome stands for `reconcile` to settle later. No such transaction proves it did not either.
 */

import type { ConnectionError, PaywireError } from '@paywire/core'
import type { OperationClient, SettledAtOnce } from '@paywire/core/engine'
import { CardGatewayError } from './errors.js'
import type { GatewayContext } from './fields.js'
import { S2S_OUTCOMES, s2sUnproven } from './reconcile.js'
import { S2sResource } from './resources/s2s.js'

/** What the lookup proves of `error`'s CAPTURE or VOID at once; `undefined` when it proves nothing yet. */
export async function settleActionAtOnce(
  error: PaywireError,
  within: { readonly timeoutMs: number; readonly signal: AbortSignal | undefined },
  engine: OperationClient<GatewayContext>,
): Promise<SettledAtOnce | undefined> {
  const operation = (error as ConnectionError).operation
  const rule = S2S_OUTCOMES[operation]
  const key = error.reconciliation
  if (rule === undefined || key?.key !== 'trans_id') return undefined
  const lookups = new S2sResource(engine.onOwnConnections())
  const answer = await lookups
    .getTransStatus({ trans_id: key.value }, { timeout: within.timeoutMs, maxRetries: 0, signal: within.signal })
    .withResponse()
    .catch((error: unknown) => {
      // No such transaction: nothing can capture or void it, now or later.
      if (error instanceof CardGatewayError && error.isNotFound) return undefined
      throw error
    })
  if (answer === undefined) {
    return {
      notApplied: true,
      refusals: [101000, 100000],
      evidence: `GET_TRANS_STATUS finds no transaction ${key.value}`,
    }
  }
  if (s2sUnproven('GET_TRANS_STATUS', rule.action, answer.data, key) !== undefined) return undefined
  const status = String(answer.data.status).toUpperCase()
  if (rule.applied.includes(status)) return { applied: answer }
  if (status !== 'PENDING' && rule.notApplied.includes(status)) {
    // What the gateway answers the action outside `pending` (rules States 1 and 2).
    const refusals = rule.action === 'CAPTURE' ? [208003] : [204005]
    return { notApplied: true, refusals, evidence: `GET_TRANS_STATUS shows ${key.value} as ${status}` }
  }
  return undefined
}
