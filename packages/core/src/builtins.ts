/** Node built-ins loaded by their first use rather than at import: each costs milliseconds of cold start. */

let crypto: typeof import('node:crypto') | undefined

/**
 * `node:crypto` (about 9 ms to load on the bench machine), for the UUIDs, hashes and comparisons of
 * every package: loaded by the first call that needs it, through `process.getBuiltinModule` (Node
 * 20.16 and later), so importing a package does not load it.
 */
export function nodeCrypto(): typeof import('node:crypto') {
  crypto ??= process.getBuiltinModule('node:crypto')
  return crypto
}
