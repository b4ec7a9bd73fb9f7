/**
 * Load (issue 8): ≥ 10 000 calls at concurrency 256 against each simulator, through the real
 * transport: zero unexpected errors, sockets bounded by the concurrency and all closed after
 * `client.close()`, heap back near its start after GC.
 */

import { BillPaymentSimulator } from '@paywire/bill-payment/testing'
import { CardGatewaySimulator } from '@paywire/card-gateway/testing'
import { RemittanceSimulator } from '@paywire/remittance/testing'
import type { RequestHandler } from 'msw'
import { afterAll, describe, expect, it } from 'vitest'
import { type CountingServer, startCountingServer } from './support/counting-server.js'
import { billPayment, cardGateway, remittance, SECRETS } from './support/packages.js'
import { recordResults } from './support/results.js'

const CALLS = 10_000
const CONCURRENCY = 256
/** Heap growth allowed between before and after (after GC), in MiB. */
const HEAP_SLACK_MIB = 24

const gc = (globalThis as { gc?: () => void }).gc

async function settledHeap(): Promise<number> {
  for (let i = 0; i < 3; i++) {
    gc?.()
    await new Promise((resolve) => setImmediate(resolve))
  }
  return process.memoryUsage().heapUsed
}

interface Load {
  readonly name: string
  readonly handlers: () => readonly RequestHandler[]
  /** One cheap lookup; returns a client-agnostic call. */
  readonly client: (url: string) => { call: (i: number) => Promise<unknown>; close: () => Promise<void> }
}

const LOADS: readonly Load[] = [
  {
    name: 'card-gateway s2s.getTransStatus',
    handlers: () =>
      new CardGatewaySimulator({
        password: SECRETS.cardPassword,
        merchantKey: SECRETS.cardMerchantKey,
        clientKey: SECRETS.cardClientKey,
      }).handlers,
    client: (url) => {
      const gw = cardGateway(url)
      // A lookup of an unknown transaction: a full signed round trip, answered 101000 by the simulator.
      return {
        call: (i) =>
          gw.s2s.getTransStatus({ trans_id: `load-${i}` }).then(
            () => 'ok',
            (error: unknown) => {
              if ((error as { reason?: string }).reason !== 'transaction_does_not_exist') throw error
              return 'not-found'
            },
          ),
        close: () => gw.close(),
      }
    },
  },
  {
    name: 'remittance lookup.banks',
    handlers: () => new RemittanceSimulator({ apiKey: SECRETS.remittanceApiKey }).handlers,
    client: (url) => {
      const client = remittance(url)
      return { call: () => client.lookup.banks(), close: () => client.close() }
    },
  },
  {
    name: 'bill-payment catalog.list',
    handlers: () =>
      new BillPaymentSimulator({ clientId: SECRETS.billClientId, clientSecret: SECRETS.billClientSecret }).handlers,
    client: (url) => {
      const client = billPayment(url)
      return { call: () => client.catalog.list(), close: () => client.close() }
    },
  },
]

const figures: Record<string, unknown> = {}
afterAll(() =>
  recordResults('load', { calls: CALLS, concurrency: CONCURRENCY, gcExposed: gc !== undefined, runs: figures }),
)

describe(`load: ${CALLS} calls at concurrency ${CONCURRENCY} per simulator`, () => {
  it.each(LOADS.map((load) => [load.name, load] as const))(
    '%s: no unexpected error, sockets bounded and closed, heap back near its start',
    async (_name, load) => {
      const server: CountingServer = await startCountingServer(load.handlers())
      const client = load.client(server.url)
      try {
        // Warm up (JIT, pool), then measure from a settled heap.
        await Promise.all(Array.from({ length: CONCURRENCY }, (_, i) => client.call(i)))
        const heapBefore = await settledHeap()
        const unexpected: unknown[] = []
        let next = 0
        let done = 0
        const started = performance.now()
        const worker = async () => {
          while (next < CALLS) {
            const i = next++
            try {
              await client.call(i)
              done += 1
            } catch (error) {
              unexpected.push(error)
            }
          }
        }
        await Promise.all(Array.from({ length: CONCURRENCY }, worker))
        const durationMs = performance.now() - started
        const peakOpen = server.peakOpen()
        await client.close()
        await server.drained(5_000)
        const heapAfter = await settledHeap()
        const growthMiB = (heapAfter - heapBefore) / 1024 / 1024

        figures[load.name] = {
          calls: CALLS,
          concurrency: CONCURRENCY,
          durationMs: Math.round(durationMs),
          callsPerSecond: Math.round(CALLS / (durationMs / 1000)),
          unexpectedErrors: unexpected.length,
          connectionsOpened: server.connections(),
          distinctClientPorts: server.clientPorts(),
          peakOpenConnections: peakOpen,
          openAfterClose: server.open(),
          heapBeforeMiB: Math.round((heapBefore / 1024 / 1024) * 10) / 10,
          heapAfterMiB: Math.round((heapAfter / 1024 / 1024) * 10) / 10,
          heapGrowthMiB: Math.round(growthMiB * 10) / 10,
        }
        expect(unexpected.slice(0, 3)).toEqual([])
        expect(done).toBe(CALLS)
        // Bounded: the SDK's Agent has no per-origin cap, and undici opens a new socket when a call
        // starts before the previous socket is back in the pool, so the peak exceeds the concurrency
        // somewhat (measured ~1.4x); it must stay within 2x, and sockets must be reused (no churn).
        expect(peakOpen).toBeLessThanOrEqual(2 * CONCURRENCY)
        expect(server.connections()).toBeLessThanOrEqual(4 * CONCURRENCY)
        expect(CALLS / server.connections()).toBeGreaterThan(8)
        // No leak: every socket closed once the client is closed.
        expect(server.open()).toBe(0)
        expect(growthMiB).toBeLessThan(HEAP_SLACK_MIB)
        // The duration (~10-15 s alone on 2 cores) is a figure for results.json, not a pass mark:
        // speed is the bench's to judge (paired ratios), and a busy machine must not fail this test.
      } finally {
        await server.close()
      }
    },
    // A hang guard, not a speed mark: ~10-15 s alone, several times that on a machine shared with
    // other test runs; every call carries its own deadline, so a real hang still ends here.
    240_000,
  )
})
