/**
 * The channels from the attacker's side: a subscriber that throws or rewrites the message cannot
 * change a call's outcome, nobody subscribing builds no message, and PAYWIRE_LOG's odd values.
 */
import * as diagnostics from 'node:diagnostics_channel'
import { PAYWIRE_CHANNELS } from '@paywire/core'
import { createTestClock, faults, rejection, startFaultServer } from '@paywire/core/testing'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { resolveEnvLogger } from '../src/telemetry/hooks.js'
import * as telemetry from '../src/telemetry/telemetry.js'
import { jsonHandler, makeClient, post } from './helpers.js'

vi.mock('../src/telemetry/telemetry.js', async (original) => {
  const real = await original<typeof import('../src/telemetry/telemetry.js')>()
  return { ...real, operationMessage: vi.fn(real.operationMessage) }
})

const cleanups: (() => unknown)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
  vi.restoreAllMocks()
})

/** Uncaught exceptions raised while the test runs, instead of the runner's own handler. */
function catchUncaught(): unknown[] {
  const caught: unknown[] = []
  const saved = process.listeners('uncaughtException')
  process.removeAllListeners('uncaughtException')
  const collect = (error: unknown) => caught.push(error)
  process.on('uncaughtException', collect)
  cleanups.push(() => {
    process.off('uncaughtException', collect)
    for (const listener of saved) process.on('uncaughtException', listener)
  })
  return caught
}

function subscribeAll(handler: (message: unknown) => void) {
  const handlers = { start: handler, end: handler, asyncStart: handler, asyncEnd: handler, error: handler }
  for (const name of [PAYWIRE_CHANNELS.operation, PAYWIRE_CHANNELS.attempt]) {
    diagnostics.tracingChannel(name).subscribe(handlers)
    cleanups.push(() => diagnostics.tracingChannel(name).unsubscribe(handlers))
  }
  diagnostics.subscribe(PAYWIRE_CHANNELS.retry, handler)
  cleanups.push(() => diagnostics.unsubscribe(PAYWIRE_CHANNELS.retry, handler))
}

async function twice(behaviour: Parameters<typeof startFaultServer>[0]) {
  const s = await startFaultServer(behaviour)
  cleanups.push(() => s.close())
  const client = makeClient({ random: () => 0, clock: createTestClock(), maxRetries: 0 })
  cleanups.push(() => client.close())
  const request = post(s.url, { reconciliation: { key: 'order_id', value: 'o-1', lookup: 'x' } })
  return () => client.send(request, jsonHandler)
}

describe('a subscriber cannot change an outcome', () => {
  it('a subscriber that throws on every event: the result and the error are the same as without it', async () => {
    const caught = catchUncaught()
    const ok = await twice(faults.json(200, { result: 'SUCCESS' }))
    const fail = await twice(faults.json(502, { result: 'ERROR' }))
    const plainResult = await ok()
    const plainError = await rejection(fail())
    subscribeAll(() => {
      throw new Error('subscriber bug')
    })
    expect(await ok()).toEqual(plainResult)
    const error = (await rejection(fail())) as { constructor: unknown; status: unknown; outcomeUnknown: unknown }
    expect(error.constructor).toBe((plainError as { constructor: unknown }).constructor)
    expect({ status: error.status, outcomeUnknown: error.outcomeUnknown }).toEqual({
      status: (plainError as { status: unknown }).status,
      outcomeUnknown: (plainError as { outcomeUnknown: unknown }).outcomeUnknown,
    })
    await new Promise((resolve) => setImmediate(resolve))
    // Node rethrows a subscriber's own error as an uncaught exception: the subscriber's to catch.
    expect(caught.length).toBeGreaterThan(0)
    expect(caught.every((e) => (e as Error).message === 'subscriber bug')).toBe(true)
  })

  it('a subscriber that rewrites the message changes nothing the call decides or returns', async () => {
    const lost = await twice(faults.resetBeforeAnswer())
    const plain = (await rejection(lost())) as { outcomeUnknown: boolean; constructor: unknown }
    subscribeAll((message) => {
      const m = message as Record<string, unknown>
      m.outcomeUnknown = !plain.outcomeUnknown
      m.reconciliation = { kind: 'order_id', value: 'forged' }
      m.attempts = 99
      m.retryCount = -1
      m.status = 200
      m.errorType = undefined
    })
    const rewritten = (await rejection(lost())) as {
      outcomeUnknown: boolean
      constructor: unknown
      reconciliation: unknown
    }
    expect(rewritten.constructor).toBe(plain.constructor)
    expect(rewritten.outcomeUnknown).toBe(plain.outcomeUnknown)
    expect(rewritten.reconciliation).toMatchObject({ key: 'order_id', value: 'o-1' })
  })
})

describe('zero cost when nobody subscribes', () => {
  it('builds no operation message without a subscriber, and one per call with one', async () => {
    const build = vi.mocked(telemetry.operationMessage)
    build.mockClear()
    const ok = await twice(faults.json(200, { result: 'SUCCESS' }))
    for (const name of Object.values(PAYWIRE_CHANNELS)) {
      const tracing = ['operation', 'attempt', 'callback', 'reconcile'].some((kind) => name.endsWith(kind))
      expect((tracing ? diagnostics.tracingChannel(name) : diagnostics.channel(name)).hasSubscribers, name).toBe(false)
    }
    await ok()
    await ok()
    expect(build).not.toHaveBeenCalled()
    subscribeAll(() => {})
    await ok()
    expect(build).toHaveBeenCalledTimes(1)
  })
})

describe('PAYWIRE_LOG odd values', () => {
  it('case and surrounding spaces are ignored; an unknown value warns once and logs nothing', () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {})
    for (const value of ['DEBUG', ' debug', 'debug\n', 'Debug'])
      expect(resolveEnvLogger(value)?.debug).toBe(console.debug)
    for (const value of ['', '   ', 'off', 'OFF']) expect(resolveEnvLogger(value)).toBeUndefined()
    expect(warn).not.toHaveBeenCalled()
    for (const value of ['verbose', 'debug,info', '1']) expect(resolveEnvLogger(value)).toBeUndefined()
    expect(warn).toHaveBeenCalledTimes(3)
    expect(String(warn.mock.calls[0]?.[0])).toContain('PAYWIRE_LOG')
  })
})

describe('log lines and a query', () => {
  it("a lookup's query (an account number) is not written to a log line; hooks still get the whole URL", async () => {
    const s = await startFaultServer(faults.json(200, { accountName: 'Zelda Quixote' }))
    cleanups.push(() => s.close())
    const lines: unknown[][] = []
    const urls: string[] = []
    const logger = { debug: (...args: unknown[]) => lines.push(args), warn: (...args: unknown[]) => lines.push(args) }
    const client = makeClient({ logger, hooks: { onRequest: (e) => urls.push(e.url) } })
    cleanups.push(() => client.close())
    const url = `${s.url}/api/lookup/name-enquiry?accountNumber=0087654321&bankCode=SLCB`
    await client.send({ ...post(url), method: 'GET', body: undefined }, jsonHandler)
    const text = JSON.stringify(lines)
    expect(text).toContain('/api/lookup/name-enquiry')
    expect(text).not.toContain('0087654321')
    expect(urls).toEqual([url])
  })
})

describe('where a message says the request went', () => {
  it('each message names its own host and port, over more origins than the client remembers, default ports too', () => {
    const message = (url: string) =>
      telemetry.operationMessage({ operation: 'x', method: 'POST', url, reconciliation: undefined } as never, 'svc')
    for (const round of [1, 2]) {
      for (let i = 0; i < 100; i++) {
        const m = message(`https://h${i}.example:${8000 + i}/p/${round}?q=${i}`)
        expect([m.serverAddress, m.serverPort]).toEqual([`h${i}.example`, 8000 + i])
      }
    }
    expect([message('https://a.example/x').serverPort, message('http://a.example/x').serverPort]).toEqual([443, 80])
    // The same host on another scheme or port is another origin, never the remembered one.
    expect(message('https://h1.example:9999/x').serverPort).toBe(9999)
    expect([message('not a url').serverAddress, message('not a url').serverPort]).toEqual(['', 0])
  })
})
