/**
 * A timeout's message says the phase, the attempt and how long the whole call had taken, rounded:
 * `<operation>: timed out after <ms> ms <phase words> (attempt N, <ms> since the call began)`. A
 * loopback server that never answers stalls the call; the figures come from the injected clock
 * alone, moved by the onRequest hook before each attempt leaves (so before its limit can fire) and
 * by the backoff, so they are exact whatever the machine's load.
 */

import { TimeoutError } from '@paywire/core'
import { safe } from '@paywire/core/engine'
import { createTestClock, faults, startFaultServer } from '@paywire/core/testing'
import { describe, expect, it, onTestFinished } from 'vitest'
import { get, jsonHandler, makeClient, TRANSPORTS } from './helpers.js'

describe.each(TRANSPORTS)('on %s', (_name, transport) => {
  it('attempt 2 timed out waiting for the headers: the message gives the attempt and the whole call, rounded', async () => {
    const clock = createTestClock()
    // Each request arrives and is never answered; 40.4 ms pass on the clock as each attempt leaves.
    const s = await startFaultServer(faults.neverAnswer())
    onTestFinished(s.close)
    const hooks = { onRequest: () => clock.advance(40.4) }
    const c = makeClient({ clock, random: () => 0.5, timeout: 40, maxRetries: 1, hooks, ...transport() })
    onTestFinished(() => c.close())
    const error = (await c.send(get(s.url), jsonHandler).catch((e: unknown) => e)) as TimeoutError
    expect(error).toBeInstanceOf(TimeoutError)
    const [backoff] = clock.sleeps
    const elapsed = 40.4 + (backoff as number) + 40.4
    expect(error.elapsedMs).toBeCloseTo(elapsed, 2)
    expect(error.message.split(' The ')[0]).toBe(
      `test.get: timed out after 40 ms waiting for the response headers (attempt 2, ${Math.round(elapsed)} ms since the call began).`,
    )
  })

  it('attempt 1, under 10 ms: one decimal', async () => {
    const clock = createTestClock()
    // The first request is answered, which opens the connection the timed call then reuses: its 5 ms
    // of real time go to waiting for the headers, not to a connect on a loaded machine.
    const answerOnce = faults.json(200, {})
    const s = await startFaultServer((req, res, n) => (n === 1 ? answerOnce : faults.neverAnswer())(req, res, n))
    onTestFinished(s.close)
    const hooks = { onRequest: () => clock.advance(5.27) }
    const c = makeClient({ clock, timeout: 5, maxRetries: 0, hooks, ...transport() })
    onTestFinished(() => c.close())
    await c.send(get(s.url), jsonHandler, { timeout: 10_000 })
    const error = (await c.send(get(s.url), jsonHandler).catch((e: unknown) => e)) as TimeoutError
    expect(error.message).toContain(
      'test.get: timed out after 5 ms waiting for the response headers (attempt 1, 5.3 ms since the call began).',
    )
    expect(error.elapsedMs).toBeCloseTo(5.27, 2)
  })
})

describe.each(TRANSPORTS)('on %s, a clock that misbehaves', (_name, transport) => {
  it('steps backwards between attempts: elapsedMs never goes below the limit that fired, nor below 0', async () => {
    const clock = createTestClock()
    const s = await startFaultServer(faults.neverAnswer())
    onTestFinished(s.close)
    // Attempt 1 leaves 30 ms after the call began; before attempt 2 leaves the clock steps back 500 ms.
    let attempts = 0
    const hooks = { onRequest: () => clock.advance(++attempts === 1 ? 30 : -500) }
    const c = makeClient({ clock, random: () => 0.5, timeout: 20, maxRetries: 1, hooks, ...transport() })
    onTestFinished(() => c.close())
    const error = (await c.send(get(s.url), jsonHandler).catch((e: unknown) => e)) as TimeoutError
    expect(error).toBeInstanceOf(TimeoutError)
    expect(error.elapsedMs).toBe(20)
    expect(error.message.split(' The ')[0]).toBe(
      'test.get: timed out after 20 ms waiting for the response headers (attempt 2, 20 ms since the call began).',
    )
  })

  it('does not move at all: the call has still run at least the limit that fired', async () => {
    const clock = createTestClock()
    const s = await startFaultServer(faults.neverAnswer())
    onTestFinished(s.close)
    const c = makeClient({ clock, timeout: 20, maxRetries: 0, ...transport() })
    onTestFinished(() => c.close())
    const error = (await c.send(get(s.url), jsonHandler).catch((e: unknown) => e)) as TimeoutError
    expect(error.elapsedMs).toBe(20)
    expect(error.message).toContain('(attempt 1, 20 ms since the call began)')
  })
})

describe.each(TRANSPORTS)('on %s, the total deadline fires inside a later attempt', (_name, transport) => {
  it('the message gives the total limit, not the remainder the last attempt had', async () => {
    const clock = createTestClock()
    const s = await startFaultServer(faults.neverAnswer())
    onTestFinished(s.close)
    // Attempt 1 leaves at 1 ms and its 40 ms limit fires; attempt 2 leaves at about 52 ms, with
    // under 20 ms of the 70 ms total left: the total deadline is what ends the call.
    let attempts = 0
    const hooks = { onRequest: () => clock.advance(++attempts === 1 ? 1 : 50) }
    const backoff = { baseDelayMs: 1, maxDelayMs: 1 }
    const c = makeClient({ clock, timeout: 40, totalTimeout: 70, maxRetries: 3, backoff, hooks, ...transport() })
    onTestFinished(() => c.close())
    const error = (await c.send(get(s.url), jsonHandler).catch((e: unknown) => e)) as TimeoutError
    expect(error).toMatchObject({ name: 'TimeoutError', phase: 'total', timeoutMs: 70, attempts: 2 })
    expect(error.message.split(' The ')[0]).toBe(
      'test.get: timed out after 70 ms the whole call (total deadline across retries) (attempt 2, 70 ms since the call began).',
    )
  })
})

describe('TimeoutError built by hand', () => {
  it('an elapsedMs below the limit, negative or not a number is read as the limit', () => {
    const base = {
      operation: 'x.op',
      method: 'GET',
      url: 'https://h.example/',
      retry: safe,
      attempts: 1,
      phase: 'headers' as const,
      timeoutMs: 50,
      requestSent: true,
      mayHaveActed: true,
    }
    for (const elapsedMs of [-1, 10, Number.NaN, Number.POSITIVE_INFINITY * -1]) {
      const error = new TimeoutError({ ...base, elapsedMs })
      expect(error.elapsedMs).toBe(50)
      expect(error.message).toContain('(attempt 1, 50 ms since the call began)')
    }
    expect(new TimeoutError({ ...base, elapsedMs: 75.4 }).elapsedMs).toBe(75.4)
  })
})
