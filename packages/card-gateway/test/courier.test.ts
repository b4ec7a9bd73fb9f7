/**
 * The callback courier against a real loopback merchant (node:http) that answers 200, 404, 500 or
 * hangs: fault rates with a seeded random, reordering, the retry schedule, `retries: false`, and the
 * URL block of rule Platform 23 (five time-outs within five minutes block it for 15), on a test clock.
 * The one real wait is a hanging merchant's time-out (timeoutMs 50): a network wait, not a duration
 * of the clock.
 */

import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { createTestClock, refusedUrl } from '@paywire/core/testing'
import { describe, expect, it, onTestFinished } from 'vitest'
import { CallbackCourier, type CallbackCourierOptions } from '../src/testing/index.js'
import { form, paidPayment, setup } from './helpers.js'

type Answer = 200 | 404 | 500 | 'hang'

/** A merchant on loopback: records each callback body, answers with `answer`. */
async function startMerchant() {
  const received: string[] = []
  const contentTypes: (string | undefined)[] = []
  const waiting: (() => void)[] = []
  const state = { answer: 200 as Answer }
  const server = createServer((req, res) => {
    let body = ''
    req.setEncoding('utf8')
    req.on('data', (chunk: string) => {
      body += chunk
    })
    req.on('end', () => {
      received.push(body)
      contentTypes.push(req.headers['content-type'])
      for (const resolve of waiting.splice(0)) resolve()
      const answer = state.answer
      if (answer === 'hang') return // never answers: the courier times out
      res.writeHead(answer, { 'content-type': 'text/plain' })
      res.end(answer === 200 ? 'OK' : 'error')
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  onTestFinished(async () => {
    server.closeAllConnections()
    await new Promise<void>((resolve) => server.close(() => resolve()))
  })
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}/callback`,
    received,
    contentTypes,
    state,
    /** Resolves at the next request the merchant receives. */
    next: () => new Promise<void>((resolve) => waiting.push(resolve)),
  }
}

/** A seeded generator (mulberry32): the same seed gives the same faults. */
function seeded(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** Scripted rolls (three per `send`: drop, twice, out-of-order), then 0.99 (no fault below 0.99). */
function rolls(...values: number[]): () => number {
  return () => values.shift() ?? 0.99
}

const NO_FAULT = [0.99, 0.99, 0.99]
const HOLD = [0.99, 0.99, 0]

function courierFor(options: CallbackCourierOptions): CallbackCourier {
  const courier = new CallbackCourier(options)
  onTestFinished(() => courier.stop())
  return courier
}

/** Five hung callbacks now: five time-outs at the clock's present. */
async function timeOuts(courier: CallbackCourier, count: number, prefix = 't'): Promise<void> {
  for (let i = 0; i < count; i += 1) courier.send(`n=${prefix}${i}`, `${prefix}${i}`)
  await courier.tick()
}

describe('CallbackCourier: delivery', () => {
  it('POSTs the signed body form-encoded, as the simulator produced it; a 2xx delivers it', async () => {
    const merchant = await startMerchant()
    const clock = createTestClock()
    const courier = courierFor({ url: merchant.url, clock })
    const ctx = await setup({ sim: { clock, onCallback: (body, p) => courier.send(body, p.order_id) } })
    await paidPayment(ctx)
    await courier.tick()
    expect(merchant.received).toEqual(ctx.simulator.callbacks)
    expect(merchant.contentTypes).toEqual(['application/x-www-form-urlencoded'])
    expect(courier.stats).toMatchObject({ queued: 1, attempts: 1, sent: 1, delivered: 1, lost: 0 })
    expect(courier.pending).toBe(0)
  })

  it('start() runs it on timers with the system clock; stop() ends them', async () => {
    const merchant = await startMerchant()
    const courier = courierFor({ url: merchant.url })
    courier.start()
    const arrived = merchant.next()
    courier.send('n=1', 'o1')
    await arrived
    await courier.tick()
    courier.stop()
    expect(merchant.received).toEqual(['n=1'])
    expect(courier.stats.delivered).toBe(1)
  })

  it('refuses options out of range', () => {
    expect(() => new CallbackCourier({ url: 'http://127.0.0.1:1', drop: 1.5 })).toThrow(RangeError)
    expect(() => new CallbackCourier({ url: 'http://127.0.0.1:1', twice: -0.1 })).toThrow(RangeError)
    expect(() => new CallbackCourier({ url: 'http://127.0.0.1:1', outOfOrder: Number.NaN })).toThrow(RangeError)
    expect(() => new CallbackCourier({ url: 'http://127.0.0.1:1', retries: [60_000, -1] })).toThrow(RangeError)
    expect(() => new CallbackCourier({ url: 'http://127.0.0.1:1', timeoutMs: 0 })).toThrow(RangeError)
    expect(() => new CallbackCourier({ url: '' })).toThrow(TypeError)
  })
})

describe('CallbackCourier: drop, twice and out-of-order rates', () => {
  it('over 1000 callbacks with a fixed seed, each rate is within tolerance; every callback sent arrives', async () => {
    const merchant = await startMerchant()
    const clock = createTestClock()
    const rates = { drop: 0.1, twice: 0.2, outOfOrder: 0.15 }
    const courier = courierFor({ url: merchant.url, clock, random: seeded(20260101), ...rates })
    for (let i = 0; i < 1000; i += 1) courier.send(`n=${i}`, `order-${i}`)
    await courier.tick()
    clock.advance(60_000) // each held callback's hold ends (no later callback of its order comes)
    await courier.tick()
    const s = courier.stats
    const sent = s.queued - s.dropped
    expect(s.queued).toBe(1000)
    expect(Math.abs(s.dropped / 1000 - rates.drop)).toBeLessThan(0.03)
    expect(Math.abs(s.duplicated / sent - rates.twice)).toBeLessThan(0.04)
    expect(Math.abs(s.reordered / sent - rates.outOfOrder)).toBeLessThan(0.04)
    expect(s.dropped).toBeGreaterThan(0)
    expect(s.delivered).toBe(sent + s.duplicated)
    expect(merchant.received).toHaveLength(sent + s.duplicated)
    expect(new Set(merchant.received).size).toBe(sent)
    expect(s).toMatchObject({ lost: 0, timeouts: 0 })
    expect(courier.pending).toBe(0)
    // The same seed makes the same faults.
    const again = new CallbackCourier({ url: merchant.url, clock, random: seeded(20260101), ...rates })
    for (let i = 0; i < 1000; i += 1) again.send(`n=${i}`, `order-${i}`)
    expect([again.stats.dropped, again.stats.duplicated, again.stats.reordered]).toEqual([
      s.dropped,
      s.duplicated,
      s.reordered,
    ])
  })

  it('drop: 1 sends nothing; twice: 1 sends each callback twice', async () => {
    const merchant = await startMerchant()
    const clock = createTestClock()
    const dropping = courierFor({ url: merchant.url, clock, drop: 1 })
    dropping.send('n=1', 'o1')
    await dropping.tick()
    expect(merchant.received).toEqual([])
    expect(dropping.stats).toMatchObject({ queued: 1, dropped: 1, attempts: 0 })
    expect(dropping.pending).toBe(0)
    const doubling = courierFor({ url: merchant.url, clock, twice: 1 })
    doubling.send('n=2', 'o2')
    await doubling.tick()
    expect(merchant.received).toEqual(['n=2', 'n=2'])
    expect(doubling.stats).toMatchObject({ queued: 1, duplicated: 1, delivered: 2 })
  })

  it("out of order: the simulator's capture callback reaches the merchant before the sale callback it held back", async () => {
    const merchant = await startMerchant()
    const clock = createTestClock()
    const courier = courierFor({ url: merchant.url, clock, outOfOrder: 0.5, random: rolls(...HOLD, ...NO_FAULT) })
    const ctx = await setup({ sim: { clock, onCallback: (body, p) => courier.send(body, p.order_id) } })
    const p = await paidPayment(ctx)
    await courier.tick()
    expect(merchant.received).toEqual([]) // the sale callback is held back
    await ctx.gw.s2s.capture({ trans_id: p.trans_id })
    await courier.tick()
    expect(merchant.received.map((body) => form(body)['type'])).toEqual(['capture', 'sale'])
    expect(merchant.received).toEqual([ctx.simulator.callbacks[1], ctx.simulator.callbacks[0]])
    expect(courier.stats).toMatchObject({ reordered: 1, delivered: 2 })
  })

  it('a held callback waits for its own order only, and goes alone after holdMs', async () => {
    const merchant = await startMerchant()
    const clock = createTestClock()
    const courier = courierFor({ url: merchant.url, clock, outOfOrder: 0.5, holdMs: 30_000, random: rolls(...HOLD) })
    courier.send('n=a1', 'A')
    courier.send('n=b1', 'B') // another order: does not release A's
    await courier.tick()
    expect(merchant.received).toEqual(['n=b1'])
    clock.advance(29_999)
    await courier.tick()
    expect(merchant.received).toEqual(['n=b1'])
    clock.advance(1)
    await courier.tick()
    expect(merchant.received).toEqual(['n=b1', 'n=a1'])
  })
})

describe('CallbackCourier: retries', () => {
  it('a failed callback is retried on the schedule (default 1, 5, 15, 60 minutes after each failure), then lost', async () => {
    const merchant = await startMerchant()
    merchant.state.answer = 500
    const clock = createTestClock()
    const courier = courierFor({ url: merchant.url, clock })
    courier.send('n=1', 'o1')
    await courier.tick()
    expect(merchant.received).toHaveLength(1)
    let expected = 1
    for (const wait of [60_000, 300_000, 900_000, 3_600_000]) {
      clock.advance(wait - 1)
      await courier.tick()
      expect(merchant.received).toHaveLength(expected)
      clock.advance(1)
      await courier.tick()
      expected += 1
      expect(merchant.received).toHaveLength(expected)
    }
    clock.advance(24 * 3_600_000)
    await courier.tick()
    expect(merchant.received).toHaveLength(5)
    expect(courier.stats).toMatchObject({ attempts: 5, delivered: 0, lost: 1, timeouts: 0 })
    expect(courier.pending).toBe(0)
  })

  it('a retry that finds the merchant answering delivers it', async () => {
    const merchant = await startMerchant()
    merchant.state.answer = 404
    const clock = createTestClock()
    const courier = courierFor({ url: merchant.url, clock, retries: [1_000] })
    courier.send('n=1', 'o1')
    await courier.tick()
    merchant.state.answer = 200
    clock.advance(1_000)
    await courier.tick()
    expect(merchant.received).toEqual(['n=1', 'n=1'])
    expect(courier.stats).toMatchObject({ attempts: 2, delivered: 1, lost: 0 })
  })

  it('retries: false (rule Platform 25): a failed callback is sent once and lost', async () => {
    const merchant = await startMerchant()
    merchant.state.answer = 500
    const clock = createTestClock()
    const courier = courierFor({ url: merchant.url, clock, retries: false })
    courier.send('n=1', 'o1')
    await courier.tick()
    clock.advance(24 * 3_600_000)
    await courier.tick()
    expect(merchant.received).toEqual(['n=1'])
    expect(courier.stats).toMatchObject({ attempts: 1, lost: 1 })
  })

  it('a refused connection is a failed attempt, retried, and no time-out', async () => {
    const clock = createTestClock()
    const courier = courierFor({ url: await refusedUrl(), clock, retries: [1_000] })
    courier.send('n=1', 'o1')
    await courier.tick()
    clock.advance(1_000)
    await courier.tick()
    expect(courier.stats).toMatchObject({ attempts: 2, timeouts: 0, lost: 1 })
  })
})

describe('CallbackCourier: five time-outs within five minutes block the URL for 15 minutes (rule Platform 23)', () => {
  it('blocks for exactly 15 minutes: nothing is sent while blocked, sent again after', async () => {
    const merchant = await startMerchant()
    merchant.state.answer = 'hang'
    const clock = createTestClock()
    const courier = courierFor({ url: merchant.url, clock, retries: false, timeoutMs: 50 })
    await timeOuts(courier, 5)
    const blockedAt = clock.now()
    expect(courier.stats).toMatchObject({ timeouts: 5, lost: 5 })
    expect(courier.blockedUntil).toBe(blockedAt + 900_000)
    merchant.state.answer = 200
    courier.send('n=during', 'o1')
    await courier.tick()
    clock.advance(900_000 - 1)
    courier.send('n=last-ms', 'o2')
    await courier.tick()
    expect(merchant.received).toHaveLength(5) // the five hung ones only
    expect(courier.stats).toMatchObject({ failedWhileBlocked: 2, lost: 7, sent: 5, attempts: 7 })
    clock.advance(1)
    expect(courier.blockedUntil).toBeUndefined()
    courier.send('n=after', 'o3')
    await courier.tick()
    expect(merchant.received.slice(5)).toEqual(['n=after'])
    expect(courier.stats.delivered).toBe(1)
  })

  it('a callback due while blocked fails at once and is retried per its schedule: delivered after the block', async () => {
    const merchant = await startMerchant()
    merchant.state.answer = 'hang'
    const clock = createTestClock()
    const courier = courierFor({ url: merchant.url, clock, retries: [600_000, 600_000], timeoutMs: 50 })
    await timeOuts(courier, 5)
    merchant.state.answer = 200
    courier.send('n=x', 'x')
    await courier.tick()
    clock.advance(600_000) // 10 minutes: still blocked, the six retries fail without a request
    await courier.tick()
    expect(merchant.received).toHaveLength(5)
    expect(courier.stats.failedWhileBlocked).toBe(7)
    clock.advance(600_000) // 20 minutes: the block ended at 15
    await courier.tick()
    expect(merchant.received).toHaveLength(11)
    expect(courier.stats).toMatchObject({ delivered: 6, lost: 0, timeouts: 5 })
  })

  it('four time-outs do not block', async () => {
    const merchant = await startMerchant()
    merchant.state.answer = 'hang'
    const clock = createTestClock()
    const courier = courierFor({ url: merchant.url, clock, retries: false, timeoutMs: 50 })
    await timeOuts(courier, 4)
    expect(courier.blockedUntil).toBeUndefined()
    merchant.state.answer = 200
    courier.send('n=1', 'o1')
    await courier.tick()
    expect(courier.stats).toMatchObject({ timeouts: 4, delivered: 1, failedWhileBlocked: 0 })
  })

  it('five time-outs spread over more than five minutes do not block; five within any five minutes do', async () => {
    const merchant = await startMerchant()
    merchant.state.answer = 'hang'
    const clock = createTestClock()
    const courier = courierFor({ url: merchant.url, clock, retries: false, timeoutMs: 50 })
    for (const [i, wait] of [0, 75_000, 75_000, 75_000, 75_001].entries()) {
      clock.advance(wait)
      await timeOuts(courier, 1, `s${i}-`)
    }
    expect(courier.stats.timeouts).toBe(5) // first at 0, fifth at 300 001 ms
    expect(courier.blockedUntil).toBeUndefined()
    clock.advance(1_000)
    await timeOuts(courier, 1, 'sixth-') // the last five now span 226 s
    expect(courier.blockedUntil).toBe(clock.now() + 900_000)
  })

  it('five time-outs exactly five minutes apart (first to fifth) block', async () => {
    const merchant = await startMerchant()
    merchant.state.answer = 'hang'
    const clock = createTestClock()
    const courier = courierFor({ url: merchant.url, clock, retries: false, timeoutMs: 50 })
    for (const [i, wait] of [0, 75_000, 75_000, 75_000, 75_000].entries()) {
      clock.advance(wait)
      await timeOuts(courier, 1, `e${i}-`)
    }
    expect(courier.blockedUntil).toBe(clock.now() + 900_000)
  })

  it('4xx and 5xx answers are retried but never count toward the block', async () => {
    const merchant = await startMerchant()
    merchant.state.answer = 500
    const clock = createTestClock()
    const courier = courierFor({ url: merchant.url, clock, retries: [1_000], timeoutMs: 50 })
    await timeOuts(courier, 6, 'f')
    merchant.state.answer = 404
    clock.advance(1_000)
    await courier.tick()
    expect(merchant.received).toHaveLength(12) // each failed twice: sent, then retried
    expect(courier.stats).toMatchObject({ timeouts: 0, lost: 6, failedWhileBlocked: 0 })
    expect(courier.blockedUntil).toBeUndefined()
    // Four time-outs and a 500 within a minute: still only four time-outs, no block.
    merchant.state.answer = 'hang'
    await timeOuts(courier, 4, 'h')
    merchant.state.answer = 500
    await timeOuts(courier, 1, 'five-hundred')
    expect(courier.blockedUntil).toBeUndefined()
    merchant.state.answer = 200
    courier.send('n=ok', 'ok')
    await courier.tick()
    expect(merchant.received.at(-1)).toBe('n=ok')
    expect(courier.stats.failedWhileBlocked).toBe(0)
  })
})
