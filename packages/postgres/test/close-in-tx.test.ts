/**
 * From the attacker's side: the journal closed a capture's intent as soon as the SDK had the
 * answer, so a merchant process killed after that and before its own write of the result committed
 * lost the outcome: the gateway captured, the merchant's table has nothing, and the journal holds
 * nothing for `reconcileAll()` to find. With `keepIntentOpen: true` and `closeIn(tx, …)` the intent
 * is closed in the transaction that records the result: both commit, or neither does, and a process
 * killed before the commit leaves the intent open for the next one to settle by lookup.
 */

import { CardGateway } from '@paywire/card-gateway'
import { startCardGatewaySimulator, TEST_CARDS } from '@paywire/card-gateway/testing'
import type pg from 'pg'
import { afterAll, afterEach, beforeAll, expect, it, onTestFinished } from 'vitest'
import { PostgresIntentStore } from '../src/index.js'
import { freshSchema, killFixtures, lines, sigkill, spawnFixture } from './helpers.js'
import { describeWithPostgres } from './postgres-server.js'

afterEach(killFixtures)

type Mode = 'sdk-closes' | 'merchant-closes'
/** Where the merchant process is killed: right after the answer, or with its write sent and not committed. */
type KillAt = 'answered' | 'written'

describeWithPostgres("the journal's close and the merchant's own write of the result", (server) => {
  let pool: pg.Pool
  let schema: string
  let orders = 0
  beforeAll(async () => {
    pool = server().pool()
    schema = await freshSchema(pool, 'close_in_tx')
    await pool.query(`CREATE TABLE ${schema}.captures (trans_id text PRIMARY KEY, status text NOT NULL)`)
  })
  afterAll(async () => {
    await pool.end()
  })

  /** A paid order at the simulator, a merchant process capturing it, killed at `killAt` (or run to the end). */
  async function captureIn(mode: Mode, killAt: KillAt | undefined) {
    const sim = await startCardGatewaySimulator()
    onTestFinished(() => sim.close())
    const order = `order-close-${++orders}`
    const shop = new CardGateway(sim.clientOptions)
    onTestFinished(() => shop.close())
    await shop.checkout.purchase({
      order: { number: order, amount: '25.00', currency: 'USD', description: 'Espresso machine' },
      success_url: 'https://shop.example/ok',
      cancel_url: 'https://shop.example/cancel',
    })
    const { trans_id } = sim.simulator.pay(order, { card: TEST_CARDS.number, expiry: TEST_CARDS.success })
    const child = await spawnFixture(
      'capture-and-record.ts',
      [String(server().port), schema, JSON.stringify(sim.clientOptions), trans_id, mode],
      true,
    )
    const seen: Record<string, unknown>[] = []
    const exit = lines(child, (line) => {
      seen.push(line)
      if (line.step === killAt) child.kill('SIGKILL')
      else child.stdin?.write('\n')
    })
    const code = await exit
    if (killAt !== undefined) await sigkill(child)
    else expect(code).toBe(0)
    const captures = () => sim.simulator.ledger.filter((e) => e.kind === 'capture').length
    const recorded = await pool.query(`SELECT status FROM ${schema}.captures WHERE trans_id = $1`, [trans_id])
    // The restart: a new client, a new store, the same database.
    const gw = new CardGateway({ ...sim.clientOptions, journal: new PostgresIntentStore({ pool, schema }) })
    onTestFinished(() => gw.close())
    const open = (await gw.pendingIntents()).filter((intent) => intent.reconciliation?.value === trans_id)
    return { gw, trans_id, seen, captures, recorded: recorded.rows, open }
  }

  for (const killAt of ['answered', 'written'] as const) {
    it(`the old way (the SDK closes on the answer), killed at ${killAt}: the capture happened, and nothing is left to say so (the window)`, async () => {
      const run = await captureIn('sdk-closes', killAt)
      expect(run.seen.map((line) => line.step)).toContain('answered')
      expect(run.captures()).toBe(1)
      // The merchant's write never committed, and the journal already forgot the call: the outcome is lost.
      expect(run.recorded).toStrictEqual([])
      expect(run.open).toStrictEqual([])
    })

    it(`keepIntentOpen and closeIn(tx), killed at ${killAt}: the intent is still open, and reconcileAll() settles it as applied`, async () => {
      const run = await captureIn('merchant-closes', killAt)
      const answered = run.seen.find((line) => line.step === 'answered')
      expect(run.captures()).toBe(1)
      expect(run.recorded).toStrictEqual([])
      expect(run.open, 'the intent was closed before the merchant recorded the result').toHaveLength(1)
      expect(answered?.intentId).toEqual(expect.any(String))
      expect(run.open.map((intent) => [intent.id, intent.operation])).toStrictEqual([
        [answered?.intentId, 's2s.capture'],
      ])
      const settled = await run.gw.reconcileAll()
      expect(
        settled.map(({ intent, result }) => [
          intent.id,
          result.outcome,
          (result.state as { status?: string } | undefined)?.status,
        ]),
      ).toStrictEqual([[answered?.intentId, 'applied', 'SETTLED']])
      expect(await run.gw.pendingIntents()).toStrictEqual([])
      // Settled by one lookup: no second capture.
      expect(run.captures()).toBe(1)
    })
  }

  it('keepIntentOpen and closeIn(tx), run to the end: the result and the close commit together; nothing is left open', async () => {
    const run = await captureIn('merchant-closes', undefined)
    expect(run.seen.map((line) => line.step)).toStrictEqual(['answered', 'written', 'committed'])
    expect(run.recorded).toStrictEqual([{ status: 'SETTLED' }])
    expect(run.open).toStrictEqual([])
    expect(run.captures()).toBe(1)
  })
})
