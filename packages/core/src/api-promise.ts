/** A promise of the plain result that can also reveal the HTTP answer behind it. */

import type { ResponseInfo } from './errors/errors.js'

/** Whether `value` is a promise, from this realm or another (a `vm` context, a polyfill). */
export function isThenable<T>(value: T | PromiseLike<T>): value is PromiseLike<T> {
  return typeof (value as { then?: unknown } | null)?.then === 'function'
}

export interface WithResponse<T> {
  readonly data: T
  readonly response: ResponseInfo
  /**
   * The id of the intent the journal wrote for this call (a money-moving call of a client with a
   * `journal`): already closed, or still open with `keepIntentOpen: true`, for you to close with
   * your own write of the result.
   */
  readonly intentId?: string
}

/**
 * `await gw.s2s.capture(...)` gives the result; `await gw.s2s.capture(...).withResponse()` gives
 * `{ data, response }` with status, headers, request id, raw body and attempt count. One way,
 * used by every operation of every package.
 */
export class ApiPromise<T> extends Promise<T> {
  readonly #inner: Promise<WithResponse<T>>

  constructor(inner: Promise<WithResponse<T>>) {
    super((resolve) => resolve(undefined as T))
    this.#inner = inner
  }

  static override get [Symbol.species]() {
    return Promise
  }

  /** A call refused before anything was sent (validation): it rejects like any failed call. */
  static rejected<T>(error: unknown): ApiPromise<T> {
    return new ApiPromise<T>(Promise.reject(error))
  }

  /** The same call with its result mapped; `.withResponse()` keeps working. */
  map<U>(transform: (data: T) => U): ApiPromise<U> {
    return new ApiPromise(this.#inner.then((result) => ({ ...result, data: transform(result.data) })))
  }

  /** The same call with its error replaced or enriched (e.g. with a reconciliation key). */
  mapError(transform: (error: unknown) => unknown): ApiPromise<T> {
    return new ApiPromise(
      this.#inner.catch((error: unknown) => {
        throw transform(error)
      }),
    )
  }

  /** The result together with the answer it came from. */
  withResponse(): Promise<WithResponse<T>> {
    return this.#inner
  }

  // biome-ignore lint/suspicious/noThenProperty: this class is a Promise; `then` must map the inner result.
  override then<R1 = T, R2 = never>(
    onfulfilled?: ((value: T) => R1 | PromiseLike<R1>) | null,
    onrejected?: ((reason: unknown) => R2 | PromiseLike<R2>) | null,
  ): Promise<R1 | R2> {
    // One hop, not two: the data is unwrapped inside the fulfilment handler.
    const unwrap = onfulfilled
      ? (result: WithResponse<T>) => onfulfilled(result.data)
      : (result: WithResponse<T>) => result.data as unknown as R1
    return this.#inner.then(unwrap, onrejected)
  }
}
