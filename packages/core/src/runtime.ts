/**
 * Which runtime this is, read from globals (nothing is loaded to find out), for the transport and
 * the User-Agent; and what the process is told when undici cannot be loaded on Node.
 */

interface RuntimeGlobals {
  process?: { versions?: Record<string, string | undefined> }
  Bun?: unknown
  Deno?: unknown
  navigator?: { userAgent?: string }
}

/** Node itself: not Bun or Deno, which also answer to `process.versions.node`. */
export function isNode(): boolean {
  const g = globalThis as RuntimeGlobals
  const versions = g.process?.versions
  return typeof versions?.node === 'string' && versions.bun === undefined && g.Bun === undefined && g.Deno === undefined
}

/**
 * The runtime as the User-Agent names it: `node/22.12.0`, `bun/1.4.5`, `deno/2.9.6`, `workers`, or
 * `unknown-runtime`. Read from globals that every runtime may lack (Workers has no `process.versions`).
 */
export function runtimeTag(): string {
  const g = globalThis as RuntimeGlobals
  const versions = g.process?.versions
  if (versions?.bun) return `bun/${versions.bun}`
  if (versions?.deno) return `deno/${versions.deno}`
  if (typeof versions?.node === 'string' && g.Bun === undefined && g.Deno === undefined) return `node/${versions.node}`
  if (g.navigator?.userAgent === 'Cloudflare-Workers') return 'workers'
  return 'unknown-runtime'
}

let warnedFetchInstead = false

/**
 * Said once per process, as a Node warning (shown by default): undici did not load, so calls go
 * through the runtime's `fetch`, which cannot give a money-moving call a connection of its own (only
 * the answer's echo check remains). Seen when a bundler puts undici inside an ESM bundle, where its
 * `require()` of Node's modules fails.
 */
export function warnFetchInstead(error: unknown): void {
  if (warnedFetchInstead) return
  warnedFetchInstead = true
  const why = error instanceof Error ? error.message : String(error)
  const text = `paywire: undici could not be loaded (${why}), so this process sends with the runtime's fetch: a money-moving call no longer gets a connection of its own, and a stale answer left on a reused connection is caught only when it names another subject. If you bundle your code, keep undici outside the bundle (esbuild: --external:undici; webpack: externals).`
  const runtime = (globalThis as { process?: { emitWarning?: (text: string, options: object) => void } }).process
  runtime?.emitWarning?.(text, { code: 'PAYWIRE_FETCH_INSTEAD_OF_UNDICI' })
}
