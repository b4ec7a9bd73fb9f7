/**
 * Per-attempt deadlines without a timer per attempt. Each attempt gets an `AttemptSignal`: the abort
 * signal undici listens to (undici takes any object with `on`/`once`/`removeListener`) and, at the
 * same time, the attempt's entry in its client's deadline list. The list keeps one chain per timeout
 * value, in deadline order (a later attempt with the same timeout has a later deadline, the clock
 * being monotonic), so registering and removing are O(1) and a finished attempt is unlinked at once:
 * nothing lives longer than its attempt. One timer, armed at the earliest deadline, aborts every
 * attempt whose deadline has passed. Measured: the per-attempt `setTimeout` + `EventEmitter` pair was
 * most of the SDK's extra CPU at high concurrency (objects promoted across the wait).
 */

type AbortListener = () => void

/** Why an attempt was aborted. */
export type AbortCause = 'timeout' | 'user'

/** One attempt's abort signal and deadline entry. */
export class AttemptSignal {
  /** Read by undici before it starts: a signal aborted already fails the request at once. */
  aborted = false
  abortedBy: AbortCause | undefined = undefined
  /** Monotonic ms at which the attempt is aborted as timed out. */
  readonly deadline: number
  #listener: AbortListener | undefined = undefined
  /** @internal links of the deadline chain */
  previous: AttemptSignal | undefined = undefined
  /** @internal */
  next: AttemptSignal | undefined = undefined
  /** @internal */
  chain: Chain | undefined = undefined

  constructor(deadline: number) {
    this.deadline = deadline
  }

  on(_event: 'abort', listener: AbortListener): this {
    this.#listener = listener
    return this
  }

  once(event: 'abort', listener: AbortListener): this {
    return this.on(event, listener)
  }

  removeListener(_event: 'abort', listener: AbortListener): this {
    if (this.#listener === listener) this.#listener = undefined
    return this
  }

  /** Aborts the attempt (first cause wins); undici then fails it with its abort error. */
  abort(cause: AbortCause): void {
    if (this.aborted) return
    this.aborted = true
    this.abortedBy = cause
    const listener = this.#listener
    this.#listener = undefined
    listener?.()
  }
}

interface Chain {
  head: AttemptSignal | undefined
  tail: AttemptSignal | undefined
}

/** The deadlines of one client's attempts in flight, served by one timer. */
export class DeadlineList {
  readonly #now: () => number
  readonly #chains = new Map<number, Chain>()
  #timer: NodeJS.Timeout | undefined = undefined
  #armedFor = Number.POSITIVE_INFINITY

  /** `now` is the monotonic clock the deadlines are read on. */
  constructor(now: () => number = () => performance.now()) {
    this.#now = now
  }

  /** Attempts registered and not yet finished (tests: nothing may outlive its attempt). */
  get pending(): number {
    let count = 0
    for (const chain of this.#chains.values()) for (let s = chain.head; s; s = s.next) count++
    return count
  }

  /** A signal that aborts itself `timeoutMs` from now, unless `finish`ed first. */
  start(timeoutMs: number): AttemptSignal {
    const signal = new AttemptSignal(this.#now() + timeoutMs)
    let chain = this.#chains.get(timeoutMs)
    if (!chain) {
      chain = { head: undefined, tail: undefined }
      this.#chains.set(timeoutMs, chain)
    }
    signal.chain = chain
    signal.previous = chain.tail
    if (chain.tail) chain.tail.next = signal
    else chain.head = signal
    chain.tail = signal
    if (signal.deadline < this.#armedFor) this.#arm(signal.deadline)
    return signal
  }

  /** The attempt ended: its entry leaves the list (the timer, if armed for it, finds the next one). */
  finish(signal: AttemptSignal): void {
    const chain = signal.chain
    if (!chain) return
    if (signal.previous) signal.previous.next = signal.next
    else chain.head = signal.next
    if (signal.next) signal.next.previous = signal.previous
    else chain.tail = signal.previous
    signal.chain = undefined
    signal.previous = undefined
    signal.next = undefined
  }

  #arm(deadline: number): void {
    clearTimeout(this.#timer)
    this.#armedFor = deadline
    // Rounded up: a timer firing a fraction early would find the deadline not yet passed.
    this.#timer = setTimeout(this.#fire, Math.max(0, Math.ceil(deadline - this.#now())))
    // Unref'd: the attempts' sockets keep the process alive while a call is pending; an idle list
    // must not. The timer keeps firing after close(), so calls still in flight keep their limits.
    // Off Node a timer may be a plain number (the Workers runtime): there is nothing to unref.
    ;(this.#timer as { unref?: () => unknown }).unref?.()
  }

  readonly #fire = (): void => {
    this.#timer = undefined
    this.#armedFor = Number.POSITIVE_INFINITY
    const now = this.#now()
    let next = Number.POSITIVE_INFINITY
    for (const [timeoutMs, chain] of this.#chains) {
      while (chain.head && chain.head.deadline <= now) {
        const expired = chain.head
        this.finish(expired)
        expired.abort('timeout')
      }
      if (chain.head) next = Math.min(next, chain.head.deadline)
      else this.#chains.delete(timeoutMs)
    }
    if (next !== Number.POSITIVE_INFINITY) this.#arm(next)
  }
}
