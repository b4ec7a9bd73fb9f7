/**
 * The pools for calls on a connection of their own (transport.ts): one undici Pool per origin, kept
 * for the client's life on HTTP/1.1 (on HTTP/2 transport.ts renews them by age).
 *
 * Not undici's Agent: an Agent closes an origin's pool each time its last connection closes, and a
 * payment's connection closes after its answer, so with one payment at a time the Agent built a new
 * Pool and Client for every payment and destroyed them after it (each destruction an error object
 * with its stack trace). A Pool keeps its Clients; each opens a new connection for its next request.
 */

import type { Dispatcher } from 'undici'

/** A request undici can send: what `dispatch` takes (`origin` names the pool). */
type DispatchOptions = Dispatcher.DispatchOptions

/** One Pool per origin, made by `makePool` on the origin's first call. */
export class SingleUsePools {
  readonly #pools = new Map<string, Dispatcher>()
  readonly #makePool: (origin: string) => Dispatcher
  #closed = false
  #carriedHttp2 = false

  constructor(makePool: (origin: string) => Dispatcher) {
    this.#makePool = makePool
  }

  /**
   * Whether a connection of these pools spoke HTTP/2: such a connection outlives its call, so the
   * pools are renewed by age (transport.ts). On HTTP/1.1 none does, and they are kept.
   */
  get carriedHttp2(): boolean {
    return this.#carriedHttp2
  }

  /** Told by the connector when one of these pools' connections negotiated HTTP/2. */
  noteHttp2(): void {
    this.#carriedHttp2 = true
  }

  /** Sends on the origin's pool (undici's `dispatch` contract: the handler hears everything). */
  dispatch(options: DispatchOptions, handler: Dispatcher.DispatchHandler): boolean {
    const origin = String(options.origin)
    let pool = this.#pools.get(origin)
    if (pool === undefined) {
      pool = this.#makePool(origin)
      this.#pools.set(origin, pool)
      // After close() a new origin's pool is closed before its first call, which undici then
      // refuses unsent, as it refuses one on any closed pool.
      if (this.#closed) void pool.close()
    }
    return pool.dispatch(options, handler)
  }

  /** Closes every pool once its calls have ended (undici's `close`: new calls are refused unsent). */
  async close(): Promise<void> {
    this.#closed = true
    await Promise.all([...this.#pools.values()].map((pool) => pool.close()))
  }
}
