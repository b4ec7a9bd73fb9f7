/**
 * A merchant on Express 5 and PostgreSQL: the card callback endpoint records every verified event in
 * PostgreSQL before it answers 200 (PostgresClaimStore, shared by every instance), runs it from the
 * record (an instance that dies mid-run leaves it to another), and each event's effects (a row in
 * `payment_events`, the order marked paid) commit in one transaction with the event's done mark
 * (PostgresInbox.runOnce), so they land exactly once however often the run is interrupted. Captures are written to the
 * journal (PostgresIntentStore) before they are sent, and `reconcileAll()` settles at start-up what a
 * crashed instance left open.
 *
 * Run: DATABASE_URL=postgres://user@localhost/shop npx tsx examples/postgres/express-merchant.ts
 * Not part of `pnpm demo` (it needs a PostgreSQL server): type-checked by `pnpm typecheck`.
 */
import { CardGateway, orderOf } from '@paywire/card-gateway'
import { lockPayment, migrate, PostgresClaimStore, PostgresInbox, PostgresIntentStore } from '@paywire/postgres'
import express from 'express'
import pg from 'pg'

const url = process.env.DATABASE_URL
if (!url) {
  console.info('Set DATABASE_URL to a PostgreSQL database to run this example.')
  process.exit(0)
}

const pool = new pg.Pool({ connectionString: url })
// An idle connection cut by a server restart is reported here; without a listener it would end the process.
pool.on('error', (error) => console.warn('postgres connection lost (the pool reconnects):', error.message))
await migrate(pool) // the paywire schema: intents, callback events, done marks
// The merchant's own tables.
await pool.query(`CREATE TABLE IF NOT EXISTS orders (number text PRIMARY KEY, paid boolean NOT NULL DEFAULT false)`)
await pool.query(`CREATE TABLE IF NOT EXISTS payment_events (
  payment_id text NOT NULL, status text NOT NULL, received_at timestamptz NOT NULL DEFAULT now())`)

const gw = new CardGateway({
  checkoutUrl: process.env.PAYWIRE_CARD_CHECKOUT_URL ?? 'https://checkout.example',
  s2sUrl: process.env.PAYWIRE_CARD_S2S_URL ?? 'https://s2s.example',
  merchantKey: process.env.PAYWIRE_CARD_MERCHANT_KEY ?? 'merchant-key',
  clientKey: process.env.PAYWIRE_CARD_CLIENT_KEY ?? 'client-key',
  password: process.env.PAYWIRE_CARD_PASSWORD ?? 'callback-password',
  journal: new PostgresIntentStore({ pool }),
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

const app = express()
app.post('/callbacks/card', callbacks.node) // before any body parser: the handler reads the raw body
const server = app.listen(Number(process.env.PORT ?? 3000), () => console.info('listening'))

process.once('SIGTERM', () => {
  server.close(async () => {
    await callbacks.close() // stops recovery, waits for the runs in progress
    await gw.close()
    await pool.end()
  })
})
