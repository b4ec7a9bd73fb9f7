/**
 * Every step of going-live's password rotation, rehearsed against `paywire sim --password-env A
 * --password-env B` (the newer one in force; the control API switches): a merchant's inbox deployed
 * as each step says, callbacks delivered by the simulator, one of them queued before the switch and
 * redelivered after it, and the old password dropped at the end. From the merchant's side: no step
 * loses a genuine callback, and the last refuses a callback signed with the dropped password.
 */

import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import {
  type CallbackEvent,
  type CallbackHandler,
  type CallbackRefusal,
  CardGateway,
  CardGatewayError,
} from '@paywire/card-gateway'
import { afterEach, describe, expect, it } from 'vitest'
import { baseEnv, PURCHASE, runCli, type SimProcess, startSimProcess } from './helpers.js'

const A = 'rotation-password-a'
const B = 'rotation-password-b'
const ENV = baseEnv({ CARD_PASSWORD_A: A, CARD_PASSWORD_B: B })

const stops: (() => unknown)[] = []
afterEach(async () => {
  for (const stop of stops.splice(0)) await stop()
})

/** The merchant: one URL, whose inbox each "deploy" replaces; every run and refusal is kept. */
async function merchant() {
  const runs: CallbackEvent[] = []
  const refusals: CallbackRefusal[] = []
  let handler: CallbackHandler | undefined
  let failNext = 0
  const server: Server = createServer((req, res) => {
    if (failNext > 0) {
      failNext--
      req.resume()
      res.writeHead(503).end('busy') // the delivery stays queued at the gateway, signed as it was
      return
    }
    handler?.node(req, res)
  })
  server.listen(0, '127.0.0.1')
  await new Promise((resolve) => server.once('listening', resolve))
  stops.push(() => new Promise((resolve) => server.close(resolve)))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/callbacks/card`,
    runs,
    refusals,
    failNextDelivery() {
      failNext++
    },
    deploy(s: SimProcess, password: string, callbackPasswords?: string[]): CardGateway {
      const c = s.description.card
      if (!c) throw new Error('no card simulator')
      const gw = new CardGateway({
        ...c,
        password,
        ...(callbackPasswords ? { callbackPasswords } : {}),
        environment: 'sandbox',
        maxRetries: 0,
      })
      handler = gw.callbacks.handler({
        onEvent: (event) => {
          runs.push(event)
        },
        onRefused: (refusal) => refusals.push(refusal),
        recoverEveryMs: 0,
      })
      stops.push(
        () => handler?.close(),
        () => gw.close(),
      )
      return gw
    },
    drain: () => handler?.drain(),
  }
}

describe('paywire sim --password-env given twice', () => {
  it('starts on the newer password, names the variables (never the values) on the control API, and switches', async () => {
    const s = await startSimProcess(['--password-env', 'CARD_PASSWORD_A', '--password-env', 'CARD_PASSWORD_B'], ENV)
    stops.push(() => s.stop('SIGKILL'))
    expect(s.description.card?.password).toBe(B)
    const listed = await s.control('GET', '/card/password')
    expect(listed.body).toEqual({ env: 'CARD_PASSWORD_B', envs: ['CARD_PASSWORD_A', 'CARD_PASSWORD_B'] })
    expect(JSON.stringify(listed.body)).not.toContain(A)
    const switched = await s.control('POST', '/card/password', { env: 'CARD_PASSWORD_A' })
    expect(switched.body.env).toBe('CARD_PASSWORD_A')
    const unknown = await s.control('POST', '/card/password', { env: 'NOPE' })
    expect(unknown.status).toBe(400)
    expect(unknown.body.error).toContain('CARD_PASSWORD_A, CARD_PASSWORD_B')
  })

  it('refuses a variable given twice and two variables holding one password', async () => {
    const twice = await runCli(['sim', '--password-env', 'CARD_PASSWORD_A', '--password-env', 'CARD_PASSWORD_A'], {
      env: ENV,
    })
    expect(twice.code).toBe(2)
    const same = await runCli(['sim', '--password-env', 'CARD_PASSWORD_A', '--password-env', 'COPY'], {
      env: { ...ENV, COPY: A },
    })
    expect(same.code).toBe(2)
    expect(same.stderr).toContain('$COPY holds the same password as $CARD_PASSWORD_A')
    expect(same.stderr).not.toContain(A)
  })

  it("going-live's rotation from A to B, step by step: nothing genuine is lost, the dropped password is refused", async () => {
    const shop = await merchant()
    const s = await startSimProcess(
      [
        '--password-env',
        'CARD_PASSWORD_A',
        '--password-env',
        'CARD_PASSWORD_B',
        '--callback-url',
        shop.url,
        '--services',
        'card',
      ],
      ENV,
    )
    stops.push(() => s.stop('SIGKILL'))
    // Before the rotation the gateway signs with A.
    await s.control('POST', '/card/password', { env: 'CARD_PASSWORD_A' })

    // Step 2: accept both on callbacks; requests still sign with A.
    let gw = shop.deploy(s, A, [A, B])
    await gw.checkout.purchase(PURCHASE)
    shop.failNextDelivery() // the sale's first delivery fails: it is queued, signed with A
    await s.control('POST', '/card/payments/A-1/pay', { expiry: '01/2038' })
    await s.waitFor((e) => e['event'] === 'callback' && e['attempt'] === 1)
    expect(shop.runs).toHaveLength(0)

    // Step 3: the gateway switches to B; between the switch and the deploy a request signed with A
    // is refused (hash_invalid: nothing done), and the deploy makes it work again.
    await s.control('POST', '/card/password', { env: 'CARD_PASSWORD_B' })
    const refused = await gw.s2s.getTransStatusByOrder({ order_id: 'A-1' }).catch((error: unknown) => error)
    expect(refused).toBeInstanceOf(CardGatewayError)
    expect((refused as CardGatewayError).reason).toBe('hash_invalid')
    gw = shop.deploy(s, B, [B, A])
    const { trans_id } = await gw.s2s.getTransStatusByOrder({ order_id: 'A-1' })
    // The delivery queued before the switch comes again, still signed with A: it verifies, index 1.
    await s.control('POST', '/clock/advance', { ms: 10_000 })
    await s.waitFor((e) => e['event'] === 'callback' && e['attempt'] === 2)
    await shop.drain()
    expect(shop.runs.map((e) => [e.type, e.passwordIndex])).toEqual([['sale', '1']])
    // A callback the gateway signs after the switch verifies with the first password.
    await s.control('POST', `/card/payments/${trans_id}/status`, { status: 'void' })
    await s.waitFor((e) => e['event'] === 'callback' && e['type'] === 'void')
    await shop.drain()
    expect(shop.runs.map((e) => [e.type, e.passwordIndex])).toEqual([
      ['sale', '1'],
      ['void', undefined],
    ])

    // Step 4: drop A. A callback signed with A (a replay of the old delivery) is refused, loudly.
    shop.deploy(s, B)
    const old = (await s.control('GET', '/callbacks')).body[0].body as string
    const replay = await fetch(shop.url, { method: 'POST', body: old })
    expect(replay.status).toBe(400)
    expect(shop.refusals.map((r) => r.reason)).toEqual(['hash_mismatch'])
    expect(shop.runs).toHaveLength(2)
  })
})
