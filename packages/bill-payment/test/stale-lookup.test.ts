/**
 * From the attacker's side (issue 26): a service (or proxy) that answers one transactions list
 * twice. HTTP/1.1 answers do not name their request, so on a kept-alive connection the copy, written
 * once the next request arrives, reads as that request's answer: the same question, asked later,
 * gets the old answer. Reconciliation decides on that list, so each of its lookups must go on a
 * connection of its own. A payment not yet listed, then listed, must be reconciled from the fresh
 * list, never from the stale one that does not show it.
 */

import type { Intent } from '@paywire/core'
import { startDoubleAnswerServer } from '@paywire/core/testing'
import { expect, it, onTestFinished } from 'vitest'
import { BillPayment } from '../src/index.js'

it('a payment that went through is never reconciled from a stale copy of an earlier list; each lookup has its own connection', async () => {
  let listed = false
  const payment = {
    transReference: 'T-STALE-1',
    productId: 'AIRTIME-ORANGE',
    amount: 5,
    status: 'SUCCESS',
    idempotencyKey: 'pay-stale-1',
  }
  const server = await startDoubleAnswerServer({ answer: () => (listed ? [payment] : []) })
  onTestFinished(() => server.close())
  // One socket per pool: a second lookup would otherwise open another socket only by chance.
  const bills = new BillPayment({
    baseUrl: server.url,
    clientId: 'test-client',
    clientSecret: 'test-secret',
    maxRetries: 0,
    maxSockets: 1,
  })
  onTestFinished(() => bills.close())

  // An open intent of a payment whose answer was lost (as pendingIntents() returns it).
  const intent: Intent = {
    id: `intent-stale-${process.pid}`,
    service: 'bill-payment',
    operation: 'transactions.execute',
    params: { productId: 'AIRTIME-ORANGE', amount: 5 },
    reconciliation: {
      key: 'Idempotency-Key',
      value: 'pay-stale-1',
      lookup: 'bills.transactions.list() for the payment sent with Idempotency-Key "pay-stale-1"',
    },
    idempotencyKey: 'pay-stale-1',
    createdAt: Date.now(),
  }
  // Looked up before the payment is listed: the list does not show it, which proves nothing.
  const early = await bills.reconcile(intent)
  expect(early.outcome).toBe('still_unknown')

  // The payment is listed now; the same lookup, asked again, must read the new list.
  listed = true
  const late = await bills.reconcile(intent)
  expect(`${late.outcome} (${late.evidence})`).toMatch(/^applied .*T-STALE-1/)
  expect(late.state).toMatchObject({ idempotencyKey: 'pay-stale-1' })
  expect(server.requests.map((r) => `${r.method} ${r.path} #${r.connection}`)).toEqual([
    'GET /api/transactions #1',
    'GET /api/transactions #2',
  ])
})
