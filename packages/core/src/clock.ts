/** Time for the transport: a monotonic clock for every duration, the wall clock only for HTTP dates. */

/**
 * Time source and sleeper; tests inject a fake so no test waits on a real backoff.
 * `now()` must be monotonic: durations (attempt and total deadlines, the dedup window, backoff)
 * are measured on it, and a wall-clock step (NTP, a VM resume) must not move them.
 */
export interface Clock {
  /** Monotonic milliseconds from an arbitrary origin. */
  now(): number
  /** Wall-clock milliseconds since the epoch; only read to turn an HTTP-date `Retry-After` into a delay. */
  date?(): number
  sleep(ms: number, signal?: AbortSignal): Promise<void>
}

/** The real clock: `performance.now()` for durations, `Date.now()` for dates, timers for sleeping. */
export const systemClock: Clock = {
  now: () => performance.now(),
  date: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise<void>((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason)
      const onAbort = () => {
        clearTimeout(timer)
        reject(signal?.reason)
      }
      const timer = setTimeout(() => {
        signal?.removeEventListener('abort', onAbort)
        resolve()
      }, ms)
      signal?.addEventListener('abort', onAbort, { once: true })
    }),
}

/** The largest delay Node's timers honour; a longer one fires after about 1 ms. */
export const MAX_TIMER_MS = 2 ** 31 - 1
