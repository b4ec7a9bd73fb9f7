/**
 * The deadline list behind every attempt's time limit: one timer for all attempts, an entry that is
 * also undici's abort signal, unlinked the moment its attempt ends.
 */

import { faults, startFaultServer } from '@paywire/core/testing'
import { afterEach, describe, expect, it, onTestFinished, vi } from 'vitest'
import { TimeoutError } from '../src/index.js'
import { AttemptSignal, DeadlineList } from '../src/transport/deadlines.js'
import { get, jsonHandler, makeClient } from './helpers.js'

/** A list on a clock the test moves; its timer fires for real, so the test waits on `aborted`. */
function listOnTestTime() {
  let now = 1_000
  const list = new DeadlineList(() => now)
  return {
    list,
    advance(ms: number) {
      now += ms
    },
  }
}

async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 1))
}

describe('AttemptSignal: the abort signal undici listens to', () => {
  it('calls its listener once, with the first cause; a removed listener is not called', () => {
    const signal = new AttemptSignal(0)
    let calls = 0
    signal.once('abort', () => calls++)
    signal.abort('user')
    signal.abort('timeout')
    expect(calls).toBe(1)
    expect(signal).toMatchObject({ aborted: true, abortedBy: 'user' })
    const other = new AttemptSignal(0)
    const listener = () => calls++
    other.on('abort', listener)
    other.removeListener('abort', listener)
    other.abort('timeout')
    expect(calls).toBe(1)
  })
})

describe('DeadlineList', () => {
  it('aborts an attempt once its deadline has passed, not before', async () => {
    const { list, advance } = listOnTestTime()
    const signal = list.start(50)
    advance(49)
    await new Promise((resolve) => setTimeout(resolve, 60)) // the timer fires; the clock says 1 ms left
    expect(signal.aborted).toBe(false)
    advance(1)
    await until(() => signal.aborted)
    expect(signal.abortedBy).toBe('timeout')
    expect(list.pending).toBe(0)
  })

  it('a finished attempt leaves the list at once, so nothing outlives its attempt', () => {
    const { list } = listOnTestTime()
    const signals = Array.from({ length: 1000 }, (_, i) => list.start(i % 3 === 0 ? 100 : 30_000))
    expect(list.pending).toBe(1000)
    for (const signal of signals.filter((_, i) => i % 2 === 0)) list.finish(signal)
    expect(list.pending).toBe(500)
    for (const signal of signals) list.finish(signal)
    expect(list.pending).toBe(0)
  })

  it('with several timeouts, each attempt expires on its own deadline, earliest first', async () => {
    const { list, advance } = listOnTestTime()
    const long = list.start(300)
    const short = list.start(100)
    const middle = list.start(200)
    advance(150)
    await until(() => short.aborted)
    expect([long.aborted, middle.aborted]).toEqual([false, false])
    advance(100)
    await until(() => middle.aborted)
    expect(long.aborted).toBe(false)
    advance(100)
    await until(() => long.aborted)
    expect(list.pending).toBe(0)
  })

  it('an attempt finished before its deadline is never aborted', async () => {
    const { list, advance } = listOnTestTime()
    const done = list.start(10)
    const other = list.start(10)
    list.finish(done)
    advance(20)
    await until(() => other.aborted)
    expect(done.aborted).toBe(false)
  })
})

describe('the attempt time limit on the real clock', () => {
  it('a 100 ms attempt against a server that never answers ends after 100 ms and within 100 + 40 ms', async () => {
    const server = await startFaultServer(faults.neverAnswer())
    onTestFinished(server.close)
    const client = makeClient({ timeout: 100, maxRetries: 0 })
    onTestFinished(() => client.close())
    const url = server.url
    // Warm the connection so the measured attempt is the time limit alone.
    await client.send(get(url), jsonHandler).catch(() => undefined)
    const started = performance.now()
    const error = await client.send(get(url), jsonHandler).catch((e: unknown) => e)
    const elapsed = performance.now() - started
    expect(error).toBeInstanceOf(TimeoutError)
    expect(elapsed).toBeGreaterThanOrEqual(99)
    expect(elapsed).toBeLessThan(140)
  })
})

describe('timers off Node', () => {
  afterEach(() => {
    vi.unstubAllGlobals()
  })

  it('works where setTimeout returns a plain number (the Workers runtime): the deadline still fires', async () => {
    const realSetTimeout = globalThis.setTimeout
    vi.stubGlobal('setTimeout', (fn: () => void, ms: number) => Number(realSetTimeout(fn, ms)))
    const list = new DeadlineList()
    const signal = list.start(5)
    const fired = new Promise<void>((resolve) => signal.on('abort', resolve))
    await fired
    expect(signal.abortedBy).toBe('timeout')
    expect(list.pending).toBe(0)
  })
})
