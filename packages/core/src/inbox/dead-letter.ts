/** Dead letters: events set aside after their attempts were used up, and the reason a run failed. */

import { brandErrorClass, PaywireError } from '../errors.js'
import type { StoredEvent } from './store.js'

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
