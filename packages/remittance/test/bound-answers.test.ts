/**
 * Bound answers at the remittance service, from the attacker's side (rule Platform 19): a
 * misbehaving service, proxy or cache answers the status lookup, a transfer or a confirm with the
 * record of another transaction. Through the real undici transport, such an answer is not believed:
 * the lookup fails with `unbound_response`; a transfer or confirm is an unknown outcome with its key.
 * And a lost confirm is `applied` only on a state that proves the transaction was confirmed.
 */

import { MemoryIntentStore, type PaywireError } from '@paywire/core'
import { type FaultBehaviour, faults, rejection, startFaultServer } from '@paywire/core/testing'
import { describe, expect, it, onTestFinished } from 'vitest'
import { Remittance, RemittanceError } from '../src/index.js'
import { createBeneficiary, mobileTransferBody, setup } from './helpers.js'

async function faultRemit(behaviour: FaultBehaviour) {
  const server = await startFaultServer(behaviour)
  const remit = new Remittance({ baseUrl: server.url, apiKey: 'key', journal: new MemoryIntentStore(), maxRetries: 0 })
  onTestFinished(async () => {
    await remit.close()
    await server.close()
  })
  return { remit, server }
}

async function remittanceError(promise: PromiseLike<unknown>): Promise<RemittanceError> {
  const error = await rejection(promise)
  expect(error).toBeInstanceOf(RemittanceError)
  return error as RemittanceError
}

const LOOKUP_ADVICE = 'act on none of it, and look the subject up again.'
const RN2 = { referenceNumber: 'RN-2', transactionId: 'TX-2', agentTransactionRef: 'AGENT-2', status: 'PROCESSED' }

describe('a status lookup answer that does not name the reference asked for confirms nothing', () => {
  const cases = [
    {
      what: 'another transaction',
      body: RN2,
      names:
        'it names referenceNumber "RN-2", transactionId "TX-2" and agentTransactionRef "AGENT-2", not the "RN-1" this call sent',
    },
    {
      what: 'the reference with a trailing space',
      body: { ...RN2, referenceNumber: 'RN-1 ', transactionId: null, agentTransactionRef: null },
      names: 'it names referenceNumber "RN-1 ", not the "RN-1" this call sent',
    },
    {
      what: 'the reference in lower case',
      body: { referenceNumber: 'rn-1', status: 'PROCESSED' },
      names: 'it names referenceNumber "rn-1", not the "RN-1" this call sent',
    },
    {
      what: 'no identifier',
      body: { status: 'PROCESSED', amountSLE: 100 },
      names:
        'it names no referenceNumber, transactionId or agentTransactionRef, so nothing binds it to the "RN-1" this call sent',
    },
  ]

  it.each(cases)('answered with $what: unbound_response, status 200, outcome known', async (c) => {
    const { remit, server } = await faultRemit(faults.json(200, c.body))
    const error = await remittanceError(remit.lookup.transactionStatus('RN-1'))
    expect(error).toMatchObject({ status: 200, code: undefined, reason: 'unbound_response', outcomeUnknown: false })
    expect(error.message).toBe(
      `lookup.transactionStatus: the success answer (HTTP 200) is not about this request: ${c.names} (rule Platform 19); ${LOOKUP_ADVICE}`,
    )
    expect(server.requests).toHaveLength(1)
  })

  it('an empty 200 holds no record, so it confirms nothing either', async () => {
    const { remit } = await faultRemit(faults.text(200, '', 'application/json'))
    const error = await remittanceError(remit.lookup.transactionStatus('RN-1'))
    expect(error).toMatchObject({ status: 200, reason: 'unbound_response' })
    expect(error.message).toBe(
      `lookup.transactionStatus: the success answer (HTTP 200) is not about this request: it holds no record, so nothing binds it to the "RN-1" this call sent (rule Platform 19); ${LOOKUP_ADVICE}`,
    )
  })

  it('a record naming the reference in any of its identifiers is the answer (a number as its decimal text)', async () => {
    const { remit } = await faultRemit(faults.json(200, { ...RN2, referenceNumber: 1001 }))
    expect(await remit.lookup.transactionStatus(1001)).toMatchObject({ referenceNumber: 1001 })
    expect(await remit.lookup.transactionStatus('AGENT-2')).toMatchObject({ agentTransactionRef: 'AGENT-2' })
  })

  it('against the simulator, a confirmed transfer is found by its reference and by its agentTransactionRef', async () => {
    const { remit } = await setup()
    const transfer = await remit.transactions.mobileTransfer(mobileTransferBody(await createBeneficiary(remit)))
    const confirmed = await remit.transactions.confirm(String(transfer?.transactionId))
    const byReference = await remit.lookup.transactionStatus(String(confirmed?.referenceNumber))
    expect(byReference).toMatchObject({ transactionId: transfer?.transactionId, status: 'AGENT_OK' })
    const byRef = await remit.lookup.transactionStatus(String(transfer?.agentTransactionRef))
    expect(byRef).toMatchObject({ referenceNumber: confirmed?.referenceNumber })
  })
})

describe('a transfer or confirm answered for another transaction is an unknown outcome, never a success', () => {
  it('a mobile transfer answered with another agentTransactionRef: unbound_response, outcomeUnknown, its key; the intent stays open', async () => {
    const { remit } = await faultRemit(
      faults.json(200, { transactionId: 'TX-9', agentTransactionRef: 'AGENT-2', status: 'ENTERED' }),
    )
    const error = await remittanceError(
      remit.transactions.mobileTransfer({ ...mobileTransferBody('BEN-1'), agentTransactionRef: 'AGENT-1' }),
    )
    expect(error).toMatchObject({
      status: 200,
      code: undefined,
      reason: 'unbound_response',
      outcomeUnknown: true,
      idempotencyKey: 'AGENT-1',
      reconciliation: { key: 'agentTransactionRef', value: 'AGENT-1' },
    })
    expect(error.message).toMatch(
      /^transactions\.mobileTransfer: the success answer \(HTTP 200\) is not about this request: it names agentTransactionRef "AGENT-2", not the "AGENT-1" this call sent \(rule Platform 19\); act on none of it\. Outcome unknown: the service may have acted on this transactions\.mobileTransfer; reconcile with remit\.lookup\.transactionStatus\("AGENT-1"\)/,
    )
    expect(await remit.pendingIntents()).toMatchObject([{ operation: 'transactions.mobileTransfer' }])
  })

  it('a transfer answered with no agentTransactionRef is accepted as before (success bodies are not published)', async () => {
    const { remit } = await faultRemit(faults.json(200, { transactionId: 'TX-9', status: 'ENTERED' }))
    const transfer = await remit.transactions.mobileTransfer(mobileTransferBody('BEN-1'))
    expect(transfer).toMatchObject({ transactionId: 'TX-9' })
  })

  it('a confirm answered with another transactionId: unbound_response, outcomeUnknown, its key', async () => {
    const { remit } = await faultRemit(
      faults.json(200, { transactionId: 'TX-2', referenceNumber: 'RN-2', status: 'AGENT_OK' }),
    )
    const error = await remittanceError(remit.transactions.confirm('TX-1'))
    expect(error).toMatchObject({
      status: 200,
      reason: 'unbound_response',
      outcomeUnknown: true,
      reconciliation: { key: 'transactionId', value: 'TX-1' },
    })
    expect(error.message).toMatch(
      /^transactions\.confirm: the success answer \(HTTP 200\) is not about this request: it names transactionId "TX-2", not the "TX-1" this call sent \(rule Platform 19\); act on none of it\. Outcome unknown/,
    )
  })
})

/** A service where confirm acts and its answer is lost, and the status lookup answers `state`. */
async function lostConfirm(state: Record<string, unknown>) {
  return faultRemit((req, res) => {
    if (req.method === 'POST' && req.url?.startsWith('/api/transactions/confirm/')) {
      req.socket.destroy()
      return
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(state))
  })
}

describe('a confirm whose answer was lost is applied only on a state that proves it confirmed (item 3)', () => {
  it.each(['ENTERED', 'PENDING_CLEARANCE', 'ABORTED', 'SOMETHING_NEW'])(
    'the lookup shows the transaction %s (with a reference): still_unknown with advice, and the intent stays open',
    async (status) => {
      const { remit } = await lostConfirm({ transactionId: 'TX-1', referenceNumber: 'RN-1', status })
      const error = (await rejection(remit.transactions.confirm('TX-1'))) as PaywireError
      expect(error.outcomeUnknown).toBe(true)
      const result = await remit.reconcile(error)
      expect(result.outcome).toBe('still_unknown')
      expect(result.evidence).toBe(
        `the status lookup shows transaction TX-1 as ${status}, which does not prove it was confirmed (rule Platform 3)`,
      )
      expect(result.next).toMatch(/look the transaction up with remit\.lookup\.transactionStatus/)
      const [settled] = await remit.reconcileAll()
      expect(settled?.result.outcome).toBe('still_unknown')
      expect(await remit.pendingIntents()).toMatchObject([{ operation: 'transactions.confirm' }])
    },
  )

  it.each(['AGENT_OK', 'HQ_OK', 'PROCESSED'])(
    'the lookup shows the transaction %s: applied, and the intent is closed',
    async (status) => {
      const { remit } = await lostConfirm({ transactionId: 'TX-1', referenceNumber: 'RN-1', status })
      await rejection(remit.transactions.confirm('TX-1'))
      const [settled] = await remit.reconcileAll()
      expect(settled?.result).toMatchObject({ outcome: 'applied', state: { status } })
      expect(await remit.pendingIntents()).toEqual([])
    },
  )
})
