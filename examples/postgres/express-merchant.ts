/**
 * A merchant on Express 5 and PostgreSQL: the card callback endpoint records every verified event in
 * PostgreSQL before it answers 200 (PostgresClaimStore, shared by every instance), runs it from the
 * record (an instance that dies mid-run leaves it to another), and each event's effects (a row in
 * `payment_events`, the order marked paid) commit in one transaction with the event's done mark
 * (PostgresInbox.runOnce), so they land exactly once however often the run is interrupted. Captures are written to the
 * journal (PostgresIntentStore) before they are sent, their intent is closed in the transaction
 * that records the answer (`keepIntentOpen` + `closeIn`), and `reconcileAll()` settles at start-up
 * what a crashed instance left open.
 *
 * Run: DATABASE_URL=postgres://user@localhost/shop npx tsx examples/postgres/express-merchant.ts
 * Not part of `pnpm demo` (it needs a PostgreSQL server): type-checked by `pnpm typecheck`.
 */
import { CardGateway, orderOf, PaywireError } from '@paywire/card-gateway'
import { lockPayment, migrate, PostgresClaimStore, PostgresInbox, PostgresIntentStore } from '@paywire/postgres'
import express from 'express'
import pg from 'pg'

const url = process.env.DATABASE_URL
if (!url) {
  console.info('Set DATABASE_URL to a PostgreSQL database to run this example.')
  process.exit(0)
}

const pool = new pg.Pool({ connectionString: url })
// An idle connection cut by a server restart is reported here. (Without a listener it would end the
// process: the stores add a warning one to a pool that has none, but migrate() runs before them.)
pool.on('error', (error) => console.warn('postgres connection lost (the pool reconnects):', error.message))
await migrate(pool) // the paywire schema: intents, callback events, done marks
// The merchant's own tables.
await pool.query(`CREATE TABLE IF NOT EXISTS orders (
  number text PRIMARY KEY, paid boolean NOT NULL DEFAULT false, trans_id text, capture text)`)
await pool.query(`CREATE TABLE IF NOT EXISTS payment_events (
  payment_id text NOT NULL, status text NOT NULL, received_at timestamptz NOT NULL DEFAULT now())`)

const journal = new PostgresIntentStore({ pool })
const gw = new CardGateway({
  checkoutUrl: process.env.PAYWIRE_CARD_CHECKOUT_URL ?? 'https://checkout.example',
  s2sUrl: process.env.PAYWIRE_CARD_S2S_URL ?? 'https://s2s.example',
  merchantKey: process.env.PAYWIRE_CARD_MERCHANT_KEY ?? 'merchant-key',
  clientKey: process.env.PAYWIRE_CARD_CLIENT_KEY ?? 'client-key',
  password: process.env.PAYWIRE_CARD_PASSWORD ?? 'callback-password',
  journal,
})
const settled = await gw.reconcileAll() // what an instance that crashed mid-call left open
console.info(`reconciled ${settled.length} open intent(s) at start-up`)

const inbox = new PostgresInbox({ pool })
const callbacks = gw.callbacks.handler({
  store: new PostgresClaimStore({ pool }),
  onEvent: async (event, { key }) => {
    const { ran } = await inbox.runOnce(key, async (tx) => {
      // Events of one payment take turns, so its state only moves forward. Locked by its order:
      // trans_id can change between callbacks of one payment (cascading).
      await lockPayment(tx, orderOf(event) ?? '')
      await tx.query('INSERT INTO payment_events (payment_id, status) VALUES ($1, $2)', [event.id, event.status])
      if (event.status === 'success' && event.order_number) {
        await tx.query('UPDATE orders SET paid = true WHERE number = $1', [event.order_number])
      }
    })
    if (!ran) console.info(`callback ${event.id} ${event.status}: already applied`)
  },
  onError: (error, event) => console.error('callback processing failed', event?.id, error),
})

/**
 * Captures an order's payment and records the answer. `keepIntentOpen` leaves the capture's journal
 * intent open after the answer; `closeIn` closes it in the transaction that records the outcome, so
 * both commit or neither does: an instance killed between the answer and the COMMIT leaves the
 * intent open, and the next `reconcileAll()` settles it by lookup instead of the outcome being lost.
 */
async function capture(number: string, transId: string): Promise<string> {
  let outcome: { capture: string; intentId: string | undefined; closeAs: 'applied' | 'not_applied' }
  try {
    const { data, intentId } = await gw.s2s.capture({ trans_id: transId }, { keepIntentOpen: true }).withResponse()
    outcome = { capture: data.status ?? 'SETTLED', intentId, closeAs: 'applied' }
  } catch (error) {
    // An unknown outcome stays open for reconcileAll(); a definite refusal is recorded and closed.
    if (!(error instanceof PaywireError) || error.outcomeUnknown) throw error
    outcome = { capture: 'refused', intentId: error.intentId, closeAs: 'not_applied' }
  }
  const tx = await pool.connect()
  try {
    await tx.query('BEGIN')
    await tx.query('UPDATE orders SET trans_id = $2, capture = $3 WHERE number = $1', [
      number,
      transId,
      outcome.capture,
    ])
    if (outcome.intentId !== undefined) await journal.closeIn(tx, outcome.intentId, outcome.closeAs)
    await tx.query('COMMIT')
  } catch (error) {
    await tx.query('ROLLBACK').catch(() => {}) // the intent stays open: reconcileAll() settles it
    throw error
  } finally {
    tx.release()
  }
  return outcome.capture
}

const app = express()
app.post('/callbacks/card', callbacks.node) // before any body parser: the handler reads the raw body
app.post('/orders/:number/capture/:transId', async (req, res) => {
  try {
    res.json({ capture: await capture(req.params.number, req.params.transId) })
  } catch (error) {
    console.error('capture failed', error)
    res.status(502).json({ capture: 'unknown: settled by reconcileAll()' })
  }
})
const server = app.listen(Number(process.env.PORT ?? 3000), () => console.info('listening'))

process.once('SIGTERM', () => {
  server.close(async () => {
    await callbacks.close() // stops recovery, waits for the runs in progress
    await gw.close()
    await pool.end()
  })
})
