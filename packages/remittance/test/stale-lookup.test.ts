/**
 * From the attacker's side (issue 26): a service (or proxy) that answers one status lookup twice.
 * HTTP/1.1 answers do not name their request, so on a kept-alive connection the copy, written once
 * the next request arrives, reads as that request's answer: the same question, asked later, gets the
 * old answer. Reconciliation decides on that lookup, so each of its lookups must go on a connection
 * of its own. A confirm looked up before it went through (no referenceNumber yet), then confirmed,
 * must be reconciled from the fresh answer, never from the stale "may not be confirmed".
 */

import type { Intent } from '@paywire/core'
import { startDoubleAnswerServer } from '@paywire/core/testing'
import { expect, it, onTestFinished } from 'vitest'
import { Remittance } from '../src/index.js'

it('a confirm that went through is never reconciled from a stale copy of an earlier lookup; each lookup has its own connection', async () => {
  let confirmed = false
  const server = await startDoubleAnswerServer({
    answer: () =>
      confirmed
        ? { transactionId: 'TX-STALE-1', referenceNumber: 'REF-9', status: 'AGENT_OK' }
        : { transactionId: 'TX-STALE-1', status: 'ENTERED' },
  })
  onTestFinished(() => server.close())
  // One socket per pool: a second lookup would otherwise open another socket only by chance.
  const remit = new Remittance({ baseUrl: server.url, apiKey: 'test-api-key', maxRetries: 0, maxSockets: 1 })
  onTestFinished(() => remit.close())

  // An open intent of a confirm whose answer was lost (as pendingIntents() returns it).
  const intent: Intent = {
    id: `intent-stale-${process.pid}`,
    service: 'remittance',
    operation: 'transactions.confirm',
    params: { transactionId: 'TX-STALE-1' },
    reconciliation: {
      key: 'transactionId',
      value: 'TX-STALE-1',
      lookup: 'remit.lookup.transactionStatus("TX-STALE-1")',
    },
    idempotencyKey: undefined,
    createdAt: Date.now(),
  }
  // Looked up before the confirm went through: no referenceNumber yet, so it may not be confirmed.
  const early = await remit.reconcile(intent)
  expect(early).toMatchObject({ outcome: 'still_unknown', state: { status: 'ENTERED' } })

  // The confirm lands at the service; the same lookup, asked again, must read the new answer.
  confirmed = true
  const late = await remit.reconcile(intent)
  expect(`${late.outcome} (${late.evidence})`).toMatch(/^applied .*status AGENT_OK/)
  expect(late.state).toMatchObject({ referenceNumber: 'REF-9', status: 'AGENT_OK' })
  expect(server.requests.map((r) => `${r.method} ${r.path} #${r.connection}`)).toEqual([
    'GET /api/lookup/transaction/status/TX-STALE-1 #1',
    'GET /api/lookup/transaction/status/TX-STALE-1 #2',
  ])
})
