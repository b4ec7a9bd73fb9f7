/// <reference path="./undici-modules.d.ts" />
/**
 * undici's `Pool` and `Client`, loaded from their own modules rather than undici's main entry:
 * loading the main entry of undici 7 installs its own Agent as the process-wide dispatcher of
 * Node's built-in `fetch` (a global symbol both share), so merely importing paywire would change
 * how the rest of the application's `fetch` calls connect. These modules have no such effect.
 * (Undoing the effect is not possible: the slot cannot be deleted, and setting it back to empty was
 * measured to break Node 20's own `fetch`.) They are private paths: undici is taken as `^7` from the
 * tested version so merchants get its fixes without a paywire release, a test fails if they move,
 * and CI runs it on the newest undici 7 too. Where they cannot be loaded, the client sends with the
 * runtime's `fetch` instead (transport.ts).
 *
 * They are loaded by the first request, not at import (Node's HTTP stack and undici's parser: the
 * larger part of a cold start, bench/cold-start.ts): a process that imports paywire to verify
 * callbacks, or never calls out, does not pay it. Where Node's `require` can reach them they are
 * required (`requireUndici`); else, and in a bundle, a literal dynamic `import()` loads them, which
 * bundlers see and include.
 */

import { builtinModule } from '../builtins.js'
import type { SocketModules } from './connector.js'

/** The undici exports every request needs, and the Node modules its connections are opened with (connector.ts). */
export interface Transport {
  /** One per origin for calls on a connection of their own (single-use.ts). */
  readonly Pool: typeof import('undici').Pool
  /** One connection each: the client's kept-alive connections are lent one by one (kept-connections.ts). */
  readonly Client: typeof import('undici').Client
  readonly sockets: SocketModules
}

let loaded: Transport | undefined
let loading: Promise<Transport> | undefined

/** undici's Pool and Client, loaded once per process by whichever request comes first. */
export function loadTransport(): Transport | Promise<Transport> {
  if (loaded) return loaded
  if (loading) return loading
  const required = requireUndici()
  loading = Promise.all([
    required?.pool ?? import('undici/lib/dispatcher/pool.js').then((module) => module.default),
    required?.client ?? import('undici/lib/dispatcher/client.js').then((module) => module.default),
    import('node:net'),
    import('node:tls'),
    import('node:dns'),
  ]).then(
    ([Pool, Client, net, tls, dns]) => {
      loaded = { Pool, Client, sockets: { net, tls, dns } }
      return loaded
    },
    (error: unknown) => {
      loading = undefined // a broken install can be mended without restarting: the next request tries again
      throw error
    },
  )
  return loading
}

/**
 * undici's two modules through Node's `require`, or `undefined` where it cannot reach them (no
 * `node:module`, as on Workers; a bundle with no node_modules beside it; a broken install): the
 * `import()` in `loadTransport` then loads them. An `import()` of a CommonJS module makes Node's ES
 * module loader scan the file's whole source for its export names before loading it, 4–6 ms of
 * a cold process's first answer (bench/README.md "Cold start"); `require` loads the same files into
 * the same module cache without that scan. Either way undici's modules run synchronously once read,
 * so a call's deadline and abort apply once they are loaded.
 */
function requireUndici(): { readonly pool: Transport['Pool']; readonly client: Transport['Client'] } | undefined {
  const createRequire = builtinModule<typeof import('node:module')>('node:module')?.createRequire
  if (typeof createRequire !== 'function') return undefined
  try {
    // This module's own address, so undici resolves as this package's dependency (tsup writes the
    // CommonJS build's `import.meta.url` from its file name).
    const require = createRequire(import.meta.url)
    return { pool: require('undici/lib/dispatcher/pool.js'), client: require('undici/lib/dispatcher/client.js') }
  } catch {
    return undefined
  }
}

/**
 * What URL parsing leaves unchanged: visible ASCII other than the characters it percent-encodes
 * (` "<>\`{}|^`, and `'` in a query), no fragment, and no `.` or `..` path segment, literal or `%2e` (parsing resolves them).
 */
const PARSED_FORM = /^[!$%&()*+,\-./0-9:;=?@A-Z[\]_a-z~]*$/
const DOT_SEGMENT = /\/(?:\.|%2e){1,2}(?:[/?]|$)/i

/**
 * `https://host:port/path?query` → origin and path (`/` when there is none), for the dispatcher's own
 * `request`. The SDK's URLs are normally in URL-parsed form already (a checked base URL, encoded path
 * segments and query), so they are split at the first `/` after the host; any other URL (a configured
 * path with a space, `..` or `#`) is parsed with `URL`, as undici's `request(url)` would.
 */
export function splitUrl(url: string): { origin: string; path: string } {
  const hostStart = url.indexOf('//') + 2
  const pathStart = url.indexOf('/', hostStart)
  if (pathStart === -1 || !PARSED_FORM.test(url) || DOT_SEGMENT.test(url.slice(pathStart))) {
    const parsed = new URL(url)
    return { origin: parsed.origin, path: `${parsed.pathname}${parsed.search}` }
  }
  return { origin: url.slice(0, pathStart), path: url.slice(pathStart) }
}
