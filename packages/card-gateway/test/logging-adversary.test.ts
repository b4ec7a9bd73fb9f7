/**
 * The `logger` option and `PAYWIRE_LOG` from the attacker's side: a full card purchase, its lookup,
 * a capture, a gateway error that echoes card data, and a callback, logged at debug level to the
 * console and to a real pino logger; every byte written is scanned for credentials, card data,
 * signature hashes, tokens and payer data.
 */

import { hostname } from 'node:os'
import { Writable } from 'node:stream'
import { inspect } from 'node:util'
import { faults, startFaultServer } from '@paywire/core/testing'
import pino from 'pino'
import { afterEach, describe, expect, it, vi } from 'vitest'
import {
  expectNoSecret,
  jsonFields,
  type ScannedText,
  type SecretScan,
  secretsIn,
} from '../../../tests/support/secret-scan.js'
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
 * The secrets a log must not hold, for tests/support/secret-scan.ts. The CVV and the card number's
 * middle six are digits by format: a scan for them anywhere in a line failed on pino's `time`
 * 1795737682327 (and before on the loopback port 40737) with nothing leaked, so they are looked for as
 * tokens that are pieces of the card data; the rest (keys, the whole card number, the token, the
 * e-mail address, the signature hashes sent) no generated number or id can hold, so anywhere.
 */
function forbidden(sent: string): SecretScan {
  const hashes = [...sent.matchAll(/hash=([^&\s]+)/g)].map((m) => decodeURIComponent(m[1] as string))
  return {
    anywhere: [
      SIMULATOR_CREDENTIALS.password,
      SIMULATOR_CREDENTIALS.merchantKey,
      SIMULATOR_CREDENTIALS.clientKey,
      PAN,
      TOKEN,
      EMAIL,
      ...hashes,
    ],
    digits: [
      { digits: CVV, of: CVV },
      { digits: PAN.slice(6, 12), of: PAN },
    ],
  }
}

/**
 * Each pino line read field by field. pino's own fields (`level`, `time`, `pid`, `hostname`) are
 * numbers and a name from the process and the clock, not from the SDK: each is checked to be exactly
 * that (a pid or a host name could equal a CVV by chance: `737`, `ci-737`) and then left out. A line
 * must read back as written, so a duplicate key cannot hide a value from the scan.
 */
function pinoFields(written: string): ScannedText[] {
  const levels = new Set(Object.values(pino.levels.values))
  const lines = written.split('\n').filter((line) => line !== '')
  expect(lines.length).toBeGreaterThan(0)
  return lines.flatMap((line, i) => {
    const parsed = JSON.parse(line) as Record<string, unknown>
    expect(JSON.stringify(parsed), `line ${i} reads back as written`).toBe(line)
    const { level, time, pid, hostname: host, ...rest } = parsed
    expect(levels.has(level as number), `line ${i} level ${String(level)}`).toBe(true)
    // Within a minute of now (not since the test began: a wall clock may be stepped back).
    expect(Math.abs((time as number) - Date.now()), `line ${i} time ${String(time)}`).toBeLessThan(60_000)
    expect({ pid, host }, `line ${i}`).toEqual({ pid: process.pid, host: hostname() })
    return jsonFields(rest, `line ${i}`)
  })
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
    expect(lines.join('')).toContain('checkout.purchase')
    expectNoSecret(pinoFields(lines.join('')), forbidden(sent))
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

describe('the scan itself', () => {
  const scan = forbidden('hash=e11b7c248af09320dea8a8bda1083f6e62d6c339')
  const line = (fields: Record<string, unknown>) =>
    JSON.stringify({ level: 20, time: Date.now(), pid: process.pid, hostname: hostname(), ...fields })

  it('passes numbers and ids the run generated that hold the CVV or the middle six by chance', () => {
    const chance = [
      '{"level":20,"time":1795737682327,"operation":"checkout.purchase"}', // the CI failure: time held 737
      "url: 'http://127.0.0.1:40737/api/v1/session'", // the loopback port
      '{"content-length":"1737","date":"Fri, 27 Nov 2026 07:37:00 GMT"}',
      '{"min":0.06111111907,"time":[1795738958,111111402]}',
      '{"intentId":"e111111f-7370-4aa5-9737-111111111f07"}',
    ]
    for (const text of chance) expect(secretsIn(text, scan), text).toEqual([])
  })

  it('fails on the CVV or card digits written whole, cut short or beside words', () => {
    const leaks = [
      'cvv 737',
      '{"cvv":"737"}',
      '{"cvv":737}',
      'cvv=737&x=1',
      'cvv%20737',
      "'card_number … cvv\\n737'",
      '{"card":"411111111111"}',
      'last digits 1111111111',
      '{"card":"4111111111111111"}',
      'sim-password',
      'hash e11b7c248af09320dea8a8bda1083f6e62d6c339',
    ]
    for (const text of leaks) expect(secretsIn(text, scan), text).not.toEqual([])
  })

  it("reads pino's own fields only as pino writes them", () => {
    expect(() => pinoFields(`${line({ msg: 'ok' })}\n`)).not.toThrow()
    for (const written of [
      line({ pid: 737 }), // a pid field the SDK wrote would replace pino's
      line({ hostname: 'cvv 737' }),
      line({ time: 737 }),
      `{"level":20,"cvv":"737","cvv":"x","time":${Date.now()},"pid":${process.pid},"hostname":"${hostname()}"}`,
    ])
      expect(() => pinoFields(written), written).toThrow()
  })
})
