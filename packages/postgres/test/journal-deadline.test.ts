/**
 * From the attacker's side, on a real PostgreSQL server: the journal's `open` of a capture stalls
 * (its INSERT waits on a lock another session holds), the call's deadline ends the call first with
 * nothing sent, and then the INSERT lands. Before, that intent stayed open for ever, though its
 * call was never sent. Now the call chains a close onto the pending open: once the INSERT lands the
 * intent is closed as `not_applied`, and the journal holds nothing of the call.
 */

import { subscribe, unsubscribe } from 'node:diagnostics_channel'
import { once } from 'node:events'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { CardGateway } from '@paywire/card-gateway'
import type { IntentMessage } from '@paywire/core'
import type pg from 'pg'
import { afterAll, beforeAll, expect, it, onTestFinished } from 'vitest'
import { PostgresIntentStore } from '../src/index.js'
import { eventually, freshSchema } from './helpers.js'
import { describeWithPostgres } from './postgres-server.js'

describeWithPostgres('a journal open that lands after the call gave up on it', (server) => {
  let pool: pg.Pool
  let schema: string
  beforeAll(async () => {
    pool = server().pool()
    schema = await freshSchema(pool, 'late_open')
  })
  afterAll(async () => {
    await pool.end()
  })

  it('a capture whose INSERT waits on a lock past the deadline: refused with nothing sent, and the intent closed as not_applied once the INSERT lands', async () => {
    // The gateway: counts what reaches it (nothing must).
    let received = 0
    const gateway = createServer((_req, res) => {
      received++
      res.writeHead(500).end()
    })
    gateway.listen(0, '127.0.0.1')
    await once(gateway, 'listening')
    onTestFinished(() => new Promise<void>((resolve) => gateway.close(() => resolve())))
    const url = `http://127.0.0.1:${(gateway.address() as AddressInfo).port}`
    const journal = new PostgresIntentStore({ pool, schema })
    const gw = new CardGateway({
      checkoutUrl: url,
      s2sUrl: url,
      merchantKey: 'merchant',
      clientKey: 'client',
      password: 'password',
      journal,
      totalTimeout: 500,
    })
    onTestFinished(() => gw.close())

    // What the journal step reports: an open that lands, and the close chained onto it.
    const steps: IntentMessage[] = []
    const onStep = (message: unknown) => steps.push(message as IntentMessage)
    subscribe('paywire:intent', onStep)
    onTestFinished(() => {
      unsubscribe('paywire:intent', onStep)
    })

    // Another session holds a lock that every INSERT into the intents table waits on.
    const locker = await pool.connect()
    await locker.query('BEGIN')
    await locker.query(`LOCK TABLE ${schema}.intents IN EXCLUSIVE MODE`)
    let unlocked = false
    onTestFinished(async () => {
      if (!unlocked) await locker.query('ROLLBACK')
      locker.release()
    })

    const started = performance.now()
    const error = await gw.s2s.capture({ trans_id: 'trans-late-open' }).catch((e: unknown) => e)
    const ms = performance.now() - started
    expect(error).toMatchObject({ name: 'TimeoutError', phase: 'total', requestSent: false, outcomeUnknown: false })
    expect(ms).toBeLessThan(500 + 1_500)
    expect(received).toBe(0)
    // The INSERT is on the server, waiting for the lock.
    await eventually(
      async () => {
        const waiting = await pool.query(
          `SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE $1`,
          [`INSERT INTO ${schema}.intents%`],
        )
        return waiting.rows[0]?.n === 1
      },
      5_000,
      'the INSERT waits on the lock',
    )
    expect(steps).toStrictEqual([])

    // The lock goes: the INSERT lands, after the call ended.
    await locker.query('COMMIT')
    unlocked = true
    await eventually(
      async () => steps.some((step) => step.action === 'close'),
      10_000,
      'the intent that landed after the call gave up is closed (before: it stayed open for ever)',
    )
    const [opened, closed] = steps
    expect(opened).toMatchObject({ action: 'open', operation: 's2s.capture', ok: true })
    expect(closed).toMatchObject({ action: 'close', intentId: opened?.intentId, outcome: 'not_applied', ok: true })
    expect(await journal.openIntents('card-gateway')).toStrictEqual([])
    expect(await gw.pendingIntents()).toStrictEqual([])
    expect(received).toBe(0)
    console.info(
      `late open figures: the capture refused after ${Math.round(ms)} ms (totalTimeout 500), nothing sent; its INSERT landed after the lock went and was closed as not_applied`,
    )
  }, 30_000)
})
