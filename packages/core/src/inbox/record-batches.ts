/**
 * Group commit for a store's `record`: the records that arrive while one batch is being written go
 * to the server together in the next, as one statement or script. A callback burst then costs one
 * round trip and one statement per batch instead of one per event, and a lone record goes at once.
 */

/** What one item of a batch came to: its answer, or the error that is its own (the rest still stand). */
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
}

/** Runs `work` after the event loop's current turn: `setImmediate` where there is one (Node, Bun, Deno). */
const afterThisTurn: (work: () => void) => void =
  typeof globalThis.setImmediate === 'function' ? (work) => setImmediate(work) : (work) => setTimeout(work, 0)

interface Waiting<Item, Answer> {
  readonly item: Item
  readonly keys: readonly string[]
  readonly resolve: (answer: Answer) => void
  readonly reject: (error: unknown) => void
}

/**
 * One batch in flight at a time; what arrives meanwhile waits for it and goes in the next, oldest
 * first, up to `maxItems`. Two items that share a key never share a batch (a statement that wrote
 * one key twice would fail, and each record of a key must see the one before it), and a later item
 * never passes an earlier one waiting on the same key. Nothing is held back by a timer: a record
 * made with nothing in flight goes at once, and one made while a batch is written waits for it.
 */
export class RecordBatches<Item, Answer> {
  readonly #setup: RecordBatchesSetup<Item, Answer>
  #waiting: Array<Waiting<Item, Answer>> = []
  #sending = false

  constructor(setup: RecordBatchesSetup<Item, Answer>) {
    this.#setup = setup
  }

  /** Writes `item` in the next batch; settles with its own answer or error. */
  add(item: Item): Promise<Answer> {
    return new Promise<Answer>((resolve, reject) => {
      this.#waiting.push({ item, keys: this.#setup.keysOf(item), resolve, reject })
      this.#next()
    })
  }

  #next(): void {
    if (this.#sending || this.#waiting.length === 0) return
    const batch: Array<Waiting<Item, Answer>> = []
    const later: Array<Waiting<Item, Answer>> = []
    // The keys of every item taken or passed over so far: an item touching one waits for a later batch.
    const seen = new Set<string>()
    for (const waiting of this.#waiting) {
      const free = batch.length < this.#setup.maxItems && waiting.keys.every((key) => !seen.has(key))
      for (const key of waiting.keys) seen.add(key)
      if (free) batch.push(waiting)
      else later.push(waiting)
    }
    this.#waiting = later
    this.#sending = true
    this.#write(batch).finally(() => {
      // The next batch leaves once the answered callers have run (a turn of the event loop, no
      // timer), so the records they make at once join it rather than split into half batches.
      afterThisTurn(() => {
        this.#sending = false
        this.#next()
      })
    })
  }

  async #write(batch: ReadonlyArray<Waiting<Item, Answer>>): Promise<void> {
    let answers: ReadonlyArray<BatchAnswer<Answer>>
    try {
      answers = await this.#setup.send(batch.map((waiting) => waiting.item))
    } catch (error) {
      for (const waiting of batch) waiting.reject(error)
      return
    }
    if (answers.length !== batch.length) {
      // Which answer is whose cannot be told: none is believed.
      const error = new Error(
        `${this.#setup.operation}: the store answered ${answers.length} records for a batch of ${batch.length}`,
      )
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
