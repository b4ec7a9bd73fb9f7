/**
 * The telemetry against a hostile gateway: every field a channel message copies from an answer
 * (`result`, `errorCode`) must be a short word by rule, so a PAN, a phone number or a long string the
 * gateway puts there never reaches a subscriber.
 */
import * as diagnostics from 'node:diagnostics_channel'
import { MemoryClaimStore, PAYWIRE_CHANNELS } from '@paywire/core'
import { createTestClock, faults } from '@paywire/core/testing'
import { afterEach, describe, expect, it } from 'vitest'
import { expectNoSecret, jsonFields, type ScannedText, withoutKnown } from '../../../tests/support/secret-scan.js'
import { storeWith } from '../../../tests/support/store-with.js'
import { SIMULATOR_CREDENTIALS, signCallback } from '../src/testing/index.js'
import { faultGateway } from './helpers.js'

const PAN = '4111111111111111'

const off: (() => void)[] = []
afterEach(() => {
  for (const undo of off.splice(0)) undo()
})

/** Every message on every paywire channel, serialized when published. */
function listen(): string[] {
  const seen: string[] = []
  const record = (message: unknown) => seen.push(JSON.stringify(message))
  const handlers = { start: record, end: record, asyncStart: record, asyncEnd: record, error: record }
  for (const name of [PAYWIRE_CHANNELS.operation, PAYWIRE_CHANNELS.attempt]) {
    diagnostics.tracingChannel(name).subscribe(handlers)
    off.push(() => diagnostics.tracingChannel(name).unsubscribe(handlers))
  }
  diagnostics.subscribe(PAYWIRE_CHANNELS.retry, record)
  off.push(() => diagnostics.unsubscribe(PAYWIRE_CHANNELS.retry, record))
  return seen
}

/**
 * The messages field by field, for a scan with tests/support/secret-scan.ts. The digits looked for
 * (`111111`, `41111111` of a card number, `55576` of a phone number) are found anywhere in a field on
 * purpose: a hostile word cut short or stripped of its letters still holds them. The one number here
 * that the run makes up is the loopback port, and a port such as 55576 holds the phone digits with
 * nothing leaked: it is checked to be the server's and left out. Every other number is a count or an
 * HTTP status, under 1000, too short to hold these digits; a new made-up number (a duration, an id)
 * fails here first, rather than now and then in the scan.
 */
function published(seen: readonly string[], server: { url: string }): ScannedText[] {
  const port = Number(new URL(server.url).port)
  const parsed: unknown[] = seen.map((json) => JSON.parse(json))
  const messages = withoutKnown(parsed, { serverPort: port })
  const numbers = (v: unknown): number[] =>
    typeof v === 'number' ? [v] : v !== null && typeof v === 'object' ? Object.values(v).flatMap(numbers) : []
  for (const n of numbers(messages)) expect(n).toBeLessThan(1000)
  return jsonFields(messages)
}

describe('telemetry against a hostile gateway', () => {
  it('an error_code that is a card number is not published as the error code', async () => {
    const { gw, server } = await faultGateway(
      faults.json(400, { result: 'ERROR', error_code: Number(PAN), error_message: `card ${PAN}` }),
    )
    const seen = listen()
    await gw.s2s.getTransStatus({ trans_id: 'a1b2c3d4-0000-4000-8000-000000000001' }).catch(() => undefined)
    expect(seen.length).toBeGreaterThan(0)
    expectNoSecret(published(seen, server), { anywhere: [PAN, '111111'] })
  })

  it('a result or status word that hides a card number or a phone number is left out', async () => {
    for (const hostile of [`x${PAN}`, 'Tel15557654321', `A-${PAN.slice(0, 8)}-${PAN.slice(8)}`]) {
      const { gw, server } = await faultGateway(
        faults.json(200, {
          action: 'GET_TRANS_STATUS',
          result: hostile,
          status: hostile,
          order_id: 'o-1',
          trans_id: 'a1b2c3d4-0000-4000-8000-000000000001',
        }),
      )
      const seen = listen()
      await gw.s2s.getTransStatus({ trans_id: 'a1b2c3d4-0000-4000-8000-000000000001' }).catch(() => undefined)
      expect(seen.length).toBeGreaterThan(0)
      expectNoSecret(published(seen, server), { anywhere: [hostile, '55576', '41111111'] })
    }
  })

  it('a short word with a few digits, such as a gateway code, is still published', async () => {
    const { gw } = await faultGateway(
      faults.json(400, { result: 'ERROR', error_code: 205005, error_message: 'Card token is invalid' }),
    )
    const seen = listen()
    await gw.s2s.getTransStatus({ trans_id: 'a1b2c3d4-0000-4000-8000-000000000001' }).catch(() => undefined)
    expect(seen.join('\n')).toContain('"errorCode":"205005"')
  })
})

describe('callback telemetry against hostile deliveries and a lossy claim store', () => {
  /** Every `paywire:callback` asyncEnd and `paywire:claim` message, serialized. */
  function listenCallbacks() {
    const ended: Record<string, unknown>[] = []
    const all: string[] = []
    const record = (message: unknown) => all.push(JSON.stringify(message))
    const handlers = {
      start: record,
      end: record,
      asyncStart: record,
      error: record,
      asyncEnd: (message: unknown) => {
        record(message)
        ended.push({ ...(message as Record<string, unknown>) })
      },
    }
    diagnostics.tracingChannel(PAYWIRE_CHANNELS.callback).subscribe(handlers)
    off.push(() => diagnostics.tracingChannel(PAYWIRE_CHANNELS.callback).unsubscribe(handlers))
    diagnostics.subscribe(PAYWIRE_CHANNELS.claim, record)
    off.push(() => diagnostics.unsubscribe(PAYWIRE_CHANNELS.claim, record))
    return { ended, all }
  }

  const event = (type: string, status: string) =>
    signCallback(
      {
        id: `pay-${type.length}-${status.length}`,
        order_number: 'order-1',
        order_amount: '10.00',
        order_currency: 'USD',
        order_description: 'Filters',
        order_status: 'settled',
        type,
        status,
      },
      SIMULATOR_CREDENTIALS.password,
    )

  it('an event type or status that is a card number, 10 KB or holds a line break is left out', async () => {
    const { gw } = await faultGateway(faults.json(200, {}))
    const handler = gw.callbacks.handler({ onEvent: () => {} })
    const { ended, all } = listenCallbacks()
    for (const [type, status] of [
      [`x${PAN}`, 'Tel15557654321'],
      ['s'.repeat(10_000), 'ok\nforged: line'],
    ] as const) {
      expect((await handler.handle(event(type, status))).status).toBe(200)
    }
    await handler.drain()
    expect(ended).toHaveLength(2)
    for (const m of ended) {
      expect(m.eventType).toBeUndefined()
      expect(m.eventStatus).toBeUndefined()
      expect(m.answer).toBe('OK')
    }
    const text = all.join('\n')
    expect(text).not.toContain('41111111')
    expect(text).not.toContain('55576')
    expect(text).not.toContain('forged')
    expect(text.length).toBeLessThan(5_000)
  })

  it('a record whose reply is lost still ends the callback span once, with the answer sent', async () => {
    const inner = new MemoryClaimStore()
    let calls = 0
    const lossy = storeWith(inner, {
      async record(...args) {
        const state = await inner.record(...args)
        if (++calls === 1) throw new Error('reply lost after the record was made')
        return state
      },
    })
    const { gw } = await faultGateway(faults.json(200, {}))
    const handler = gw.callbacks.handler({ onEvent: () => {}, store: lossy })
    const { ended, all } = listenCallbacks()
    const response = await handler.handle(event('sale', 'success'))
    await handler.drain()
    expect(ended).toHaveLength(1)
    expect(ended[0]).toMatchObject({ status: response.status, answer: response.body.split(':')[0] })
    expect(response.status).toBe(200)
    expect(ended[0]).toMatchObject({ claim: 'recorded', eventType: 'sale', eventStatus: 'success' })
    expect(all.join('\n')).not.toContain('reply lost')
  })

  it('a store that always fails ends the callback span with 503 store_unavailable', async () => {
    const failing = storeWith(new MemoryClaimStore(), {
      record: async () => {
        throw new Error(`store down, key ${PAN}`)
      },
    })
    const { gw } = await faultGateway(faults.json(200, {}))
    const handler = gw.callbacks.handler({
      onEvent: () => {},
      store: failing,
      clock: createTestClock(),
      onError: () => {},
    })
    const { ended, all } = listenCallbacks()
    const pending = handler.handle(event('sale', 'success'))
    const response = await pending
    expect(response.status).toBe(503)
    expect(ended).toHaveLength(1)
    expect(ended[0]).toMatchObject({ status: 503, answer: 'store_unavailable' })
    expect(all.join('\n')).not.toContain(PAN)
  })
})
