/**
 * Money safety at the remittance service, from the attacker's side: a redirect or a 5xx answer to a
 * transfer must not read as success and must say the transfer may have been made, with its key.
 */

import { type FaultBehaviour, faults, startFaultServer } from '@paywire/core/testing'
import { describe, expect, it, onTestFinished } from 'vitest'
import { Remittance, RemittanceError } from '../src/index.js'

async function faultRemittance(behaviour: FaultBehaviour) {
  const server = await startFaultServer(behaviour)
  const remit = new Remittance({ baseUrl: server.url, apiKey: 'test-key' })
  onTestFinished(async () => {
    await remit.close()
    await server.close()
  })
  return { remit, server }
}

const transfer = { beneficiaryId: 'BEN1', amountSLE: 10, agentTransactionRef: 'AGENT-1' }

describe('a 3xx is never success, never followed, never retried', () => {
  it('an empty 302 to mobileTransfer is unexpected_redirect, outcome unknown, key carried', async () => {
    const elsewhere = await startFaultServer(faults.json(200, { ok: true }))
    onTestFinished(() => elsewhere.close())
    const { remit, server } = await faultRemittance(faults.text(302, '', 'text/plain', { location: elsewhere.url }))
    const error = await remit.transactions.mobileTransfer(transfer).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(RemittanceError)
    expect(error).toMatchObject({
      status: 302,
      reason: 'unexpected_redirect',
      outcomeUnknown: true,
      idempotencyKey: 'AGENT-1',
      reconciliation: { key: 'agentTransactionRef', value: 'AGENT-1' },
    })
    expect(server.requests).toHaveLength(1)
    expect(elsewhere.requests).toHaveLength(0)
    // the x-code key went nowhere else
    expect(elsewhere.requests.some((r) => r.headers['x-code'] !== undefined)).toBe(false)
  })

  it('a 301 to a GET lookup is unexpected_redirect, not retried, outcome known', async () => {
    const { remit, server } = await faultRemittance(faults.text(301, '', 'text/plain', { location: '/elsewhere' }))
    const error = await remit.lookup.banks().catch((e: unknown) => e)
    expect(error).toMatchObject({ status: 301, reason: 'unexpected_redirect', outcomeUnknown: false })
    expect(server.requests).toHaveLength(1)
  })
})

describe('5xx after a transfer was sent is an unknown outcome', () => {
  it('an HTML 503 to cashCollection says to reconcile, with the agentTransactionRef', async () => {
    const { remit } = await faultRemittance(faults.text(503, '<html>Service Unavailable</html>'))
    const error = (await remit.transactions.cashCollection(transfer).catch((e: unknown) => e)) as RemittanceError
    expect(error).toMatchObject({ status: 503, outcomeUnknown: true, reconciliation: { value: 'AGENT-1' } })
    expect(error.message).toContain('Outcome unknown')
    expect(error.message).toContain('agentTransactionRef "AGENT-1"')
  })

  it('a 400 ProblemDetails refusal is a known outcome', async () => {
    const { remit } = await faultRemittance(
      faults.json(400, { title: 'Invalid', status: 400 }, { 'content-type': 'application/problem+json' }),
    )
    const error = await remit.transactions.mobileTransfer(transfer).catch((e: unknown) => e)
    expect(error).toMatchObject({ status: 400, reason: 'bad_request', outcomeUnknown: false })
  })
})
