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
 * One batch in flight at a time; what arrives meanwhile waits for it and goes in the next, oldest
 * first, up to `maxItems` and `maxBytes`. Two items that share a key never share a batch (a statement that wrote
 * one key twice would fail, and each record of a key must see the one before it), a later item
 * never passes an earlier one waiting on the same key, and no item goes while a record of one of
 * its keys is still in flight. A record made with nothing in flight goes at once, one made while a
 * batch is written waits for it, and a batch unanswered after `SLOW_BATCH_MS` stops holding back
 * the others.
 */
export class RecordBatches<Item, Answer> {
  readonly #setup: RecordBatchesSetup<Item, Answer>
  #waiting: Array<Waiting<Item, Answer>> = []
  /** A batch is in flight that the next one waits for. */
  #holding = false
  /** The keys of every batch in flight, a slow one's included, and how many records of each. */
  readonly #inFlight = new Map<string, number>()

  constructor(setup: RecordBatchesSetup<Item, Answer>) {
    if (!Number.isSafeInteger(setup.maxItems) || setup.maxItems < 1) {
      throw new RangeError(`${setup.operation}: maxItems must be a whole number >= 1, got ${setup.maxItems}`)
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

  #next(): void {
    if (this.#holding || this.#waiting.length === 0) return
    const batch: Array<Waiting<Item, Answer>> = []
    const later: Array<Waiting<Item, Answer>> = []
    let bytes = 0
    // The keys of every item taken or passed over so far, and of the records in flight: an item
    // touching one waits for a later batch.
    const seen = new Set<string>(this.#inFlight.keys())
    for (let i = 0; i < this.#waiting.length; i++) {
      if (batch.length === this.#setup.maxItems) {
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
    if (batch.length === 0) return
    const keys = batch.flatMap((waiting) => waiting.keys)
    for (const key of keys) this.#inFlight.set(key, (this.#inFlight.get(key) ?? 0) + 1)
    this.#holding = true
    let heldBack = true
    const slow = setTimeout(() => {
      heldBack = false
      this.#holding = false
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
      // The next batch leaves once the answered callers have run (a turn of the event loop, no
      // timer), so the records they make at once join it rather than split into half batches.
      afterThisTurn(() => {
        if (heldBack) this.#holding = false
        this.#next()
      })
    })
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
