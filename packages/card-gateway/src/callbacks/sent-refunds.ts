/**
 * The CREDITVOIDs a card client sent, so the inbox can tell a refund callback it explains from one it
 * does not: a refund's `amount` and `creditvoid_date` are outside every callback signature, so a
 * genuine body replayed with another amount verifies (the refund doubt of `CallbackEvent`).
 */

import type { IntentStore } from '@paywire/core'
import { refundAmountKey } from './event.js'

/** How long a sent refund is remembered: longer than the gateway takes to report one. */
const KEEP_MS = 7 * 24 * 60 * 60 * 1000
/** Transactions remembered at most (the oldest go first): a bound on memory, not on correctness. */
const MAX_TRANSACTIONS = 10_000

interface Sent {
  readonly amounts: Set<string>
  /** A CREDITVOID without `amount`: the whole payment. */
  whole: boolean
  at: number
}

/** This process's record of its CREDITVOIDs, and the journal's open intents of them. */
export class SentRefunds {
  readonly #sent = new Map<string, Sent>()
  readonly #journal: () => IntentStore | undefined

  constructor(journal: () => IntentStore | undefined) {
    this.#journal = journal
  }

  /** Notes a CREDITVOID as it is sent (before its answer: its callback can come first). */
  note(transId: unknown, amount: unknown): void {
    if (typeof transId !== 'string') return
    const now = Date.now()
    const sent = this.#sent.get(transId) ?? { amounts: new Set<string>(), whole: false, at: now }
    if (typeof amount === 'string') sent.amounts.add(refundAmountKey(amount))
    else sent.whole = true
    sent.at = now
    this.#sent.delete(transId) // re-inserted last: the Map's order is the eviction order
    this.#sent.set(transId, sent)
    for (const [oldest] of this.#sent) {
      if (this.#sent.size <= MAX_TRANSACTIONS) break
      this.#sent.delete(oldest)
    }
  }

  /**
   * Whether a CREDITVOID of `transId` for `amount` (or of the whole payment) was sent by this client:
   * remembered by this process for a week, or open in the journal (a refund whose answer was lost).
   */
  async explains(transId: string | undefined, amount: string | undefined): Promise<boolean> {
    if (transId === undefined) return false
    const key = amount === undefined ? undefined : refundAmountKey(amount)
    const sent = this.#sent.get(transId)
    if (sent !== undefined && Date.now() - sent.at < KEEP_MS) {
      if (sent.whole || key === undefined || sent.amounts.has(key)) return true
    }
    const journal = this.#journal()
    if (journal === undefined) return false
    const open = await journal.openIntents('card-gateway').catch(() => [])
    return open.some((intent) => {
      if (intent.operation !== 's2s.creditVoid') return false
      const params = intent.params as { trans_id?: unknown; amount?: unknown } | null
      if (params?.trans_id !== transId) return false
      return typeof params.amount !== 'string' || key === undefined || refundAmountKey(params.amount) === key
    })
  }
}
