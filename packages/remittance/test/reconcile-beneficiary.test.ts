/**
 * Reconciling a beneficiary write (issue 26, item 7): the service documents no lookup that tells
 * whether a create or update acted (a posid lists every beneficiary registered under it), so the
 * answer is `not_reconcilable` with the reason, and no transaction status lookup is run with a posid.
 */

import { MemoryIntentStore, type PaywireError } from '@paywire/core'
import { rejection } from '@paywire/core/testing'
import { describe, expect, it } from 'vitest'
import { beneficiary, setup } from './helpers.js'

describe('remit.reconcile of a beneficiary write', () => {
  it('a create whose answer was lost is not_reconcilable, says why, and looks nothing up by its posid', async () => {
    const journal = new MemoryIntentStore()
    const { remit, server, simulator } = await setup({ journal })
    simulator.failNext({ path: '/api/beneficiaries', when: 'after' })
    const error = (await rejection(remit.beneficiaries.create({ ...beneficiary }))) as PaywireError
    expect(error.outcomeUnknown).toBe(true)

    const before = server.requests.length
    const result = await remit.reconcile(error)
    expect(result).toMatchObject({ outcome: 'not_reconcilable', operation: 'beneficiaries.create', state: undefined })
    expect(result.evidence).toMatch(/posid/)
    expect(result.next).toMatch(/getByPosId\("POS-7"\)/)
    expect(server.requests.slice(before).filter((r) => r.url.includes('/transaction/status/'))).toEqual([])

    // The journal keeps it open: only a person can settle it.
    const [settled] = await remit.reconcileAll()
    expect(settled?.result.outcome).toBe('not_reconcilable')
    expect(await remit.pendingIntents()).toMatchObject([{ operation: 'beneficiaries.create' }])
  })

  it('an update whose answer was lost is not_reconcilable too', async () => {
    const { remit, simulator } = await setup()
    simulator.failNext({ path: '/api/beneficiaries', status: 502 })
    const error = (await rejection(remit.beneficiaries.update({ ...beneficiary }))) as PaywireError
    expect(error.outcomeUnknown).toBe(true)
    expect((await remit.reconcile(error)).outcome).toBe('not_reconcilable')
  })
})
