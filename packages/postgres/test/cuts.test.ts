/**
 * Connections cut mid-statement by a TCP proxy, before the statement reaches PostgreSQL (`request`)
 * or after it ran and committed but before its reply came back (`reply`), and the server restarted
 * mid-run: each store call either fails clearly or succeeds, sending it again is safe, and after
 * recovery nothing is lost or doubled.
 */

import { randomUUID } from 'node:crypto'
import { CardGateway } from '@paywire/card-gateway'
import { signCallback } from '@paywire/card-gateway/testing'
import type pg from 'pg'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { intentOf } from '../../../tests/support/store-conformance.js'
import { PostgresClaimStore, PostgresInbox, PostgresIntentStore } from '../src/index.js'
import { type CutProxy, startCutProxy } from './cut-proxy.js'
import { freshSchema } from './helpers.js'
import { describeWithPostgres } from './postgres-server.js'

const LONG = 60_000

describeWithPostgres('connections cut mid-statement, and a server restart', (server) => {
  let proxy: CutProxy
  let pool: pg.Pool // through the proxy
  let direct: pg.Pool // straight to the server: what is really there
  let schema: string
  beforeAll(async () => {
    direct = server().pool()
    schema = await freshSchema(direct, 'cuts')
    await direct.query(`CREATE TABLE ${schema}.payments_seen (id text NOT NULL)`)
    proxy = await startCutProxy(server().port)
    pool = server().pool({ port: proxy.port, max: 3 })
  })
  afterAll(async () => {
    await pool.end()
    await direct.end()
    await proxy.close()
  })

  const seen = async (id: string) =>
    Number(
      (await direct.query(`SELECT count(*)::int AS n FROM ${schema}.payments_seen WHERE id = $1`, [id])).rows[0]?.n,
    )

  for (const kind of ['request', 'reply'] as const) {
    it(`claim cut (${kind}): it rejects; sent again with the same token it is claimed, and nobody else holds it`, async () => {
      const claims = new PostgresClaimStore({ pool, schema })
      const key = `cut-claim-${kind}-${randomUUID()}`
      const token = randomUUID()
      const cut = proxy.arm(/INSERT INTO cuts\.claims/, kind)
      await expect(claims.claim(key, token, LONG)).rejects.toThrow()
      await cut
      expect(await claims.claim(key, token, LONG)).toBe('claimed')
      expect(await claims.claim(key, randomUUID(), LONG)).toBe('held')
    })

    it(`complete cut (${kind}): it rejects; sent again it answers true and the key is done`, async () => {
      const claims = new PostgresClaimStore({ pool, schema })
      const key = `cut-complete-${kind}-${randomUUID()}`
      const token = randomUUID()
      expect(await claims.claim(key, token, LONG)).toBe('claimed')
      const cut = proxy.arm(/INSERT INTO cuts\.claims .* true/s, kind)
      await expect(claims.complete(key, token, LONG)).rejects.toThrow()
      await cut
      expect(await claims.complete(key, token, LONG)).toBe(true)
      expect(await claims.claim(key, randomUUID(), LONG)).toBe('done')
    })

    it(`open cut (${kind}): open sends it again on a new connection and resolves; the intent is listed once`, async () => {
      const journal = new PostgresIntentStore({ pool, schema })
      const intent = intentOf({ service: `cut-${kind}-${randomUUID()}` })
      const cut = proxy.arm(/INSERT INTO cuts\.intents/, kind)
      await journal.open(intent)
      await cut
      expect(await new PostgresIntentStore({ pool: direct, schema }).openIntents(intent.service)).toStrictEqual([
        intent,
      ])
    })

    it(`runOnce whose COMMIT is cut (${kind}): it rejects; run again, the effect is there exactly once`, async () => {
      const inbox = new PostgresInbox({ pool, schema })
      const id = `pay-commit-${kind}-${randomUUID()}`
      const insert = (tx: { query(text: string, values?: unknown[]): Promise<unknown> }) =>
        tx.query(`INSERT INTO ${schema}.payments_seen (id) VALUES ($1)`, [id])
      const cut = proxy.arm(/^COMMIT$/, kind)
      await expect(inbox.runOnce(id, insert)).rejects.toThrow(
        /may or may not be committed; calling runOnce again is safe/,
      )
      await cut
      // `request`: the server never got the COMMIT and rolled back. `reply`: it committed.
      expect(await seen(id)).toBe(kind === 'request' ? 0 : 1)
      expect(await inbox.isDone(id)).toBe(kind === 'reply')
      const again = await inbox.runOnce(id, insert)
      expect(again.ran).toBe(kind === 'request')
      expect(await seen(id)).toBe(1)
    })

    it(`runOnce whose merchant INSERT is cut (${kind}): the work fails, nothing stays; the retry runs it once`, async () => {
      const inbox = new PostgresInbox({ pool, schema })
      const id = `pay-work-${kind}-${randomUUID()}`
      const insert = (tx: { query(text: string, values?: unknown[]): Promise<unknown> }) =>
        tx.query(`INSERT INTO ${schema}.payments_seen (id) VALUES ($1)`, [id])
      const cut = proxy.arm(/INSERT INTO cuts\.payments_seen/, kind)
      await expect(inbox.runOnce(id, insert)).rejects.toThrow()
      await cut
      expect(await seen(id)).toBe(0)
      expect(await inbox.isDone(id)).toBe(false)
      expect((await inbox.runOnce(id, insert)).ran).toBe(true)
      expect(await seen(id)).toBe(1)
    })
  }

  it('the card callback handler on a connection cut after the claim ran and after the done mark ran: onEvent once, the effect once', async () => {
    const gw = new CardGateway({
      checkoutUrl: 'https://checkout.example',
      s2sUrl: 'https://s2s.example',
      merchantKey: 'merchant',
      clientKey: 'client',
      password: 'pw',
    })
    const inbox = new PostgresInbox({ pool, schema })
    let runs = 0
    const handler = gw.callbacks.handler({
      store: new PostgresClaimStore({ pool, schema }),
      onEvent: async (event) => {
        runs++
        await inbox.runOnce(`callback:${event.id}`, (tx) =>
          tx.query(`INSERT INTO ${schema}.payments_seen (id) VALUES ($1)`, [event.id]),
        )
      },
    })
    const id = `pay-handler-${randomUUID()}`
    const body = signCallback(
      {
        id,
        order_number: 'order-cut',
        order_amount: '10.00',
        order_currency: 'USD',
        order_description: 'Filters',
        order_status: 'settled',
        type: 'sale',
        status: 'success',
      },
      'pw',
    )
    const claimCut = proxy.arm(/INSERT INTO cuts\.claims .* false/s, 'reply')
    expect(await handler.handle(body)).toMatchObject({ status: 200 })
    await claimCut
    const completeCut = proxy.arm(/INSERT INTO cuts\.claims .* true/s, 'reply')
    await handler.drain()
    await completeCut
    expect(await handler.handle(body)).toMatchObject({ status: 200 })
    await handler.drain()
    expect(runs).toBe(1)
    expect(await seen(id)).toBe(1)
    await gw.close()
  })

  it('a server restart mid-run: calls in flight fail clearly; after it, every acknowledged intent is there and each effect is once', async () => {
    const journal = new PostgresIntentStore({ pool: direct, schema })
    const inbox = new PostgresInbox({ pool: direct, schema })
    const service = `restart-${randomUUID()}`
    const acked: string[] = []
    const failures: string[] = []
    const item = async (i: number) => {
      const intent = intentOf({ service, id: `${service}-${i}`, createdAt: 1_000 + i })
      try {
        await journal.open(intent)
        acked.push(intent.id)
        await inbox.runOnce(`${service}-evt-${i}`, (tx) =>
          tx.query(`INSERT INTO ${schema}.payments_seen (id) VALUES ($1)`, [`${service}-${i}`]),
        )
      } catch (error) {
        failures.push(error instanceof Error ? error.message : String(error))
      }
    }
    let i = 0
    let running = true
    const load = (async () => {
      while (running) await item(i++)
    })()
    // Restart once the load is under way (some items done), while items are in flight.
    while (acked.length < 20) await new Promise((resolve) => setImmediate(resolve))
    await server().restart()
    const afterRestart = acked.length
    while (acked.length < afterRestart + 20) await new Promise((resolve) => setImmediate(resolve))
    running = false
    await load
    expect(failures.length).toBeGreaterThan(0)
    for (const message of failures) expect(message).toMatch(/terminat|connect|ECONNREFUSED|shut|Connection/i)
    // Every acknowledged open is in the journal, exactly once.
    const listed = (await journal.openIntents(service)).map((intent) => intent.id)
    expect([...listed].sort()).toStrictEqual([...acked].sort())
    // Recovery: every item is run again; each effect ends up exactly once.
    for (let n = 0; n < i; n++) {
      await inbox.runOnce(`${service}-evt-${n}`, (tx) =>
        tx.query(`INSERT INTO ${schema}.payments_seen (id) VALUES ($1)`, [`${service}-${n}`]),
      )
    }
    const rows = await direct.query(
      `SELECT id, count(*)::int AS n FROM ${schema}.payments_seen WHERE id LIKE $1 GROUP BY id`,
      [`${service}-%`],
    )
    expect(rows.rows).toHaveLength(i)
    expect(rows.rows.every((r) => r.n === 1)).toBe(true)
    console.info(`restart figures: ${i} items, ${failures.length} calls failed during the restart, 0 lost, 0 double`)
  }, 60_000)
})
