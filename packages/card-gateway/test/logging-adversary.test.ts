/**
 * The `logger` option and `PAYWIRE_LOG` from the attacker's side: a full card purchase, its lookup,
 * a capture, a gateway error that echoes card data, and a callback, logged at debug level to the
 * console and to a real pino logger; every byte written is scanned for credentials, card data,
 * signature hashes, tokens and payer data.
 */

import { Writable } from 'node:stream'
import { inspect } from 'node:util'
import { faults, startFaultServer } from '@paywire/core/testing'
import pino from 'pino'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { CardGateway, type CardGatewayOptions } from '../src/index.js'
import { SIMULATOR_CREDENTIALS, signCallback, TEST_CARDS } from '../src/testing/index.js'
import { orderId, setup } from './helpers.js'

const PAN = TEST_CARDS.number
const CVV = '737'
const TOKEN = 'tok-e3b0c44298fc1c149afbf4c8996fb924'
const EMAIL = 'zelda.payer@mail.example'

afterEach(() => {
  vi.restoreAllMocks()
  vi.unstubAllEnvs()
})

/** Everything written through console.* while the test runs, formatted as Node would print it. */
function captureConsole(): string[] {
  const out: string[] = []
  const format = (...args: unknown[]) => {
    out.push(args.map((a) => (typeof a === 'string' ? a : inspect(a, { depth: 20, showHidden: true }))).join(' '))
  }
  for (const level of ['debug', 'info', 'log', 'warn', 'error'] as const)
    vi.spyOn(console, level).mockImplementation(format)
  return out
}

function pinoCapture() {
  const lines: string[] = []
  const stream = new Writable({
    write(chunk, _enc, done) {
      lines.push(String(chunk))
      done()
    },
  })
  return { logger: pino({ level: 'debug' }, stream), lines }
}

/** A purchase with payer data, paid, looked up and captured; then a signed callback handled. */
async function fullPurchase(client: Partial<CardGatewayOptions>) {
  const ctx = await setup({ client })
  const number = orderId('log')
  await ctx.gw.checkout.purchase({
    order: { number, amount: '10.00', currency: 'USD', description: 'Log order' },
    success_url: 'https://shop.example/ok',
    cancel_url: 'https://shop.example/cancel',
    customer: { name: 'Zelda Quixote', email: EMAIL },
    recurring_init: true,
    req_token: true,
  } as Parameters<typeof ctx.gw.checkout.purchase>[0])
  const paid = await ctx.simulator.pay(number, { card: PAN, expiry: TEST_CARDS.success, capture: false })
  const status = await ctx.gw.checkout.status({ order_id: number })
  const transId = (paid as { trans_id?: string }).trans_id ?? (status as { trans_id?: string }).trans_id
  if (transId) await ctx.gw.s2s.capture({ trans_id: transId, amount: '10.00' }).catch(() => undefined)
  const handler = ctx.gw.callbacks.handler({ onEvent: () => {} })
  const body = signCallback(
    {
      id: `pay-${number}`,
      order_number: number,
      order_amount: '10.00',
      order_currency: 'USD',
      order_description: 'Log order',
      order_status: 'settled',
      type: 'sale',
      status: 'success',
      customer_email: EMAIL,
      card_token: TOKEN,
    },
    SIMULATOR_CREDENTIALS.password,
  )
  await handler.handle(body)
  await handler.drain()
  const sent = ctx.server.requests.map((r) => r.body).join('\n')
  return { sent, body }
}

/** A gateway that answers every call with an error echoing card data, a token and the payer's email. */
async function echoingError(client: Partial<CardGatewayOptions>) {
  const server = await startFaultServer(
    faults.json(400, {
      result: 'ERROR',
      error_code: 100000,
      error_message: 'Request data is invalid.',
      errors: [{ error_code: 100000, error_message: `card_number ${PAN} cvv ${CVV} token ${TOKEN} ${EMAIL}` }],
      card: PAN,
      card_token: TOKEN,
    }),
  )
  const gw = new CardGateway({
    checkoutUrl: server.url,
    s2sUrl: server.url,
    ...SIMULATOR_CREDENTIALS,
    maxRetries: 0,
    ...client,
  })
  await gw.s2s.getTransStatus({ trans_id: 'a1b2c3d4-0000-4000-8000-000000000001' }).catch(() => undefined)
  await gw.close()
  await server.close()
}

/**
 * The log text holds none of the secrets. The loopback server's port is blanked first: a random port
 * such as 40737 holds the test CVV `737` without anything having leaked (it failed once that way).
 */
function expectNoSecret(text: string, secrets: readonly string[]): void {
  const withoutPorts = text.replace(/(127\.0\.0\.1|localhost|\[::1\]):\d+/g, '$1:PORT')
  for (const secret of secrets) expect(withoutPorts, secret).not.toContain(secret)
}

function forbidden(sent: string): string[] {
  const hashes = [...sent.matchAll(/hash=([^&\s]+)/g)].map((m) => decodeURIComponent(m[1] as string))
  return [
    SIMULATOR_CREDENTIALS.password,
    SIMULATOR_CREDENTIALS.merchantKey,
    SIMULATOR_CREDENTIALS.clientKey,
    PAN,
    PAN.slice(6, 12),
    CVV,
    TOKEN,
    EMAIL,
    ...hashes,
  ]
}

describe('logs never carry a secret, card data or payer data', () => {
  it('PAYWIRE_LOG=debug: the console output of a purchase, lookup, capture, callback and an echoing error', async () => {
    vi.stubEnv('PAYWIRE_LOG', 'debug')
    const out = captureConsole()
    const { sent } = await fullPurchase({})
    await echoingError({})
    const text = out.join('\n')
    expect(text).toContain('checkout.purchase')
    expect(text).toContain('failed')
    expectNoSecret(text, forbidden(sent))
  })

  it('pino at debug: every JSON line of the same flow', async () => {
    const { logger, lines } = pinoCapture()
    const { sent } = await fullPurchase({ logger })
    await echoingError({ logger })
    const text = lines.join('')
    expect(text).toContain('checkout.purchase')
    expectNoSecret(text, forbidden(sent))
  })

  it('a logger that looks like pino (child and levels.values) but is not still gets nothing secret', async () => {
    const seen: unknown[][] = []
    const fake = {
      child: () => fake,
      levels: { values: {} },
      debug: (...args: unknown[]) => seen.push(args),
      warn: (...args: unknown[]) => seen.push(args),
    }
    await echoingError({ logger: fake })
    const text = seen.map((args) => args.map((a) => inspect(a, { depth: 20, showHidden: true })).join(' ')).join('\n')
    expect(seen.length).toBeGreaterThan(0)
    expectNoSecret(text, forbidden(''))
  })
})
