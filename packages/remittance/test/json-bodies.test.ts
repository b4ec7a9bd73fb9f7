/**
 * The bodies whose fields are not published (rule Resources 8) take any JSON member: what JSON cannot
 * carry is refused before anything is sent, named by its path, the same way bill payment refuses it.
 */

import { describe, expect, it } from 'vitest'
import { RequestValidationError } from '../src/index.js'
import { setup } from './helpers.js'

async function refused(promise: Promise<unknown>): Promise<RequestValidationError> {
  const error = await promise.catch((e: unknown) => e)
  expect(error).toBeInstanceOf(RequestValidationError)
  return error as RequestValidationError
}

describe('a cyclic body is refused, named, and nothing is sent', () => {
  it.each([
    ['beneficiaries.update', 'update'],
    ['lookup.nameEnquiry', 'nameEnquiry'],
    ['transactions.bankTransfer', 'bankTransfer'],
  ] as const)('%s: a body that holds itself', async (operation, method) => {
    const { remit, server } = await setup()
    const body: Record<string, unknown> = { agentTransactionRef: 'REF-CYCLE-1', bankCode: 'RCB' }
    body['self'] = body
    const call =
      method === 'update'
        ? remit.beneficiaries.update(body)
        : method === 'nameEnquiry'
          ? remit.lookup.nameEnquiry(body)
          : remit.transactions.bankTransfer(body)
    const error = await refused(call)
    expect(error.operation).toBe(operation)
    expect(error.issues).toEqual([{ path: 'self', message: 'circular reference; JSON cannot represent it' }])
    expect(error.message).toContain('circular reference')
    expect(error.requestSent).toBe(false)
    expect(server.requests).toHaveLength(0)
  })

  it('a cycle deep inside a member is named by its full path', async () => {
    const { remit, server } = await setup()
    const node: Record<string, unknown> = { id: 1 }
    node['children'] = [{ id: 2, parent: node }]
    const error = await refused(remit.lookup.nameEnquiry({ bankCode: 'RCB', tree: node }))
    expect(error.issues).toEqual([
      { path: 'tree.children.0.parent', message: 'circular reference; JSON cannot represent it' },
    ])
    expect(server.requests).toHaveLength(0)
  })

  it('the same object twice, with no cycle, is JSON and is sent', async () => {
    const { remit, server } = await setup()
    const shared = { note: 'x' }
    await remit.lookup.nameEnquiry({ bankCode: 'RCB', accountNumber: '0012345678', a: shared, b: [shared, shared] })
    expect(server.requests).toHaveLength(1)
    expect(JSON.parse(server.requests[0]?.body ?? '')).toMatchObject({ a: shared, b: [shared, shared] })
  })
})
