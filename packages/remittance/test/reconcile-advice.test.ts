/**
 * Remittance reconciliation never advises what can pay twice, and never calls a transfer made on an
 * answer that does not show it (issue 26, items 2 and 3). This loopback service executes every
 * transfer it receives (no dedup on agentTransactionRef) and answers the status lookup as each test
 * says: an empty or unreadable 200 must leave the transfer `still_unknown` and its intent open.
 */

import { MemoryIntentStore, type PaywireError, RequestValidationError } from '@paywire/core'
import { rejection, startFaultServer } from '@paywire/core/testing'
import { describe, expect, it, onTestFinished } from 'vitest'
import { Remittance } from '../src/index.js'
import { mobileTransferBody } from './helpers.js'

/** How the status lookup answers: a status and a raw body (content type JSON unless `type`). */
interface StatusAnswer {
  readonly status: number
  readonly body: string
  readonly type?: string
}

async function startService(options: { dedup?: boolean; statusAnswer?: (ref: string) => StatusAnswer } = {}) {
  const transfers: Record<string, unknown>[] = []
  const server = await startFaultServer((req, res, n) => {
    const { body } = server.requests[n - 1] as { body: string }
    if (req.method === 'POST' && req.url === '/api/transactions/mobile-transfer') {
      const fields = JSON.parse(body) as Record<string, unknown>
      const ref = fields.agentTransactionRef
      if (options.dedup && transfers.some((t) => t.agentTransactionRef === ref)) {
        const problem = { type: 'about:blank', title: 'Duplicate agentTransactionRef', status: 400 }
        res.writeHead(400, { 'content-type': 'application/problem+json' }).end(JSON.stringify(problem))
        return
      }
      const transfer = { transactionId: `TX-${transfers.length + 1}`, agentTransactionRef: ref, status: 'ENTERED' }
      transfers.push(transfer)
      if (transfers.length === 1) return void req.socket.destroy() // executed, answer lost
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(transfer))
      return
    }
    const status = req.url?.match(/^\/api\/lookup\/transaction\/status\/(.+)$/)
    if (req.method === 'GET' && status) {
      const answer = options.statusAnswer?.(decodeURIComponent(status[1] as string)) ?? {
        status: 404,
        body: JSON.stringify({ title: 'Not Found', status: 404 }),
        type: 'application/problem+json',
      }
      res.writeHead(answer.status, { 'content-type': answer.type ?? 'application/json' }).end(answer.body)
      return
    }
    res.writeHead(404).end()
  })
  onTestFinished(() => server.close())
  const { url } = server
  return { url, transfers }
}

function client(url: string, extra: { serviceDedupsIdempotencyKey?: boolean } = {}) {
  const remit = new Remittance({ baseUrl: url, apiKey: 'key', journal: new MemoryIntentStore(), ...extra })
  onTestFinished(() => remit.close())
  return remit
}

/** Does what `next` tells an agent to do: resend when it says to send the transfer again, else look up. */
async function follow(next: string | undefined, resend: () => Promise<unknown>, lookUp: () => Promise<unknown>) {
  const text = next ?? ''
  const saysResend = /\b(resend|send the same transfer again)\b/i.test(text) && !/do not send it again/i.test(text)
  await (saysResend ? resend() : lookUp()).catch(() => undefined)
  return saysResend
}

/** Claims the service's published interface does not make (item 2), in any message or hint. */
const UNSAFE = /cannot pay twice|cannot move money twice|refuses a reused|resend the same|a resend with the same/i

const transfer = { ...mobileTransferBody('BEN-1'), agentTransactionRef: 'AGENT-1' }

async function lostTransfer(remit: Remittance): Promise<PaywireError> {
  const error = (await rejection(remit.transactions.mobileTransfer(transfer))) as PaywireError
  expect(error.outcomeUnknown).toBe(true)
  return error
}

describe('remit.reconcile against a service that does not deduplicate agentTransactionRef', () => {
  it('following the default advice never sends the transfer twice, and no message claims a resend is safe', async () => {
    const service = await startService()
    const remit = client(service.url)
    const error = await lostTransfer(remit)
    const result = await remit.reconcile(error)
    expect(result.outcome).toBe('still_unknown')
    await follow(
      result.next,
      () => remit.transactions.mobileTransfer(transfer),
      () => remit.lookup.transactionStatus('AGENT-1'),
    )
    expect(service.transfers).toHaveLength(1)
    expect(result.next).toMatch(/look the transfer up before anything else/)
    expect(result.next).toMatch(/no lookup by agentTransactionRef is published/)
    expect(result.next).toMatch(/safe only where the service's dedup of it is known \(serviceDedupsIdempotencyKey\)/)
    const [fromJournal] = await remit.reconcileAll()
    const texts = [error.message, error.reconciliation?.lookup, result.evidence, result.next, fromJournal?.result.next]
    for (const text of texts) expect(text ?? '').not.toMatch(UNSAFE)
  })

  it('with serviceDedupsIdempotencyKey: true the resend is advised; a deduplicating service refuses it', async () => {
    const service = await startService({ dedup: true })
    const remit = client(service.url, { serviceDedupsIdempotencyKey: true })
    const result = await remit.reconcile(await lostTransfer(remit))
    expect(result.next).toMatch(/send the same transfer again with agentTransactionRef "AGENT-1"/)
    expect(
      await follow(
        result.next,
        () => remit.transactions.mobileTransfer(transfer),
        () => remit.lookup.transactionStatus('AGENT-1'),
      ),
    ).toBe(true)
    expect(service.transfers).toHaveLength(1)
  })

  it('serviceDedupsIdempotencyKey must be a boolean', () => {
    expect(() => client('http://127.0.0.1:1', { serviceDedupsIdempotencyKey: 1 as never })).toThrow(
      RequestValidationError,
    )
  })
})

describe('a status lookup that shows no record never proves a transfer (item 3)', () => {
  const json = (body: unknown): StatusAnswer => ({ status: 200, body: JSON.stringify(body) })
  const answers: { name: string; answer: StatusAnswer; why: RegExp }[] = [
    { name: 'an empty body', answer: { status: 200, body: '' }, why: /no record/ },
    { name: 'null', answer: { status: 200, body: 'null' }, why: /no record/ },
    { name: 'an empty JSON string', answer: { status: 200, body: '""' }, why: /no record/ },
    { name: 'text that is not JSON', answer: { status: 200, body: 'OK', type: 'text/plain' }, why: /cannot be read/ },
    { name: 'an empty object', answer: json({}), why: /does not name agentTransactionRef AGENT-1/ },
    {
      name: 'a status of nothing',
      answer: json({ status: null, agentTransactionRef: 'AGENT-1' }),
      why: /without a status/,
    },
    {
      name: 'a record of another transfer',
      answer: json({ status: 'PROCESSED', agentTransactionRef: 'AGENT-OTHER', transactionId: 'TX-9' }),
      why: /does not name agentTransactionRef AGENT-1/,
    },
  ]

  it.each(answers)(
    'a 200 with $name is still_unknown, says why, and reconcileAll leaves the intent open',
    async (c) => {
      const service = await startService({ statusAnswer: () => c.answer })
      const remit = client(service.url)
      const error = await lostTransfer(remit)
      const result = await remit.reconcile(error)
      expect(result.outcome).toBe('still_unknown')
      expect(result.evidence).toMatch(c.why)
      const [settled] = await remit.reconcileAll()
      expect(settled?.result.outcome).toBe('still_unknown')
      expect(await remit.pendingIntents()).toMatchObject([{ operation: 'transactions.mobileTransfer' }])
    },
  )

  it('a record that names the transfer and its status proves it: applied, and the intent is closed', async () => {
    const service = await startService({
      statusAnswer: (ref) => json({ status: 'ENTERED', agentTransactionRef: ref, transactionId: 'TX-1' }),
    })
    const remit = client(service.url)
    await lostTransfer(remit)
    const [settled] = await remit.reconcileAll()
    expect(settled?.result).toMatchObject({ outcome: 'applied', state: { status: 'ENTERED' } })
    expect(await remit.pendingIntents()).toEqual([])
  })
})
