/**
 * The rules of core's `ClaimStore` and `IntentStore` (packages/core/src/journal/stores.ts) as one
 * table-driven suite, run over every store: memory (packages/core/test), Redis (packages/redis/test)
 * and PostgreSQL (packages/postgres/test), so no store can drift from the others. A new store is one
 * more `ConformanceStore` row in its package's test file, passed to `storeConformance`.
 */

import { randomUUID } from 'node:crypto'
import type { ClaimStore, Intent, IntentStore, Lease, NewEvent, ReleaseOptions, TakenEvent } from '@paywire/core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

/** A pair of stores under test, and how time passes for them. */
export interface StoreSubject {
  /** A claim store over the same data as every other one this subject made (another instance on Redis). */
  claims(): ClaimStore
  /** An intent store over the same data as every other one this subject made. */
  intents(): IntentStore
  /** The hold and keep used where a test waits for expiry: short real time on Redis. */
  readonly holdMs: number
  /** How far the store's clock may be from this process's `Date.now()` (a receive time is the store's). */
  readonly clockSkewMs: number
  /**
   * Lets `ms` go by, then resolves once `until()` holds: a test clock jumps at once; real time is
   * polled with a deadline (never a fixed sleep). Rejects when `until()` never holds.
   */
  pass(ms: number, until: () => Promise<boolean>): Promise<void>
}

/** One row of the table: a store to run the whole suite over. */
export interface ConformanceStore {
  /** Shown in the test names: `PostgreSQL 15`, `Redis, node-redis 6, 3 connections`. */
  readonly name: string
  /**
   * Why the store cannot run here (its server is not installed), or undefined. The suite is then
   * skipped with the reason printed, unless `required` (CI), where it fails.
   */
  readonly unavailable?: string | undefined
  /** Set in CI (PAYWIRE_REQUIRE_REDIS=1, PAYWIRE_REQUIRE_POSTGRES=1): a missing server fails, never skips. */
  readonly required?: boolean
  /** Starts what the store needs (a server, connections) and answers the subject, and how to stop it all. */
  setup(): Promise<{ subject: StoreSubject; teardown(): Promise<void> }>
}

/** Runs the ClaimStore and IntentStore contracts over every store of `stores`, one `describe` each. */
export function storeConformance(stores: readonly ConformanceStore[]): void {
  for (const store of stores) {
    const title = `conformance: ${store.name}`
    if (store.unavailable !== undefined) {
      if (store.required) {
        describe(title, () => {
          it('needs its server (required here: skipping is forbidden)', () => {
            throw new Error(`${store.name} is required but ${store.unavailable}`)
          })
        })
      } else {
        console.warn(`${title} skipped: ${store.unavailable}`)
        describe.skip(`${title} [skipped: ${store.unavailable}]`, () => {})
      }
      continue
    }
    describe(title, () => {
      let made: { subject: StoreSubject; teardown(): Promise<void> } | undefined
      beforeAll(async () => {
        made = await store.setup()
      }, 30_000)
      afterAll(async () => {
        await made?.teardown()
      })
      const subject = () => {
        if (!made) throw new Error(`${store.name}: setup did not finish`)
        return made.subject
      }
      claimStoreContract(subject)
      intentStoreContract(subject)
    })
  }
}

/** A key no other test uses (a server is shared by a file's tests). */
const fresh = (label: string) => `${label}:${randomUUID()}`

/** Long enough that nothing expires during a test that does not wait for it. */
const LONG = 60_000

export function claimStoreContract(subject: () => StoreSubject): void {
  describe('ClaimStore contract', () => {
    const token = () => randomUUID()
    const lease = (ms = LONG, maxAttempts = 8): Lease => ({ token: token(), ms, maxAttempts })
    const event = (key: string, over: Partial<NewEvent> = {}): NewEvent => ({
      key,
      previousKeys: [],
      fields: `{"id":"${key}"}`,
      ref: `order:${key}`,
      ...over,
    })
    const retryNow: ReleaseOptions = { retryInMs: 1, counted: true, error: 'Error: boom', dead: false }

    it('a new event recorded with a lease is taken by its token; any later record is known, from any instance', async () => {
      const s = subject()
      const key = fresh('taken')
      expect(await s.claims().record(event(key), token(), LONG)).toBe('taken')
      expect(await s.claims().record(event(key), token(), LONG)).toBe('known')
      expect(await s.claims().record(event(key), token(), undefined)).toBe('known')
    })

    it('a record sent again with the same token (its reply lost) answers as the first did; another token is told known', async () => {
      const s = subject()
      const leased = fresh('again-leased')
      const mine = token()
      expect(await s.claims().record(event(leased), mine, LONG)).toBe('taken')
      expect(await s.claims().record(event(leased), mine, LONG)).toBe('taken')
      expect(await s.claims().record(event(leased), token(), LONG)).toBe('known')
      const pending = fresh('again-pending')
      const other = token()
      expect(await s.claims().record(event(pending), other, undefined)).toBe('recorded')
      expect(await s.claims().record(event(pending), other, undefined)).toBe('recorded')
      // Once someone else took it, the retry no longer finds it as it left it.
      const taker = lease()
      expect((await s.claims().take(pending, taker))?.event.attempts).toBe(1)
      expect(await s.claims().record(event(pending), other, undefined)).toBe('known')
    })

    it('ten records of one key at once, each with its own token: exactly one is taken', async () => {
      const s = subject()
      const key = fresh('race')
      const answers = await Promise.all(
        Array.from({ length: 10 }, (_, i) => s.claims().record(event(key), token(), i % 2 === 0 ? LONG : undefined)),
      )
      expect(answers.filter((a) => a === 'taken' || a === 'recorded')).toHaveLength(1)
      expect(answers.filter((a) => a === 'known')).toHaveLength(9)
    })

    it('a recorded event keeps its fields, ref and receive time exactly; take counts the attempt before the run', async () => {
      const s = subject()
      const key = fresh('fields')
      const fields = JSON.stringify({ id: key, text: 'é 付款 🧾 \u0000 "q" \\', long: 'x'.repeat(65_536) })
      const before = Date.now()
      expect(await s.claims().record(event(key, { fields, ref: 'order ✓ 1' }), token(), undefined)).toBe('recorded')
      const after = Date.now()
      const taken = await s.claims().take(key, lease())
      expect(taken?.dead).toBe(false)
      expect(taken?.event).toMatchObject({ key, fields, ref: 'order ✓ 1', attempts: 1, state: 'running' })
      expect(taken?.event.lastError).toBeUndefined()
      const receivedAt = taken?.event.receivedAt ?? 0
      expect(receivedAt).toBeGreaterThanOrEqual(before - s.clockSkewMs)
      expect(receivedAt).toBeLessThanOrEqual(after + s.clockSkewMs)
    })

    it('keys are independent: holding one blocks no other', async () => {
      const s = subject()
      const key = fresh('a')
      expect(await s.claims().record(event(key), token(), LONG)).toBe('taken')
      expect(await s.claims().record(event(`${key}:b`), token(), LONG)).toBe('taken')
      expect(await s.claims().record(event(key.slice(0, -1)), token(), LONG)).toBe('taken')
    })

    it('a running event is not taken again while its lease lasts, by take or takeDue', async () => {
      const s = subject()
      const key = fresh('leased')
      await s.claims().record(event(key), token(), LONG)
      expect(await s.claims().take(key, lease())).toBeUndefined()
      const due = await s.claims().takeDue(lease(), 1_000)
      expect(due.map((t) => t.event.key)).not.toContain(key)
    })

    it('complete by the holder answers true, drops the fields, and every later record is done, from any instance', async () => {
      const s = subject()
      const key = fresh('complete')
      const mine = token()
      await s.claims().record(event(key), mine, LONG)
      expect(await s.claims().complete(key, mine, LONG)).toBe(true)
      expect(await s.claims().complete(key, mine, LONG)).toBe(true) // sent again after a lost reply
      expect(await s.claims().record(event(key), token(), LONG)).toBe('done')
      expect(await s.claims().record(event(key), mine, LONG)).toBe('done')
      expect(await s.claims().take(key, lease())).toBeUndefined()
      expect(await s.claims().release(key, mine, retryNow)).toBe(false)
      expect(await s.claims().record(event(key), token(), undefined)).toBe('done')
    })

    it('complete, renew or release with another token answers false and changes nothing', async () => {
      const s = subject()
      const key = fresh('other-token')
      const mine = token()
      await s.claims().record(event(key), mine, LONG)
      expect(await s.claims().complete(key, token(), LONG)).toBe(false)
      expect(await s.claims().renew(key, token(), LONG)).toBe(false)
      expect(await s.claims().release(key, token(), retryNow)).toBe(false)
      expect(await s.claims().renew(key, mine, LONG)).toBe(true)
      expect(await s.claims().complete(key, mine, LONG)).toBe(true)
    })

    it('an empty token is refused: it would prove nobody', async () => {
      const s = subject()
      const key = fresh('empty-token')
      await expect(s.claims().record(event(key), '', LONG)).rejects.toThrow(/token/)
      await expect(s.claims().take(key, { token: '', ms: LONG, maxAttempts: 3 })).rejects.toThrow(/token/)
      await expect(s.claims().complete(key, '', LONG)).rejects.toThrow(/token/)
      await expect(s.claims().renew(key, '', LONG)).rejects.toThrow(/token/)
      await expect(s.claims().release(key, '', retryNow)).rejects.toThrow(/token/)
      expect(await s.claims().record(event(key), token(), LONG)).toBe('taken')
    })

    it('a counted release makes the event pending until its retry time, then any instance takes it as attempt 2', async () => {
      const s = subject()
      const key = fresh('release')
      const mine = token()
      await s.claims().record(event(key), mine, LONG)
      expect(
        await s.claims().release(key, mine, { retryInMs: s.holdMs, counted: true, error: 'Error: boom', dead: false }),
      ).toBe(true)
      // Sent again after a lost reply: acknowledged, the attempt not given back twice.
      expect(
        await s.claims().release(key, mine, { retryInMs: s.holdMs, counted: true, error: 'Error: boom', dead: false }),
      ).toBe(true)
      expect(await s.claims().take(key, lease())).toBeUndefined()
      expect(await s.claims().record(event(key), token(), LONG)).toBe('known')
      let taken: TakenEvent | undefined
      await s.pass(s.holdMs, async () => {
        taken = await s.claims().take(key, lease())
        return taken !== undefined
      })
      expect(taken?.event).toMatchObject({ attempts: 2, state: 'running', lastError: 'Error: boom' })
      expect(await s.claims().complete(key, mine, LONG)).toBe(false) // the first runner no longer holds it
    })

    it('an uncounted release gives the attempt back (a temporary failure)', async () => {
      const s = subject()
      const key = fresh('uncounted')
      const mine = token()
      await s.claims().record(event(key), mine, LONG)
      await s.claims().release(key, mine, { retryInMs: 1, counted: false, error: undefined, dead: false })
      let taken: TakenEvent | undefined
      await s.pass(1, async () => {
        taken = await s.claims().take(key, lease())
        return taken !== undefined
      })
      expect(taken?.event.attempts).toBe(1)
    })

    /** Takes `key` once it is due (a retry of 1 ms has passed), from another instance. */
    const takeWhenDue = async (s: StoreSubject, key: string, by: Lease = lease()) => {
      let taken: TakenEvent | undefined
      await s.pass(1, async () => {
        taken = await s.claims().take(key, by)
        return taken !== undefined
      })
      return taken
    }

    it("a release with fields replaces the record's: the next take reads them; a release without fields keeps them, and so does a dead one listed", async () => {
      const s = subject()
      const key = fresh('release-fields')
      const first = token()
      await s.claims().record(event(key, { fields: '{"step":0}' }), first, LONG)
      expect(await s.claims().release(key, first, { ...retryNow, fields: '{"step":1}' })).toBe(true)
      const second = lease()
      expect((await takeWhenDue(s, key, second))?.event).toMatchObject({ fields: '{"step":1}', attempts: 2 })
      expect(await s.claims().release(key, second.token, { ...retryNow, fields: undefined })).toBe(true) // kept
      const third = lease()
      expect((await takeWhenDue(s, key, third))?.event).toMatchObject({ fields: '{"step":1}', attempts: 3 })
      expect(await s.claims().release(key, third.token, { ...retryNow, dead: true, fields: '{"step":3}' })).toBe(true)
      expect((await s.claims().failedEvents(10_000)).find((e) => e.key === key)).toMatchObject({
        fields: '{"step":3}',
        state: 'dead',
      })
    })

    it('a release sent again by a runner whose reply was lost, after another runner took the event and released it with its own fields, overwrites nothing', async () => {
      const s = subject()
      const key = fresh('release-fields-again')
      const a = token()
      const fromA = { ...retryNow, fields: '{"by":"a"}' }
      await s.claims().record(event(key), a, LONG)
      expect(await s.claims().release(key, a, fromA)).toBe(true)
      expect(await s.claims().release(key, a, fromA)).toBe(true) // again at once: acknowledged, nothing written twice
      const b = lease()
      expect((await takeWhenDue(s, key, b))?.event).toMatchObject({ fields: '{"by":"a"}', attempts: 2 })
      // While b runs it, a's late copy neither ends b's run nor writes a's fields.
      expect(await s.claims().release(key, a, fromA)).toBe(false)
      expect(await s.claims().renew(key, b.token, LONG)).toBe(true)
      expect(await s.claims().release(key, b.token, { ...retryNow, fields: '{"by":"b"}' })).toBe(true)
      // Nor once b released it: b's take put b's token on the record.
      expect(await s.claims().release(key, a, fromA)).toBe(false)
      expect(await s.claims().release(key, a, { ...fromA, dead: true })).toBe(false)
      expect((await takeWhenDue(s, key))?.event).toMatchObject({ fields: '{"by":"b"}', attempts: 3, state: 'running' })
    })

    it('fields with NUL, multi-byte characters, or nothing at all round-trip through release exactly', async () => {
      const s = subject()
      const samples = [
        '',
        '\u0000',
        '{"a":"x\u0000y"}\u0000',
        'é e\u0301 付款 🧾 ✓ \u{10FFFF} "q" \\ \n\t',
        `${'€'.repeat(20_000)}\u0000${'🧾'.repeat(10_000)}`,
      ]
      for (const fields of samples) {
        const key = fresh('release-fields-bytes')
        const mine = token()
        await s.claims().record(event(key), mine, LONG)
        expect(await s.claims().release(key, mine, { ...retryNow, fields })).toBe(true)
        const taken = await takeWhenDue(s, key)
        expect(taken?.event.fields).toBe(fields)
      }
    })

    it('wake makes a pending event whose retry is far off due now: take and takeDue answer it at once, its attempts, fields and last error kept', async () => {
      const s = subject()
      const far = 50 * 365 * 24 * 3600 * 1000 // fifty years
      const [one, due] = [fresh('wake-take'), fresh('wake-due')]
      for (const key of [one, due]) {
        const mine = token()
        await s.claims().record(event(key), mine, LONG)
        const later = { retryInMs: far, counted: true, error: 'Error: not yet', dead: false, fields: `{"k":"${key}"}` }
        expect(await s.claims().release(key, mine, later)).toBe(true)
        expect(await s.claims().take(key, lease())).toBeUndefined()
      }
      expect((await s.claims().takeDue(lease(), 1_000)).map((t) => t.event.key)).not.toContain(due)
      expect(await s.claims().wake(one)).toBe(true)
      expect(await s.claims().wake(one)).toBe(true) // still pending, now due: woken again, nothing else changes
      expect((await s.claims().take(one, lease()))?.event).toMatchObject({
        key: one,
        fields: `{"k":"${one}"}`,
        attempts: 2,
        state: 'running',
        lastError: 'Error: not yet',
      })
      expect(await s.claims().wake(due)).toBe(true)
      const taken = (await s.claims().takeDue(lease(), 1_000)).find((t) => t.event.key === due)
      expect(taken).toMatchObject({ dead: false, event: { fields: `{"k":"${due}"}`, attempts: 2, state: 'running' } })
      // An uncounted release's attempt stays given back.
      const given = fresh('wake-uncounted')
      const mine = token()
      await s.claims().record(event(given), mine, LONG)
      await s.claims().release(given, mine, { retryInMs: far, counted: false, error: undefined, dead: false })
      expect(await s.claims().wake(given)).toBe(true)
      expect((await s.claims().take(given, lease()))?.event).toMatchObject({ attempts: 1, fields: `{"id":"${given}"}` })
    })

    it('wake of a running, done, dead or absent event answers false and changes nothing', async () => {
      const s = subject()
      const [running, done, dead, absent] = [
        fresh('wake-running'),
        fresh('wake-done'),
        fresh('wake-dead'),
        fresh('wake-absent'),
      ]
      const [r, d, x] = [token(), token(), token()]
      await s.claims().record(event(running), r, LONG)
      await s.claims().record(event(done), d, LONG)
      await s.claims().complete(done, d, LONG)
      await s.claims().record(event(dead, { fields: '{"dead":1}' }), x, LONG)
      await s.claims().release(dead, x, { retryInMs: 1, counted: true, error: 'Error: x', dead: true })
      for (const key of [running, done, dead, absent]) expect(await s.claims().wake(key)).toBe(false)
      // The running one is still leased to its holder only.
      expect(await s.claims().take(running, lease())).toBeUndefined()
      expect(await s.claims().renew(running, r, LONG)).toBe(true)
      // A running one whose lease ended is not pending either (it is due already, for a take).
      const ended = fresh('wake-lease-ended')
      await s.claims().record(event(ended), token(), s.holdMs)
      const probe = fresh('probe') // leased a moment later: once it is due, the first lease has ended too
      await s.claims().record(event(probe), token(), s.holdMs)
      await s.pass(s.holdMs, async () => (await s.claims().take(probe, lease())) !== undefined)
      expect(await s.claims().wake(ended)).toBe(false)
      expect((await s.claims().take(ended, lease()))?.event).toMatchObject({ attempts: 2, state: 'running' })
      // The done one is still done, the dead one still dead as it was, the absent one still absent.
      expect(await s.claims().record(event(done), token(), LONG)).toBe('done')
      expect((await s.claims().failedEvents(10_000)).find((e) => e.key === dead)).toMatchObject({
        fields: '{"dead":1}',
        attempts: 1,
        state: 'dead',
        lastError: 'Error: x',
      })
      expect(await s.claims().take(dead, lease())).toBeUndefined()
      expect(await s.claims().take(absent, lease())).toBeUndefined()
      expect(await s.claims().record(event(absent), token(), LONG)).toBe('taken')
    })

    it('a dead event is listed with its fields and reason, never taken, and retry makes it due with attempts reset and its receive time kept', async () => {
      const s = subject()
      const key = fresh('dead')
      const mine = token()
      await s.claims().record(event(key, { fields: '{"dead":true}' }), mine, LONG)
      const first = await s.claims().take(key, lease()) // running: not due
      expect(first).toBeUndefined()
      expect(
        await s.claims().release(key, mine, { retryInMs: 1, counted: true, error: 'TypeError: x', dead: true }),
      ).toBe(true)
      expect(await s.claims().record(event(key), token(), LONG)).toBe('known')
      expect(await s.claims().take(key, lease())).toBeUndefined()
      expect((await s.claims().takeDue(lease(), 1_000)).map((t) => t.event.key)).not.toContain(key)
      const listed = (await s.claims().failedEvents(10_000)).find((e) => e.key === key)
      expect(listed).toMatchObject({
        key,
        fields: '{"dead":true}',
        state: 'dead',
        attempts: 1,
        lastError: 'TypeError: x',
      })
      expect(await s.claims().retry(key)).toBe(true)
      expect(await s.claims().retry(key)).toBe(false) // no longer dead
      expect((await s.claims().failedEvents(10_000)).map((e) => e.key)).not.toContain(key)
      const again = await s.claims().take(key, lease())
      expect(again?.event).toMatchObject({ attempts: 1, receivedAt: listed?.receivedAt, fields: '{"dead":true}' })
      expect(await s.claims().retry(fresh('never-recorded'))).toBe(false)
    })

    it('a lease that ends (its holder died) makes the event due: taken by another token as the next attempt; the old holder can no longer complete, renew or release it', async () => {
      const s = subject()
      const key = fresh('expire')
      const stale = token()
      await s.claims().record(event(key), stale, s.holdMs)
      const next = lease()
      let taken: TakenEvent | undefined
      await s.pass(s.holdMs, async () => {
        taken = await s.claims().take(key, next)
        return taken !== undefined
      })
      expect(taken?.event.attempts).toBe(2)
      expect(await s.claims().complete(key, stale, LONG)).toBe(false)
      expect(await s.claims().renew(key, stale, LONG)).toBe(false)
      expect(await s.claims().release(key, stale, retryNow)).toBe(false)
      expect(await s.claims().complete(key, next.token, LONG)).toBe(true)
    })

    it('a holder whose lease ended still completes while nobody took the event', async () => {
      const s = subject()
      const key = fresh('late-complete')
      const mine = token()
      await s.claims().record(event(key), mine, s.holdMs)
      // A probe leased a moment later: once it is due, the first lease has ended too.
      const probe = fresh('probe')
      await s.claims().record(event(probe), token(), s.holdMs)
      await s.pass(s.holdMs, async () => (await s.claims().take(probe, lease())) !== undefined)
      expect(await s.claims().renew(key, mine, LONG)).toBe(true)
      expect(await s.claims().complete(key, mine, LONG)).toBe(true)
    })

    it('an event whose every run ended with no outcome (its process died each time) is set aside as dead after maxAttempts, not run again', async () => {
      const s = subject()
      const key = fresh('poison')
      await s.claims().record(event(key), token(), s.holdMs)
      let taken: TakenEvent | undefined
      await s.pass(s.holdMs, async () => {
        taken = await s.claims().take(key, { token: token(), ms: s.holdMs, maxAttempts: 2 })
        return taken !== undefined
      })
      expect(taken).toMatchObject({ dead: false, event: { attempts: 2 } })
      await s.pass(s.holdMs, async () => {
        taken = await s.claims().take(key, { token: token(), ms: s.holdMs, maxAttempts: 2 })
        return taken !== undefined
      })
      expect(taken?.dead).toBe(true)
      expect(taken?.event.state).toBe('dead')
      const listed = (await s.claims().failedEvents(10_000)).find((e) => e.key === key)
      expect(listed?.attempts).toBe(2)
      expect(listed?.lastError).toMatch(/no outcome/)
    })

    it('takeDue sets aside, rather than runs, a due event whose attempts are used up (its runs all died)', async () => {
      const s = subject()
      const key = fresh('poison-due')
      await s.claims().record(event(key), token(), s.holdMs)
      let due: TakenEvent | undefined
      await s.pass(s.holdMs, async () => {
        due = (await s.claims().takeDue({ token: token(), ms: LONG, maxAttempts: 1 }, 1_000)).find(
          (t) => t.event.key === key,
        )
        return due !== undefined
      })
      expect(due?.dead).toBe(true)
      expect(due?.event).toMatchObject({ state: 'dead', attempts: 1 })
      expect((await s.claims().failedEvents(10_000)).map((e) => e.key)).toContain(key)
      expect((await s.claims().takeDue(lease(), 1_000)).map((t) => t.event.key)).not.toContain(key)
    })

    it('takeDue takes only due events, at most the limit, and two instances taking at once never share one', async () => {
      const s = subject()
      const keys = Array.from({ length: 40 }, (_, i) => fresh(`due-${i}`))
      for (const key of keys) expect(await s.claims().record(event(key), token(), undefined)).toBe('recorded')
      const held = fresh('held-not-due')
      await s.claims().record(event(held), token(), LONG)
      const limited = await s.claims().takeDue(lease(), 3)
      expect(limited).toHaveLength(3)
      const [a, b, c] = await Promise.all([
        s.claims().takeDue(lease(), 1_000),
        s.claims().takeDue(lease(), 1_000),
        s.claims().takeDue(lease(), 1_000),
      ])
      const all = [...limited, ...(a ?? []), ...(b ?? []), ...(c ?? [])]
        .map((t) => t.event.key)
        .filter((k) => keys.includes(k))
      expect(new Set(all).size).toBe(all.length)
      expect(new Set(all)).toStrictEqual(new Set(keys))
      expect(all).not.toContain(held)
    })

    it('previous keys: an event done under a key an earlier version built is done; a pending one under it does not block', async () => {
      const s = subject()
      const old = fresh('v1')
      const mine = token()
      await s.claims().record(event(old), mine, LONG)
      await s.claims().complete(old, mine, LONG)
      expect(await s.claims().record(event(fresh('v2'), { previousKeys: [fresh('other'), old] }), token(), LONG)).toBe(
        'done',
      )
      const pendingOld = fresh('v1-pending')
      await s.claims().record(event(pendingOld), token(), LONG)
      expect(await s.claims().record(event(fresh('v2'), { previousKeys: [pendingOld] }), token(), LONG)).toBe('taken')
    })

    it('forget erases every record of the payment, done or not, and nothing else; a later delivery is a new event', async () => {
      const s = subject()
      const ref = fresh('ref')
      const done = fresh('forget-done')
      const pending = fresh('forget-pending')
      const dead = fresh('forget-dead')
      const other = fresh('forget-other')
      const t = token()
      await s.claims().record(event(done, { ref }), t, LONG)
      await s.claims().complete(done, t, LONG)
      await s.claims().record(event(pending, { ref }), token(), undefined)
      const d = token()
      await s.claims().record(event(dead, { ref }), d, LONG)
      await s.claims().release(dead, d, { retryInMs: 1, counted: true, error: 'Error: x', dead: true })
      await s.claims().record(event(other), token(), undefined)
      expect(await s.claims().forget(ref)).toBe(3)
      expect(await s.claims().forget(ref)).toBe(0)
      expect((await s.claims().failedEvents(10_000)).map((e) => e.key)).not.toContain(dead)
      expect(await s.claims().record(event(done, { ref }), token(), LONG)).toBe('taken')
      expect(await s.claims().record(event(other), token(), LONG)).toBe('known')
    })

    it('a done key is kept for keepMs; a delivery after that is a new event', async () => {
      const s = subject()
      const key = fresh('keep')
      const mine = token()
      await s.claims().record(event(key), mine, LONG)
      await s.claims().complete(key, mine, s.holdMs)
      expect(await s.claims().record(event(key), token(), LONG)).toBe('done')
      await s.pass(s.holdMs, async () => (await s.claims().record(event(key), token(), LONG)) === 'taken')
    })

    it('prune deletes done keys whose keep ended, and no other record', async () => {
      const s = subject()
      const short = fresh('prune-short')
      const long = fresh('prune-long')
      const pending = fresh('prune-pending')
      const a = token()
      const b = token()
      await s.claims().record(event(short), a, LONG)
      await s.claims().complete(short, a, s.holdMs)
      await s.claims().record(event(long), b, LONG)
      await s.claims().complete(long, b, LONG)
      await s.claims().record(event(pending), token(), undefined)
      await s.pass(s.holdMs, async () => (await s.claims().prune(LONG)) >= 1)
      expect(await s.claims().record(event(long), token(), LONG)).toBe('done')
      expect(await s.claims().record(event(pending), token(), LONG)).toBe('known')
      expect(await s.claims().record(event(short), token(), LONG)).toBe('taken')
    })

    it('keys with spaces, colons, unicode and combining marks are distinct keys, byte for byte', async () => {
      const s = subject()
      const id = randomUUID()
      const keys = [
        `callback ${id} with spaces`,
        `${id}:type:status`,
        `${id}:type`,
        `${id}\u00e9`, // é precomposed
        `${id}e\u0301`, // e + combining acute: looks the same, is another key
        `${id} 付款 ✓ 🧾`,
        `${id}\n\t\u0000`,
        `${id}${'x'.repeat(10_000)}`,
      ]
      const tokens = keys.map(() => token())
      const states = await Promise.all(keys.map((key, i) => s.claims().record(event(key), tokens[i] as string, LONG)))
      expect(states.every((state) => state === 'taken')).toBe(true)
      for (const [i, key] of keys.entries()) {
        expect(await s.claims().record(event(key), token(), LONG)).toBe('known')
        expect(await s.claims().complete(key, tokens[i] as string, LONG)).toBe(true)
        expect(await s.claims().record(event(key), token(), LONG)).toBe('done')
      }
    })
  })
}

/** An intent with every field set as core writes it; `over` replaces some. */
export function intentOf(over: Partial<Intent> = {}): Intent {
  return {
    id: randomUUID(),
    service: 'card-gateway',
    operation: 's2s.capture',
    params: { trans_id: 'T-1', amount: '10.00', order: { id: 'O-1', lines: [{ sku: 'A', qty: 2 }] } },
    reconciliation: { key: 'trans_id', value: 'T-1', lookup: 'gw.s2s.getTransStatus({ trans_id })' },
    idempotencyKey: undefined,
    createdAt: 1_767_225_600_000,
    ...over,
  }
}

/** What a store lists, without the `writtenAt` a store with a clock of its own adds (checked on its own). */
async function listed(store: IntentStore, service: string): Promise<Intent[]> {
  return (await store.openIntents(service)).map(({ writtenAt: _, ...intent }) => intent)
}

export function intentStoreContract(subject: () => StoreSubject): void {
  describe('IntentStore contract', () => {
    it('a store with a clock of its own (now()) stamps each intent with writtenAt on it, when it was written', async () => {
      const s = subject()
      const store = s.intents()
      if (store.now === undefined) return // a store of one process: reconciliation uses that process's clock
      const service = fresh('svc-clock')
      const before = await store.now()
      await store.open(intentOf({ service, createdAt: 1_000 })) // a writer whose clock is far off
      const after = await store.now()
      const [intent] = await store.openIntents(service)
      expect(intent?.writtenAt).toBeGreaterThanOrEqual(before)
      expect(intent?.writtenAt).toBeLessThanOrEqual(after)
      expect(intent?.createdAt).toBe(1_000)
    })

    it('an opened intent is listed by openIntents of its service, exactly as written, by another instance too', async () => {
      const s = subject()
      const service = fresh('svc')
      const intent = intentOf({ service })
      await s.intents().open(intent)
      expect(await listed(s.intents(), service)).toStrictEqual([intent])
    })

    it('round-trips undefined reconciliation, idempotencyKey and params, and nested params', async () => {
      const s = subject()
      const service = fresh('svc')
      const bare = intentOf({ service, reconciliation: undefined, idempotencyKey: undefined, params: undefined })
      const nested = intentOf({
        service,
        createdAt: bare.createdAt + 1,
        idempotencyKey: 'f0e1d2c3-key',
        params: {
          deep: { a: { b: { c: [1, -2.5, 0, true, false, null, 'x', [], {}] } } },
          text: 'quotes " backslash \\ newline \n tab \t nul \u0000 emoji 🧾 lone \ud800 end',
          empty: '',
          big: Number.MAX_SAFE_INTEGER,
          tiny: 5e-324,
        },
      })
      await s.intents().open(bare)
      await s.intents().open(nested)
      expect(await listed(s.intents(), service)).toStrictEqual([bare, nested])
    })

    it('close removes the intent; closing it again, or an unknown id, changes nothing', async () => {
      const s = subject()
      const service = fresh('svc')
      const kept = intentOf({ service })
      const closed = intentOf({ service, createdAt: kept.createdAt + 1 })
      await s.intents().open(kept)
      await s.intents().open(closed)
      await s.intents().close(closed.id, 'applied')
      await s.intents().close(closed.id, 'applied')
      await s.intents().close(randomUUID(), 'not_applied')
      expect(await listed(s.intents(), service)).toStrictEqual([kept])
      await s.intents().close(kept.id, 'not_applied')
      expect(await listed(s.intents(), service)).toStrictEqual([])
    })

    it('openIntents lists oldest first by createdAt, whatever the order they were opened in', async () => {
      const s = subject()
      const service = fresh('svc')
      const at = [5, 1, 4, 2, 3].map((n) => intentOf({ service, createdAt: 1_767_225_600_000 + n * 1000 }))
      for (const intent of at) await s.intents().open(intent)
      const listed = await s.intents().openIntents(service)
      expect(listed.map((i) => i.createdAt)).toStrictEqual([...at.map((i) => i.createdAt)].sort((a, b) => a - b))
    })

    it("openIntents lists one service's intents only; an unknown service has none", async () => {
      const s = subject()
      const a = fresh('svc')
      const mine = intentOf({ service: a })
      await s.intents().open(mine)
      await s.intents().open(intentOf({ service: `${a}:other` }))
      await s.intents().open(intentOf({ service: a.slice(0, -1) }))
      expect(await listed(s.intents(), a)).toStrictEqual([mine])
      expect(await s.intents().openIntents(fresh('nobody'))).toStrictEqual([])
    })

    it('opening the same id again replaces the intent: it is listed once', async () => {
      const s = subject()
      const service = fresh('svc')
      const first = intentOf({ service })
      const again = { ...first, params: { replaced: true }, createdAt: first.createdAt + 10 }
      await s.intents().open(first)
      await s.intents().open(again)
      expect(await listed(s.intents(), service)).toStrictEqual([again])
    })

    it('opening the same id under another service moves it there', async () => {
      const s = subject()
      const [from, to] = [fresh('svc'), fresh('svc')]
      const first = intentOf({ service: from })
      const moved = { ...first, service: to }
      await s.intents().open(first)
      await s.intents().open(moved)
      expect(await listed(s.intents(), from)).toStrictEqual([])
      expect(await listed(s.intents(), to)).toStrictEqual([moved])
      await s.intents().close(first.id, 'applied')
      expect(await listed(s.intents(), from)).toStrictEqual([])
      expect(await listed(s.intents(), to)).toStrictEqual([])
    })

    it('ids and services with spaces, colons and unicode round-trip and stay distinct', async () => {
      const s = subject()
      const base = fresh('svc')
      const services = [`${base} with spaces`, `${base}:colon:s`, `${base} 付款 🧾`, `${base}e\u0301`, `${base}\u00e9`]
      const intents = services.map((service, i) =>
        intentOf({ service, id: `id ${i}: ${base} ✓ \u00e9 ${'z'.repeat(i)}`, createdAt: 1_000 + i }),
      )
      for (const intent of intents) await s.intents().open(intent)
      for (const intent of intents) expect(await listed(s.intents(), intent.service)).toStrictEqual([intent])
      for (const intent of intents) await s.intents().close(intent.id, 'applied')
      for (const intent of intents) expect(await listed(s.intents(), intent.service)).toStrictEqual([])
    })

    it('params of 1 MB round-trip exactly', async () => {
      const s = subject()
      const service = fresh('svc')
      const blob = '€'.repeat(100_000) + 'x'.repeat(700_000) // 1,000,000 bytes of UTF-8
      expect(Buffer.byteLength(blob)).toBe(1_000_000)
      const intent = intentOf({ service, params: { blob, list: Array.from({ length: 1000 }, (_, i) => ({ i })) } })
      await s.intents().open(intent)
      expect(await listed(s.intents(), service)).toStrictEqual([intent])
    })
  })
}
