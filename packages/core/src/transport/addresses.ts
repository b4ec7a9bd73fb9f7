/**
 * The addresses of the host names a client connects to, looked up once and used for up to 10 s.
 * A money-moving call opens a connection of its own (transport.ts), and Node looks the gateway's
 * host name up for every connection: a `getaddrinfo` on libuv's thread pool, and where no local
 * cache answers it (a container without one), DNS queries on the network before each payment's
 * handshake can start, several per lookup under a search list (Kubernetes' `ndots: 5`). So:
 * - **One lookup per host name at a time**: connections that start while it runs share its answer.
 * - **Kept for 10 s at most** (`ADDRESSES_KEPT_MS`, the longest undici's own DNS cache keeps an
 *   answer), well under the record lifetimes a payment service publishes, so a gateway that moves
 *   to new addresses is followed within seconds.
 * - **Dropped when a connection to them fails** before it is established (refused, unreachable,
 *   timed out, a failed handshake): the next connection looks the name up again.
 * - **A failed lookup is not kept**: each connection after it asks again. Nor is a lookup that has
 *   not answered in 10 s joined: the next connection starts one of its own.
 * Node's own `dns.lookup` does each lookup, read from the module when it runs, so the system's
 * resolver (`/etc/hosts`, `nsswitch.conf`), `dns.setDefaultResultOrder` and an application's own
 * replacement of `dns.lookup` (a test routing a gateway's name to loopback) apply as before.
 */

import type { LookupAddress, LookupOptions } from 'node:dns'
import type { Clock } from '../clock.js'
import { keepNewest } from './kept-newest.js'

/** How long a host name's addresses are used without a new lookup, at most. */
export const ADDRESSES_KEPT_MS = 10_000

/** Host names kept at most (the least recently looked up goes first). */
const MAX_HOSTS = 64

/** `net.connect`'s `lookup` option: answers all addresses when `options.all`, else the first. */
export type Lookup = (
  hostname: string,
  options: LookupOptions,
  callback: (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void,
) => void

type AllAnswer = (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void

/** One host name's addresses, with what they were looked up for and when (monotonic ms). */
interface Known {
  readonly addresses: LookupAddress[]
  readonly family: number
  readonly hints: number
  readonly at: number
}

/** What a lookup in progress was asked for, when it started (monotonic ms), and the connections waiting for its answer. */
interface Looking {
  readonly family: number
  readonly hints: number
  readonly since: number
  readonly waiting: AllAnswer[]
}

/** The client's recent lookups: one per host name at a time, its answer used for `ADDRESSES_KEPT_MS`. */
export class RecentAddresses {
  readonly #clock: Clock
  readonly #known = new Map<string, Known>()
  readonly #looking = new Map<string, Looking>()

  constructor(clock: Clock) {
    this.#clock = clock
  }

  /** A `lookup` for `net.connect` and `tls.connect` that answers from this client's recent lookups. */
  lookup(dns: typeof import('node:dns')): Lookup {
    return (hostname, options, callback) => {
      const family = familyOf(options.family)
      const hints = options.hints ?? 0
      this.#addresses(dns, hostname, family, hints, (error, addresses) => {
        if (error) return callback(error, options.all ? [] : '')
        if (options.all) return callback(null, addresses.slice())
        const first = addresses[0] as LookupAddress
        callback(null, first.address, first.family)
      })
    }
  }

  /** Forgets `hostname`'s addresses: a connection to them failed, so the next one looks it up again. */
  forget(hostname: string): void {
    this.#known.delete(hostname)
  }

  #addresses(dns: typeof import('node:dns'), hostname: string, family: number, hints: number, answer: AllAnswer): void {
    const now = this.#clock.now()
    const known = this.#known.get(hostname)
    const age = known ? now - known.at : Number.NaN
    // A clock that stepped back (a test clock; the client's is monotonic) ends an answer's use too.
    if (known && known.family === family && known.hints === hints && age >= 0 && age < ADDRESSES_KEPT_MS) {
      // Answered after the caller's synchronous part, as a lookup always is: `net.connect` has
      // returned and its caller attached its listeners before the connection starts.
      queueMicrotask(() => answer(null, known.addresses))
      return
    }
    const looking = this.#looking.get(hostname)
    if (looking && (looking.family !== family || looking.hints !== hints)) {
      lookUp(dns, hostname, family, hints, answer) // asked for another family: answered on its own, not kept
      return
    }
    if (looking && now - looking.since < ADDRESSES_KEPT_MS) {
      looking.waiting.push(answer)
      return
    }
    const started: Looking = { family, hints, since: now, waiting: [answer] }
    this.#looking.set(hostname, started)
    lookUp(dns, hostname, family, hints, (error, addresses) => {
      // A lookup that took too long may have been replaced by a newer one: only the newest is kept.
      if (this.#looking.get(hostname) === started) {
        this.#looking.delete(hostname)
        if (!error) keepNewest(this.#known, hostname, { addresses, family, hints, at: this.#clock.now() }, MAX_HOSTS)
      }
      for (const waiting of started.waiting) waiting(error, addresses)
    })
  }
}

/** `dns.lookup` of every address, read from the module as it is now (an application may have replaced it). */
function lookUp(dns: typeof import('node:dns'), hostname: string, family: number, hints: number, answer: AllAnswer) {
  const live = (dns as { default?: typeof dns }).default ?? dns
  // Only the first answer counts: a replaced `dns.lookup` that calls back twice would otherwise
  // fail (or connect twice) every connection sharing the lookup.
  let answered = false
  const once: AllAnswer = (error, addresses) => {
    if (answered) return
    answered = true
    answer(error, addresses)
  }
  try {
    live.lookup(hostname, { all: true, family, hints }, (error, addresses) => {
      if (error) return once(error, [])
      if (addresses.length === 0) return once(notFound(hostname), [])
      once(null, addresses)
    })
  } catch (error) {
    // An invalid host name is refused synchronously; Node's own lookup reports it as the socket's error.
    queueMicrotask(() => once(error as NodeJS.ErrnoException, []))
  }
}

/** `family` as Node's `net` passes it: 4, 6, or 0 for either (`'IPv4'`/`'IPv6'` are accepted by `dns.lookup`). */
function familyOf(family: LookupOptions['family']): number {
  if (family === 4 || family === 'IPv4') return 4
  if (family === 6 || family === 'IPv6') return 6
  return 0
}

/** What `dns.lookup` answers for a name with no address, for a lookup that answered an empty list. */
function notFound(hostname: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), {
    code: 'ENOTFOUND',
    syscall: 'getaddrinfo',
    hostname,
  })
}
