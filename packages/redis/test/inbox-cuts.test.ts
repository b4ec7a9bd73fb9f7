/**
 * The callback inbox on Redis when the connection drops at each command it sends (a TCP proxy cuts
 * it, before the command reaches Redis or after Redis ran it and before its reply arrives). The
 * gateway is simulated as the platform behaves: it delivers again on any answer but 2xx, and stops
 * at the first 2xx. Asserted at every cut: no delivery is acknowledged while the event is neither
 * processed nor being run, and a processed event is never run again.
 */

import { type CallbackEvent, CardGateway } from '@paywire/card-gateway'
import { signCallback } from '@paywire/card-gateway/testing'
import { expect, it } from 'vitest'
import { RedisClaimStore, type RedisClient } from '../src/index.js'
import { type CutKind, cutRig } from './cut-proxy.js'
import { eventually } from './helpers.js'
import { describeWithRedis } from './redis-server.js'

const HOLD_MS = 400
const PASSWORD = 'callback-password'

const gw = new CardGateway({
  checkoutUrl: 'https://checkout.example',
  s2sUrl: 'https://s2s.example',
  merchantKey: 'merchant',
  clientKey: 'client',
  password: PASSWORD,
})

let bodies = 0
function freshBody(): string {
  bodies++
  return signCallback(
    {
      id: `pay-cut-${bodies}-${Date.now()}`,
      order_number: `order-${bodies}`,
      order_amount: '10.00',
      order_currency: 'USD',
      order_description: 'Filters',
      order_status: 'settled',
      type: 'sale',
      status: 'success',
    },
    PASSWORD,
  )
}

/** How the merchant's onEvent behaves: succeeds every time, or throws on its first run only. */
type Scenario = 'succeeds' | 'fails-once'

interface Run {
  /** Every answer the handler gave, in order. */
  readonly answers: number[]
  /** onEvent runs started, and those that returned. */
  started: number
  succeeded: number
  /** A delivery acknowledged while nothing had processed the event nor was running it. */
  readonly unprocessedAcks: string[]
  /** onEvent ran more often than once per success (plus the scripted failure). */
  readonly extraRuns: string[]
}

type Rule = 'unprocessedAcks' | 'extraRuns'

/**
 * What each scenario sends with no cut: succeeds = claim, complete (first delivery), claim (the
 * duplicate at once, done), claim (the one after the hold, done); fails-once = claim, release,
 * claim, complete (the duplicate at once runs it again), claim (after the hold, done).
 */
const COMMANDS: Record<Scenario, string[]> = {
  succeeds: ['EVAL', 'EVAL', 'EVAL', 'EVAL'],
  'fails-once': ['EVAL', 'EVAL', 'EVAL', 'EVAL', 'EVAL'],
}

for (const major of [6, 5] as const) {
  describeWithRedis(`callback inbox on Redis, connection cut at each command (node-redis ${major})`, (server) => {
    const rig = cutRig(server, major)
    let cell = 0

    /**
     * One event through the simulated gateway: delivered until acknowledged (the first redelivery at
     * once, later ones once no claim holds the key, as a gateway retrying on its schedule would see
     * it); then a duplicate delivery at once; then one more after the hold has passed.
     */
    async function play(scenario: Scenario, cut?: { at: number[]; kind: CutKind }): Promise<Run> {
      cell++
      const prefix = `inbox-cut-${cell}-${Date.now()}:`
      const run: Run = { answers: [], started: 0, succeeded: 0, unprocessedAcks: [], extraRuns: [] }
      const reported: unknown[] = []
      const handler = gw.callbacks.handler({
        store: new RedisClaimStore({ client: rig.viaProxy as RedisClient, keyPrefix: prefix }),
        holdMs: HOLD_MS,
        onError: (error) => reported.push(error),
        onEvent: async (_event: CallbackEvent) => {
          run.started++
          if (scenario === 'fails-once' && run.started === 1) throw new Error('the merchant database is down')
          run.succeeded++
        },
      })
      const held = async () => {
        const keys = (await rig.direct.eval("return redis.call('KEYS', ARGV[1])", {
          keys: [],
          arguments: [`${prefix}*`],
        })) as string[]
        for (const key of keys) if (String(await rig.direct.get(key)).startsWith('held:')) return true
        return false
      }
      const notHeld = () => eventually(async () => !(await held()), HOLD_MS + 5_000, 'the claim was let go')
      const body = freshBody()
      const deliverUntilAck = async (label: string) => {
        for (let attempt = 1; attempt <= 20; attempt++) {
          const startedBefore = run.started
          const succeededBefore = run.succeeded
          const answer = await handler.handle(body)
          const startedNow = run.started > startedBefore
          await handler.drain()
          run.answers.push(answer.status)
          if (answer.status === 200) {
            if (!startedNow && succeededBefore === 0) {
              run.unprocessedAcks.push(
                `${label}: delivery ${attempt} answered 200 while nothing had processed the event`,
              )
            }
            return
          }
          if (attempt > 1) await notHeld()
        }
        run.unprocessedAcks.push(`${label}: 20 deliveries and no 2xx`)
      }

      if (cut) rig.proxy.arm(cut.at, cut.kind)
      else rig.proxy.record()
      await deliverUntilAck('first')
      await deliverUntilAck('duplicate at once')
      await notHeld()
      await deliverUntilAck('duplicate after the hold')
      const want = scenario === 'succeeds' ? 1 : 2
      if (run.succeeded === 0) run.unprocessedAcks.push('onEvent never returned')
      if (run.succeeded > 1) run.extraRuns.push(`onEvent returned ${run.succeeded} times, not once`)
      if (run.started > want) run.extraRuns.push(`onEvent started ${run.started} times, not ${want}`)
      return run
    }

    /** Plays `scenario` once without a cut, then with a cut at every command it sent, of both kinds. */
    async function everyCut(scenario: Scenario, rule: Rule): Promise<void> {
      const clean = await play(scenario)
      expect([...clean.unprocessedAcks, ...clean.extraRuns]).toEqual([])
      const commands = [...rig.proxy.commands]
      // One EVAL per claim, release and complete: the claim, complete and release scripts.
      expect(commands).toEqual(COMMANDS[scenario])
      const failures: string[] = []
      let cells = 0
      for (let at = 1; at <= commands.length; at++) {
        for (const kind of ['request', 'reply'] as const) {
          const result = await play(scenario, { at: [at], kind })
          cells++
          expect(rig.proxy.cuts).toBe(1)
          for (const v of result[rule]) {
            failures.push(`cut ${kind} of command ${at} (${commands[at - 1]}): ${v} [answers ${result.answers}]`)
          }
        }
      }
      expect(failures).toEqual([])
      expect(cells).toBe(commands.length * 2)
    }

    it('a claim that ran but lost the reply of every attempt: 503 while its hold lasts, then run once by a redelivery', async () => {
      const result = await play('succeeds', { at: [1, 2, 3], kind: 'reply' })
      expect(rig.proxy.cuts).toBe(3)
      expect(result.unprocessedAcks).toEqual([])
      expect(result.extraRuns).toEqual([])
      // store_unavailable, then in_progress (the first claim holds the key, its token forgotten), then run.
      expect(result.answers.slice(0, 3)).toEqual([503, 503, 200])
      expect(result.succeeded).toBe(1)
    }, 30_000)

    for (const scenario of ['succeeds', 'fails-once'] as const) {
      it(`onEvent that ${scenario}: a cut at any command, of either kind, never acknowledges an event nobody runs`, async () => {
        await everyCut(scenario, 'unprocessedAcks')
      }, 120_000)

      it(`onEvent that ${scenario}: a cut at any command, of either kind, never runs a processed event again`, async () => {
        await everyCut(scenario, 'extraRuns')
      }, 120_000)
    }
  })
}
