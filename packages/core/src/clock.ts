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

/**
 * A point on a monotonic clock, with the clock it was read on: the time since it is read on the
 * same clock, so a wall-clock step (NTP, a VM resume, an operator) cannot shorten or stretch it.
 */
export interface MonotonicMark {
  readonly clock: Clock
  readonly at: number
}

/** A mark of `clock`'s present. */
export function markNow(clock: Clock): MonotonicMark {
  return { clock, at: clock.now() }
}

/** Milliseconds since `mark`, on its own monotonic clock. */
export function msSince(mark: MonotonicMark): number {
  return mark.clock.now() - mark.at
}

/** Each clock's recorded (wall, monotonic) pair, read the first time it anchors a date. */
const anchors = new WeakMap<Clock, number>()

/**
 * Wall-clock ms since the epoch, from one (wall, monotonic) pair the process records the first time
 * it asks: the wall time of the pair plus the monotonic time since. A wall-clock step after that
 * moves nothing, so two such dates of one process differ by the real time between them, and dates
 * of two processes differ only by how far their wall clocks disagreed when each recorded its pair.
 */
export function anchoredDate(clock: Clock): number {
  let offset = anchors.get(clock)
  if (offset === undefined) {
    offset = (clock.date?.() ?? Date.now()) - clock.now()
    anchors.set(clock, offset)
  }
  return offset + clock.now()
}
