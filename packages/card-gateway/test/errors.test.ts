import { createTestClock } from '@paywire/core/testing'
import { HttpResponse, http } from 'msw'
import { describe, expect, it } from 'vitest'
import { SIMULATOR_LIVE_KEYS, TEST_CARDS } from '../src/testing/index.js'
import { gatewayError, orderId, paidPayment, setup } from './helpers.js'

const SCHEDULE_ID = '0f6e7a0c-1d2b-4c3d-9e8f-a1b2c3d4e5f6'
const urls = { success_url: 'https://shop.example/ok', cancel_url: 'https://shop.example/cancel' }

describe('error table: one named reason per row', () => {
  it('400 100000 "Hash is not valid" → hash_invalid', async () => {
    const ctx = await setup({ client: { password: 'wrong-password' } })
    const error = await gatewayError(ctx.gw.s2s.getTransStatus({ trans_id: 't1' }))
    expect(error).toMatchObject({ status: 400, code: 100000, reason: 'hash_invalid', isNotFound: false })
    expect(error.message).toMatch(/explainSignature/)
  })

  it('100000 "order_id: Duplicate payment." → duplicate_order (reuse after the 15 s window)', async () => {
    const clock = createTestClock(1_000_000)
    const ctx = await setup({ sim: { clock } })
    const number = orderId()
    const params = { order: { number, amount: '1.00', currency: 'USD', description: 'Test order' }, ...urls }
    await ctx.gw.checkout.purchase(params)
    clock.advance(15_000)
    const error = await gatewayError(ctx.gw.checkout.purchase(params))
    expect(error).toMatchObject({
      code: 100000,
      reason: 'duplicate_order',
      errorMessage: 'order_id: Duplicate payment.',
    })
    // Look the first payment up before any new id (issue 26, item 5): a new id may pay twice.
    expect(error.message).toMatch(
      new RegExp(
        `look the first payment up.*gw\\.checkout\\.status\\(\\{ order_id: "${number}" \\}\\).*before any new order_id`,
      ),
    )
    expect(error.message).not.toMatch(/use a new order_id for a new payment attempt/)
  })

  it('"Duplicate payment." after an unknown RECURRING_SALE that did charge: look it up by order_id, not a new id (issue 26, item 5)', async () => {
    const clock = createTestClock(2_000_000)
    const ctx = await setup({ sim: { clock } })
    const first = await paidPayment(ctx, { capture: true, recurring: true })
    const params = {
      order_id: orderId('rec'),
      order_amount: '2.00',
      order_description: 'Plan',
      recurring_first_trans_id: first.trans_id,
      recurring_token: first.recurring_token as string,
    }
    ctx.simulator.failNext({ path: '/post', when: 'after' }) // charged, answer lost
    expect((await gatewayError(ctx.gw.s2s.recurringSale(params).then(() => undefined))).outcomeUnknown).toBe(true)
    clock.advance(20_000)
    const error = await gatewayError(ctx.gw.s2s.recurringSale(params))
    expect(error.reason).toBe('duplicate_order')
    expect(error.message).toMatch(
      new RegExp(
        `look the first payment up.*gw\\.s2s\\.getTransStatusByOrder\\(\\{ order_id: "${params.order_id}" \\}\\).*before any new order_id`,
      ),
    )
    expect(error.message).not.toMatch(/use a new order_id for a new payment attempt/)
    expect(ctx.simulator.ledger.filter((e) => e.kind === 'recurring_sale')).toHaveLength(1)
  })

  it('100000 "Refund is not allowed" → refund_not_allowed, with the VOID hint for a pending payment', async () => {
    const ctx = await setup()
    const pending = await paidPayment(ctx)
    const error = await gatewayError(
      ctx.gw.checkout.credit({
        order_id: orderId('refund'),
        order_amount: '1.00',
        order_currency: 'USD',
        order_description: 'Refund',
        card_token: pending.card_token as string,
        name: 'A',
      }),
    )
    expect(error).toMatchObject({ code: 100000, reason: 'refund_not_allowed' })
    expect(error.message).toMatch(/pending authorization is cancelled with VOID/)
    expect(ctx.simulator.ledger.some((e) => e.kind === 'credit')).toBe(false)
  })

  it('100000 "Refund is not allowed" also when the account has refunds disabled', async () => {
    const ctx = await setup({ sim: { refunds: 'disabled' } })
    const settled = await paidPayment(ctx, { capture: true })
    const error = await gatewayError(ctx.gw.s2s.creditVoid({ trans_id: settled.trans_id }))
    expect(error.reason).toBe('refund_not_allowed')
  })

  it('100000 "Request data is invalid." with an errors list → invalid_request', async () => {
    const ctx = await setup()
    const error = await gatewayError(
      ctx.gw.request({
        base: 's2s',
        method: 'POST',
        path: '/post',
        form: { action: 'CAPTURE', client_key: 'sim-client-key' },
      }),
    )
    expect(error).toMatchObject({ status: 400, code: 100000, reason: 'invalid_request' })
    expect(error.errors.map((e) => e.message)).toEqual([
      'trans_id: This value should not be blank.',
      'hash: This value should not be blank.',
    ])
    expect(error.message).toMatch(/trans_id: This value should not be blank/)
  })

  it('100000 "This is not a valid UUID." → invalid_uuid, checked before existence', async () => {
    const ctx = await setup()
    const error = await gatewayError(
      ctx.gw.request({
        base: 's2s',
        method: 'POST',
        path: '/post',
        form: {
          action: 'DELETE_SCHEDULE',
          client_key: 'sim-client-key',
          schedule_id: 'nope',
          hash: ctx.gw.sign(['nope']),
        },
      }),
    )
    // "nope" exists nowhere, yet the answer is the UUID error, not "Schedule not found".
    expect(error).toMatchObject({ code: 100000, reason: 'invalid_uuid', isNotFound: false })
  })

  it('100000 "Schedule not found" → schedule_not_found, isNotFound with code 100000', async () => {
    const ctx = await setup()
    const error = await gatewayError(ctx.gw.s2s.updateSchedule({ schedule_id: SCHEDULE_ID, name: 'x' }))
    expect(error).toMatchObject({
      code: 100000,
      reason: 'schedule_not_found',
      isNotFound: true,
      notFoundEntity: 'schedule',
    })
    const again = await gatewayError(ctx.gw.s2s.deleteSchedule({ schedule_id: SCHEDULE_ID }))
    expect(again.reason).toBe('schedule_not_found')
  })

  it('100000 "Payment not found." → payment_not_found for VOID and CREDITVOID', async () => {
    const ctx = await setup()
    for (const call of [ctx.gw.s2s.void({ trans_id: 'missing' }), ctx.gw.s2s.creditVoid({ trans_id: 'missing' })]) {
      const error = await gatewayError(call)
      expect(error).toMatchObject({
        code: 100000,
        reason: 'payment_not_found',
        isNotFound: true,
        notFoundEntity: 'payment',
      })
    }
  })

  it('100000 "Incorrect transaction" → incorrect_recurring_transaction (rule S2S 4)', async () => {
    const ctx = await setup()
    const first = await paidPayment(ctx, { capture: true, recurring: true })
    const error = await gatewayError(
      ctx.gw.s2s.recurringSale({
        order_id: orderId('rec'),
        order_amount: '1.00',
        order_description: 'Plan',
        recurring_first_trans_id: first.trans_id,
        recurring_token: 'rec_not_the_right_one',
      }),
    )
    expect(error).toMatchObject({
      code: 100000,
      reason: 'incorrect_recurring_transaction',
      notFoundEntity: 'recurring',
    })
    expect(ctx.simulator.ledger.some((e) => e.kind === 'recurring_sale')).toBe(false)
  })

  it('100000 "Request from this ip is not allowed." → ip_not_allowed, with the allowlist hint', async () => {
    const ctx = await setup({ sim: { allowedIps: ['203.0.113.7'] } })
    const error = await gatewayError(ctx.gw.s2s.getTransStatus({ trans_id: 't' }))
    expect(error).toMatchObject({ code: 100000, reason: 'ip_not_allowed' })
    expect(error.message).toMatch(/allowlist/)
    ctx.simulator.allowedIps = ['127.0.0.1']
    await expect(ctx.gw.s2s.getTransStatus({ trans_id: 't' })).rejects.toMatchObject({
      reason: 'transaction_does_not_exist',
    })
  })

  it('101000 "Payment does not exist." → payment_does_not_exist (status by payment_id)', async () => {
    const ctx = await setup()
    const error = await gatewayError(ctx.gw.checkout.status({ payment_id: 'missing' }))
    expect(error).toMatchObject({ code: 101000, reason: 'payment_does_not_exist', isNotFound: true })
  })

  it('101000 "Order does not exist." → order_does_not_exist (status by order_id, GET_TRANS_STATUS_BY_ORDER)', async () => {
    const ctx = await setup()
    for (const call of [
      ctx.gw.checkout.status({ order_id: 'missing' }),
      ctx.gw.s2s.getTransStatusByOrder({ order_id: 'missing' }),
    ]) {
      const error = await gatewayError(call)
      expect(error).toMatchObject({
        code: 101000,
        reason: 'order_does_not_exist',
        isNotFound: true,
        notFoundEntity: 'order',
      })
    }
  })

  it('101000 "Transaction does not exist." → transaction_does_not_exist (GET_TRANS_STATUS, CAPTURE)', async () => {
    const ctx = await setup()
    for (const call of [
      ctx.gw.s2s.getTransStatus({ trans_id: 'missing' }),
      ctx.gw.s2s.capture({ trans_id: 'missing' }),
    ]) {
      const error = await gatewayError(call)
      expect(error).toMatchObject({ code: 101000, reason: 'transaction_does_not_exist', isNotFound: true })
    }
  })

  it('404 0 "Route or parameters is not supported" → route_not_supported (unknown action; JSON to S2S)', async () => {
    const ctx = await setup()
    const unknown = await gatewayError(
      ctx.gw.request({ base: 's2s', method: 'POST', path: '/post', form: { action: 'CANCEL_SCHEDULE' } }),
    )
    expect(unknown).toMatchObject({ status: 404, code: 0, reason: 'route_not_supported' })
    const json = await gatewayError(
      ctx.gw.request({
        base: 's2s',
        method: 'POST',
        path: '/post',
        body: { action: 'GET_TRANS_STATUS', trans_id: 't' },
      }),
    )
    expect(json).toMatchObject({ status: 404, code: 0, reason: 'route_not_supported' })
  })

  it('204005 "Payment action not supported" → action_not_supported', async () => {
    const ctx = await setup({ sim: { unsupportedActions: ['VOID'] } })
    const error = await gatewayError(ctx.gw.s2s.void({ trans_id: 't' }))
    expect(error).toMatchObject({ code: 204005, reason: 'action_not_supported' })
  })

  it('205005 "Card token is invalid or not found." → card_token_invalid', async () => {
    const ctx = await setup()
    const error = await gatewayError(
      ctx.gw.checkout.credit({
        order_id: orderId('refund'),
        order_amount: '1.00',
        order_currency: 'USD',
        order_description: 'Refund',
        card_token: 'tok_unknown',
        name: 'A',
      }),
    )
    expect(error).toMatchObject({ code: 205005, reason: 'card_token_invalid' })
  })

  it('208003 capture on a non-pending payment → capture_not_pending', async () => {
    const ctx = await setup()
    const settled = await paidPayment(ctx, { capture: true })
    const error = await gatewayError(ctx.gw.s2s.capture({ trans_id: settled.trans_id }))
    expect(error).toMatchObject({ code: 208003, reason: 'capture_not_pending' })
    expect(error.message).toMatch(/captureIfPending/)
  })

  it('208005 "associated with the settled state" → refund_requires_settled, with the VOID hint', async () => {
    const ctx = await setup()
    const pending = await paidPayment(ctx)
    const error = await gatewayError(ctx.gw.s2s.creditVoid({ trans_id: pending.trans_id }))
    expect(error).toMatchObject({ code: 208005, reason: 'refund_requires_settled' })
    expect(error.message).toMatch(/gw\.s2s\.void/)
  })

  it('210002 refunds only in the connector portal → refund_only_in_portal', async () => {
    const ctx = await setup({ sim: { refunds: 'portal-only' } })
    const settled = await paidPayment(ctx, { capture: true })
    const error = await gatewayError(ctx.gw.s2s.creditVoid({ trans_id: settled.trans_id }))
    expect(error).toMatchObject({ code: 210002, reason: 'refund_only_in_portal' })
  })

  it('220002 "Use merchant test key." → key_environment_mismatch, naming the configured environment', async () => {
    const ctx = await setup({
      client: { clientKey: SIMULATOR_LIVE_KEYS.clientKey, merchantKey: SIMULATOR_LIVE_KEYS.merchantKey },
    })
    const s2s = await gatewayError(ctx.gw.s2s.getTransStatus({ trans_id: 't' }))
    expect(s2s).toMatchObject({ code: 220002, reason: 'key_environment_mismatch' })
    expect(s2s.message).toMatch(/configured for "sandbox"/)
    const checkout = await gatewayError(ctx.gw.checkout.status({ payment_id: 'p' }))
    expect(checkout.reason).toBe('key_environment_mismatch')
  })
})

describe('error classification details', () => {
  it('reads error_code 0 with the real code inside errors[] ("hash: Hash is not valid.")', async () => {
    const ctx = await setup({ sim: { nestedValidationErrors: true }, client: { password: 'wrong' } })
    const error = await gatewayError(ctx.gw.checkout.status({ payment_id: 'p' }))
    expect(error.envelopeCode).toBe(0)
    expect(error).toMatchObject({ code: 100000, reason: 'hash_invalid', errorMessage: 'hash: Hash is not valid.' })
    expect(error.errors[0]).toMatchObject({ code: 100000, message: 'hash: Hash is not valid.' })
  })

  it('classifies pre-6.7.0 not-found answers (100000) by message, still isNotFound', async () => {
    const ctx = await setup({ sim: { legacyNotFound: true } })
    const trans = await gatewayError(ctx.gw.s2s.getTransStatus({ trans_id: 'missing' }))
    expect(trans).toMatchObject({ code: 100000, reason: 'transaction_does_not_exist', isNotFound: true })
    const order = await gatewayError(ctx.gw.s2s.getTransStatusByOrder({ order_id: 'missing' }))
    expect(order).toMatchObject({ code: 100000, reason: 'order_does_not_exist', isNotFound: true })
  })

  it('does not call every 100000 a not-found', async () => {
    const ctx = await setup({ client: { password: 'wrong' } })
    const error = await gatewayError(ctx.gw.s2s.getTransStatus({ trans_id: 'x' }))
    expect(error.code).toBe(100000)
    expect(error.isNotFound).toBe(false)
  })

  it('treats a 200 answer with result ERROR as an error', async () => {
    const ctx = await setup()
    ctx.server.use(
      http.post('*/post', () =>
        HttpResponse.json({
          result: 'ERROR',
          error_code: 208003,
          error_message: 'capture requested for a payment not in pending status',
        }),
      ),
    )
    const error = await gatewayError(ctx.gw.s2s.capture({ trans_id: 't' }))
    expect(error).toMatchObject({ status: 200, code: 208003, reason: 'capture_not_pending' })
  })

  it('a 2xx body that is not JSON is unreadable_response and says to reconcile', async () => {
    const ctx = await setup()
    ctx.server.use(http.post('*/post', () => HttpResponse.text('<html>ok</html>')))
    const error = await gatewayError(ctx.gw.s2s.capture({ trans_id: 't' }))
    expect(error.reason).toBe('unreadable_response')
    expect(error.message).toMatch(/reconcile/)
  })

  it('an unknown code keeps its number with reason unknown', async () => {
    const ctx = await setup()
    ctx.server.use(
      http.post('*/post', () =>
        HttpResponse.json({ result: 'ERROR', error_code: 999001, error_message: 'New' }, { status: 400 }),
      ),
    )
    const error = await gatewayError(ctx.gw.s2s.getTransStatus({ trans_id: 't' }))
    expect(error).toMatchObject({ code: 999001, reason: 'unknown', errorMessage: 'New', isNotFound: false })
  })

  it('carries request id, raw body and operation', async () => {
    const ctx = await setup()
    const error = await gatewayError(ctx.gw.s2s.getTransStatus({ trans_id: 'missing' }))
    expect(error.operation).toBe('s2s.getTransStatus')
    expect(error.rawBody).toContain('Transaction does not exist.')
    expect(error.attempts).toBe(1)
  })

  it('a declined payment is a result, not an error (test card 02/2038)', async () => {
    const ctx = await setup()
    const declined = await paidPayment(ctx, { expiry: TEST_CARDS.decline })
    const status = await ctx.gw.s2s.getTransStatus({ trans_id: declined.trans_id })
    expect(status.status).toBe('DECLINED')
  })
})
