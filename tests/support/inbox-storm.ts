/**
 * A gateway that delivers callbacks to a merchant's instances the way the platform does, while
 * something keeps breaking them: it POSTs each signed body to one of the live instances, stops at the
 * first 2xx (the platform never delivers an acknowledged callback again) and delivers again after any
 * other answer or a dropped connection. Meanwhile `disrupt` runs every 150–500 ms (a SIGKILL of an
 * instance, a database restart). What it reports is what the promise is judged by: which callbacks
 * were acknowledged, so each of them must end up run.
 */

import { setTimeout as sleep } from 'node:timers/promises'
import { signCallback } from '@paywire/card-gateway/testing'
import { STORM_PASSWORD } from './storm-options.js'

/** A merchant instance listening for callbacks. */
export interface Instance {
  readonly url: string
  /** Kills it with SIGKILL (no shutdown of any kind) and resolves once it is gone. */
  kill(): Promise<void>
}

export interface StormOptions {
  /** One signed callback body per payment. */
  readonly bodies: readonly string[]
  /** The instances at the start; `disrupt` may replace them (through `instances`). */
  readonly instances: Instance[]
  /** Called every 150–500 ms while deliveries go on; answers what it did (for the figures). */
  disrupt(instances: Instance[]): Promise<string>
  /** Deliveries in flight at once. */
  readonly inFlight: number
  /** The disruption's pause range, in ms (default 150–500). */
  readonly everyMs?: readonly [number, number]
  /**
   * Spreads the first deliveries over this long (callback `i` is not sent before `i / n` of it), as
   * a gateway's traffic comes over time: so the disruptions fall all along the run. Default 0.
   */
  readonly spreadOverMs?: number
  /**
   * The least number of disruptions: the storm goes on after the last acknowledgement until it
   * reached this many (on a slow machine, restarting an instance takes longer and fewer fit in the
   * deliveries' time). Default 0.
   */
  readonly minDisruptions?: number
}

export interface StormResult {
  /** Indexes of the bodies answered 2xx: each must run. */
  readonly acknowledged: ReadonlySet<number>
  /** How many times `disrupt` ran, by what it answered. */
  readonly disruptions: Readonly<Record<string, number>>
  /** Answers seen, by status (`conn` for a dropped or refused connection). */
  readonly answers: Readonly<Record<string, number>>
  readonly elapsedMs: number
}

/** Delivers every body until each is acknowledged, while `disrupt` runs; resolves when all are. */
export async function deliverUnderStorm(options: StormOptions): Promise<StormResult> {
  const started = performance.now()
  const acknowledged = new Set<number>()
  const answers: Record<string, number> = {}
  const disruptions: Record<string, number> = {}
  const [low, high] = options.everyMs ?? [150, 500]
  let delivering = true
  let count = 0
  const storm = (async () => {
    while (delivering || count < (options.minDisruptions ?? 0)) {
      await sleep(low + Math.random() * (high - low))
      if (!delivering && count >= (options.minDisruptions ?? 0)) break
      const what = await options.disrupt(options.instances)
      disruptions[what] = (disruptions[what] ?? 0) + 1
      count++
    }
  })()
  let next = 0
  const spread = options.spreadOverMs ?? 0
  const worker = async () => {
    for (let i = next++; i < options.bodies.length; i = next++) {
      const notBefore = started + (spread * i) / options.bodies.length
      const wait = notBefore - performance.now()
      if (wait > 0) await sleep(wait)
      for (;;) {
        const live = options.instances
        const target = live[Math.floor(Math.random() * live.length)]
        let status = 'conn'
        if (target !== undefined) {
          try {
            const response = await fetch(target.url, {
              method: 'POST',
              headers: { 'content-type': 'application/x-www-form-urlencoded' },
              body: options.bodies[i],
              signal: AbortSignal.timeout(10_000),
            })
            await response.arrayBuffer()
            status = String(response.status)
          } catch {
            status = 'conn'
          }
        }
        answers[status] = (answers[status] ?? 0) + 1
        if (status.startsWith('2')) {
          acknowledged.add(i)
          break
        }
        await sleep(10 + Math.random() * 40) // the gateway's retry, compressed
      }
    }
  }
  await Promise.all(Array.from({ length: options.inFlight }, worker))
  delivering = false
  await storm
  return { acknowledged, disruptions, answers, elapsedMs: Math.round(performance.now() - started) }
}

/** Resolves once `until()` holds, polling every 50 ms; rejects with `what` after `deadlineMs`. */
export async function eventually(until: () => Promise<boolean>, deadlineMs: number, what: () => string): Promise<void> {
  const deadline = Date.now() + deadlineMs
  while (Date.now() < deadline) {
    if (await until()) return
    await sleep(50)
  }
  throw new Error(`${what()}: still not true after ${deadlineMs} ms`)
}

export { STORM_PASSWORD } from './storm-options.js'

/** The signed Checkout callback of payment `id` (each payment its own order). */
export function stormCallback(id: string): string {
  return signCallback(
    {
      id,
      order_number: `order-${id}`,
      order_amount: '10.00',
      order_currency: 'USD',
      order_description: 'Filters',
      order_status: 'settled',
      type: 'sale',
      status: 'success',
    },
    STORM_PASSWORD,
  )
}

/**
 * Waits until every acknowledged payment ran (its effect is in `ran()`, a count per payment id);
 * answers how many never ran and how many ran more than once.
 */
export async function judgeStorm(
  ids: readonly string[],
  acknowledged: ReadonlySet<number>,
  ran: () => Promise<Map<string, number>>,
): Promise<{ neverRan: number; doubles: number }> {
  let seen = new Map<string, number>()
  const missing = () => [...acknowledged].filter((i) => !seen.has(ids[i] as string)).length
  await eventually(
    async () => {
      seen = await ran()
      return missing() === 0
    },
    60_000,
    () => `${missing()} acknowledged callbacks never ran`,
  )
  return { neverRan: missing(), doubles: [...seen.values()].filter((n) => n > 1).length }
}

/**
 * A supervisor, as in production: every 100 ms, whichever instance is dead (an empty POST no longer
 * answers) is replaced by `start()`. `deaths()` says how many it replaced; `stop()` ends it.
 */
export function supervise(
  instances: Instance[],
  start: () => Promise<Instance>,
): { deaths(): number; stop(): Promise<void> } {
  let deaths = 0
  let running = true
  const loop = (async () => {
    while (running) {
      for (const [i, instance] of instances.entries()) {
        const alive = await fetch(instance.url, { method: 'POST', body: '' }).then(
          () => true,
          () => false,
        )
        if (!alive) {
          deaths++
          instances[i] = await start()
        }
      }
      await sleep(100)
    }
  })()
  return {
    deaths: () => deaths,
    async stop() {
      running = false
      await loop
    },
  }
}
