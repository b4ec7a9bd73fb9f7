/** What the callback inbox publishes on `paywire:callback` and `paywire:claim`: words and answers, never a body or hash. */

import type { CallbackMessage, ClaimMessage, ClaimState } from '@paywire/core'
import { channelIfObserved, errorClass, telemetryWord } from '@paywire/core/engine'

/** A `paywire:callback` message for one delivery, filled in as it is verified, claimed and answered. */
export function callbackMessage(): CallbackMessage {
  return {
    service: 'card-gateway',
    status: undefined,
    answer: undefined,
    eventType: undefined,
    eventStatus: undefined,
    claim: undefined,
    errorType: undefined,
  }
}

/** A word of the event for telemetry (`SALE`, `SETTLED`), by the same rule as an answer's word: anything else is left out. */
export function word(value: unknown): string | undefined {
  return telemetryWord(value)
}

/** Publishes a claim store step on `paywire:claim` when someone subscribes: the action and its answer only. */
export function claimEvent(action: ClaimMessage['action'], state: ClaimState | undefined, error?: unknown): void {
  const channel = channelIfObserved('claim')
  if (channel === undefined) return
  const message: ClaimMessage = {
    action,
    service: 'card-gateway',
    state,
    ok: error === undefined,
    errorType: error === undefined ? undefined : errorClass(error),
  }
  channel.publish(message)
}
