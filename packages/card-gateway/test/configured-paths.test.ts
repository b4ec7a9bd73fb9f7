/**
 * Configured paths are the caller's text, checked only to start with one "/": the transport sends
 * them as URL parsing does (its fast split applies only to URLs already in parsed form, undici.ts).
 */

import { faults, startFaultServer } from '@paywire/core/testing'
import { describe, expect, it, onTestFinished } from 'vitest'
import { CardGateway } from '../src/index.js'

describe('configured checkout paths', () => {
  it('a custom checkout path is sent as URL parsing sends it (encoded, dot segments resolved, no fragment)', async () => {
    const server = await startFaultServer(faults.json(200, { redirect_url: 'https://pay.example/x' }))
    onTestFinished(() => server.close())
    const cases = [
      ['/api/v1/sesión', '/api/v1/sesi%C3%B3n'],
      ['/api/v1/pay session', '/api/v1/pay%20session'],
      ['/api/v2/../v1/session', '/api/v1/session'],
      ['/api/v1/session#checkout', '/api/v1/session'],
    ] as const
    const arrived: string[] = []
    for (const [purchase] of cases) {
      const gw = new CardGateway({
        checkoutUrl: server.url,
        s2sUrl: server.url,
        merchantKey: 'mk',
        clientKey: 'ck',
        password: 'pw',
        maxRetries: 0,
        paths: { purchase },
      })
      onTestFinished(() => gw.close())
      const before = server.requests.length
      const outcome = await gw.checkout
        .purchase({
          order: { number: `order-${arrived.length}`, amount: '10.00', currency: 'USD', description: 'Test order' },
          success_url: 'https://shop.example/ok',
          cancel_url: 'https://shop.example/cancel',
        })
        .then(
          () => 'ok',
          (error: unknown) => String(error),
        )
      arrived.push(
        server.requests.length > before ? (server.requests.at(-1)?.url ?? '') : `(nothing arrived; ${outcome})`,
      )
    }
    expect(arrived).toEqual(cases.map(([, expected]) => expected))
  })
})
