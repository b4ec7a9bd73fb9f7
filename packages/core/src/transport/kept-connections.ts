/**
 * The client's kept-alive connections: per origin at most `maxSockets` undici `Client`s (one
 * connection each), each lent to one request at a time. Lending them ourselves, instead of handing
 * requests to an undici pool, is what lets a call know which connection carried its answer, whether
 * that connection carried an answer before (a stale second answer can only be waiting on one that
 * did), and close that one connection when its answer is not believed (its own late answer would be
 * waiting there for the next call). A connection is lent again only once its last answer was
 * believed. See "Keep-alive where the answer is bound" in docs/reliability.md.
 *
 * On a connection that speaks HTTP/2 none of that doubt applies: every request has a stream of its
 * own and its answer arrives on it, so no request on it counts as one after another (`Loan.reused`).
 */

import type { Dispatcher } from 'undici'
import type { Clock } from '../clock.js'

/**
 * How long a kept-alive connection may have been idle and still carry a money-moving call
 * (`reusesConnection`), in ms. A server closes idle connections on its own timer (Node's default
 * 5 s, undici's 4 s, nginx 75 s), and one closed as the request goes out fails it after it was
 * written: an unknown outcome. Past this, such a call takes a new connection instead; lookups,
 * which a failure only retries, keep any connection the pool still holds.
 */
export const MONEY_IDLE_LIMIT_MS = 2_000

/**
 * Bound money-moving requests one socket carries at most: it then closes after its answer and the
 * next one connects anew, so the record of their subjects stays whole in bounded memory (a number
 * each: at most about 80 KB a socket). Lookups are not recorded: nothing about them is asked.
 */
export const SUBJECTS_PER_SOCKET = 4096

/** One connection of the pool: an undici `Client`, and what its current socket has carried. */
interface Slot {
  readonly client: Dispatcher
  /** Requests written on the current socket; 0 after the socket closed (the next one connects anew). */
  carried: number
  /** Whether the current socket speaks HTTP/2 (its TLS handshake chose `h2`): each answer on its request's own stream. */
  http2: boolean
  /** The subjects of its bound money-moving requests (`HttpRequest.subject`), hashed: only they can have left such an answer there. */
  readonly subjects: Set<number>
  /** When it was last given back, on the pool's monotonic clock. */
  idleSince: number
}

/** A request waiting for a connection: started with one, or refused when the pool closes. */
export interface Waiter {
  readonly start: (loan: Loan) => void
  /** Fails the request before it was handed to undici: nothing was written. */
  readonly refuse: (error: Error) => void
  /** Whether the request was given up (its deadline or signal): it is skipped, never started. */
  readonly gone: () => boolean
}

interface Origin {
  readonly name: string
  /** Slots not lent, the most recently given back last (reused first: its socket is the warmest). */
  readonly idle: Slot[]
  /** Slots made for this origin, lent or idle. */
  count: number
  /** Requests waiting for a slot, oldest first. */
  readonly waiting: Waiter[]
}

/**
 * Makes one `Client` for `origin` (undici's, with the client's connector); `connected` is told, for
 * each socket it opens, whether that socket speaks HTTP/2.
 */
export type ClientFactory = (origin: string, connected: (http2: boolean) => void) => Dispatcher

/** The error of a request refused because the pool closed while it waited: it was never written. */
function closedError(): Error {
  return Object.assign(new Error('the client is closed'), { name: 'ClientClosedError', code: 'UND_ERR_CLOSED' })
}

/** FNV-1a, 32 bits: a subject kept as a number. */
function fnv1a(text: string): number {
  let hash = 0x811c9dc5
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i)
    hash = Math.imul(hash, 0x01000193)
  }
  return hash >>> 0
}

/** A connection lent to one request: give it back once the answer is believed, or discard it. */
export class Loan {
  readonly #pool: KeptConnections
  readonly #origin: Origin
  readonly #slot: Slot
  /**
   * Whether the socket this request was written on carried a request before it: an answer on it may
   * be an earlier one's. Known once written (`written`): a connection lent while its last socket was
   * still closing writes on a new one. Until then, `true` (the careful reading). Never on HTTP/2:
   * the request's stream is new, and only its own answer can arrive on it.
   */
  reused = true
  /** Whether an earlier request on the same socket had this request's subject: a stale answer could then name it. */
  repeated = true
  #returned = false

  constructor(pool: KeptConnections, origin: Origin, slot: Slot) {
    this.#pool = pool
    this.#origin = origin
    this.#slot = slot
  }

  /**
   * Counts the request on its socket as undici begins writing it (the handler's `onConnect`), and
   * records its `subject` when it has one. Two subjects sharing a hash read as repeated: the careful side.
   */
  written(subject: string | undefined): void {
    const slot = this.#slot
    this.reused = slot.carried > 0 && !slot.http2
    slot.carried++
    if (subject === undefined) return
    const hashed = fnv1a(subject)
    this.repeated = slot.subjects.has(hashed)
    slot.subjects.add(hashed)
  }

  get dispatcher(): Dispatcher {
    return this.#slot.client
  }

  /** The connection may carry the next request. */
  giveBack(): void {
    if (this.#returned) return
    this.#returned = true
    this.#pool.giveBack(this.#origin, this.#slot, true)
  }

  /** Closes the connection (its socket is destroyed): whatever else arrives on it reaches nobody. */
  discard(): void {
    if (this.#returned) return
    this.#returned = true
    this.#pool.giveBack(this.#origin, this.#slot, false)
  }
}

/** The kept-alive connections of one client (see the file's comment). */
export class KeptConnections {
  readonly #make: ClientFactory
  readonly #maxSockets: number
  readonly #origins = new Map<string, Origin>()
  readonly #clock: Pick<Clock, 'now'>
  #closed = false
  /** Clients made and not yet closed, over every origin. */
  #open = 0
  /** Who waits for the last of them to close (`close`). */
  readonly #drained: Array<() => void> = []

  constructor(make: ClientFactory, maxSockets: number, clock: Pick<Clock, 'now'>) {
    this.#make = make
    this.#maxSockets = maxSockets
    this.#clock = clock
  }

  /**
   * Starts one request on a connection to `origin`: an idle one, a new one under the cap, or the
   * next one given back (oldest waiter first, each started synchronously as a connection frees, so
   * nothing is allocated per waiter but its entry). A waiter that `gone()` reports given up is
   * skipped: its own deadline already failed it, unwritten. With `idleLimitMs`, an idle connection
   * older than that is closed and a new one made in its place.
   */
  lend(origin: string, waiter: Waiter, idleLimitMs?: number): void {
    if (this.#closed) {
      waiter.refuse(closedError())
      return
    }
    const o = this.#origin(origin)
    let slot = o.idle.pop()
    if (slot && idleLimitMs !== undefined && slot.carried > 0 && this.#clock.now() - slot.idleSince > idleLimitMs) {
      this.#retire(o, slot, 'destroy')
      slot = this.#newSlot(o)
    }
    slot ??= o.count < this.#maxSockets ? this.#newSlot(o) : undefined
    if (slot) waiter.start(new Loan(this, o, slot))
    else o.waiting.push(waiter)
  }

  /**
   * Refuses later requests (unsent) and closes every connection once no request needs it: calls
   * already started, those waiting for a connection included, finish first. Resolves when all are closed.
   */
  close(): Promise<void> {
    this.#closed = true
    for (const o of this.#origins.values()) {
      for (const slot of o.waiting.length === 0 ? o.idle.splice(0) : []) this.#retire(o, slot, 'close')
    }
    return this.#open === 0 ? Promise.resolve() : new Promise((resolve) => this.#drained.push(resolve))
  }

  /** @internal A loan's end (`Loan`): the slot goes to the next waiter, or idle; a discarded one is replaced. */
  giveBack(o: Origin, slot: Slot, keep: boolean): void {
    const next = this.#nextWaiter(o)
    const full = slot.subjects.size >= SUBJECTS_PER_SOCKET
    if (!keep || full) {
      this.#retire(o, slot, keep ? 'close' : 'destroy')
      // The freed place goes to the next waiter, as a new connection (after close() too: it was waiting).
      if (next) next.start(new Loan(this, o, this.#newSlot(o)))
      return
    }
    slot.idleSince = this.#clock.now()
    if (next) next.start(new Loan(this, o, slot))
    else if (this.#closed) this.#retire(o, slot, 'close')
    else o.idle.push(slot)
  }

  /** Ends a slot's connection: `close` lets it finish what it carries, `destroy` drops its socket at once. */
  #retire(o: Origin, slot: Slot, how: 'close' | 'destroy'): void {
    o.count--
    const ending = how === 'close' ? slot.client.close() : slot.client.destroy()
    void ending
      .catch(() => {})
      .then(() => {
        if (--this.#open === 0) for (const resolve of this.#drained.splice(0)) resolve()
      })
  }

  #nextWaiter(o: Origin): Waiter | undefined {
    let next = o.waiting.shift()
    while (next?.gone()) next = o.waiting.shift()
    return next
  }

  #origin(name: string): Origin {
    let o = this.#origins.get(name)
    if (!o) {
      o = { name, idle: [], count: 0, waiting: [] }
      this.#origins.set(name, o)
    }
    return o
  }

  #newSlot(o: Origin): Slot {
    o.count++
    this.#open++
    const slot: Slot = {
      client: this.#make(o.name, (http2) => {
        slot.http2 = http2
      }),
      carried: 0,
      http2: false,
      subjects: new Set(),
      idleSince: 0,
    }
    // The next request after a close goes on a new socket, which carried nothing before it.
    slot.client.on('disconnect', () => {
      slot.carried = 0
      slot.http2 = false
      slot.subjects.clear()
    })
    return slot
  }
}
