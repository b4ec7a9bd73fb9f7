/** What the inbox reads of a delivery it refused: whether an adapter answered already, and the ids the body claims. */

import type { Logger } from '@paywire/core'
import { logLine } from '@paywire/core/engine'
import { parseRawBody } from './body.js'
import type { CallbackRefusal } from './handler-options.js'
import { BODY_ALREADY_PARSED, type CallbackResponse } from './read.js'

/**
 * Makes a refusal loud: `onRefused` hears it, and the logger at warn (the client's, or the console
 * level `PAYWIRE_LOG` names), with the reason and the ids the body claims: never the body, the hash
 * or the password. Observers that throw change nothing: the answer stands.
 */
export function reportRefusal(
  refusal: CallbackRefusal,
  onRefused: ((refusal: CallbackRefusal) => void) | undefined,
  logger: Logger | undefined,
): void {
  try {
    onRefused?.(refusal)
  } catch {
    // The answer is chosen already.
  }
  if (logger === undefined) return
  const { reason, status, claimed, error } = refusal
  const why = error === undefined ? BODY_ALREADY_PARSED.slice(BODY_ALREADY_PARSED.indexOf(':') + 2) : error.message
  try {
    logLine(logger, 'warn', `paywire callback refused: ${status} ${reason}: ${why}`, { reason, status, claimed })
  } catch {
    // A logger that throws changes nothing either.
  }
}

/** Whether an adapter already chose the answer (413 while reading, a body a parser took). */
export function isAnswer(body: unknown): body is CallbackResponse {
  return (
    typeof body === 'object' && body !== null && !(body instanceof Uint8Array) && 'status' in body && 'headers' in body
  )
}

/** Printable ASCII, at most 64 characters: a claimed id is written into log lines, where it must not forge a line. */
function printableId(value: string | undefined): string | undefined {
  if (value === undefined || value === '') return undefined
  return value.replace(/[^\x20-\x7e]/g, '?').slice(0, 64)
}

/**
 * The ids a refused body claims, read only when the body parses within the limits (a body refused
 * for its size or shape is not read again). Unverified: anyone can post them.
 */
export function claimedIds(rawBody: string | Uint8Array | undefined, maxBodyBytes: number): CallbackRefusal['claimed'] {
  if (rawBody === undefined) return {}
  let fields: Record<string, string>
  try {
    fields = parseRawBody(rawBody, maxBodyBytes)
  } catch {
    return {}
  }
  const claimed = {
    id: printableId(fields['id']),
    order: printableId(fields['order_number'] ?? fields['order_id']),
    trans_id: printableId(fields['trans_id']),
    type: printableId(fields['type'] ?? fields['action']),
    status: printableId(fields['status']),
  }
  return Object.fromEntries(Object.entries(claimed).filter(([, v]) => v !== undefined))
}
