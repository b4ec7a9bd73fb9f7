/** The simulators' shared fault queue: matching by action and operation, refusals naming the known values, rows to names. */

import { describe, expect, it } from 'vitest'
import { FaultQueue, operationOfRequest } from '../src/testing/index.js'

describe('FaultQueue: action and operation', () => {
  const vocabulary = { actions: ['CAPTURE', 'GET_TRANS_STATUS'], operations: ['s2s.capture', 's2s.getTransStatus'] }

  it('a fault by action is taken only by a request with that action, then is gone', () => {
    const queue = new FaultQueue(vocabulary)
    queue.add({ action: 'CAPTURE', when: 'after' })
    expect(queue.take({ pathname: '/post', action: 'GET_TRANS_STATUS' })).toBeUndefined()
    expect(queue.take({ pathname: '/post', action: 'CAPTURE' })).toMatchObject({ when: 'after' })
    expect(queue.take({ pathname: '/post', action: 'CAPTURE' })).toBeUndefined()
  })

  it('a fault by operation combines with its path', () => {
    const queue = new FaultQueue(vocabulary)
    queue.add({ operation: 's2s.capture', path: '/card', count: 2 })
    expect(queue.take({ pathname: '/other/post', operation: 's2s.capture' })).toBeUndefined()
    expect(queue.take({ pathname: '/card/post', operation: 's2s.capture' })).toBeDefined()
    expect(queue.take('/card/post')).toBeUndefined() // a bare path names no operation
  })

  it('an unknown action or operation is refused naming the known ones; none known says so', () => {
    const queue = new FaultQueue(vocabulary)
    expect(() => queue.add({ action: 'CAPTUR' })).toThrow(
      'failNext: action "CAPTUR" is not known; one of CAPTURE, GET_TRANS_STATUS',
    )
    expect(() => queue.add({ operation: 'capture' })).toThrow(/one of s2s\.capture, s2s\.getTransStatus/)
    expect(() => new FaultQueue({ operations: ['a.b'] }).add({ action: 'CAPTURE' })).toThrow(/has no actions/)
  })
})

describe('operationOfRequest', () => {
  const rows = [
    { name: 'transactions.list', method: 'GET', path: '/api/transactions' },
    { name: 'transactions.execute', method: 'POST', path: '/api/transactions' },
    { name: 'transactions.get', method: 'GET', path: '/api/transactions/{transReference}' },
    { name: 'transactions.filter', method: 'POST', path: '/api/transactions/all' },
    { name: 'configured', method: 'POST', path: () => '/x' },
  ]

  it('matches method and path (under a mount prefix), the most literal row first', () => {
    expect(operationOfRequest(rows, 'POST', '/bill-payment/api/transactions')).toBe('transactions.execute')
    expect(operationOfRequest(rows, 'GET', '/api/transactions')).toBe('transactions.list')
    expect(operationOfRequest(rows, 'GET', '/api/transactions/T-1')).toBe('transactions.get')
    expect(operationOfRequest(rows, 'POST', '/api/transactions/all')).toBe('transactions.filter')
    expect(operationOfRequest(rows, 'POST', '/x')).toBeUndefined()
  })

  it('takes a trailing slash and any letter case, as the routes do', () => {
    expect(operationOfRequest(rows, 'POST', '/api/transactions/')).toBe('transactions.execute')
    expect(operationOfRequest(rows, 'GET', '/API/Transactions/T-1/')).toBe('transactions.get')
    expect(operationOfRequest(rows, 'POST', '/api/transactions/ALL')).toBe('transactions.filter')
    expect(operationOfRequest(rows, 'POST', '/api/transactions//')).toBeUndefined()
  })
})
