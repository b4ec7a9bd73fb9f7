/**
 * Secrets and transport security (issue 8): a run-wide scan. Each package runs success and every
 * error kind against its simulator and against a misbehaving server, with hooks and a logger
 * capturing every event. Then: no credential in any log line, hook event, error (message, JSON,
 * `util.inspect` with hidden fields) or client printout; the card password in no byte on the wire;
 * the remittance key and the bill client secret only in their own auth header.
 */

import { inspect } from 'node:util'
import { BillPayment } from '@paywire/bill-payment'
import { startBillPaymentSimulator } from '@paywire/bill-payment/testing'
import { asciiUpper, CardGateway } from '@paywire/card-gateway'
import { startCardGatewaySimulator } from '@paywire/card-gateway/testing'
import { type ClientOptions, type Hooks, type Logger, RequestValidationError } from '@paywire/core'
import { faults, HTML_ERROR_PAGE, type RecordedRequest, refusedUrl, startFaultServer } from '@paywire/core/testing'
import { Remittance } from '@paywire/remittance'
import { startRemittanceSimulator } from '@paywire/remittance/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  billPayment,
  cardGateway,
  MOBILE_TRANSFER,
  outcome,
  PACKAGES,
  remittance,
  SECRETS,
} from './support/packages.js'
import { recordResults } from './support/results.js'

const SECRET_VALUES = [
  SECRETS.cardPassword,
  asciiUpper(SECRETS.cardPassword),
  SECRETS.remittanceApiKey,
  SECRETS.billClientSecret,
]

/** Everything observable that is not the wire, collected across the whole file. */
const observed: unknown[] = []
const errors: unknown[] = []
const clients: unknown[] = []
const wire: { pkg: string; request: RecordedRequest }[] = []

const hooks: Hooks = {
  onRequest: (e) => observed.push(e),
  onResponse: (e) => observed.push(e),
  onRetry: (e) => observed.push(e),
  onError: (e) => observed.push(e),
}
const logger: Logger = {
  debug: (message, data) => observed.push(message, data),
  warn: (message, data) => observed.push(message, data),
}
const observe: ClientOptions = { hooks, logger, maxRetries: 1, timeout: 250 }

/** Every way a value can be printed. */
function renderings(value: unknown): string[] {
  const out = [
    inspect(value, { depth: 10 }),
    inspect(value, { depth: 10, showHidden: true }),
    inspect(value, { depth: 10, showHidden: true, customInspect: false }),
    String(value),
  ]
  try {
    out.push(JSON.stringify(value) ?? '')
  } catch {
    // circular: inspect covers it
  }
  if (value instanceof Error) {
    out.push(value.message, value.stack ?? '')
    for (let cause: unknown = value.cause; cause !== undefined; cause = (cause as Error).cause)
      out.push(...renderings(cause))
  }
  return out
}

async function run(calls: (() => Promise<unknown>)[]): Promise<void> {
  for (const call of calls) {
    const result = await outcome(call())
    if (result.error !== undefined) errors.push(result.error)
  }
}

/** Every error kind through the misbehaving server, for the package's lookup and write. */
async function faultRun(pkgName: string): Promise<void> {
  const pkg = PACKAGES.find((p) => p.name === pkgName)
  if (!pkg) throw new Error(pkgName)
  const behaviours = [
    faults.json(200, { result: 'SUCCESS', status: 'SETTLED', trans_id: 't-1' }),
    faults.text(502, '<html>bad gateway</html>'),
    faults.text(503, 'busy', 'text/plain', { 'retry-after': '0' }),
    faults.json(401, { title: 'Unauthorized', status: 401, detail: 'bad key' }),
    faults.json(400, { result: 'ERROR', error_code: 100000, error_message: 'Hash is not valid' }),
    faults.truncatedJson(),
    faults.text(200, 'not json', 'text/plain'),
    faults.oversized(64 * 1024),
    faults.resetBeforeAnswer(),
    faults.resetMidBody(),
    faults.neverAnswer(),
    faults.trickleBody(20),
  ]
  const server = await startFaultServer(behaviours[0] as never)
  const client = pkg.open(server.url, { ...observe, maxResponseBytes: 4096 })
  const refused = pkg.open(await refusedUrl(), { ...observe, backoff: { baseDelayMs: 1 } })
  try {
    for (const behaviour of behaviours) {
      server.behave(behaviour)
      await run([client.lookup, client.write])
    }
    await run([refused.lookup, refused.write])
    for (const request of server.requests) wire.push({ pkg: pkgName, request })
  } finally {
    await client.close()
    await refused.close()
    await server.close()
  }
}

afterAll(() => {
  recordResults('secrets', {
    observedEvents: observed.length,
    errorsScanned: errors.length,
    errorKinds: [...new Set(errors.map((e) => (e as Error).name))].sort(),
    clientsScanned: clients.length,
    requestsOnTheWire: wire.length,
  })
})

describe('no credential leaks anywhere (scan over the whole file)', () => {
  const collectCardGateway = async () => {
    const sim = await startCardGatewaySimulator({
      password: SECRETS.cardPassword,
      merchantKey: SECRETS.cardMerchantKey,
      clientKey: SECRETS.cardClientKey,
    })
    const gw = cardGateway(sim.url, observe)
    clients.push(gw)
    try {
      await run([
        () =>
          gw.checkout.purchase({
            order: { number: 'sec-1', amount: '10.00', currency: 'USD', description: 'secret scan' },
            success_url: 'https://shop.example/ok',
            cancel_url: 'https://shop.example/cancel',
          }),
        () => gw.checkout.status({ order_id: 'sec-1' }),
        () => gw.checkout.status({ order_id: 'nope' }),
        () => gw.s2s.getTransStatus({ trans_id: 'missing' }),
        () => gw.s2s.capture({ trans_id: 'missing' }),
        () => gw.s2s.deleteSchedule({ schedule_id: 'not-a-uuid' }),
        () => gw.s2s.capture({ trans_id: '' }),
        () => gw.request({ base: 's2s', method: 'POST', path: '/post', form: { action: 'NOPE' } }),
      ])
      const wrong = new CardGateway({
        checkoutUrl: sim.url,
        s2sUrl: sim.url,
        merchantKey: 'live-merchant-key',
        clientKey: 'live-client-key',
        password: SECRETS.cardPassword,
        ...observe,
      })
      clients.push(wrong)
      await run([() => wrong.s2s.getTransStatus({ trans_id: 'x' })])
      await wrong.close()
      try {
        gw.callbacks.verify('id=1&hash=00')
      } catch (error) {
        errors.push(error)
      }
      clients.push(gw.explainSignature(['a', 'b']), gw.callbacks, gw.s2s, gw.checkout)
      for (const request of sim.server.requests) wire.push({ pkg: 'card-gateway', request })
    } finally {
      await gw.close()
      await sim.close()
    }
    await faultRun('card-gateway')
  }

  const collectRemittance = async () => {
    const sim = await startRemittanceSimulator({ apiKey: SECRETS.remittanceApiKey })
    const client = remittance(sim.url, observe)
    clients.push(client, client.lookup, client.transactions)
    try {
      sim.simulator.failNext({ path: '/api/lookup/banks', status: 502 })
      sim.simulator.failNext({ path: '/api/transactions/mobile-transfer', status: 502, body: HTML_ERROR_PAGE })
      await run([
        () => client.lookup.banks(),
        () => client.transactions.mobileTransfer({ ...MOBILE_TRANSFER }),
        () => client.beneficiaries.create({ firstName: 'A', lastName: 'B', telephone: '1' }),
        () => client.transactions.mobileTransfer({ ...MOBILE_TRANSFER }),
        () => client.lookup.transactionStatus('RN-missing'),
        () => client.lookup.rates({ sendingAmountSLE: 1.234 }),
        () => client.request({ method: 'GET', path: '/api/unknown' }),
      ])
      const wrong = new Remittance({ baseUrl: sim.url, apiKey: 'not-the-key', ...observe })
      await run([() => wrong.lookup.banks()])
      await wrong.close()
      for (const request of sim.server.requests) wire.push({ pkg: 'remittance', request })
    } finally {
      await client.close()
      await sim.close()
    }
    await faultRun('remittance')
  }

  const collectBillPayment = async () => {
    const sim = await startBillPaymentSimulator({
      clientId: SECRETS.billClientId,
      clientSecret: SECRETS.billClientSecret,
    })
    const client = billPayment(sim.url, observe)
    clients.push(client, client.transactions, client.catalog)
    try {
      await run([
        () => client.catalog.list(),
        () => client.transactions.execute({ productId: 'EDSA-PREPAID', amount: 25 }),
        () => client.transactions.execute({ productId: 'WATER-FREETOWN', amount: 25 }),
        () => client.catalog.get('missing'),
        () => client.transactions.execute({ productId: 'EDSA-PREPAID', amount: 25 }, { idempotencyKey: 'bad key' }),
      ])
      sim.simulator.failNext({ count: 2, status: 503, when: 'after' })
      await run([
        () => client.transactions.execute({ productId: 'EDSA-PREPAID', amount: 30 }),
        () => client.catalog.list(),
      ])
      const wrong = new BillPayment({
        baseUrl: sim.url,
        clientId: SECRETS.billClientId,
        clientSecret: 'wrong-secret',
        ...observe,
      })
      await run([() => wrong.catalog.list()])
      await wrong.close()
      for (const request of sim.server.requests) wire.push({ pkg: 'bill-payment', request })
    } finally {
      await client.close()
      await sim.close()
    }
    await faultRun('bill-payment')
  }

  // Every scan below reads what these calls produced; collected once, before any test, so no test
  // depends on another's order.
  beforeAll(async () => {
    await collectCardGateway()
    await collectRemittance()
    await collectBillPayment()
  }, 60_000)

  it('each package was driven on the wire', () => {
    expect(new Set(wire.map((w) => w.pkg))).toEqual(new Set(['card-gateway', 'remittance', 'bill-payment']))
  })

  it('every error kind was exercised', () => {
    const kinds = new Set(errors.map((e) => (e as Error).name))
    for (const kind of [
      'RequestValidationError',
      'CardGatewayError',
      'RemittanceError',
      'BillPaymentError',
      'ConnectionError',
      'TimeoutError',
      'ResponseTooLargeError',
      'SignatureVerificationError',
    ]) {
      expect(kinds, kind).toContain(kind)
    }
  })

  it('no credential in any log line or hook event (JSON and util.inspect)', () => {
    expect(observed.length).toBeGreaterThan(100)
    for (const event of observed)
      for (const text of renderings(event)) for (const s of SECRET_VALUES) expect(text).not.toContain(s)
  })

  it('no credential in any error: message, JSON, util.inspect(depth 10, showHidden), causes', () => {
    expect(errors.length).toBeGreaterThan(50)
    for (const error of errors)
      for (const text of renderings(error)) for (const s of SECRET_VALUES) expect(text).not.toContain(s)
  })

  it('no credential in inspect or JSON.stringify of any client or client part', () => {
    for (const client of clients)
      for (const text of renderings(client)) for (const s of SECRET_VALUES) expect(text).not.toContain(s)
  })

  it('the card password appears in no byte on the wire (URL, headers, body; as given or uppercased)', () => {
    const card = wire.filter((w) => w.pkg === 'card-gateway')
    expect(card.length).toBeGreaterThan(20)
    for (const { request } of wire) {
      const bytes = `${request.method} ${request.url}\n${JSON.stringify(request.headers)}\n${request.body}`
      expect(bytes).not.toContain(SECRETS.cardPassword)
      expect(bytes).not.toContain(asciiUpper(SECRETS.cardPassword))
      expect(decodeURIComponent(bytes.replace(/\+/g, ' '))).not.toContain(SECRETS.cardPassword)
    }
  })

  it('the remittance key and the bill client secret travel only in their own auth header', () => {
    const only = (secret: string, header: string) => {
      for (const { request } of wire) {
        expect(request.url).not.toContain(secret)
        expect(request.body).not.toContain(secret)
        for (const [name, value] of Object.entries(request.headers))
          if (name !== header) expect(value).not.toContain(secret)
      }
    }
    only(SECRETS.remittanceApiKey, 'x-code')
    only(SECRETS.billClientSecret, 'x-service-client-secret')
    const keyed = wire.filter((w) => w.pkg === 'remittance' && w.request.headers['x-code'] === SECRETS.remittanceApiKey)
    expect(keyed.length).toBeGreaterThan(10)
  })
})

describe('plain http: to a non-loopback host is refused by every client constructor', () => {
  const construct: Record<string, (url: string) => unknown> = {
    'CardGateway checkoutUrl': (url) =>
      new CardGateway({
        checkoutUrl: url,
        s2sUrl: 'https://gw.example',
        merchantKey: 'm',
        clientKey: 'c',
        password: 'p',
      }),
    'CardGateway s2sUrl': (url) =>
      new CardGateway({
        checkoutUrl: 'https://gw.example',
        s2sUrl: url,
        merchantKey: 'm',
        clientKey: 'c',
        password: 'p',
      }),
    Remittance: (url) => new Remittance({ baseUrl: url, apiKey: 'k' }),
    BillPayment: (url) => new BillPayment({ baseUrl: url, clientId: 'i', clientSecret: 's' }),
  }
  const refused = [
    'http://gw.example.com',
    'HTTP://GW.EXAMPLE.COM/api',
    'http://10.0.0.1:8080',
    'http://192.168.1.10',
    'http://0.0.0.0:3000',
    'http://[::ffff:7f00:1]',
    'http://localhost.evil.example',
    'http://127.0.0.1.nip.io',
    'ftp://gw.example.com',
    'https://user:pass@gw.example.com',
    'https://gw.example.com/?key=1',
  ]
  const allowed = ['https://gw.example.com', 'http://127.0.0.1:8080', 'http://localhost:3000', 'http://[::1]:3000']

  it.each(Object.keys(construct).flatMap((name) => refused.map((url) => [name, url] as const)))(
    '%s refuses %s with RequestValidationError',
    (name, url) => {
      expect(() => construct[name]?.(url)).toThrow(RequestValidationError)
    },
  )

  it.each(Object.keys(construct).flatMap((name) => allowed.map((url) => [name, url] as const)))(
    '%s accepts %s',
    async (name, url) => {
      const client = construct[name]?.(url) as { close(): Promise<void> }
      await client.close()
    },
  )
})
