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
