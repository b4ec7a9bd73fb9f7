/**
 * When this process wrote each intent it still holds open, on the client's monotonic clock:
 * reconciliation measures an intent's settle delay from it exactly, whatever the wall clock did.
 */

import { type Clock, type MonotonicMark, markNow } from '../clock.js'

/**
 * The monotonic mark of each intent this process wrote, by id: its settle delay is then measured
 * exactly, whatever the wall clock did. Forgotten once the intent is closed.
 */
const intentWritten = new Map<string, MonotonicMark>()

/** Records that this process wrote `intent` now, on the client's clock (the journal calls it). */
export function markIntentWritten(id: string, clock: Clock): void {
  intentWritten.set(id, markNow(clock))
}

/** Forgets the mark of a closed intent. */
export function forgetIntentMark(id: string): void {
  intentWritten.delete(id)
}

/** The mark of an intent this process wrote and has not closed, if any. */
export function intentWrittenMark(id: string): MonotonicMark | undefined {
  return intentWritten.get(id)
}
