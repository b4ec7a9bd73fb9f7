/**
 * Connections cut mid-statement by a TCP proxy, before the statement reaches PostgreSQL (`request`)
 * or after it ran and committed but before its reply came back (`reply`), and the server restarted
 * mid-run: each store call either fails clearly or succeeds, sending it again is safe, and after
 * recovery nothing is lost or doubled.
 */

import { randomUUID } from 'node:crypto'
import { CardGateway } from '@paywire/card-gateway'
import { signCallback } from '@paywire/card-gateway/testing'
import type { Lease, NewEvent, StoredEvent, TakenEvent } from '@paywire/core'
import type pg from 'pg'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { intentOf } from '../../../tests/support/store-conformance.js'
import { PostgresClaimStore, PostgresInbox, PostgresIntentStore } from '../src/index.js'
import { type CutProxy, startCutProxy } from './cut-proxy.js'
import { eventually, freshSchema, RECORD_STATEMENT } from './helpers.js'
import { describeWithPostgres } from './postgres-server.js'

const LONG = 60_000
/** A lease or keep the tests wait out. */
const HOLD = 300

const event = (key: string, ref = `order:${key}`): NewEvent => ({
  key,
  previousKeys: [],
  fields: `{"id":"${key}"}`,
  ref,
})
const lease = (ms = LONG): Lease => ({ token: randomUUID(), ms, maxAttempts: 8 })

/**
 * A statement running at the server (seen in pg_stat_activity) until a restart cuts it: what it
 * came to, its error's message once cut. A load of one call after another may have none in flight
 * at the moment of a restart; this one is.
 */
async function holdAtServer(pool: pg.Pool): Promise<{ readonly outcome: Promise<string> }> {
  const marker = `held_${randomUUID().replaceAll('-', '')}`
  const held = pool.query(`SELECT pg_sleep(30) AS ${marker}`).then(
    () => 'answered',
    (error: Error) => error.message,
  )
  for (;;) {
    const { rows } = await pool.query('SELECT count(*)::int AS n FROM pg_stat_activity WHERE query LIKE $1', [
      `%AS ${marker}`,
    ])
    // Wrapped: an async function returning a promise would wait for it.
    if (rows[0].n > 0) return { outcome: held }
  }
}

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

  const claims = () => new PostgresClaimStore({ pool, schema })
  const seen = async (id: string) =>
    Number(
      (await direct.query(`SELECT count(*)::int AS n FROM ${schema}.payments_seen WHERE id = $1`, [id])).rows[0]?.n,
    )

  for (const kind of ['request', 'reply'] as const) {
    it(`record cut (${kind}): it rejects; sent again with the same token it answers as the first would, and nobody else records it`, async () => {
      const key = `cut-record-${kind}-${randomUUID()}`
      const pendingKey = `${key}-pending`
      const token = randomUUID()
      for (const [k, leaseMs, answer] of [
        [key, LONG, 'taken'],
        [pendingKey, undefined, 'recorded'],
      ] as const) {
        const cut = proxy.arm(RECORD_STATEMENT, kind)
        await expect(claims().record(event(k), token, leaseMs)).rejects.toThrow()
        await cut
        expect(await claims().record(event(k), token, leaseMs)).toBe(answer)
        expect(await claims().record(event(k), randomUUID(), leaseMs)).toBe('known')
      }
      const taken = await claims().take(pendingKey, lease())
      expect(taken?.event).toMatchObject({ key: pendingKey, attempts: 1, fields: event(pendingKey).fields })
    })

    it(`take cut (${kind}): it rejects; the event is leased to that token or to nobody, never twice, and runs again once the lease ends`, async () => {
      const key = `cut-take-${kind}-${randomUUID()}`
      expect(await claims().record(event(key), randomUUID(), undefined)).toBe('recorded')
      const lost = lease(HOLD)
      const cut = proxy.arm(/^UPDATE cuts\.claims AS c SET state = CASE/, kind)
      await expect(claims().take(key, lost)).rejects.toThrow()
      await cut
      const again = await claims().take(key, lost)
      if (kind === 'request') {
        expect(again?.event.attempts).toBe(1)
      } else {
        // It ran: the event is leased to the lost token (renew proves it), and no one else takes it.
        expect(again).toBeUndefined()
        expect(await claims().take(key, lease())).toBeUndefined()
        expect(await claims().renew(key, lost.token, HOLD)).toBe(true)
        let next: TakenEvent | undefined
        await eventually(
          async () => {
            next = await claims().take(key, lease())
            return next !== undefined
          },
          5_000,
          'the lost lease ends',
        )
        expect(next?.event.attempts).toBe(2)
      }
    })

    it(`takeDue cut (${kind}): it rejects; sent again it takes the events not taken, and the others run once their lease ends`, async () => {
      const keys = Array.from({ length: 5 }, (_, i) => `cut-due-${kind}-${i}-${randomUUID()}`)
      for (const key of keys) expect(await claims().record(event(key), randomUUID(), undefined)).toBe('recorded')
      const lost = lease(HOLD)
      const cut = proxy.arm(/^WITH due AS/, kind)
      await expect(claims().takeDue(lost, 1_000)).rejects.toThrow()
      await cut
      const mine = async (taken: Promise<TakenEvent[]>) =>
        (await taken).filter((t) => keys.includes(t.event.key)).map((t) => t.event)
      const again = await mine(claims().takeDue(lost, 1_000))
      if (kind === 'request') {
        expect(again.map((e) => e.key).sort()).toStrictEqual([...keys].sort())
        expect(again.every((e) => e.attempts === 1)).toBe(true)
      } else {
        expect(again).toStrictEqual([])
        const later: StoredEvent[] = []
        await eventually(
          async () => {
            later.push(...(await mine(claims().takeDue(lease(), 1_000))))
            return later.length === keys.length
          },
          5_000,
          'the lost leases end',
        )
        expect(later.map((e) => e.key).sort()).toStrictEqual([...keys].sort())
        expect(later.every((e) => e.attempts === 2)).toBe(true)
      }
    })

    it(`renew cut (${kind}): it rejects; sent again it answers true and the lease is extended`, async () => {
      const key = `cut-renew-${kind}-${randomUUID()}`
      const token = randomUUID()
      expect(await claims().record(event(key), token, HOLD)).toBe('taken')
      const cut = proxy.arm(/^UPDATE cuts\.claims AS c SET due_at/, kind)
      await expect(claims().renew(key, token, LONG)).rejects.toThrow()
      await cut
      expect(await claims().renew(key, token, LONG)).toBe(true)
      const lasts = await direct.query(
        `SELECT due_at > now() + interval '50 seconds' AS extended FROM ${schema}.claims WHERE key = $1`,
        [Buffer.from(key)],
      )
      expect(lasts.rows).toStrictEqual([{ extended: true }])
    })

    it(`complete cut (${kind}): it rejects; sent again it answers true and the key is done`, async () => {
      const key = `cut-complete-${kind}-${randomUUID()}`
      const token = randomUUID()
      expect(await claims().record(event(key), token, LONG)).toBe('taken')
      const cut = proxy.arm(/^UPDATE cuts\.claims AS c SET state = 'done'/, kind)
      await expect(claims().complete(key, token, LONG)).rejects.toThrow()
      await cut
      expect(await claims().complete(key, token, LONG)).toBe(true)
      expect(await claims().record(event(key), randomUUID(), LONG)).toBe('done')
    })

    it(`release cut (${kind}), uncounted: it rejects; sent again it answers true and gives the attempt back once`, async () => {
      const key = `cut-release-${kind}-${randomUUID()}`
      const first = randomUUID()
      expect(await claims().record(event(key), first, LONG)).toBe('taken')
      expect(await claims().release(key, first, { retryInMs: 0, counted: true, error: 'Error: a', dead: false })).toBe(
        true,
      )
      const second = lease()
      expect((await claims().take(key, second))?.event.attempts).toBe(2)
      const temporary = { retryInMs: 0, counted: false, error: 'Error: store down', dead: false }
      const cut = proxy.arm(/^UPDATE cuts\.claims AS c SET\n {2}state = CASE WHEN c\.state <> 'running'/, kind)
      await expect(claims().release(key, second.token, temporary)).rejects.toThrow()
      await cut
      expect(await claims().release(key, second.token, temporary)).toBe(true)
      // Given back once: 2 - 1, then counted again when taken. Twice would make it 1.
      const third = await claims().take(key, lease())
      expect(third?.event).toMatchObject({ attempts: 2, lastError: 'Error: store down' })
    })

    it(`retry cut (${kind}): it rejects; sent again the event is pending with its attempts reset, once`, async () => {
      const key = `cut-retry-${kind}-${randomUUID()}`
      const token = randomUUID()
      expect(await claims().record(event(key), token, LONG)).toBe('taken')
      await claims().release(key, token, { retryInMs: 0, counted: true, error: 'Error: x', dead: true })
      const cut = proxy.arm(/^UPDATE cuts\.claims AS c SET state = 'pending'/, kind)
      await expect(claims().retry(key)).rejects.toThrow()
      await cut
      // `reply`: it had made the event pending, so it is no longer dead.
      expect(await claims().retry(key)).toBe(kind === 'request')
      expect((await claims().take(key, lease()))?.event.attempts).toBe(1)
    })

    it(`forget cut (${kind}): it rejects; sent again every record of the payment is gone`, async () => {
      const ref = `order-${kind}-${randomUUID()}`
      const keys = [`cut-forget-${kind}-a-${randomUUID()}`, `cut-forget-${kind}-b-${randomUUID()}`]
      for (const key of keys) expect(await claims().record(event(key, ref), randomUUID(), LONG)).toBe('taken')
      const cut = proxy.arm(
        /^DELETE FROM cuts\.claims WHERE key_hash IN \(\n {2}SELECT c\.key_hash FROM cuts\.claims AS c WHERE c\.ref_hash/,
        kind,
      )
      await expect(claims().forget(ref)).rejects.toThrow()
      await cut
      expect(await claims().forget(ref)).toBe(kind === 'request' ? 2 : 0)
      for (const key of keys) expect(await claims().record(event(key, ref), randomUUID(), LONG)).toBe('taken')
    })

    it(`prune cut (${kind}): it rejects; sent again the done key past its keep is gone, and nothing else`, async () => {
      const key = `cut-prune-${kind}-${randomUUID()}`
      const kept = `${key}-kept`
      const token = randomUUID()
      for (const k of [key, kept]) {
        expect(await claims().record(event(k), token, LONG)).toBe('taken')
        expect(await claims().complete(k, token, LONG)).toBe(true)
      }
      // Its keep over on the server's clock, without waiting for it.
      await direct.query(`UPDATE ${schema}.claims SET expires_at = now() - interval '1 second' WHERE key = $1`, [
        Buffer.from(key),
      ])
      const cut = proxy.arm(/^DELETE FROM cuts\.claims WHERE key_hash IN/, kind)
      await expect(claims().prune(LONG)).rejects.toThrow()
      await cut
      await claims().prune(LONG)
      const left = await direct.query(`SELECT count(*)::int AS n FROM ${schema}.claims WHERE key = $1 OR key = $2`, [
        Buffer.from(key),
        Buffer.from(kept),
      ])
      expect(left.rows[0]?.n).toBe(1)
      expect(await claims().record(event(kept), randomUUID(), LONG)).toBe('done')
    })

    it(`open cut (${kind}): open sends it again on a new connection and resolves; the intent is listed once`, async () => {
      const journal = new PostgresIntentStore({ pool, schema })
      const intent = intentOf({ service: `cut-${kind}-${randomUUID()}` })
      const cut = proxy.arm(/INSERT INTO cuts\.intents/, kind)
      await journal.open(intent)
      await cut
      // As written, with the time the server wrote it (`writtenAt`, its own clock).
      const listed = await new PostgresIntentStore({ pool: direct, schema }).openIntents(intent.service)
      expect(listed.map(({ writtenAt: _, ...rest }) => rest)).toStrictEqual([intent])
      expect(Number.isFinite(listed[0]?.writtenAt)).toBe(true)
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

  it('the card callback handler on a connection cut after the record ran and after the done mark ran: onEvent once, the effect once', async () => {
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
      recoverEveryMs: 0,
      onEvent: async (event, { key }) => {
        runs++
        await inbox.runOnce(key, (tx) => tx.query(`INSERT INTO ${schema}.payments_seen (id) VALUES ($1)`, [event.id]))
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
    const recordCut = proxy.arm(/INSERT INTO cuts\.claims AS c/s, 'reply')
    expect(await handler.handle(body)).toMatchObject({ status: 200 })
    await recordCut
    const completeCut = proxy.arm(/UPDATE cuts\.claims AS c SET state = 'done'/s, 'reply')
    await handler.drain()
    await completeCut
    expect(await handler.handle(body)).toMatchObject({ status: 200 })
    await handler.drain()
    expect(runs).toBe(1)
    expect(await seen(id)).toBe(1)
    await handler.close()
    await gw.close()
  })

  it('a server restart while events are recorded and taken: every event whose record answered is there after it, and is taken exactly once', async () => {
    const store = new PostgresClaimStore({ pool: direct, schema })
    const prefix = `restart-inbox-${randomUUID()}`
    const acked: string[] = []
    const failures: string[] = []
    let i = 0
    let running = true
    const load = (async () => {
      while (running) {
        const key = `${prefix}-${i++}`
        try {
          // What the inbox does before it answers 200: the event is acknowledged only once recorded.
          const answer = await store.record(event(key), randomUUID(), undefined)
          expect(answer).toBe('recorded')
          acked.push(key)
        } catch (error) {
          failures.push(error instanceof Error ? error.message : String(error))
        }
      }
    })()
    // The records run one after another, so one may or may not be at the server as it stops: a
    // statement held there is in flight for certain, and must fail as clearly.
    while (acked.length < 20) await new Promise((resolve) => setImmediate(resolve))
    const { outcome: held } = await holdAtServer(direct)
    await server().restart()
    const afterRestart = acked.length
    while (acked.length < afterRestart + 20) await new Promise((resolve) => setImmediate(resolve))
    running = false
    await load
    expect(await held).toMatch(/terminat|connect|ECONNREFUSED|shut|Connection/i)
    for (const message of failures)
      expect(message).toMatch(/terminat|connect|ECONNREFUSED|ECONNRESET|shut|starting up|Connection/i)
    // Every acknowledged event is there to run, once; a record that failed may or may not have landed.
    const taken = new Map<string, number>()
    for (;;) {
      const batch = (await store.takeDue(lease(), 100)).filter((t) => t.event.key.startsWith(`${prefix}-`))
      if (batch.length === 0) break
      for (const t of batch) taken.set(t.event.key, (taken.get(t.event.key) ?? 0) + 1)
    }
    for (const key of acked) expect(taken.get(key)).toBe(1)
    expect([...taken.values()].every((n) => n === 1)).toBe(true)
    console.info(
      `inbox restart figures: ${i} records sent, ${acked.length} acknowledged, ${failures.length} failed during the restart, ${taken.size} taken after it, 0 lost, 0 twice`,
    )
  }, 60_000)

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
    // Restart once the load is under way (some items done), while items are in flight. The items
    // run one after another, so one may or may not be at the server as it stops: a statement held
    // there is in flight for certain, and must fail as clearly.
    while (acked.length < 20) await new Promise((resolve) => setImmediate(resolve))
    const { outcome: held } = await holdAtServer(direct)
    await server().restart()
    const afterRestart = acked.length
    while (acked.length < afterRestart + 20) await new Promise((resolve) => setImmediate(resolve))
    running = false
    await load
    expect(await held).toMatch(/terminat|connect|ECONNREFUSED|shut|Connection/i)
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
