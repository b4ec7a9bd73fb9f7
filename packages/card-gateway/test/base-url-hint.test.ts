/**
 * A newcomer's wrong base URL: a server that is not the gateway answers 404 without the gateway's
 * error envelope. The error must say which URL option to check, as a wrong password's does.
 */

import { once } from 'node:events'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { CardGateway, CardGatewayError } from '../src/index.js'
import { SIMULATOR_CREDENTIALS } from '../src/testing/index.js'

const closers: (() => Promise<unknown>)[] = []
afterEach(async () => {
  for (const close of closers.splice(0)) await close()
})

async function notTheGateway(body = '<html><body>Not Found</body></html>'): Promise<string> {
  const server = createServer((req, res) => {
    req.resume()
    res.writeHead(404, { 'content-type': 'text/html' }).end(body)
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  closers.push(() => new Promise((resolve) => server.close(resolve)))
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/wrong`
}

async function failure(call: Promise<unknown>): Promise<CardGatewayError> {
  const error = await call.then(
    () => undefined,
    (e: unknown) => e,
  )
  if (!(error instanceof CardGatewayError)) throw new Error(`expected a CardGatewayError, got ${String(error)}`)
  return error
}

describe('a base URL that is not the gateway', () => {
  it('a Checkout call names checkoutUrl and the URL asked (before: "HTTP 404 without an error envelope", no hint)', async () => {
    const url = await notTheGateway()
    const gw = new CardGateway({ ...SIMULATOR_CREDENTIALS, checkoutUrl: url, s2sUrl: 'https://s2s.example' })
    const error = await failure(gw.checkout.status({ payment_id: 'p-1' }))
    expect(error.reason).toBe('unknown')
    expect(error.message).toContain('check `checkoutUrl`')
    expect(error.message).toContain(`${url}/api/v1/payment/status`)
    await gw.close()
  })

  it('an S2S call names s2sUrl', async () => {
    const url = await notTheGateway('')
    const gw = new CardGateway({ ...SIMULATOR_CREDENTIALS, checkoutUrl: 'https://checkout.example', s2sUrl: url })
    const error = await failure(gw.s2s.getTransStatus({ trans_id: 't-1' }))
    expect(error.message).toContain('check `s2sUrl`')
    expect(error.message).not.toContain('checkoutUrl')
    await gw.close()
  })

  it("the gateway's own 404 (an envelope: unknown route) keeps its own hint", async () => {
    const url = await notTheGateway(
      JSON.stringify({ result: 'ERROR', error_code: 0, error_message: 'Route or parameters is not supported' }),
    )
    const gw = new CardGateway({ ...SIMULATOR_CREDENTIALS, checkoutUrl: 'https://checkout.example', s2sUrl: url })
    const error = await failure(gw.s2s.getTransStatus({ trans_id: 't-1' }))
    expect(error.reason).toBe('route_not_supported')
    expect(error.message).not.toContain('check `s2sUrl`')
    await gw.close()
  })
})
