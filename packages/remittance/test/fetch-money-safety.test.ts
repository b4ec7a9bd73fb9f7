/**
 * A transfer on the fetch transport, with hostile `fetch` functions: every failure after `fetch` was
 * called is an unknown outcome carrying its key, never repeated, and ends by the attempt's deadline.
 */

import { describe, expect, it, onTestFinished } from 'vitest'
import { Remittance } from '../src/index.js'

const transfer = { beneficiaryId: 'BEN1', amountSLE: 10, agentTransactionRef: 'AGENT-1' }

function remittanceOn(behaviour: () => unknown) {
  let calls = 0
  const remit = new Remittance({
    baseUrl: 'http://127.0.0.1:9',
    apiKey: 'test-key',
    timeout: 100,
    maxRetries: 3,
    fetch: (() => {
      calls++
      return behaviour()
    }) as typeof fetch,
  })
  onTestFinished(() => remit.close())
  return { remit, calls: () => calls }
}

describe('mobileTransfer on a hostile fetch', () => {
  const hostile: [string, () => unknown][] = [
    ['never settles and ignores the signal', () => new Promise(() => {})],
    [
      'throws synchronously',
      () => {
        throw new TypeError('boom')
      },
    ],
    ['resolves {}', () => Promise.resolve({})],
    [
      'gives a 200 whose body never ends',
      () => new Response(new ReadableStream({ pull: () => new Promise(() => {}) }), { status: 200 }),
    ],
  ]
  for (const [name, behaviour] of hostile) {
    it(`a fetch that ${name}: unknown outcome with its key, sent once`, async () => {
      const { remit, calls } = remittanceOn(behaviour)
      const error = await remit.transactions.mobileTransfer(transfer).catch((e: unknown) => e)
      expect(error).toMatchObject({
        outcomeUnknown: true,
        reconciliation: { key: 'agentTransactionRef', value: 'AGENT-1' },
      })
      expect(calls()).toBe(1)
    }, 3_000)
  }
})
