/**
 * Each row declares how it is signed (its S2S `action` and hash inputs); `SIGNED_OPERATIONS`, the
 * table the CLI and users read, is derived from the rows, and a new row is signed by what it says.
 */

import { HttpClient, OperationClient, resource, unsentOnly } from '@paywire/core/engine'
import { faults, startFaultServer } from '@paywire/core/testing'
import { describe, expect, it, onTestFinished } from 'vitest'
import * as z from 'zod'
import { ENDPOINTS } from '../src/endpoints.js'
import { DEFAULT_RULES, type GatewayContext } from '../src/fields.js'
import { SIGNED_OPERATIONS, sign } from '../src/index.js'
import { S2S } from '../src/resources/s2s.js'
import { s2sAction } from '../src/resources/s2s-action.js'
import { seedValues } from '../src/signing/signature.js'
import { PASSWORD } from './helpers.js'

describe('SIGNED_OPERATIONS, derived from the rows', () => {
  it('holds the platform table of actions and hash inputs, in this order', () => {
    // The platform's table restated by hand (rules Authentication 5, Platform 4 and 7): each of its
    // operations is signed so. A row added for another operation is signed by what its row says.
    expect(JSON.parse(JSON.stringify(SIGNED_OPERATIONS, (_k, v) => (v === undefined ? '(none)' : v)))).toMatchObject({
      'checkout.purchase': {
        action: '(none)',
        inputs: ['order.number', 'order.amount', 'order.currency', 'order.description'],
      },
      'checkout.credit': {
        action: '(none)',
        inputs: ['order_id', 'order_amount', 'order_currency', 'order_description'],
      },
      'checkout.status': { action: '(none)', inputs: ['payment_id', 'order_id'] },
      's2s.getTransStatus': { action: 'GET_TRANS_STATUS', inputs: ['trans_id'] },
      's2s.getTransStatusByOrder': { action: 'GET_TRANS_STATUS_BY_ORDER', inputs: ['order_id'] },
      's2s.capture': { action: 'CAPTURE', inputs: ['trans_id'] },
      's2s.void': { action: 'VOID', inputs: ['trans_id'] },
      's2s.creditVoid': { action: 'CREDITVOID', inputs: ['trans_id'] },
      's2s.recurringSale': { action: 'RECURRING_SALE', inputs: ['order_id'] },
      's2s.createSchedule': { action: 'CREATE_SCHEDULE', inputs: null },
      's2s.deleteSchedule': { action: 'DELETE_SCHEDULE', inputs: ['schedule_id'] },
      's2s.updateSchedule': { action: 'UPDATE_SCHEDULE', inputs: ['schedule_id'] },
    })
    // Every entry has exactly these two members, the checkout ones an explicit `action: undefined`.
    for (const row of Object.values(SIGNED_OPERATIONS)) expect(Object.keys(row).sort()).toEqual(['action', 'inputs'])
  })

  it('keys each entry by the name its row signs, errs and overrides by (group.method)', () => {
    const names = Object.entries(ENDPOINTS).flatMap(([, rows]) => Object.values(rows).map((row) => row.name))
    expect(Object.keys(SIGNED_OPERATIONS)).toEqual(names)
  })
})

describe('a row added to a copy of the S2S table', () => {
  it('is sent with its own action and signed with its own hash inputs, no other table edited', async () => {
    const server = await startFaultServer(faults.json(200, { action: 'PARTIAL_REFUND', result: 'ACCEPTED' }))
    const TABLE = {
      ...S2S,
      /** A made-up action signed over two fields, in the order the row names them. */
      partialRefund: s2sAction('s2s.partialRefund', {
        action: 'PARTIAL_REFUND',
        hashInputs: ['order_id', 'trans_id'],
        params: () => z.strictObject({ trans_id: z.string(), order_id: z.string() }),
        retry: unsentOnly,
      }),
    }
    class Extended extends resource<GatewayContext, typeof TABLE>(TABLE) {}
    const http = new HttpClient({ packageName: 'card-gateway', packageVersion: '0.0.0', options: {} })
    const context: GatewayContext = {
      paths: { purchase: '/api/v1/session', status: '/api/v1/payment/status' },
      rules: DEFAULT_RULES,
      merchantKey: () => 'merchant',
      clientKey: () => 'client',
      signRequest: (operation, wire, published) => sign(seedValues(wire, undefined, published, operation), PASSWORD),
    }
    const { gatewayAnswers } = await import('../src/errors.js')
    const ops = new OperationClient({
      http,
      baseUrls: { checkout: server.url, s2s: server.url },
      context,
      answers: gatewayAnswers(undefined),
      journal: undefined,
    })
    onTestFinished(async () => {
      await http.close()
      await server.close()
    })
    const s2s = new Extended(ops)
    const answer = await s2s.partialRefund({ trans_id: 't-1', order_id: 'o-1' })
    expect(answer).toMatchObject({ action: 'PARTIAL_REFUND', result: 'ACCEPTED' })
    const sent = new URLSearchParams(server.requests[0]?.body)
    expect(sent.get('action')).toBe('PARTIAL_REFUND')
    expect(sent.get('client_key')).toBe('client')
    expect(sent.get('hash')).toBe(sign(['o-1', 't-1'], PASSWORD))
    // The published table is the client's: a copy of a table adds nothing to it.
    expect(Object.keys(SIGNED_OPERATIONS)).not.toContain('s2s.partialRefund')
  })
})
