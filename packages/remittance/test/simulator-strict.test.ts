/**
 * The remittance simulator is strict by default: raw requests (the SDK refuses these before sending)
 * are refused with the service's 400 ProblemDetails and an `errors` map; `lenient: true` lets them
 * through. And `failNext({ operation })` by the SDK's operation names.
 */

import { request } from 'undici'
import { describe, expect, it } from 'vitest'
import { SIMULATOR_CREDENTIALS, startRemittanceSimulator } from '../src/testing/index.js'
import { createBeneficiary, mobileTransferBody, setup } from './helpers.js'

async function post(url: string, path: string, body: unknown) {
  const answer = await request(`${url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-code': SIMULATOR_CREDENTIALS.apiKey },
    body: JSON.stringify(body),
  })
  return {
    status: answer.statusCode,
    type: answer.headers['content-type'],
    body: (await answer.body.json()) as Record<string, unknown>,
  }
}

describe('remittance simulator: strict by default', () => {
  it.each([
    ['negative fees', { fees: -15 }, 'fees'],
    ['a misspelt member (amountSle)', { amountSle: 5 }, 'amountSle'],
  ])(
    'a transfer with %s is refused with a 400 errors map naming the field, and nothing is booked',
    async (_name, change, field) => {
      const sim = await startRemittanceSimulator()
      try {
        const { remit } = await setup()
        void remit
        const ben = await post(sim.url, '/api/beneficiaries', {
          firstName: 'Ama',
          lastName: 'Mensah',
          telephone: '+233245550101',
        })
        const beneficiaryId = String(ben.body['beneficiaryId'])
        const answer = await post(sim.url, '/api/transactions/mobile-transfer', {
          ...mobileTransferBody(beneficiaryId),
          agentTransactionRef: `strict-${field}`,
          ...change,
        })
        expect(answer.status).toBe(400)
        expect(answer.type).toBe('application/problem+json')
        expect(answer.body).toMatchObject({ status: 400, title: 'One or more validation errors occurred.' })
        expect(Object.keys(answer.body['errors'] as object)).toEqual([field])
        expect(sim.simulator.ledger).toEqual([])
      } finally {
        await sim.close()
      }
    },
  )

  it('a quote with sendingAmountSLE 10.005 is refused naming it', async () => {
    const sim = await startRemittanceSimulator()
    try {
      const answer = await post(sim.url, '/api/lookup/rates', {
        sendingAmountSLE: 10.005,
        destCurrency: 'GHS',
        extra: 1,
      })
      expect(answer.status).toBe(400)
      expect(Object.keys(answer.body['errors'] as object).sort()).toEqual(['extra', 'sendingAmountSLE'].sort())
    } finally {
      await sim.close()
    }
  })

  it.each([
    ['a trailing slash', '/api/transactions/mobile-transfer/'],
    ['other letter case', '/API/Transactions/Mobile-Transfer'],
  ])(
    'a transfer to the route written with %s (the route still serves it) is checked as strictly',
    async (_name, path) => {
      const sim = await startRemittanceSimulator()
      try {
        const ben = await post(sim.url, '/api/beneficiaries', {
          firstName: 'Ama',
          lastName: 'Mensah',
          telephone: '+233245550101',
        })
        const answer = await post(sim.url, path, {
          ...mobileTransferBody(String(ben.body['beneficiaryId'])),
          agentTransactionRef: 'strict-path',
          fees: -15,
        })
        expect(answer.status).toBe(400)
        expect(Object.keys(answer.body['errors'] as object)).toEqual(['fees'])
        expect(sim.simulator.ledger).toEqual([])
      } finally {
        await sim.close()
      }
    },
  )

  it('lenient: true lets the looser body through', async () => {
    const sim = await startRemittanceSimulator({ lenient: true })
    try {
      const ben = await post(sim.url, '/api/beneficiaries', {
        firstName: 'Ama',
        lastName: 'Mensah',
        telephone: '+233245550101',
        nickname: 'A',
      })
      expect(ben.status).toBe(201)
      const answer = await post(sim.url, '/api/transactions/mobile-transfer', {
        ...mobileTransferBody(String(ben.body['beneficiaryId'])),
        agentTransactionRef: 'lenient-1',
        fees: -15,
      })
      expect(answer.status).toBe(201)
    } finally {
      await sim.close()
    }
  })
})

describe('remittance simulator: failNext by operation', () => {
  it("operation 'transactions.confirm' fails the confirm and leaves the status lookup alone", async () => {
    const { remit, simulator } = await setup({ maxRetries: 0 })
    const beneficiaryId = await createBeneficiary(remit)
    const transfer = await remit.transactions.mobileTransfer(mobileTransferBody(beneficiaryId))
    simulator.failNext({ operation: 'transactions.confirm' })
    await expect(remit.lookup.banks()).resolves.toHaveLength(4)
    await expect(remit.transactions.confirm(String(transfer?.transactionId))).rejects.toMatchObject({
      status: 502,
    })
    expect(simulator.ledger[0]?.status).toBe('ENTERED')
  })

  it("when: 'after' with an operation confirms, then loses the answer", async () => {
    const { remit, simulator } = await setup({ maxRetries: 0 })
    const beneficiaryId = await createBeneficiary(remit)
    const transfer = await remit.transactions.mobileTransfer(mobileTransferBody(beneficiaryId))
    simulator.failNext({ operation: 'transactions.confirm', when: 'after' })
    await expect(remit.transactions.confirm(String(transfer?.transactionId))).rejects.toMatchObject({
      status: 502,
    })
    expect(simulator.ledger[0]?.status).toBe('AGENT_OK')
  })

  it('a fault by operation is taken by that route written with a trailing slash or other letter case', async () => {
    const sim = await startRemittanceSimulator()
    try {
      const ben = await post(sim.url, '/api/beneficiaries', {
        firstName: 'Ama',
        lastName: 'Mensah',
        telephone: '+233245550101',
      })
      sim.simulator.failNext({ operation: 'transactions.mobileTransfer', count: 2 })
      for (const [ref, path] of [
        ['slash', '/api/transactions/mobile-transfer/'],
        ['case', '/API/transactions/MOBILE-TRANSFER'],
      ] as const) {
        const answer = await post(sim.url, path, {
          ...mobileTransferBody(String(ben.body['beneficiaryId'])),
          agentTransactionRef: `fault-${ref}`,
        })
        expect(answer.status).toBe(502)
      }
      expect(sim.simulator.ledger).toEqual([])
    } finally {
      await sim.close()
    }
  })

  it('an unknown operation, or an action (remittance has none), is refused naming the known ones', async () => {
    const { simulator } = await setup()
    expect(() => simulator.failNext({ operation: 'transfers.confirm' })).toThrow(/transactions\.confirm/)
    expect(() => simulator.failNext({ action: 'CAPTURE' })).toThrow(RangeError)
  })
})
