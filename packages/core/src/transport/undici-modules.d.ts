// Types of the undici modules core loads directly (see undici.ts): undici ships types for its
// main entry only, so these reuse that entry's public types.
declare module 'undici/lib/dispatcher/pool.js' {
  const Pool: typeof import('undici').Pool
  export default Pool
}

declare module 'undici/lib/dispatcher/client.js' {
  const Client: typeof import('undici').Client
  export default Client
}
