/**
 * Reconciliation never advises what can pay twice (issue 26, item 1). The service does not publish
 * what it does with a repeated Idempotency-Key, and this loopback server executes every payment it
 * receives, key or not. Following the default advice of `reconcile` must leave one payment; the
 * resend advice is given only with `serviceDedupsIdempotencyKey: true`.
 */

import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { MemoryIntentStore, type PaywireError, RequestValidationError } from '@paywire/core'
import { rejection, startFaultServer } from '@paywire/core/testing'
import { describe, expect, it, onTestFinished } from 'vitest'
import { BillPayment } from '../src/index.js'

interface Payment {
  readonly transReference: string
  readonly productId: unknown
  readonly amount: unknown
}

/**
 * A bill service that never deduplicates: every POST /api/transactions pays. The first payment's
 * answer is lost (the socket is destroyed after paying); the list shows payments without their key,
 * as nothing publishes that a transaction carries it.
 */
async function startNonDedupService(options: { dedup?: boolean; listBody?: string } = {}) {
  const payments: Payment[] = []
  const byKey = new Map<string, Payment>()
  const server = await startFaultServer((req, res, n) => {
    const { body } = server.requests[n - 1] as { body: string }
    if (req.method === 'POST' && req.url === '/api/transactions') {
      const key = String(req.headers['idempotency-key'])
      const known = options.dedup ? byKey.get(key) : undefined
      const fields = JSON.parse(body) as Record<string, unknown>
      const payment = known ?? {
        transReference: `T-${payments.length + 1}`,
        productId: fields.productId,
        amount: fields.amount,
      }
      if (!known) {
        payments.push(payment)
        byKey.set(key, payment)
      }
      if (payments.length === 1 && !known) return void req.socket.destroy() // paid, answer lost
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(payment))
      return
    }
    if (req.method === 'GET' && req.url?.startsWith('/api/transactions')) {
      res.writeHead(200, { 'content-type': 'application/json' }).end(options.listBody ?? JSON.stringify(payments))
      return
    }
    res.writeHead(404).end()
  })
  onTestFinished(() => server.close())
  const { url } = server
  return { url, payments }
}

function client(url: string, extra: { serviceDedupsIdempotencyKey?: boolean } = {}) {
  const bills = new BillPayment({
    baseUrl: url,
    clientId: 'client-id',
    clientSecret: 'client-secret',
    journal: new MemoryIntentStore(),
    ...extra,
  })
  onTestFinished(() => bills.close())
  return bills
}

/** Does what `next` tells a merchant to do: resend when it says to send the payment again, else look up. */
async function follow(next: string | undefined, resend: () => Promise<unknown>, lookUp: () => Promise<unknown>) {
  const saysResend =
    /\b(repeat the payment|resend|send the same payment again)\b/i.test(next ?? '') &&
    !/do not send it again/i.test(next ?? '')
  await (saysResend ? resend() : lookUp())
  return saysResend
}

/** Claims the service's published interface does not make (item 1), in any message or hint. */
const UNSAFE = /first payment|cannot pay twice|answers a repeated key|retryWithSameKey: true|repeat the payment with/i

const body = { productId: 'EDSA-PREPAID', amount: 50 }

describe('bills.reconcile against a service that does not deduplicate', () => {
  it('following the default advice never pays twice, and no message claims a resend is safe', async () => {
    const service = await startNonDedupService()
    const bills = client(service.url)
    const error = (await rejection(bills.transactions.execute(body, { idempotencyKey: 'pay-1' }))) as PaywireError
    expect(error.outcomeUnknown).toBe(true)
    expect(service.payments).toHaveLength(1)

    const result = await bills.reconcile(error)
    expect(result.outcome).toBe('still_unknown')
    await follow(
      result.next,
      () => bills.transactions.execute(body, { idempotencyKey: 'pay-1' }),
      () => bills.transactions.list(),
    )
    expect(service.payments).toHaveLength(1)
    expect(result.next).toMatch(/look the payment up before anything else/)
    expect(result.next).toMatch(
      /safe only where the service's dedup of Idempotency-Key is known \(serviceDedupsIdempotencyKey\)/,
    )

    const [fromJournal] = await bills.reconcileAll()
    const texts = [error.message, error.reconciliation?.lookup, result.evidence, result.next, fromJournal?.result.next]
    for (const text of texts) expect(text ?? '').not.toMatch(UNSAFE)
  })

  it('with serviceDedupsIdempotencyKey: true the resend is advised, and a deduplicating service pays once', async () => {
    const service = await startNonDedupService({ dedup: true })
    const bills = client(service.url, { serviceDedupsIdempotencyKey: true })
    const error = (await rejection(bills.transactions.execute(body, { idempotencyKey: 'pay-2' }))) as PaywireError
    const result = await bills.reconcile(error)
    expect(result.next).toMatch(/send the same payment again with \{ idempotencyKey: "pay-2" \}/)
    const resent = await follow(
      result.next,
      () => bills.transactions.execute(body, { idempotencyKey: 'pay-2' }),
      () => bills.transactions.list(),
    )
    expect(resent).toBe(true)
    expect(service.payments).toHaveLength(1)
  })

  it('serviceDedupsIdempotencyKey must be a boolean', () => {
    expect(() => client('http://127.0.0.1:1', { serviceDedupsIdempotencyKey: 'yes' as never })).toThrow(
      RequestValidationError,
    )
    expect(() => client('http://127.0.0.1:1', { serviceDedupsIdempotencyKey: 'yes' as never })).toThrow(
      /serviceDedupsIdempotencyKey: must be true or false/,
    )
  })
})

describe('a transactions list that shows nothing never settles a payment (item 3, bill payment)', () => {
  it.each([
    ['an empty body', '', /no list/],
    ['null', 'null', /no list/],
    ['an empty JSON string', '""', /cannot be read/],
    ['text that is not JSON', 'OK', /cannot be read/],
    ['a list of records without keys', '[{"transReference":"T-1"}]', /no transaction in the list carries/],
  ])('a 200 with %s is still_unknown, says why, and the intent stays open', async (_name, listBody, why) => {
    const service = await startNonDedupService({ listBody })
    const bills = client(service.url)
    const error = (await rejection(bills.transactions.execute(body))) as PaywireError
    const result = await bills.reconcile(error)
    expect(result.outcome).toBe('still_unknown')
    expect(result.evidence).toMatch(why)
    const [settled] = await bills.reconcileAll()
    expect(settled?.result.outcome).toBe('still_unknown')
    expect(await bills.pendingIntents()).toHaveLength(1)
  })
})

describe('the docs, READMEs and examples of both keyed services', () => {
  it('never claim that a resend with the same key is safe without knowing the service deduplicates', () => {
    const root = join(import.meta.dirname, '../../..')
    const files = [
      ...[
        'errors.md',
        'reconciliation.md',
        'retries-and-idempotency.md',
        'bill-payment-rules.md',
        'remittance-rules.md',
        'getting-started-bill-payment.md',
        'getting-started-remittance.md',
      ].map((name) => join('docs', name)),
      'packages/bill-payment/README.md',
      'packages/remittance/README.md',
      ...['bill-payment', 'remittance'].flatMap((dir) =>
        readdirSync(join(root, 'examples', dir)).map((name) => join('examples', dir, name)),
      ),
    ]
    const claim = /with the first payment|cannot pay twice|cannot move money twice|(so|then) (this|a) resend is safe/i
    const found = files.flatMap((file) =>
      readFileSync(join(root, file), 'utf8')
        .split('\n')
        .filter((line) => claim.test(line))
        .map((line) => `${file}: ${line.trim()}`),
    )
    expect(found).toEqual([])
  })
})
