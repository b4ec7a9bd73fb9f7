/**
 * PostgresClaimStore.record's group commit from the attacker's side, against a real PostgreSQL:
 * refusals raised by a DBA's trigger with several SQLSTATEs, runners racing on one key over
 * several instances, 200 previous keys, random bursts compared with the same records made one at
 * a time (v1 rows included), a full batch cut on its reply, refused input in a burst, a stalled
 * connection, a pool ended under a batch.
 */

import { randomUUID } from 'node:crypto'
import type { NewEvent } from '@paywire/core'
import type pg from 'pg'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { mulberry32 } from '../../../tests/reliability/support/random.js'
import { PostgresClaimStore } from '../src/index.js'
import { type CutProxy, startCutProxy } from './cut-proxy.js'
import { freshSchema, refuseRefs, watched } from './helpers.js'
import { describeWithPostgres } from './postgres-server.js'

const event = (key: string, previousKeys: string[] = [], ref = `ref-${key}`): NewEvent => ({
  key,
  previousKeys,
  fields: `{"trans_id":"${key}"}`,
  ref,
})

const turn = () => new Promise<void>((resolve) => setImmediate(resolve))

describeWithPostgres('PostgresClaimStore.record in batches, adversarial', (server) => {
  let direct: pg.Pool
  let schema: string
  const pools: pg.Pool[] = []
  const pool = (options: { port?: number; max?: number } = {}) => {
    const made = server().pool(options)
    pools.push(made)
    return made
  }
  beforeAll(async () => {
    direct = server().pool()
    schema = await freshSchema(direct, 'adversary')
  })
  afterAll(async () => {
    await Promise.all(pools.map((one) => one.end().catch(() => {})))
    await direct.end()
  })

  const row = async (table: string, key: string) =>
    (
      await direct.query(
        `SELECT token, state, attempts, done, convert_from(fields, 'UTF8') AS fields, convert_from(ref, 'UTF8') AS ref
         FROM ${table}.claims WHERE key = convert_to($1, 'UTF8')`,
        [key],
      )
    ).rows[0]

  /** Marks `key` done in `store` (recorded, then completed by its runner). */
  const done = async (store: PostgresClaimStore, key: string) => {
    expect(await store.record(event(key), `done-${key}`, 60_000)).toBe('taken')
    expect(await store.complete(key, `done-${key}`, 600_000)).toBe(true)
  }

  /** A v1 claim of `key` in `table`: held for 10 minutes, or done. */
  const v1 = (table: string, key: string, isDone: boolean) =>
    direct.query(
      `INSERT INTO ${table}.claims (key_hash, key, token, done, expires_at)
       VALUES (sha256(convert_to($1, 'UTF8')), convert_to($1, 'UTF8'), 'v1-token', $2, now() + interval '10 minutes')`,
      [key, isDone],
    )

  /** A schema whose claims refuse, by a DBA's trigger, the events of the refs listed with a SQLSTATE each (NULL: RAISE's default). */
  const guardedSchema = async (name: string, refusals: Record<string, string | null>) => {
    const guarded = await freshSchema(direct, name)
    await refuseRefs(direct, guarded, refusals)
    return guarded
  }

  it('refusals with SQLSTATE classes 22, 23 and 40 in one full batch each fail alone; the other 60 are recorded', async () => {
    const guarded = await guardedSchema('adv_classes', {
      'ref-bad22': '22023',
      'ref-bad23': '23505',
      'ref-bad40': '40001',
      'ref-bad23b': '23514',
    })
    const seen = watched(pool({ max: 4 }))
    const store = new PostgresClaimStore({ pool: seen.pool, schema: guarded })
    const first = store.record(event('first'), 't-first', 60_000)
    const bad = new Map([
      [5, 'bad22'],
      [17, 'bad23'],
      [40, 'bad40'],
      [63, 'bad23b'],
    ])
    // 128 waiting behind the first: the next statement carries half, capped at a full batch of 64.
    const calls = Array.from({ length: 128 }, (_, i) =>
      store.record(event(bad.get(i) ?? `good-${i}`), `t-${i}`, i % 2 === 0 ? 60_000 : undefined),
    )
    expect(await first).toBe('taken')
    const outcomes = await Promise.allSettled(calls)
    outcomes.forEach((outcome, i) => {
      const which = bad.get(i)
      if (which !== undefined) {
        expect(outcome, `call ${i}`).toMatchObject({ status: 'rejected', reason: { message: `refused ref-${which}` } })
      } else expect(outcome, `call ${i}`).toEqual({ status: 'fulfilled', value: i % 2 === 0 ? 'taken' : 'recorded' })
    })
    // The first, the batch of 64 refused whole, then each of the 64 alone; the other 64 in one.
    expect(seen.records).toBe(1 + 1 + 64 + 1)
    const { rows } = await direct.query(`SELECT count(*)::int AS n FROM ${guarded}.claims`)
    expect(rows[0].n).toBe(1 + 128 - 4)
  })

  it('an event refused by a plain RAISE EXCEPTION (SQLSTATE P0001) fails alone; its batch-mates are recorded', async () => {
    // A DBA's trigger most often raises without an ERRCODE: SQLSTATE P0001 (raise_exception).
    // Found by this review: only classes 22, 23 and 40 were sent again alone, so up to 63 events
    // that were fine failed with another event's refusal.
    const guarded = await guardedSchema('adv_p0001', { 'ref-refused': null })
    const store = new PostgresClaimStore({ pool: pool({ max: 4 }), schema: guarded })
    const first = store.record(event('first'), 't-first', 60_000)
    const batch = [
      store.record(event('a'), 't-a', 60_000),
      store.record(event('refused'), 't-refused', 60_000),
      store.record(event('c'), 't-c', undefined),
    ]
    expect(await first).toBe('taken')
    const [a, refused, c] = await Promise.allSettled(batch)
    expect(refused).toMatchObject({ status: 'rejected', reason: { code: 'P0001' } })
    expect({ a, c }).toEqual({
      a: { status: 'fulfilled', value: 'taken' },
      c: { status: 'fulfilled', value: 'recorded' },
    })
  })

  it('forty runners per key on four instances (four pools) at once: exactly one writer per key, the rest known', async () => {
    const stores = [pool({ max: 3 }), pool({ max: 3 }), pool({ max: 3 }), pool({ max: 3 })].map(
      (one) => new PostgresClaimStore({ pool: one, schema }),
    )
    const run = randomUUID().slice(0, 8)
    const keys = Array.from({ length: 20 }, (_, i) => `${run}-race-${i}`)
    const random = mulberry32(5)
    const calls: Array<{ key: string; token: string; pending: boolean }> = []
    const answers: Array<Promise<string>> = []
    for (let runner = 0; runner < 40; runner++) {
      for (const key of keys) {
        const store = stores[Math.floor(random() * stores.length)] as PostgresClaimStore
        const token = `t${runner}-${key}`
        const pending = random() < 0.5
        calls.push({ key, token, pending })
        answers.push(store.record(event(key), token, pending ? undefined : 60_000))
      }
    }
    const got = await Promise.all(answers)
    for (const key of keys) {
      const mine = calls.map((call, i) => ({ ...call, got: got[i] })).filter((call) => call.key === key)
      const writers = mine.filter((call) => call.got !== 'known')
      expect(writers, key).toHaveLength(1)
      const [writer] = writers
      expect(writer?.got).toBe(writer?.pending ? 'recorded' : 'taken')
      expect(await row(schema, key)).toMatchObject({
        token: writer?.token,
        state: writer?.pending ? 'pending' : 'running',
        attempts: writer?.pending ? 0 : 1,
      })
    }
  })

  it('200 previous keys, one of them done; a key that is its own previous key; previous keys repeated; v1 claims', async () => {
    const store = new PostgresClaimStore({ pool: pool({ max: 4 }), schema })
    const run = randomUUID().slice(0, 8)
    const k = (name: string) => `${run}-${name}`
    await done(store, k('p150'))
    await done(store, k('selfdone'))
    await v1(schema, k('v1held'), false)
    await v1(schema, k('v1done'), true)
    const previous = Array.from({ length: 200 }, (_, i) => k(`p${i}`))
    const answers = await Promise.all([
      store.record(event(k('many'), previous), 't-many', 60_000),
      store.record(
        event(
          k('many-but-150'),
          previous.filter((p) => p !== k('p150')),
        ),
        't-mb',
        60_000,
      ),
      store.record(event(k('self'), [k('self'), k('self')]), 't-self', 60_000),
      store.record(event(k('self'), [k('self')]), 't-self-2', 60_000),
      store.record(event(k('selfdone'), [k('selfdone')]), 't-sd', 60_000),
      store.record(event(k('after-self'), [k('self'), k('self'), k('p3')]), 't-as', undefined),
      store.record(event(k('dup'), [k('p150'), k('p150')]), 't-dup', 60_000),
      store.record(event(k('uses-v1held'), [k('v1held')]), 't-uh', 60_000),
      store.record(event(k('uses-v1done'), [k('x'), k('v1done')]), 't-ud', 60_000),
      store.record(event(k('v1held'), [k('v1held')]), 't-vh', 60_000),
      store.record(event(k('empty')), 't-empty', 60_000),
    ])
    expect(answers).toEqual([
      'done',
      'taken',
      'taken',
      'known',
      'done',
      'recorded',
      'done',
      'held',
      'done',
      'held',
      'taken',
    ])
    for (const name of ['many', 'dup', 'uses-v1held', 'uses-v1done']) expect(await row(schema, k(name))).toBeUndefined()
  })

  it('random bursts (fixed seeds) answer exactly as the same records made one at a time, and leave the same rows', async () => {
    const one = await freshSchema(direct, 'adv_one_by_one')
    const batchedStore = new PostgresClaimStore({ pool: pool({ max: 4 }), schema })
    const singleStore = new PostgresClaimStore({ pool: pool({ max: 2 }), schema: one })
    for (const seed of [3, 17, 2024]) {
      const random = mulberry32(seed)
      const run = `${seed}-${randomUUID().slice(0, 8)}`
      const keySpace = Array.from({ length: 14 }, (_, i) => `${run}-r${i}`)
      const pick = () => keySpace[Math.floor(random() * keySpace.length)] as string
      const plan = Array.from({ length: 220 }, () => {
        const key = pick()
        const previous = random() < 0.35 ? Array.from({ length: 1 + Math.floor(random() * 3) }, pick) : []
        const token = `tok-${key}-${Math.floor(random() * 3)}`
        const lease = random() < 0.5 ? 60_000 : undefined
        const wait = random() < 0.15
        return { event: event(key, previous, `ref-${Math.floor(random() * 4)}`), token, lease, wait }
      })
      for (const [table, store] of [
        [schema, batchedStore],
        [one, singleStore],
      ] as const) {
        await done(store, keySpace[1] as string)
        await done(store, keySpace[7] as string)
        await v1(table, keySpace[4] as string, true)
        await v1(table, keySpace[9] as string, false)
      }
      const inBatches: Array<Promise<string>> = []
      for (const step of plan) {
        if (step.wait) await turn()
        inBatches.push(batchedStore.record(step.event, step.token, step.lease))
      }
      const answers = await Promise.all(inBatches)
      const oneByOne: string[] = []
      for (const step of plan) oneByOne.push(await singleStore.record(step.event, step.token, step.lease))
      expect(answers, `seed ${seed}`).toEqual(oneByOne)
      for (const key of keySpace) expect(await row(schema, key), `seed ${seed} ${key}`).toEqual(await row(one, key))
    }
  })

  it('a reply lost for a full batch of 64 fails those 64 only; the batch behind goes; each sent again answers as its first write', async () => {
    let proxy: CutProxy | undefined
    try {
      proxy = await startCutProxy(server().port)
      const cutProxy = proxy
      let cut: Promise<void> | undefined
      // The second record statement (the batch of 64) is cut on its reply. Its pool's three
      // connections are open first, so the statements go out in the order they leave the store.
      const proxied = pool({ port: proxy.port, max: 3 })
      await Promise.all([1, 2, 3].map(() => proxied.query('SELECT pg_sleep(0.02)')))
      const seen = watched(proxied, (n) => {
        if (n === 2) cut = cutProxy.arm(/^WITH i AS/, 'reply')
      })
      const store = new PostgresClaimStore({ pool: seen.pool, schema })
      const run = randomUUID().slice(0, 8)
      // 200 waiting behind the first: the second statement carries a full batch of 64.
      const keys = Array.from({ length: 200 }, (_, i) => `${run}-cut-${i}`)
      const first = store.record(event(`${run}-first`), 't-first', 60_000)
      // Settled as they come: the cut batch may fail while the first still waits for its answer.
      const settled = Promise.allSettled(
        keys.map((key, i) => store.record(event(key), `t-${key}`, i % 2 === 0 ? 60_000 : undefined)),
      )
      expect(await first).toBe('taken')
      const outcomes = await settled
      await cut
      const lost = outcomes.flatMap((outcome, i) => (outcome.status === 'rejected' ? [i] : []))
      expect(lost).toEqual(Array.from({ length: 64 }, (_, i) => i))
      outcomes.slice(64).forEach((outcome, j) => {
        expect(outcome).toEqual({ status: 'fulfilled', value: (64 + j) % 2 === 0 ? 'taken' : 'recorded' })
      })
      const again = await Promise.all(
        keys.map((key, i) => store.record(event(key), `t-${key}`, i % 2 === 0 ? 60_000 : undefined)),
      )
      expect(again).toEqual(keys.map((_, i) => (i % 2 === 0 ? 'taken' : 'recorded')))
      const others = await Promise.all(keys.map((key) => store.record(event(key), 'someone-else', 60_000)))
      expect(new Set(others)).toEqual(new Set(['known']))
    } finally {
      await proxy?.close()
    }
  })

  it('refused input in the middle of a burst sends nothing and does not disturb the batch', async () => {
    const seen = watched(pool({ max: 2 }))
    const store = new PostgresClaimStore({ pool: seen.pool, schema })
    const run = randomUUID().slice(0, 8)
    const first = store.record(event(`${run}-first`), 't-first', 60_000)
    const good = ['g1', 'g2', 'g3'].map((key) => store.record(event(`${run}-${key}`), `t-${key}`, 60_000))
    const refused = [
      store.record(event(`${run}-lone\uD800`), 't', 60_000),
      store.record(event(`${run}-ok`, ['\uDC00prev']), 't', 60_000),
      store.record({ ...event(`${run}-ok2`), fields: 'x\uD83D' }, 't', 60_000),
      store.record(event(`${run}-ok3`), 'nul\u0000token', 60_000),
      store.record(event(`${run}-ok4`), '', 60_000),
      store.record(event(`${run}-ok5`), 't', 0),
      store.record(event(`${run}-ok6`), 't', 101 * 365 * 24 * 3600 * 1000),
      store.record(event(`${run}-ok7`), 't', Number.NaN),
      store.record({ ...event(`${run}-ok8`), previousKeys: 'p' as unknown as string[] }, 't', 60_000),
      store.record(null as unknown as NewEvent, 't', 60_000),
    ]
    for (const one of refused) await expect(one).rejects.toThrow(/PostgresClaimStore\.record/)
    expect(await first).toBe('taken')
    expect(await Promise.all(good)).toEqual(['taken', 'taken', 'taken'])
    // The first, then g1 and g2 (half of the four), then g3: none of the refused.
    expect(seen.records).toBe(3)
    const { rows } = await direct.query(
      `SELECT count(*)::int AS n FROM ${schema}.claims WHERE convert_from(key, 'UTF8') LIKE $1`,
      [`${run}-ok%`],
    )
    expect(rows[0].n).toBe(0)
  })

  it('fields of every byte kind, 64 events of 256 KiB in one statement, come back exactly; unicode and NUL keys stay apart', async () => {
    const store = new PostgresClaimStore({ pool: pool({ max: 2 }), schema })
    const run = randomUUID().slice(0, 8)
    const blocker = store.record(event(`${run}-blocker`), 't-blocker', 60_000)
    const big = (i: number) => `${String(i).padStart(3, '0')}\u0000é😀\r\n${'x'.repeat(256 * 1024)}`
    const keys = Array.from({ length: 63 }, (_, i) =>
      i % 3 === 0 ? `${run}-k\u0000${i}` : i % 3 === 1 ? `${run}-k😀${i}` : `${run}-k${i}`,
    )
    keys.push(`${run}-ké`)
    const calls = keys.map((key, i) => store.record({ ...event(key), fields: big(i) }, `t-${i}`, 60_000))
    expect(await blocker).toBe('taken')
    expect(await Promise.all(calls)).toEqual(keys.map(() => 'taken'))
    expect(await store.record(event(`${run}-ke\u0301`), 't-decomposed', 60_000)).toBe('taken')
    const { rows } = await direct.query(`SELECT key, fields FROM ${schema}.claims WHERE key = ANY($1::bytea[])`, [
      keys.map((key) => Buffer.from(key, 'utf8')),
    ])
    expect(rows).toHaveLength(64)
    for (const found of rows) {
      const key = (found.key as Buffer).toString('utf8')
      const i = keys.indexOf(key)
      expect(i, key).toBeGreaterThanOrEqual(0)
      expect((found.fields as Buffer).equals(Buffer.from(big(i), 'utf8')), key).toBe(true)
    }
  })

  it('a stalled connection fails its batch at statementTimeoutMs; the records behind it then go, and the stalled ones sent again are written once', async () => {
    let proxy: CutProxy | undefined
    try {
      proxy = await startCutProxy(server().port)
      const stalling = pool({ port: proxy.port, max: 2 })
      const store = new PostgresClaimStore({ pool: stalling, schema, statementTimeoutMs: 500 })
      const run = randomUUID().slice(0, 8)
      expect(await store.record(event(`${run}-warm`), 't-warm', 60_000)).toBe('taken')
      // The next batch leaves a turn after the last answer: let it, so the stalled record goes alone.
      await turn()
      await turn()
      // The pool's idle connection stalls; connections opened from now on are fine.
      proxy.stall()
      proxy.resume()
      const stalled = store.record(event(`${run}-stalled`), 't-stalled', 60_000)
      const behind = ['a', 'b', 'c'].map((key) => store.record(event(`${run}-${key}`), `t-${key}`, 60_000))
      await expect(stalled).rejects.toThrow(/did not answer its statement within 500 ms/)
      expect(await Promise.all(behind)).toEqual(['taken', 'taken', 'taken'])
      expect(await store.record(event(`${run}-stalled`), 't-stalled', 60_000)).toBe('taken')
      expect(await store.record(event(`${run}-stalled`), 't-other', 60_000)).toBe('known')
    } finally {
      await proxy?.close()
    }
  })

  it('a record of one key waiting on a row lock someone else holds stops the records of other keys for SLOW_BATCH_MS at most', async () => {
    // Before group commit each record had its own statement and connection: a row lock held
    // elsewhere (a DBA's transaction, a long UPDATE) held only the record of that key. Found by
    // this review: the store's one batch in flight waited on it, and every record of any key made
    // meanwhile waited behind it, up to statementTimeoutMs (30 s by default), past the inbox's own
    // 5 s record deadline. Now a batch unanswered after SLOW_BATCH_MS (1 s) stops holding back
    // the others.
    const store = new PostgresClaimStore({ pool: pool({ max: 4 }), schema })
    const run = randomUUID().slice(0, 8)
    const hot = `${run}-hot`
    expect(await store.record(event(hot), 't-hot', 60_000)).toBe('taken')
    const locker = await direct.connect()
    try {
      await locker.query('BEGIN')
      await locker.query(`SELECT 1 FROM ${schema}.claims WHERE key = convert_to($1, 'UTF8') FOR UPDATE`, [hot])
      await turn()
      await turn()
      // Sent again by its runner (a lost reply, as it saw it): waits on the lock at the server.
      const waiting = store.record(event(hot), 't-hot', 60_000)
      waiting.catch(() => {})
      for (;;) {
        const { rows } = await direct.query(
          `SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND (query LIKE 'WITH prev AS%' OR query LIKE 'WITH i AS%')`,
        )
        if (rows[0].n > 0) break
      }
      let hotSettled = false
      waiting.then(
        () => {
          hotSettled = true
        },
        () => {
          hotSettled = true
        },
      )
      // A record made one at a time (another instance on the same server) is answered meanwhile.
      const other = new PostgresClaimStore({ pool: pool({ max: 1 }), schema })
      expect(await other.record(event(`${run}-elsewhere`), 't-e', 60_000)).toBe('taken')
      // The unrelated record goes once the hung batch is slow, while the hot key's still waits.
      expect(await store.record(event(`${run}-unrelated`), 't-u', 60_000)).toBe('taken')
      expect(hotSettled).toBe(false)
    } finally {
      await locker.query('ROLLBACK')
      locker.release()
    }
  })

  it('a pool ended with a batch in flight and records waiting: every record settles, none hangs', async () => {
    const ending = server().pool({ max: 2 })
    const store = new PostgresClaimStore({ pool: ending, schema })
    const run = randomUUID().slice(0, 8)
    expect(await store.record(event(`${run}-warm`), 't-warm', 60_000)).toBe('taken')
    const inFlight = store.record(event(`${run}-a`), 't-a', 60_000)
    const waiting = Array.from({ length: 30 }, (_, i) => store.record(event(`${run}-w${i}`), `t-w${i}`, 60_000))
    // In flight means on a connection: node-postgres's pool drops a connect() still waiting for its
    // idle connection when end() is called (pg-pool 3), and that record waits for its deadline.
    while (ending.idleCount > 0) await new Promise<void>((resolve) => setImmediate(resolve))
    const ended = ending.end()
    const outcomes = await Promise.allSettled([inFlight, ...waiting])
    await ended
    // What reached a connection before end() is written; what had not is refused, not left waiting.
    for (const outcome of outcomes) {
      if (outcome.status === 'fulfilled') expect(outcome.value).toBe('taken')
      else expect(String(outcome.reason)).toMatch(/after calling end on the pool/)
    }
    expect(outcomes.filter((outcome) => outcome.status === 'rejected').length).toBeGreaterThan(0)
    await expect(store.record(event(`${run}-after`), 't-after', 60_000)).rejects.toThrow()
  })

  it('what is written is the event as checked, whatever the caller changes while it waits (previous keys too)', async () => {
    const store = new PostgresClaimStore({ pool: pool({ max: 2 }), schema })
    const run = randomUUID().slice(0, 8)
    await done(store, `${run}-finished`)
    const blocker = store.record(event(`${run}-blocker`), 't-blocker', 60_000)
    const mutable = { key: `${run}-mine`, previousKeys: [`${run}-old`], fields: '{"amount":"10.00"}', ref: 'ref-mine' }
    const waiting = store.record(mutable, 't-mine', 60_000)
    mutable.key = `${run}-theirs`
    mutable.fields = '{"amount":"99999.00"}'
    mutable.previousKeys.push(`${run}-finished`)
    mutable.previousKeys[0] = `${run}-finished`
    expect(await blocker).toBe('taken')
    expect(await waiting).toBe('taken')
    expect(await row(schema, `${run}-mine`)).toMatchObject({ fields: '{"amount":"10.00"}', ref: 'ref-mine' })
    expect(await row(schema, `${run}-theirs`)).toBeUndefined()
  })
})
