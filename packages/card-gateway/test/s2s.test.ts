import { RequestValidationError } from '@paywire/core'
import { describe, expect, it } from 'vitest'
import * as cardGateway from '../src/index.js'
import { CardGatewayError } from '../src/index.js'
import { S2S } from '../src/resources/s2s.js'
import { simulatorHash } from '../src/testing/index.js'
import { form, orderId, PASSWORD, paidPayment, rejection, type Setup, setup } from './helpers.js'

const SCHEDULE_ID = '9b0c6e1a-3f7d-4c2e-8a51-7d2f0e4b9c13'

function lastForm(ctx: Setup): Record<string, string> {
  return form(ctx.server.requests.at(-1)?.body ?? '')
}

describe('S2S CARD wire format', () => {
  it("has the spec's actions, one row each, none the spec rules out, and the table is not public surface", () => {
    // Rule S2S 1: these are the platform's actions; a row may be added for another the platform
    // documents later, so the list is what must be there, not all there may be.
    const actions = Object.values(S2S).map((row) => row.action)
    expect(actions).toEqual(
      expect.arrayContaining([
        'GET_TRANS_STATUS',
        'GET_TRANS_STATUS_BY_ORDER',
        'CAPTURE',
        'VOID',
        'CREDITVOID',
        'RECURRING_SALE',
        'CREATE_SCHEDULE',
        'DELETE_SCHEDULE',
        'UPDATE_SCHEDULE',
      ]),
    )
    expect(new Set(actions).size).toBe(actions.length)
    // No S2S refund, no schedule read, no CANCEL_SCHEDULE (rule S2S 1: refunds go through
    // credit or CREDITVOID, a schedule is cancelled with DELETE_SCHEDULE).
    for (const ruledOut of ['REFUND', 'GET_SCHEDULE', 'CANCEL_SCHEDULE']) expect(actions).not.toContain(ruledOut)
    for (const [method, row] of Object.entries(S2S)) expect(row.name).toBe(`s2s.${method}`)
    expect(Object.keys(cardGateway)).not.toContain('S2S')
  })

  it('POSTs form-encoded to {s2sUrl}/post with action, client_key and hash always sent', async () => {
    const ctx = await setup()
    const paid = await paidPayment(ctx)
    ctx.server.clearRequests()
    const result = await ctx.gw.s2s.getTransStatus({ trans_id: paid.trans_id })
    expect(result).toMatchObject({ action: 'GET_TRANS_STATUS', result: 'SUCCESS', status: 'PENDING' })
    const [req] = ctx.server.requests
    expect(req?.method).toBe('POST')
    expect(req?.url).toBe('/post')
    expect(req?.headers['content-type']).toBe('application/x-www-form-urlencoded')
    expect(req?.body).toBe(
      `action=GET_TRANS_STATUS&client_key=sim-client-key&trans_id=${paid.trans_id}&hash=${simulatorHash([paid.trans_id], PASSWORD)}`,
    )
  })

  it('GET_TRANS_STATUS_BY_ORDER signs order_id', async () => {
    const ctx = await setup()
    const paid = await paidPayment(ctx)
    const result = await ctx.gw.s2s.getTransStatusByOrder({ order_id: paid.order_id })
    expect(result.trans_id).toBe(paid.trans_id)
    expect(lastForm(ctx)).toEqual({
      action: 'GET_TRANS_STATUS_BY_ORDER',
      client_key: 'sim-client-key',
      order_id: paid.order_id,
      hash: simulatorHash([paid.order_id], PASSWORD),
    })
  })

  it('CAPTURE with an optional amount signs trans_id only', async () => {
    const ctx = await setup()
    const paid = await paidPayment(ctx)
    const result = await ctx.gw.s2s.capture({ trans_id: paid.trans_id, amount: '4.00' })
    expect(result).toMatchObject({ result: 'SUCCESS', status: 'SETTLED', amount: '4.00' })
    expect(lastForm(ctx)).toEqual({
      action: 'CAPTURE',
      client_key: 'sim-client-key',
      trans_id: paid.trans_id,
      amount: '4.00',
      hash: simulatorHash([paid.trans_id], PASSWORD),
    })
  })

  it('VOID cancels a pending authorization', async () => {
    const ctx = await setup()
    const paid = await paidPayment(ctx)
    const result = await ctx.gw.s2s.void({ trans_id: paid.trans_id })
    expect(result.status).toBe('VOID')
    expect(lastForm(ctx)['action']).toBe('VOID')
    expect(ctx.simulator.ledger.at(-1)).toMatchObject({ kind: 'void', trans_id: paid.trans_id })
  })

  it('CREDITVOID answers ACCEPTED at once for a settled payment', async () => {
    const ctx = await setup()
    const paid = await paidPayment(ctx, { capture: true })
    const result = await ctx.gw.s2s.creditVoid({ trans_id: paid.trans_id, amount: '2.50' })
    expect(result.result).toBe('ACCEPTED')
    expect(lastForm(ctx)).toMatchObject({ action: 'CREDITVOID', amount: '2.50' })
    expect(ctx.simulator.ledger.at(-1)).toMatchObject({ kind: 'refund', amount: '2.50' })
  })

  it('RECURRING_SALE sends the order fields and signs order_id; the amount string is identical in body and hash input', async () => {
    const ctx = await setup()
    const first = await paidPayment(ctx, { capture: true, recurring: true })
    const id = orderId('rec')
    const result = await ctx.gw.s2s.recurringSale({
      order_id: id,
      order_amount: '9.90',
      order_description: 'Monthly plan',
      order_currency: 'USD',
      recurring_first_trans_id: first.trans_id,
      recurring_token: first.recurring_token as string,
    })
    expect(result).toMatchObject({ result: 'SUCCESS', status: 'SETTLED', amount: '9.90' })
    const sent = lastForm(ctx)
    expect(Object.keys(sent)).toEqual([
      'action',
      'client_key',
      'order_id',
      'order_amount',
      'order_description',
      'order_currency',
      'recurring_first_trans_id',
      'recurring_token',
      'hash',
    ])
    expect(sent['order_amount']).toBe('9.90')
    expect(sent['hash']).toBe(simulatorHash([id], PASSWORD))
  })

  it('CREATE_SCHEDULE answers schedule_id; counts go as decimal strings; signs the configured inputs', async () => {
    const ctx = await setup({ client: { hashInputs: { 's2s.createSchedule': [] } } })
    const result = await ctx.gw.s2s.createSchedule({
      name: 'Monthly',
      interval_length: 1,
      interval_unit: 'month',
      payments_count: 12,
    })
    expect(result.schedule_id).toMatch(/^[0-9a-f-]{36}$/)
    expect(lastForm(ctx)).toEqual({
      action: 'CREATE_SCHEDULE',
      client_key: 'sim-client-key',
      name: 'Monthly',
      interval_length: '1',
      interval_unit: 'month',
      payments_count: '12',
      hash: simulatorHash([], PASSWORD),
    })
    expect(ctx.simulator.schedules.get(result.schedule_id as string)).toMatchObject({ interval_unit: 'month' })
  })

  it('UPDATE_SCHEDULE and DELETE_SCHEDULE sign schedule_id', async () => {
    const ctx = await setup({ client: { hashInputs: { 's2s.createSchedule': [] } } })
    await ctx.gw.s2s.createSchedule({
      name: 'Weekly-ish',
      interval_length: 7,
      interval_unit: 'day',
      payments_count: 4,
      schedule_id: SCHEDULE_ID,
    })
    await ctx.gw.s2s.updateSchedule({ schedule_id: SCHEDULE_ID, payments_count: 8 })
    expect(lastForm(ctx)).toEqual({
      action: 'UPDATE_SCHEDULE',
      client_key: 'sim-client-key',
      schedule_id: SCHEDULE_ID,
      payments_count: '8',
      hash: simulatorHash([SCHEDULE_ID], PASSWORD),
    })
    expect(ctx.simulator.schedules.get(SCHEDULE_ID)?.payments_count).toBe('8')
    await ctx.gw.s2s.deleteSchedule({ schedule_id: SCHEDULE_ID })
    expect(lastForm(ctx)).toMatchObject({ action: 'DELETE_SCHEDULE', hash: simulatorHash([SCHEDULE_ID], PASSWORD) })
    expect(ctx.simulator.schedules.has(SCHEDULE_ID)).toBe(false)
    expect(ctx.simulator.ledger.map((e) => e.kind)).toEqual([
      'schedule_created',
      'schedule_updated',
      'schedule_deleted',
    ])
  })

  it('lets the caller override hash inputs per operation', async () => {
    const ctx = await setup({
      sim: { hashInputs: { CREATE_SCHEDULE: ['name'] } },
      client: { hashInputs: { 's2s.createSchedule': ['name'] } },
    })
    await ctx.gw.s2s.createSchedule({ name: 'Plan', interval_length: 1, interval_unit: 'day', payments_count: 2 })
    expect(lastForm(ctx)['hash']).toBe(simulatorHash(['Plan'], PASSWORD))
  })
})

describe('S2S CARD validation before sending', () => {
  it('refuses a schedule_id that is not a UUID (rule S2S 2) without sending', async () => {
    const ctx = await setup()
    const error = await rejection(ctx.gw.s2s.deleteSchedule({ schedule_id: 'not-a-uuid' }))
    expect(error).toBeInstanceOf(RequestValidationError)
    expect((error as RequestValidationError).issues[0]).toMatchObject({ path: 'schedule_id' })
    expect(ctx.server.requests).toHaveLength(0)
  })

  it('refuses a term_url_3ds that is not https (rule Events 4) without sending', async () => {
    const ctx = await setup()
    const error = await rejection(
      ctx.gw.s2s.recurringSale({
        order_id: 'order-rec-1',
        order_amount: '1.00',
        order_description: 'Subscription',
        recurring_first_trans_id: 't-1',
        recurring_token: 'r-1',
        term_url_3ds: 'http://shop.example/3ds',
      }),
    )
    expect(error).toBeInstanceOf(RequestValidationError)
    expect((error as RequestValidationError).issues[0]).toMatchObject({ path: 'term_url_3ds' })
    expect(ctx.server.requests).toHaveLength(0)
  })

  it('accepts only "day" or "month" as interval_unit', async () => {
    const ctx = await setup({ client: { hashInputs: { 's2s.createSchedule': [] } } })
    const error = await rejection(
      ctx.gw.s2s.createSchedule({ name: 'x', interval_length: 1, interval_unit: 'week', payments_count: 1 }),
    )
    expect((error as RequestValidationError).issues).toContainEqual({
      path: 'interval_unit',
      message: 'must be "day" or "month"',
    })
  })

  it('refuses unknown keys with the closest wire name (typo guard)', async () => {
    const ctx = await setup()
    // @ts-expect-error typo
    const error = await rejection(ctx.gw.s2s.capture({ trans_id: 't', ammount: '1.00' }))
    expect((error as RequestValidationError).issues).toContainEqual({
      path: 'ammount',
      message: 'unknown field; did you mean "amount"?',
    })
  })

  it('cannot send another action name through the typed surface (rule S2S 1)', async () => {
    const ctx = await setup()
    // @ts-expect-error action is fixed by the row
    const error = await rejection(ctx.gw.s2s.getTransStatus({ trans_id: 't', action: 'REFUND' }))
    expect((error as RequestValidationError).issues[0]?.path).toBe('action')
    expect(ctx.server.requests).toHaveLength(0)
  })

  it('requires the fields of the action table', async () => {
    const ctx = await setup()
    // @ts-expect-error missing fields
    const error = await rejection(ctx.gw.s2s.recurringSale({ order_id: 'x' }))
    const paths = (error as RequestValidationError).issues.map((i) => i.path)
    expect(paths).toEqual(
      expect.arrayContaining(['order_amount', 'order_description', 'recurring_first_trans_id', 'recurring_token']),
    )
  })

  it('the raw escape hatch reaches any other route with the same error class', async () => {
    const ctx = await setup()
    const error = await rejection(
      ctx.gw.request({
        base: 's2s',
        method: 'POST',
        path: '/post',
        form: { action: 'CANCEL_SCHEDULE', client_key: 'sim-client-key', hash: ctx.gw.sign([]) },
      }),
    )
    expect(error).toBeInstanceOf(CardGatewayError)
    expect(error).toMatchObject({ status: 404, code: 0, reason: 'route_not_supported' })
  })
})
