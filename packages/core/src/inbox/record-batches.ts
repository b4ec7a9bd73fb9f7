/**
 * Group commit for a store's `record`: the records that arrive while one batch is being written go
 * to the server together in the next, as one statement or script. A callback burst then costs one
 * round trip and one statement per batch instead of one per event, and a lone record goes at once.
 */

/**
 * What one item of a batch came to: its answer, or the error that is its own (the rest still
 * stand). An `Error` is always read as a failure, so an answer cannot itself be an `Error`.
 */
export type BatchAnswer<Answer> = Answer | Error

/** How a store writes a batch and tells its items apart. */
export interface RecordBatchesSetup<Item, Answer> {
  /** The store operation, as its errors name it: `RedisClaimStore.record`. */
  readonly operation: string
  /**
   * Writes `items` (never empty, no two sharing a key) and answers each, in order. A rejection
   * fails every item of the batch with it: use it for what befell the whole batch (the connection
   * was lost, the deadline passed), and an `Error` in the answers for what is one item's own.
   */
  readonly send: (items: readonly Item[]) => Promise<ReadonlyArray<BatchAnswer<Answer>>>
  /** The keys `item` reads or writes (its own and its previous ones): items sharing one go in different batches. */
  readonly keysOf: (item: Item) => readonly string[]
  /** The most items one batch carries (a statement's or script's size, how long it holds the server). */
  readonly maxItems: number
  /** About how many bytes `item` adds to a batch (its fields and keys). */
  readonly sizeOf: (item: Item) => number
  /**
   * The most bytes one batch carries: a batch of callbacks whose bodies were allowed to be large
   * stays a few MiB, not `maxItems` times the largest. An item larger than this goes alone.
   */
  readonly maxBytes: number
  /**
   * How many batches may be in flight at once: 1 or more. With one, the client and the server take
   * turns: the server waits while the client settles a batch's callers and builds the next, and the
   * client waits while the server writes. With two, one batch is written while the other's callers
   * run (Redis, and PostgreSQL with its statements prepared: each batch of half the size then costs
   * little more).
   */
  readonly batchesInFlight: number
}

/** Runs `work` after the event loop's current turn: `setImmediate` where there is one (Node, Bun, Deno). */
const afterThisTurn: (work: () => void) => void =
  typeof globalThis.setImmediate === 'function' ? (work) => setImmediate(work) : (work) => setTimeout(work, 0)

interface Waiting<Item, Answer> {
  readonly item: Item
  readonly keys: readonly string[]
  readonly bytes: number
  readonly resolve: (answer: Answer) => void
  readonly reject: (error: unknown) => void
}

/**
 * How long a batch in flight holds back the next one. A batch takes a millisecond or two; one still
 * unanswered after a second is stuck (a stalled connection of a pool, a row lock held elsewhere),
 * and the records behind it go on without it, as they would have gone on other connections one by
 * one, while it waits for its own answer or deadline.
 */
export const SLOW_BATCH_MS = 1_000

/**
 * Up to `batchesInFlight` batches in flight; what arrives meanwhile waits and goes in the next,
 * oldest first, up to `maxItems` and `maxBytes`, each batch taking its share of what is waiting and
 * in flight so the batches stay even (two of 16 rather than one of 31 and one of 1). At most one
 * batch leaves per turn of the event loop: two written in one turn reach the server in one read,
 * Redis answers them in one write, and the client and the server go on taking turns in step
 * instead of working at once. Two items that share a key never share a batch (a statement that
 * wrote one key twice would fail, and each record of a key must see the one before it), a later
 * item never passes an earlier one waiting on the same key, and no item goes while a record of one
 * of its keys is still in flight. A record made with a batch free goes at once, one made while
 * every batch is in flight waits for one, and a batch unanswered after `SLOW_BATCH_MS` stops
 * holding back the others.
 */
export class RecordBatches<Item, Answer> {
  readonly #setup: RecordBatchesSetup<Item, Answer>
  #waiting: Array<Waiting<Item, Answer>> = []
  /** The batches in flight that the next ones wait for (a slow one stops counting), and their items. */
  #held = 0
  #heldItems = 0
  /** A batch left in this turn of the event loop: the next waits for the next turn. */
  #sentThisTurn = false
  /** The keys of every batch in flight, a slow one's included, and how many records of each. */
  readonly #inFlight = new Map<string, number>()

  constructor(setup: RecordBatchesSetup<Item, Answer>) {
    for (const name of ['maxItems', 'batchesInFlight'] as const) {
      if (!Number.isSafeInteger(setup[name]) || setup[name] < 1) {
        throw new RangeError(`${setup.operation}: ${name} must be a whole number >= 1, got ${setup[name]}`)
      }
    }
    this.#setup = setup
  }

  /** Writes `item` in the next batch; settles with its own answer or error. */
  add(item: Item): Promise<Answer> {
    return new Promise<Answer>((resolve, reject) => {
      this.#waiting.push({ item, keys: this.#setup.keysOf(item), bytes: this.#setup.sizeOf(item), resolve, reject })
      this.#next()
    })
  }

  /** Sends a batch when one is free, something waiting can go, and none left in this turn. */
  #next(): void {
    const { batchesInFlight, maxItems } = this.#setup
    if (this.#sentThisTurn || this.#held >= batchesInFlight || this.#waiting.length === 0) return
    const share = Math.ceil((this.#waiting.length + this.#heldItems) / batchesInFlight)
    // With one batch in flight the next leaves only after this one's answers, never in this turn:
    // the turn needs no mark. With more, it is marked before the send, so a store's send that
    // records again at once starts no second batch in this turn.
    const oneATurn = batchesInFlight > 1
    if (oneATurn) this.#sentThisTurn = true
    const sent = this.#send(Math.min(share, maxItems))
    if (!oneATurn) return
    if (!sent) {
      this.#sentThisTurn = false
      return
    }
    afterThisTurn(() => {
      this.#sentThisTurn = false
      this.#next()
    })
  }

  /** Sends a batch of up to `most` waiting items; false when none can go (their keys are in flight). */
  #send(most: number): boolean {
    const batch: Array<Waiting<Item, Answer>> = []
    const later: Array<Waiting<Item, Answer>> = []
    let bytes = 0
    // The keys of every item taken or passed over so far, and of the records in flight: an item
    // touching one waits for a later batch.
    const seen = new Set<string>(this.#inFlight.keys())
    for (let i = 0; i < this.#waiting.length; i++) {
      if (batch.length === most) {
        // Full: nothing more is taken in this pass, so the rest need no look.
        later.push(...this.#waiting.slice(i))
        break
      }
      const waiting = this.#waiting[i] as Waiting<Item, Answer>
      const fits = batch.length === 0 || bytes + waiting.bytes <= this.#setup.maxBytes
      const free = fits && waiting.keys.every((key) => !seen.has(key))
      for (const key of waiting.keys) seen.add(key)
      if (free) {
        batch.push(waiting)
        bytes += waiting.bytes
      } else later.push(waiting)
    }
    this.#waiting = later
    if (batch.length === 0) return false
    const keys = batch.flatMap((waiting) => waiting.keys)
    for (const key of keys) this.#inFlight.set(key, (this.#inFlight.get(key) ?? 0) + 1)
    this.#held++
    this.#heldItems += batch.length
    let heldBack = true
    const release = () => {
      if (!heldBack) return
      heldBack = false
      this.#held--
      this.#heldItems -= batch.length
    }
    const slow = setTimeout(() => {
      release()
      this.#next()
    }, SLOW_BATCH_MS)
    // A stuck batch does not keep the process alive: its own deadline or connection does, if anything.
    ;(slow as { unref?: () => void }).unref?.()
    this.#write(batch).finally(() => {
      clearTimeout(slow)
      for (const key of keys) {
        const left = (this.#inFlight.get(key) ?? 1) - 1
        if (left === 0) this.#inFlight.delete(key)
        else this.#inFlight.set(key, left)
      }
      // The batch is free once the answered callers have run (a turn of the event loop, no
      // timer), so the records they make at once join the next batch rather than go one by one.
      afterThisTurn(() => {
        release()
        this.#next()
      })
    })
    return true
  }

  /** Sends `batch` and settles each of its records; never rejects, whatever `send` does. */
  async #write(batch: ReadonlyArray<Waiting<Item, Answer>>): Promise<void> {
    let answers: unknown
    try {
      answers = await this.#setup.send(batch.map((waiting) => waiting.item))
    } catch (error) {
      for (const waiting of batch) waiting.reject(error)
      return
    }
    if (!Array.isArray(answers) || answers.length !== batch.length) {
      // Which answer is whose cannot be told: none is believed.
      const count = Array.isArray(answers) ? `${answers.length} records` : 'no list'
      const error = new Error(`${this.#setup.operation}: the store answered ${count} for a batch of ${batch.length}`)
      for (const waiting of batch) waiting.reject(error)
      return
    }
    batch.forEach((waiting, i) => {
      const answer = answers[i] as BatchAnswer<Answer>
      if (answer instanceof Error) waiting.reject(answer)
      else waiting.resolve(answer)
    })
  }
}
