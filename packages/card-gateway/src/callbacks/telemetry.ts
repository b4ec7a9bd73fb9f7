/** What the callback inbox publishes on `paywire:callback`: words and answers, never a body or hash. */

import type { CallbackMessage } from '@paywire/core'
import { telemetryWord } from '@paywire/core/engine'

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
