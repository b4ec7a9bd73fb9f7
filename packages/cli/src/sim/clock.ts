/** The simulator's time: real time plus an offset that the control API can move forward. */

import type { Clock } from '@paywire/core'

/**
 * A clock for every simulator behind `paywire sim`: `now()` is monotonic (the 15 s dedup window
 * is measured on it), `date()` is the wall clock; `advance` moves both forward at once, so a test
 * can step past a window without waiting.
 */
export class SimClock implements Clock {
  #offset = 0

  now(): number {
    return performance.now() + this.#offset
  }

  date(): number {
    return Date.now() + this.#offset
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason)
      const timer = setTimeout(resolve, ms)
      signal?.addEventListener('abort', () => {
        clearTimeout(timer)
        reject(signal.reason)
      })
    })
  }

  /** How far the clock has been moved ahead of real time, in ms. */
  get offset(): number {
    return this.#offset
  }

  advance(ms: number): void {
    this.#offset += ms
  }

  reset(): void {
    this.#offset = 0
  }
}
