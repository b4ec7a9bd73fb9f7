/**
 * The `logger` option with real pino (object first, then message) and with console (message first),
 * and `PAYWIRE_LOG`: a console logger at a level when no `logger` is given.
 */
import { Writable } from 'node:stream'
import { createTestClock, faults, startFaultServer } from '@paywire/core/testing'
import pino from 'pino'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { resolveEnvLogger } from '../src/telemetry/hooks.js'
import { get, jsonHandler, makeClient } from './helpers.js'

const SECRET = 's3cr3t-credential-value'

/** A real pino logger writing its JSON lines into `lines`. */
function pinoCapture(level = 'debug') {
  const lines: Record<string, unknown>[] = []
  const stream = new Writable({
    write(chunk, _enc, done) {
      for (const line of String(chunk).split('\n')) if (line) lines.push(JSON.parse(line))
      done()
    },
  })
  return { logger: pino({ level }, stream), lines }
}

async function retriedThenRefused() {
  const s = await startFaultServer((req, res, n) =>
    (n === 1 ? faults.json(503, {}) : faults.json(401, { title: 'no' }))(req, res, n),
  )
  return s
}

afterEach(() => {
  vi.restoreAllMocks()
})

describe('logger option', () => {
  it('pino gets the event object first and the message second, so its JSON keeps the data', async () => {
    const s = await retriedThenRefused()
    const { logger, lines } = pinoCapture()
    const client = makeClient({ logger, random: () => 0, clock: createTestClock() })
    await client
      .send(get(s.url, { credentialHeaders: ['x-code'] }), jsonHandler, { headers: { 'x-code': SECRET } })
      .catch(() => {})
    await client.close()
    await s.close()
    const request = lines.find((l) => typeof l.msg === 'string' && (l.msg as string).includes('attempt 1'))
    expect(request).toMatchObject({ level: 20, operation: 'test.get', method: 'GET', attempt: 1 })
    expect((request?.headers as Record<string, string> | undefined)?.['x-code']).toBe('[redacted]')
    const retry = lines.find((l) => typeof l.msg === 'string' && (l.msg as string).includes('retry in'))
    expect(retry).toMatchObject({ level: 40, operation: 'test.get', attempt: 1, delayMs: expect.any(Number) })
    const failed = lines.find((l) => typeof l.msg === 'string' && (l.msg as string).includes('failed'))
    expect(failed).toMatchObject({ level: 40, operation: 'test.get' })
    expect(JSON.stringify(lines)).not.toContain(SECRET)
  })

  it('console (and any logger that is not pino-style) gets the message first, then the event', async () => {
    const s = await retriedThenRefused()
    const seen: unknown[][] = []
    const logger = {
      debug: (...a: unknown[]) => seen.push(['debug', ...a]),
      warn: (...a: unknown[]) => seen.push(['warn', ...a]),
    }
    const client = makeClient({ logger, random: () => 0, clock: createTestClock() })
    await client.send(get(s.url), jsonHandler).catch(() => {})
    await client.close()
    await s.close()
    expect(seen.length).toBeGreaterThanOrEqual(4)
    for (const [, message, data] of seen) {
      expect(typeof message).toBe('string')
      expect(data).toMatchObject({ operation: 'test.get' })
    }
  })

  it('a retry delay in a log line is a whole number of ms', async () => {
    const s = await retriedThenRefused()
    const { logger, lines } = pinoCapture()
    const client = makeClient({ logger, random: () => 0.123456789, clock: createTestClock() })
    await client.send(get(s.url), jsonHandler).catch(() => {})
    await client.close()
    await s.close()
    const retry = lines.find((l) => typeof l.msg === 'string' && (l.msg as string).includes('retry in'))
    expect(retry?.msg).toMatch(/retry in \d+ ms/)
  })
})

describe('PAYWIRE_LOG', () => {
  it.each([
    ['debug', ['debug', 'warn']],
    ['info', ['warn']],
    ['warn', ['warn']],
  ])('%s logs to the console at that level and above', (value, levels) => {
    const debug = vi.spyOn(console, 'debug').mockImplementation(() => {})
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {})
    const logger = resolveEnvLogger(value)
    logger?.debug('d', {})
    logger?.warn('w', {})
    expect(debug.mock.calls.length > 0).toBe(levels.includes('debug'))
    expect(warn.mock.calls.length > 0).toBe(levels.includes('warn'))
  })

  it('unset, empty or off logs nothing', () => {
    expect(resolveEnvLogger(undefined)).toBeUndefined()
    expect(resolveEnvLogger('')).toBeUndefined()
    expect(resolveEnvLogger('off')).toBeUndefined()
  })

  it('an invalid value warns once, naming the variable and the allowed values, and logs nothing', () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {})
    expect(resolveEnvLogger('verbose')).toBeUndefined()
    expect(resolveEnvLogger('verbose')).toBeUndefined()
    expect(warn).toHaveBeenCalledTimes(1)
    expect(String(warn.mock.calls[0]?.[0])).toMatch(/PAYWIRE_LOG.*"verbose".*debug, info, warn, off/)
  })

  it('a client without a logger option logs to the console when PAYWIRE_LOG is set', async () => {
    vi.stubEnv('PAYWIRE_LOG', 'debug')
    const debug = vi.spyOn(console, 'debug').mockImplementation(() => {})
    const s = await startFaultServer(faults.json(200, { ok: true }))
    const client = makeClient()
    await client.send(get(s.url), jsonHandler)
    await client.close()
    await s.close()
    vi.unstubAllEnvs()
    expect(debug.mock.calls.some(([m]) => String(m).includes('test.get GET'))).toBe(true)
  })

  it('a logger option wins over PAYWIRE_LOG', async () => {
    vi.stubEnv('PAYWIRE_LOG', 'debug')
    const debug = vi.spyOn(console, 'debug').mockImplementation(() => {})
    const seen: unknown[] = []
    const s = await startFaultServer(faults.json(200, { ok: true }))
    const client = makeClient({ logger: { debug: (m) => seen.push(m), warn: (m) => seen.push(m) } })
    await client.send(get(s.url), jsonHandler)
    await client.close()
    await s.close()
    vi.unstubAllEnvs()
    expect(seen.length).toBe(2)
    expect(debug).not.toHaveBeenCalled()
  })
})

describe('durations in messages', () => {
  it('a time-out message rounds its ms', async () => {
    const { TimeoutError } = await import('@paywire/core')
    const error = new TimeoutError({
      operation: 'test.get',
      method: 'GET',
      url: 'http://127.0.0.1:1/',
      attempts: 1,
      phase: 'attempt',
      timeoutMs: 95.56188800000018,
      requestSent: true,
      mayHaveActed: false,
    } as unknown as ConstructorParameters<typeof TimeoutError>[0])
    expect(error.message).toContain('timed out after 96 ms')
    expect(error.message).not.toContain('95.56')
  })
})
