/**
 * The lookup budget of one follower instance: at most `perSecond` lookups in any second (a token
 * bucket holding one second's worth), taken in the order asked, so a backlog of due payments never
 * floods the service. Timed on the monotonic clock.
 */

import type { Clock } from '../clock.js'

export class LookupBudget {
  readonly #clock: Clock
  readonly #perSecond: number
  #tokens: number
  #at: number
  /** Takers wait in line: each starts once the one before it has its token. */
  #line: Promise<void> = Promise.resolve()

  constructor(clock: Clock, perSecond: number) {
    this.#clock = clock
    this.#perSecond = perSecond
    // One token to start: a burst after an idle spell is one lookup, then the rate.
    this.#tokens = 1
    this.#at = clock.now()
  }

  /** Resolves when a lookup may be made (its token taken). */
  take(): Promise<void> {
    const turn = this.#line.then(() => this.#takeOne())
    this.#line = turn.catch(() => {})
    return turn
  }

  async #takeOne(): Promise<void> {
    for (;;) {
      const now = this.#clock.now()
      this.#tokens = Math.min(1, this.#tokens + ((now - this.#at) * this.#perSecond) / 1000)
      this.#at = now
      if (this.#tokens >= 1) {
        this.#tokens -= 1
        return
      }
      await this.#clock.sleep(Math.ceil(((1 - this.#tokens) * 1000) / this.#perSecond))
    }
  }
}
