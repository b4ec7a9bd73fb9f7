/** Dead letters: events set aside after their attempts were used up, and the reason a run failed. */

import { brandErrorClass, PaywireError } from '../errors/errors.js'
import type { StoredEvent, TakenEvent } from './store.js'

/** A run set aside after its attempts were used up; `onError` hears it, `failedEvents()` lists it. */
export class DeadLetterError extends PaywireError {
  override readonly name: string = 'DeadLetterError'
  /** The event's dedupe key: what `retry(key)` takes. */
  readonly key: string
  readonly attempts: number

  constructor(operation: string, event: StoredEvent, cause: unknown) {
    super(
      `${operation}: event ${JSON.stringify(event.key)} is set aside after ${event.attempts} attempt${event.attempts === 1 ? '' : 's'} (${event.lastError ?? 'no reason recorded'}); list it with failedEvents() and run it again with retry(key) once the cause is fixed`,
      { cause },
    )
    this.key = event.key
    this.attempts = event.attempts
  }
}

brandErrorClass(DeadLetterError, 'DeadLetterError')

/** An error's class and message, as a dead letter's reason: never event data; at most 500 characters. */
export function failureReason(error: unknown): string | undefined {
  if (error === undefined) return undefined
  const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error)
  return text.length > 500 ? `${text.slice(0, 500)}…` : text
}

/**
 * An event that ran before and is due again: it may be what killed its last process, and it would
 * take every event running beside it down too (each then a step nearer the dead letters).
 */
export function isSuspect(item: TakenEvent): boolean {
  return !item.dead && item.event.attempts > 1
}

/**
 * A recovery batch split so that suspects run one at a time on an instance: the first suspect (none
 * when one already runs here) starts with the others, every further one goes back for a later round.
 */
export function splitSuspects(
  batch: readonly TakenEvent[],
  suspectRunning: boolean,
): { toStart: TakenEvent[]; toHandBack: TakenEvent[] } {
  const toStart: TakenEvent[] = []
  const toHandBack: TakenEvent[] = []
  let suspectChosen = suspectRunning
  for (const item of batch) {
    if (isSuspect(item) && suspectChosen) toHandBack.push(item)
    else {
      suspectChosen ||= isSuspect(item)
      toStart.push(item)
    }
  }
  return { toStart, toHandBack }
}
