/**
 * The "Done when" of the CLI: `paywire sim` serves a purchase → callback → capture → credit flow
 * driven by curl (test/flows/curl-flow.sh: curl, jq and coreutils, no paywire code), so it serves
 * any language; the callbacks reach a loopback receiver and verify with coreutils.
 */

import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { afterEach, describe, expect, it } from 'vitest'
import { coreutilsHash, hasCommand, killStrays, type SimProcess, startReceiver, startSimProcess } from './helpers.js'

const tools = ['curl', 'jq'].every(hasCommand)
// CI installs curl and jq and sets this, so the flow cannot be skipped there.
const required = process.env['PAYWIRE_REQUIRE_TOOLS'] === '1'
const SCRIPT = fileURLToPath(new URL('./flows/curl-flow.sh', import.meta.url))

describe.runIf(tools || required)('a curl client against paywire sim', () => {
  let sim: SimProcess | undefined
  afterEach(async () => {
    await sim?.stop('SIGKILL')
    killStrays()
  })

  it('purchase → pay on the hosted page → sale callback → status → capture → capture callback → credit → refund callback', async () => {
    const receiver = await startReceiver(() => ({ status: 200, body: 'OK' }))
    try {
      sim = await startSimProcess(['--callback-url', receiver.url])
      const card = sim.description.card
      if (!card) throw new Error('no card simulator')
      const { stdout } = await promisify(execFile)('bash', [SCRIPT], {
        env: {
          PATH: process.env['PATH'] ?? '',
          CARD_URL: card.checkoutUrl,
          MERCHANT_KEY: card.merchantKey,
          CLIENT_KEY: card.clientKey,
          PASSWORD: card.password,
          ORDER: 'CURL-1',
        },
      })
      expect(stdout).toContain('done')

      const delivered = await sim.waitFor((e) => e['event'] === 'callback' && e['type'] === 'refund')
      expect(delivered).toMatchObject({ state: 'delivered', answer: { status: 200, body: 'OK' } })
      const callbacks = receiver.bodies.map((body) => Object.fromEntries(new URLSearchParams(body)))
      expect(callbacks.map((c) => `${c['type']}/${c['status']}`)).toEqual([
        'sale/success',
        'capture/success',
        'refund/success',
      ])
      for (const c of callbacks) {
        const signed = `${c['id']}${c['order_number']}${c['order_amount']}${c['order_currency']}${c['order_description']}`
        expect(c['hash']).toBe(coreutilsHash(`${signed}${card.password}`.replace(/[a-z]/g, (ch) => ch.toUpperCase())))
      }

      const ledger = await sim.control('GET', '/ledger')
      expect(ledger.body.card.map((e: { kind: string }) => e.kind)).toEqual(['session', 'charge', 'capture', 'credit'])
    } finally {
      await receiver.close()
    }
  })
})
