/**
 * The telemetry against a hostile gateway: every field a channel message copies from an answer
 * (`result`, `errorCode`) must be a short word by rule, so a PAN, a phone number or a long string the
 * gateway puts there never reaches a subscriber.
 */
import * as diagnostics from 'node:diagnostics_channel'
import { PAYWIRE_CHANNELS } from '@paywire/core'
import { faults } from '@paywire/core/testing'
import { afterEach, describe, expect, it } from 'vitest'
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

describe('telemetry against a hostile gateway', () => {
  it('an error_code that is a card number is not published as the error code', async () => {
    const { gw } = await faultGateway(
      faults.json(400, { result: 'ERROR', error_code: Number(PAN), error_message: `card ${PAN}` }),
    )
    const seen = listen()
    await gw.s2s.getTransStatus({ trans_id: 'a1b2c3d4-0000-4000-8000-000000000001' }).catch(() => undefined)
    expect(seen.length).toBeGreaterThan(0)
    const all = seen.join('\n')
    expect(all).not.toContain(PAN)
    expect(all).not.toContain('111111')
  })

  it('a result or status word that hides a card number or a phone number is left out', async () => {
    for (const hostile of [`x${PAN}`, 'Tel15557654321', `A-${PAN.slice(0, 8)}-${PAN.slice(8)}`]) {
      const { gw } = await faultGateway(
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
      const all = seen.join('\n')
      expect(all).not.toContain(hostile)
      expect(all).not.toContain('55576')
      expect(all).not.toContain('41111111')
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
