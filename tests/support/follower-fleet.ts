/**
 * The payment follower's fleet test: payments on the card simulator whose callbacks fail the ways the
 * platform's do (dropped, sent twice, out of order, the URL blocked for 15 minutes after five
 * time-outs), a merchant of three instances, each with its callback handler and follower on a shared
 * store, and one instance killed midway (from then on none of its store calls, lookups or
 * `onUpdate`s complete, as when its process is gone). What it reports is what the follower is judged
 * by: every payment's final state delivered, and once; no final the gateway does not hold; no update
 * moving backward; lookups within the budget.
 */

import { once } from 'node:events'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { setTimeout as sleep } from 'node:timers/promises'
import { CardGateway, type CardPaymentUpdate } from '@paywire/card-gateway'
import {
  CallbackCourier,
  type StartedCardGatewaySimulator,
  startCardGatewaySimulator,
  TEST_CARDS,
} from '@paywire/card-gateway/testing'
import type { ClaimStore, Clock, FollowAttention } from '@paywire/core'
import { http } from 'msw'

/** What a payer (and the merchant) does to one payment, and the final state it must end in. */
type Script = 'settled' | 'capture-later' | 'decline' | '3ds-settled' | '3ds-decline' | 'cascade' | 'abandoned'

const SCRIPTS: readonly (readonly [Script, number])[] = [
  ['settled', 0.55],
  ['capture-later', 0.1],
  ['decline', 0.1],
  ['3ds-settled', 0.07],
  ['3ds-decline', 0.05],
  ['cascade', 0.08],
  ['abandoned', 0.05],
]

const FINAL_OF: Readonly<Record<Script, string | undefined>> = {
  settled: 'settled',
  'capture-later': 'settled',
  decline: 'decline',
  '3ds-settled': 'settled',
  '3ds-decline': 'decline',
  cascade: 'settled',
  abandoned: undefined,
}

const RANK: Readonly<Record<string, number>> = { redirect: 1, '3ds': 1, decline: 2, pending: 3, settled: 4 }

/** The stores of one instance: its own connections to the shared store (or the one shared object in memory). */
export interface InstanceStores {
  readonly callbacks: ClaimStore
  readonly follow: ClaimStore
}

export interface FleetOptions {
  readonly label: string
  readonly payments: number
  /** The stores of instance `i` (0, 1, 2). */
  stores(i: number): Promise<InstanceStores> | InstanceStores
  /** Closes what `stores` opened, after the run. */
  close?(): Promise<void>
  /** The lookup budget of each instance, per second. Default 60. */
  readonly lookupsPerSecond?: number
  readonly seed?: number
}

export interface FleetFigures {
  readonly label: string
  readonly payments: number
  readonly expectedFinals: number
  readonly finalsDelivered: number
  /** Payments whose final state reached `onUpdate` more than once. */
  readonly finalsTwice: number
  /** Of those, the runs again that did not say so (`context.attempt` 1): there must be none. */
  readonly finalsTwiceUnmarked: number
  /** Deliveries whose run had `context.attempt` above 1 (a payment taken over from the killed instance). */
  readonly runsAfterTakeover: number
  readonly falseFinals: number
  readonly backward: number
  readonly abandonedStuck: number
  readonly abandoned: number
  readonly lookups: number
  readonly maxLookupsInASecond: number
  /** Judged instead of the second: arrival delays, which the CPU load of other tests stretches, shift a 1 s count, hardly a 5 s one. */
  readonly maxLookupsInFiveSeconds: number
  readonly budgetPerSecond: number
  readonly callbacks: Readonly<Record<string, number>>
  readonly blocks: number
  readonly killedAtMs: number
  readonly elapsedMs: number
}

/** A deterministic random from a seed (mulberry32). */
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

/** A clock that runs `scale` times faster than real time: the courier's 15-minute block lasts 15 min / scale. */
function scaledClock(scale: number): Clock {
  const start = performance.now()
  const epoch = Date.now()
  const now = () => (performance.now() - start) * scale
  return {
    now,
    date: () => epoch + now(),
    sleep: (ms) => sleep(ms / scale),
  }
}

/** `store`, until `kill()`: then each call never settles, as a dead process's never do. */
function killable(store: ClaimStore): { store: ClaimStore; kill(): void } {
  let dead = false
  const never = new Promise<never>(() => {})
  const store2 = new Proxy(store, {
    get(target, name, receiver) {
      const value = Reflect.get(target, name, receiver) as unknown
      if (typeof value !== 'function') return value
      return (...args: unknown[]) => (dead ? never : (value as (...a: unknown[]) => unknown).apply(target, args))
    },
  })
  return {
    store: store2,
    kill: () => {
      dead = true
    },
  }
}

interface Delivery {
  readonly instance: number
  readonly update: CardPaymentUpdate
  readonly key: string
  readonly attempt: number
}

/** Runs the fleet and answers its figures; the caller asserts on them. */
export async function runFleet(options: FleetOptions): Promise<FleetFigures> {
  const started = performance.now()
  // Two streams, so the payers' scripts do not depend on how the deliveries interleave with them.
  const random = seeded(options.seed ?? 20261127)
  const courierRandom = seeded((options.seed ?? 20261127) + 1)
  const budget = options.lookupsPerSecond ?? 60
  const courierClock = scaledClock(300)
  let courier: CallbackCourier | undefined
  const sim: StartedCardGatewaySimulator = await startCardGatewaySimulator({
    onCallback: (body, payment) => courier?.send(body, payment.order_id),
  })
  const stamps: number[] = []
  // Every status lookup, when it reaches the gateway (the merchant's own captures are not lookups).
  sim.server.use(
    http.post('*/api/v1/payment/status', () => {
      stamps.push(performance.now())
    }),
    http.post('*/post', async ({ request }) => {
      const action = new URLSearchParams(await request.clone().text()).get('action') ?? ''
      if (action.startsWith('GET_TRANS_STATUS')) stamps.push(performance.now())
    }),
  )

  // The merchant's instances behind one callback URL (a load balancer that drops a dead instance).
  const deliveries: Delivery[] = []
  const attentions: FollowAttention[] = []
  const errors: unknown[] = []
  const killed = new Set<number>()
  const instances = await Promise.all(
    [0, 1, 2].map(async (i) => {
      const given = await options.stores(i)
      const callbacks = killable(given.callbacks)
      const follow = killable(given.follow)
      const gw = new CardGateway(sim.clientOptions)
      const never = new Promise<never>(() => {})
      const handler = gw.callbacks.handler({
        store: callbacks.store,
        holdMs: 1_500,
        recoverEveryMs: 300,
        retryBackoff: { baseDelayMs: 50, maxDelayMs: 500 },
        onEvent: () => (killed.has(i) ? never : undefined),
        onError: (error) => errors.push(error),
      })
      const follower = gw.payments.follow({
        store: follow.store,
        schedule: [150, 300, 600, 1_000, 1_500],
        lookupsPerSecond: budget,
        holdMs: 1_500,
        tickEveryMs: 150,
        concurrency: 16,
        stuckAfterMs: 12_000,
        declineConfirmAfterMs: 1_200,
        onUpdate: async (update, context) => {
          // A dead process runs nothing: what it was running when it died never returns.
          if (killed.has(i)) return never
          deliveries.push({ instance: i, update, key: context.key, attempt: context.attempt })
        },
        onAttention: (attention) => (killed.has(i) ? never : void attentions.push(attention)),
        onError: (error) => errors.push(error),
      })
      return {
        gw,
        handler,
        follower,
        kill: () => {
          killed.add(i)
          callbacks.kill()
          follow.kill()
          void follower.stop() // its timers stop with the process; its runs never finish
        },
      }
    }),
  )
  let hanging = false
  let turn = 0
  const front: Server = createServer((req, res) => {
    // A slow merchant: nothing answers while `hanging`, and the gateway's deliveries time out.
    if (hanging) return
    const live = instances.filter((_, i) => !killed.has(i))
    const target = live[turn++ % live.length]
    target?.handler.node(req, res)
  })
  front.listen(0, '127.0.0.1')
  await once(front, 'listening')
  const url = `http://127.0.0.1:${(front.address() as AddressInfo).port}/callbacks`
  courier = new CallbackCourier({
    url,
    clock: courierClock,
    random: courierRandom,
    drop: 0.3,
    twice: 0.1,
    outOfOrder: 0.05,
    timeoutMs: 100,
  })
  const blocks = new Set<number>()
  const delivering = setInterval(() => {
    const until = courier?.blockedUntil
    if (until !== undefined) blocks.add(until)
    void courier?.tick()
  }, 20)

  // The payments, started over ~6 s by the three instances in turn, each with its payer's script.
  const scripts = new Map<string, Script>()
  let killedAtMs = 0
  const actions: Promise<void>[] = []
  for (let n = 0; n < options.payments; n++) {
    const order = `fleet-${options.label}-${n}`
    let roll = random()
    let script: Script = 'settled'
    for (const [name, share] of SCRIPTS) {
      if (roll < share) {
        script = name
        break
      }
      roll -= share
    }
    scripts.set(order, script)
    // A slow merchant at 40 %: the gateway's deliveries time out until the URL is blocked.
    if (n === Math.floor(options.payments * 0.4)) {
      hanging = true
      void (async () => {
        const until = performance.now() + 10_000
        while (courier?.blockedUntil === undefined && performance.now() < until) await sleep(20)
        hanging = false
      })()
    }
    // Midway, one instance dies; the load balancer sends the rest to the live two.
    if (n === Math.floor(options.payments / 2)) {
      killedAtMs = Math.round(performance.now() - started)
      instances[1]?.kill()
    }
    const live = instances.filter((_, i) => !killed.has(i))
    const instance = live[n % live.length]
    if (instance === undefined) continue
    await instance.gw.checkout.purchase({
      order: { number: order, amount: '10.00', currency: 'USD', description: 'Fleet' },
      success_url: 'https://shop.example/ok',
      cancel_url: 'https://shop.example/cancel',
    })
    actions.push(play(sim, instance.gw, order, script, 200 + random() * 4_000))
    if (n % 50 === 49) await sleep(250)
  }

  await Promise.all(actions)

  const expected = [...scripts].filter(([, script]) => FINAL_OF[script] !== undefined)
  const abandoned = [...scripts].filter(([, script]) => script === 'abandoned').map(([order]) => order)
  const deadline = performance.now() + 120_000
  const finalOf = (order: string) => deliveries.find((d) => d.update.ref === order && d.update.final)
  while (performance.now() < deadline) {
    const finalsDone = expected.every(([order]) => finalOf(order) !== undefined)
    const stuckDone = abandoned.every((order) => attentions.some((a) => a.ref === order && a.kind === 'stuck'))
    if (finalsDone && stuckDone) break
    await sleep(100)
  }
  const elapsedMs = Math.round(performance.now() - started)
  clearInterval(delivering)

  // Judge.
  let finalsTwice = 0
  let finalsTwiceUnmarked = 0
  let falseFinals = 0
  let backward = 0
  for (const [order, script] of scripts) {
    const mine = deliveries.filter((d) => d.update.ref === order)
    const finals = mine.filter((d) => d.update.final)
    if (finals.length > 1) finalsTwice++
    finalsTwiceUnmarked += finals.slice(1).filter((d) => d.attempt === 1).length
    for (const final of finals) if (final.update.state !== FINAL_OF[script]) falseFinals++
    // Forward only, counting each delivery key once (a redelivery after the kill repeats a key).
    const seen = new Set<string>()
    let last = -1
    for (const d of mine) {
      if (seen.has(d.key)) continue
      seen.add(d.key)
      const rank = RANK[d.update.state] ?? -1
      if (rank <= last) backward++
      last = rank
    }
  }
  /** The most lookups that reached the gateway within any `windowMs`. */
  const mostWithin = (windowMs: number) => {
    let most = 0
    for (let a = 0, b = 0; b < stamps.length; b++) {
      while ((stamps[b] as number) - (stamps[a] as number) >= windowMs) a++
      most = Math.max(most, b - a + 1)
    }
    return most
  }
  const maxInASecond = mostWithin(1_000)
  const stats = courier.stats
  for (const [i, instance] of instances.entries()) {
    if (killed.has(i)) continue
    await instance.follower.stop()
    await instance.handler.close()
    await instance.gw.close()
  }
  await new Promise((resolve) => front.close(resolve))
  front.closeAllConnections()
  await sim.close()
  await options.close?.()
  return {
    label: options.label,
    payments: options.payments,
    expectedFinals: expected.length,
    finalsDelivered: expected.filter(([order]) => finalOf(order) !== undefined).length,
    finalsTwice,
    finalsTwiceUnmarked,
    runsAfterTakeover: deliveries.filter((d) => d.attempt > 1).length,
    falseFinals,
    backward,
    abandonedStuck: abandoned.filter((order) => attentions.some((a) => a.ref === order && a.kind === 'stuck')).length,
    abandoned: abandoned.length,
    lookups: stamps.length,
    maxLookupsInASecond: maxInASecond,
    maxLookupsInFiveSeconds: mostWithin(5_000),
    budgetPerSecond: budget,
    callbacks: { ...stats },
    blocks: blocks.size,
    killedAtMs,
    elapsedMs,
  }
}

/** The payer's (and the merchant's) part of one payment, after `delayMs`. */
async function play(
  sim: StartedCardGatewaySimulator,
  gw: CardGateway,
  order: string,
  script: Script,
  delayMs: number,
): Promise<void> {
  await sleep(delayMs)
  const simulator = sim.simulator
  const card = TEST_CARDS.number
  switch (script) {
    case 'settled':
      simulator.pay(order, { card, expiry: TEST_CARDS.success, capture: true })
      return
    case 'capture-later': {
      const payment = simulator.pay(order, { card, expiry: TEST_CARDS.success })
      await sleep(500 + delayMs / 4)
      await gw.s2s.capture({ trans_id: payment.trans_id }).catch(() => {})
      return
    }
    case 'decline':
      simulator.pay(order, { card, expiry: TEST_CARDS.decline })
      return
    case '3ds-settled':
    case '3ds-decline':
      simulator.pay(order, {
        card,
        expiry: script === '3ds-settled' ? TEST_CARDS.threeDsSuccess : TEST_CARDS.threeDsDecline,
        capture: true,
      })
      await sleep(300)
      simulator.complete3ds(order)
      return
    case 'cascade':
      // Declined by the first acquirer, authorised and captured on the next within the window.
      simulator.pay(order, { card, expiry: TEST_CARDS.decline })
      await sleep(400)
      simulator.setStatus(order, 'settled')
      return
    case 'abandoned':
      return
  }
}
