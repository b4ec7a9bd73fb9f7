/**
 * The callback inbox on Redis when the connection drops at each command it sends (a TCP proxy cuts
 * it, before the command reaches Redis or after Redis ran it and before its reply arrives). The
 * gateway is simulated as the platform behaves: it delivers again on any answer but 2xx, and stops
 * at the first 2xx. After that only the inbox's own recovery can run the event. Asserted at every
 * cut: an acknowledged event runs (never lost), and runs once (a done event never runs again).
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
  /** The event was acknowledged and never ran (after recovery had every chance). */
  readonly lost: string[]
  /** onEvent ran more often than once per success (plus the scripted failure). */
  readonly extraRuns: string[]
}

type Rule = 'lost' | 'extraRuns'

/**
 * What each scenario sends with no cut: succeeds = record (taken), complete, record (the duplicate:
 * done); fails-once = record (taken), release, record (the duplicate: known), then recovery's
 * takeDue (one event), its run's complete and takeDue again (none left: the round ends).
 */
const COMMANDS: Record<Scenario, string[]> = {
  succeeds: ['EVALSHA', 'EVALSHA', 'EVALSHA'],
  'fails-once': ['EVALSHA', 'EVALSHA', 'EVALSHA', 'EVALSHA', 'EVALSHA', 'EVALSHA'],
}

for (const major of [6, 5] as const) {
  describeWithRedis(`callback inbox on Redis, connection cut at each command (node-redis ${major})`, (server) => {
    const rig = cutRig(server, major)
    let cell = 0

    /**
     * One event through the simulated gateway: delivered until acknowledged, then once more at once
     * (a duplicate); after that, only recovery runs it: one round each time the event is due (read
     * on a direct connection, never through the proxy, so the counted commands stay the inbox's).
     */
    async function play(scenario: Scenario, cut?: { at: number[]; kind: CutKind }): Promise<Run> {
      cell++
      const prefix = `inbox-cut-${cell}-${Date.now()}:`
      const run: Run = { answers: [], started: 0, succeeded: 0, lost: [], extraRuns: [] }
      const handler = gw.callbacks.handler({
        store: new RedisClaimStore({ client: rig.viaProxy as RedisClient, keyPrefix: prefix }),
        holdMs: HOLD_MS,
        recoverEveryMs: 0,
        retryBackoff: { baseDelayMs: 50, maxDelayMs: 50 },
        onError: () => {},
        onEvent: async (_event: CallbackEvent) => {
          run.started++
          if (scenario === 'fails-once' && run.started === 1) throw new Error('the merchant database is down')
          run.succeeded++
        },
      })
      /** The event's state as Redis holds it, and whether it is due now (by Redis's clock). */
      const stored = async () => {
        const keys = (await rig.direct.eval("return redis.call('KEYS', ARGV[1])", {
          keys: [],
          arguments: [`${prefix}inbox:event:*`],
        })) as string[]
        const key = keys[0]
        if (key === undefined) return { state: 'absent', due: false }
        const found = (await rig.direct.eval(
          "local t = redis.call('TIME'); return { redis.call('HGET', KEYS[1], 'state'), redis.call('HGET', KEYS[1], 'until'), t[1] * 1000 + math.floor(t[2] / 1000) }",
          { keys: [key], arguments: [] },
        )) as [string | null, string | null, number]
        const [state, until, now] = found
        return { state: String(state), due: (state === 'pending' || state === 'running') && Number(until) <= now }
      }
      const body = freshBody()
      const deliverUntilAck = async (label: string) => {
        for (let attempt = 1; attempt <= 20; attempt++) {
          const answer = await handler.handle(body)
          await handler.drain()
          run.answers.push(answer.status)
          if (answer.status === 200) return
        }
        run.lost.push(`${label}: 20 deliveries and no 2xx`)
      }

      if (cut) rig.proxy.arm(cut.at, cut.kind)
      else rig.proxy.record()
      await deliverUntilAck('first')
      await deliverUntilAck('duplicate at once')
      // The gateway is done. Recovery: one round whenever the event is due, until it is done.
      for (let round = 0; round < 5 && (await stored()).state !== 'done'; round++) {
        await eventually(
          async () => {
            const now = await stored()
            return now.due || now.state === 'done' || now.state === 'dead'
          },
          HOLD_MS + 5_000,
          'the event came due',
        )
        if ((await stored()).state === 'done') break
        // A round whose takeDue is cut rejects, as a scheduler's call would see: the next one goes on.
        await handler.recover().catch(() => {})
      }
      const want = scenario === 'succeeds' ? 1 : 2
      if (run.succeeded === 0)
        run.lost.push(`acknowledged and never ran (the store holds it ${(await stored()).state})`)
      if (run.succeeded > 1) run.extraRuns.push(`onEvent returned ${run.succeeded} times, not once`)
      if (run.started > want) run.extraRuns.push(`onEvent started ${run.started} times, not ${want}`)
      await handler.close()
      return run
    }

    /** Plays `scenario` once without a cut, then with a cut at every command it sent, of both kinds. */
    async function everyCut(scenario: Scenario, rule: Rule): Promise<void> {
      const clean = await play(scenario)
      expect([...clean.lost, ...clean.extraRuns]).toEqual([])
      const commands = [...rig.proxy.commands]
      // One EVALSHA per store operation (the rig loaded the scripts): record, complete, release, takeDue.
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

    it('a record that landed but lost the reply of every attempt: 503, then the redelivery is told 200 and recovery runs it once its lease ends', async () => {
      const result = await play('succeeds', { at: [1, 2, 3], kind: 'reply' })
      expect(rig.proxy.cuts).toBe(3)
      expect(result.lost).toEqual([])
      expect(result.extraRuns).toEqual([])
      // store_unavailable; then the redelivery finds it recorded (200); the duplicate too.
      expect(result.answers).toEqual([503, 200, 200])
      expect(result.succeeded).toBe(1)
    }, 30_000)

    for (const scenario of ['succeeds', 'fails-once'] as const) {
      it(`onEvent that ${scenario}: a cut at any command, of either kind, never loses an acknowledged event`, async () => {
        await everyCut(scenario, 'lost')
      }, 120_000)

      it(`onEvent that ${scenario}: a cut at any command, of either kind, never runs a processed event again`, async () => {
        await everyCut(scenario, 'extraRuns')
      }, 120_000)
    }
  })
}
