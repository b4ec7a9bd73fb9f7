/**
 * Reconciling a transfer whose answer was lost: the simulator executes it and loses the answer;
 * `reconcile` must say applied only when a lookup finds it, and never send the transfer again.
 */

import { MemoryIntentStore, type PaywireError } from '@paywire/core'
import { rejection } from '@paywire/core/testing'
import { describe, expect, it } from 'vitest'
import { createBeneficiary, mobileTransferBody, setup } from './helpers.js'

describe('remit.reconcile', () => {
  it('a mobile transfer whose answer was lost is applied, found by its agentTransactionRef; nothing is resent', async () => {
    const journal = new MemoryIntentStore()
    const { remit, server, simulator } = await setup({ journal })
    const body = { ...mobileTransferBody(await createBeneficiary(remit)), agentTransactionRef: 'AGENT-LOST-1' }
    simulator.failNext({ path: '/api/transactions/mobile-transfer', when: 'after' })
    const error = (await rejection(remit.transactions.mobileTransfer(body))) as PaywireError
    expect(error.outcomeUnknown).toBe(true)
    expect(await remit.pendingIntents()).toMatchObject([{ operation: 'transactions.mobileTransfer' }])

    const before = server.requests.length
    const result = await remit.reconcile(error)
    expect(result).toMatchObject({ outcome: 'applied', key: { key: 'agentTransactionRef', value: 'AGENT-LOST-1' } })
    expect(server.requests.slice(before).map((r) => r.method)).toEqual(['GET'])
    expect(simulator.ledger.filter((e) => e.kind === 'mobile-transfer')).toHaveLength(1)

    // The reconcile closed the intent (a definite answer): reconcileAll finds nothing left.
    expect(await remit.pendingIntents()).toEqual([])
    expect(await remit.reconcileAll()).toEqual([])
  })

  it('a transfer the lookup cannot find is still_unknown, never not_applied, and says how to settle it safely', async () => {
    const { remit, simulator } = await setup()
    const body = { ...mobileTransferBody(await createBeneficiary(remit)), agentTransactionRef: 'AGENT-NEVER-1' }
    simulator.failNext({ path: '/api/transactions/mobile-transfer', status: 502 })
    const error = (await rejection(remit.transactions.mobileTransfer(body))) as PaywireError
    expect(error.outcomeUnknown).toBe(true)
    const result = await remit.reconcile(error)
    expect(result.outcome).toBe('still_unknown')
    expect(result.next).toMatch(/agentTransactionRef "AGENT-NEVER-1".*Do not send it again/)
    expect(simulator.ledger.filter((e) => e.kind === 'mobile-transfer')).toHaveLength(0)
  })
})
