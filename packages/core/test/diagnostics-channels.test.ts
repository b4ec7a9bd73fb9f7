/**
 * The diagnostics_channel contract: what each paywire channel publishes, in which order, and that a
 * message never carries a body, a header, a URL path or query, or a credential.
 */
import * as diagnostics from 'node:diagnostics_channel'
import { type MemoryIntentStore, type OperationMessage, PAYWIRE_CHANNELS, type PaywireError } from '@paywire/core'
import { unsentOnly } from '@paywire/core/engine'
import { createTestClock, faults, rejection, startFaultServer } from '@paywire/core/testing'
import { afterEach, describe, expect, it } from 'vitest'
import { get, jsonHandler, makeClient, post } from './helpers.js'

const SECRET = 's3cr3t-credential-value'
const PAN = '4111111111111111'

type Seen = { channel: string; event: string; message: Record<string, unknown> }

const unsubscribe: (() => void)[] = []
afterEach(() => {
  for (const off of unsubscribe.splice(0)) off()
})

/** Subscribes to every paywire channel; each message is recorded with a JSON snapshot taken at once. */
function listen(): { seen: Seen[]; snapshots: string[] } {
  const seen: Seen[] = []
  const snapshots: string[] = []
  const record = (channel: string, event: string) => (message: unknown) => {
    seen.push({ channel, event, message: message as Record<string, unknown> })
    snapshots.push(JSON.stringify(message))
  }
  for (const name of ['operation', 'attempt', 'callback', 'reconcile'] as const) {
    const tc = diagnostics.tracingChannel(PAYWIRE_CHANNELS[name])
    const handlers = {
      start: record(name, 'start'),
      end: record(name, 'end'),
      asyncStart: record(name, 'asyncStart'),
      asyncEnd: record(name, 'asyncEnd'),
      error: record(name, 'error'),
    }
    tc.subscribe(handlers)
    unsubscribe.push(() => tc.unsubscribe(handlers))
  }
  for (const name of ['retry', 'intent', 'claim'] as const) {
    const handler = record(name, 'publish')
    diagnostics.subscribe(PAYWIRE_CHANNELS[name], handler)
    unsubscribe.push(() => diagnostics.unsubscribe(PAYWIRE_CHANNELS[name], handler))
  }
  return { seen, snapshots }
}

describe('paywire diagnostics channels', () => {
  it('a retried call publishes one operation, two attempts and a retry, attempts pointing at their operation', async () => {
    const s = await startFaultServer((req, res, n) =>
      (n === 1 ? faults.json(503, {}) : faults.json(200, { result: 'DECLINED', card: PAN }))(req, res, n),
    )
    const { seen, snapshots } = listen()
    const client = makeClient({ random: () => 0, clock: createTestClock() })
    const url = `${s.url}/pay?card=${PAN}`
    await client.send(get(url, { credentialHeaders: ['x-code'] }), jsonHandler, { headers: { 'x-code': SECRET } })
    await client.close()
    await s.close()

    const op = seen.find((e) => e.channel === 'operation')?.message as unknown as OperationMessage
    expect(seen.filter((e) => e.channel === 'operation').map((e) => e.event)).toEqual([
      'start',
      'end',
      'asyncStart',
      'asyncEnd',
    ])
    expect(op).toMatchObject({
      operation: 'test.get',
      service: 'core-test',
      method: 'GET',
      serverAddress: '127.0.0.1',
      attempts: 2,
      retryCount: 1,
      status: 200,
      result: 'DECLINED',
      errorType: undefined,
      outcomeUnknown: false,
    })
    const attempts = seen.filter((e) => e.channel === 'attempt' && e.event === 'asyncEnd').map((e) => e.message)
    expect(attempts.map((a) => [a.attempt, a.status, a.parent === op])).toEqual([
      [1, 503, true],
      [2, 200, true],
    ])
    const retry = seen.find((e) => e.channel === 'retry')?.message
    expect(retry).toMatchObject({ operation: 'test.get', attempt: 1, reason: 'HTTP 503', parent: op })
    const all = snapshots.join('\n')
    for (const leak of [SECRET, PAN, '/pay', 'x-code']) expect(all).not.toContain(leak)
  })

  it('a lost answer publishes the error class and outcomeUnknown, never the message text', async () => {
    const s = await startFaultServer(faults.resetBeforeAnswer())
    const { seen } = listen()
    const client = makeClient({ random: () => 0, clock: createTestClock() })
    const error = (await rejection(client.send(post(s.url, { retry: unsentOnly }), jsonHandler))) as PaywireError
    await client.close()
    await s.close()
    expect(error.outcomeUnknown).toBe(true)
    expect(seen.filter((e) => e.channel === 'operation').map((e) => e.event)).toEqual([
      'start',
      'end',
      'error',
      'asyncStart',
      'asyncEnd',
    ])
    const op = seen.find((e) => e.channel === 'operation')?.message
    expect(op).toMatchObject({ errorType: error.constructor.name, outcomeUnknown: true })
    expect(JSON.stringify(op)).not.toContain('message')
    const attempt = seen.find((e) => e.channel === 'attempt' && e.event === 'error')?.message
    expect(attempt).toMatchObject({ attempt: 1, outcomeUnknown: true })
  })

  it('the intent journal publishes open and close on paywire:intent', async () => {
    const { MemoryIntentStore: Store } = await import('@paywire/core')
    const journal: MemoryIntentStore = new Store()
    const { seen } = listen()
    const { journaled } = await import('../src/journal/journal.js')
    const s = await startFaultServer(faults.json(200, { ok: true }))
    const client = makeClient()
    const request = post(s.url, {
      operation: 'test.pay',
      reconciliation: { key: 'order_id', value: 'o-1', lookup: 'x' },
    })
    await journaled(journal, client, request, { amount: '10.00', card: PAN }, (open) =>
      client.send(request, jsonHandler, {}, open),
    )
    await client.close()
    await s.close()
    const intents = seen.filter((e) => e.channel === 'intent').map((e) => e.message)
    expect(intents).toMatchObject([
      { action: 'open', service: 'core-test', operation: 'test.pay', ok: true },
      { action: 'close', operation: 'test.pay', outcome: 'applied', ok: true },
    ])
    const op = seen.find((e) => e.channel === 'operation')?.message
    expect(op?.reconciliation).toEqual({ kind: 'order_id', value: 'o-1' })
    expect(JSON.stringify(seen.map((e) => e.message))).not.toContain(PAN)
  })

  it('with nobody subscribed, nothing is published and calls work as before', async () => {
    const s = await startFaultServer(faults.json(200, { ok: true }))
    const client = makeClient()
    expect(diagnostics.tracingChannel(PAYWIRE_CHANNELS.operation).hasSubscribers).toBe(false)
    await expect(client.send(get(s.url), jsonHandler)).resolves.toEqual({ ok: true })
    await client.close()
    await s.close()
  })
})
