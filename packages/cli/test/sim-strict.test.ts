/**
 * `paywire sim` (a separate process) is strict by default, as the live services are; `--lenient`
 * accepts the looser inputs. The control API queues faults by card action and SDK operation.
 * Raw requests: the SDK refuses these bodies before sending (a Python or curl integration does not).
 */

import { createHash } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { cardClient, PURCHASE, useSims } from './helpers.js'

const { sim } = useSims()

/** The seed formula, written here apart from the SDK: sha1(md5(UPPER(values + password))). */
function hash(values: readonly string[], password: string): string {
  const inner = createHash('md5')
    .update((values.join('') + password).toUpperCase())
    .digest('hex')
  return createHash('sha1').update(inner).digest('hex')
}

function session(amount: unknown, number: string, overrides: Record<string, unknown> = {}) {
  return {
    merchant_key: 'sim-merchant-key',
    operation: 'purchase',
    order: { number, amount, currency: 'EUR', description: 'Order' },
    success_url: 'https://shop.example/ok',
    cancel_url: 'https://shop.example/cancel',
    ...overrides,
    hash: hash([number, String(amount), 'EUR', 'Order'], 'sim-password'),
  }
}

async function post(url: string, body: unknown) {
  const response = await fetch(`${url}/api/v1/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
  return { status: response.status, body: (await response.json()) as Record<string, unknown> }
}

describe('paywire sim: strict by default, --lenient', () => {
  it('refuses "10.0" EUR, an amount as a number and an http:// success_url on a public host with 400 / 100000 naming the field', async () => {
    const s = await sim()
    const url = `${s.base}/card`
    const cases: [unknown, Record<string, unknown>, string][] = [
      ['10.0', {}, 'order.amount: '],
      [10, {}, 'order.amount: '],
      ['10.00', { success_url: 'http://shop.example/ok' }, 'success_url: '],
    ]
    for (const [i, [amount, overrides, field]] of cases.entries()) {
      const answer = await post(url, session(amount, `S-${i}`, overrides))
      expect(answer.status).toBe(400)
      expect(answer.body).toMatchObject({
        result: 'ERROR',
        error_code: 100000,
        error_message: 'Request data is invalid.',
      })
      const errors = answer.body['errors'] as { error_message: string }[]
      expect(errors[0]?.error_message.startsWith(field)).toBe(true)
    }
    expect((await s.control('GET', '/ledger')).body.card).toEqual([])
  })

  it('--lenient accepts them', async () => {
    const s = await sim('--lenient')
    const url = `${s.base}/card`
    expect((await post(url, session('10.0', 'L-1'))).status).toBe(200)
    expect((await post(url, session(10, 'L-2'))).status).toBe(200)
    expect((await post(url, session('10.00', 'L-3', { success_url: 'http://shop.example/ok' }))).status).toBe(200)
  })
})

describe('paywire sim: control API faults by action and operation', () => {
  it('{"action":"CAPTURE"} fails the capture and leaves GET_TRANS_STATUS alone; {"operation":"s2s.capture"} too', async () => {
    const s = await sim()
    const gw = cardClient(s)
    await gw.checkout.purchase(PURCHASE)
    await s.control('POST', '/card/payments/A-1/pay', {})
    const trans_id = String((await gw.s2s.getTransStatusByOrder({ order_id: 'A-1' })).trans_id)
    for (const fault of [{ action: 'CAPTURE' }, { operation: 's2s.capture' }]) {
      expect(await s.control('POST', '/faults', { service: 'card', ...fault })).toMatchObject({ status: 200 })
      expect((await gw.s2s.getTransStatus({ trans_id })).status).toBe('PENDING')
      // A new client, so the capture's answer comes on a new connection and is read as its own.
      await expect(cardClient(s).s2s.capture({ trans_id })).rejects.toMatchObject({ status: 500 })
    }
    expect((await s.control('GET', '/ledger')).body.card.filter((e: { kind: string }) => e.kind === 'capture')).toEqual(
      [],
    )
  })

  it('an unknown action or operation is refused with 400 naming the known ones', async () => {
    const s = await sim()
    const action = await s.control('POST', '/faults', { service: 'card', action: 'CAPTUR' })
    expect(action.status).toBe(400)
    expect(JSON.stringify(action.body)).toContain('CAPTURE')
    const operation = await s.control('POST', '/faults', { service: 'remittance', operation: 'confirm' })
    expect(operation.status).toBe(400)
    expect(JSON.stringify(operation.body)).toContain('transactions.confirm')
  })

  it("an action with another action's operation is refused with 400 naming both", async () => {
    const s = await sim()
    const both = await s.control('POST', '/faults', { service: 'card', action: 'CAPTURE', operation: 's2s.void' })
    expect(both.status).toBe(400)
    expect(JSON.stringify(both.body)).toMatch(/CAPTURE is operation s2s\.capture, not s2s\.void/)
  })
})
