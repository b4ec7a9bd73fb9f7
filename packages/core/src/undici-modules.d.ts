// Types of the two undici modules core loads directly (see undici.ts): undici ships types for its
// main entry only, so these reuse that entry's public types.
declare module 'undici/lib/dispatcher/agent.js' {
  const Agent: typeof import('undici').Agent
  export default Agent
}

declare module 'undici/lib/api/api-request.js' {
  const request: (
    this: import('undici').Dispatcher,
    options: import('undici').Dispatcher.RequestOptions,
  ) => Promise<import('undici').Dispatcher.ResponseData>
  export default request
}
