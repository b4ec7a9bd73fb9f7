// Types of the undici modules core loads directly (see undici.ts): undici ships types for its
// main entry only, so these reuse that entry's public types.
declare module 'undici/lib/dispatcher/agent.js' {
  const Agent: typeof import('undici').Agent
  export default Agent
}

declare module 'undici/lib/dispatcher/client.js' {
  const Client: typeof import('undici').Client
  export default Client
}

declare module 'undici/lib/api/api-request.js' {
  /**
   * undici's handler behind `request` (private: its fields are read by core's subclass, undici.ts;
   * a test checks them on the pinned version).
   */
  class RequestHandler {
    constructor(
      options: import('undici').Dispatcher.RequestOptions,
      callback: (error: Error | null, data: import('undici').Dispatcher.ResponseData) => void,
    )
    /** Why the request was aborted, once it was (`null` before). */
    reason: Error | null
    /** undici's abort of the request once it is on a socket (`null` before `onConnect`). */
    abort: ((error?: Error) => void) | null
    /** The response body once the headers came. */
    res: import('node:stream').Readable | null
    onConnect(abort: (error?: Error) => void, context?: object): void
    onError(error: Error): void
  }
  export type RequestHandlerClass = typeof RequestHandler
  const request: {
    (
      this: import('undici').Dispatcher,
      options: import('undici').Dispatcher.RequestOptions,
    ): Promise<import('undici').Dispatcher.ResponseData>
    RequestHandler: typeof RequestHandler
  }
  export default request
}
