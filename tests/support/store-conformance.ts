/**
 * The rules of core's `ClaimStore` and `IntentStore` (packages/core/src/stores.ts) as one
 * table-driven suite, run over every store: memory (packages/core/test), Redis (packages/redis/test)
 * and PostgreSQL (packages/postgres/test), so no store can drift from the others. A new store is one
 * more `ConformanceStore` row in its package's test file, passed to `storeConformance`.
 */

import { randomUUID } from 'node:crypto'
import type { ClaimStore, Intent, IntentStore } from '@paywire/core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

/** A pair of stores under test, and how time passes for them. */
export interface StoreSubject {
  /** A claim store over the same data as every other one this subject made (another instance on Redis). */
  claims(): ClaimStore
  /** An intent store over the same data as every other one this subject made. */
  intents(): IntentStore
  /** The hold and keep used where a test waits for expiry: short real time on Redis. */
  readonly holdMs: number
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

    it('a first claim is claimed; every other token is answered held while it is held, from any instance', async () => {
      const s = subject()
      const key = fresh('held')
      expect(await s.claims().claim(key, token(), LONG)).toBe('claimed')
      expect(await s.claims().claim(key, token(), LONG)).toBe('held')
      expect(await s.claims().claim(key, token(), LONG)).toBe('held')
    })

    it('a claim sent again with the same token (its reply lost) is claimed again, from any instance; others stay held', async () => {
      const s = subject()
      const key = fresh('again')
      const mine = token()
      expect(await s.claims().claim(key, mine, LONG)).toBe('claimed')
      expect(await s.claims().claim(key, mine, LONG)).toBe('claimed')
      expect(await s.claims().claim(key, token(), LONG)).toBe('held')
      expect(await s.claims().claim(key, mine, LONG)).toBe('claimed')
    })

    it('keys are independent: holding one blocks no other', async () => {
      const s = subject()
      const key = fresh('a')
      expect(await s.claims().claim(key, token(), LONG)).toBe('claimed')
      expect(await s.claims().claim(`${key}:b`, token(), LONG)).toBe('claimed')
      expect(await s.claims().claim(key.slice(0, -1), token(), LONG)).toBe('claimed')
    })

    it('release by the holder frees the key: the next delivery claims it with its own token; releasing again changes nothing', async () => {
      const s = subject()
      const key = fresh('release')
      const first = token()
      await s.claims().claim(key, first, LONG)
      await s.claims().release(key, first)
      const second = token()
      expect(await s.claims().claim(key, second, LONG)).toBe('claimed')
      await s.claims().release(key, first) // the first holder's release sent again: the second still holds it
      expect(await s.claims().claim(key, token(), LONG)).toBe('held')
    })

    it('release with another token changes nothing: the holder still holds the key', async () => {
      const s = subject()
      const key = fresh('release-other')
      const mine = token()
      await s.claims().claim(key, mine, LONG)
      await s.claims().release(key, randomUUID())
      await s.claims().release(key, `done:${mine}`)
      await s.claims().release(key, `held:${mine}`)
      expect(await s.claims().claim(key, token(), LONG)).toBe('held')
      await s.claims().release(key, mine)
      expect(await s.claims().claim(key, token(), LONG)).toBe('claimed')
    })

    it('complete by the holder answers true, and every later claim of the key is done while it is kept, from any instance', async () => {
      const s = subject()
      const key = fresh('complete')
      const mine = token()
      await s.claims().claim(key, mine, LONG)
      expect(await s.claims().complete(key, mine, LONG)).toBe(true)
      expect(await s.claims().claim(key, token(), LONG)).toBe('done')
      expect(await s.claims().claim(key, mine, LONG)).toBe('done')
    })

    it('complete sent again by the same holder (its reply lost) answers true again and keeps the key done', async () => {
      const s = subject()
      const key = fresh('complete-again')
      const mine = token()
      await s.claims().claim(key, mine, LONG)
      expect(await s.claims().complete(key, mine, LONG)).toBe(true)
      expect(await s.claims().complete(key, mine, LONG)).toBe(true)
      expect(await s.claims().claim(key, token(), LONG)).toBe('done')
    })

    it('complete is final: release by the same holder afterwards changes nothing', async () => {
      const s = subject()
      const key = fresh('complete-release')
      const mine = token()
      await s.claims().claim(key, mine, LONG)
      await s.claims().complete(key, mine, LONG)
      await s.claims().release(key, mine)
      expect(await s.claims().claim(key, token(), LONG)).toBe('done')
    })

    it('complete with another token while the key is held answers false and changes nothing: the holder can still release', async () => {
      const s = subject()
      const key = fresh('complete-other')
      const mine = token()
      await s.claims().claim(key, mine, LONG)
      expect(await s.claims().complete(key, randomUUID(), LONG)).toBe(false)
      expect(await s.claims().complete(key, `held:${mine}`, LONG)).toBe(false)
      await s.claims().release(key, mine)
      expect(await s.claims().claim(key, token(), LONG)).toBe('claimed')
    })

    it('an empty token is refused: it would prove nobody', async () => {
      const s = subject()
      const key = fresh('empty-token')
      await expect(s.claims().claim(key, '', LONG)).rejects.toThrow(/token/)
      await expect(s.claims().complete(key, '', LONG)).rejects.toThrow(/token/)
      await expect(s.claims().release(key, '')).rejects.toThrow(/token/)
      expect(await s.claims().claim(key, token(), LONG)).toBe('claimed')
    })

    it('a claim whose holder never answers expires after holdMs: the next delivery claims the key', async () => {
      const s = subject()
      const key = fresh('expire')
      await s.claims().claim(key, token(), s.holdMs)
      expect(await s.claims().claim(key, token(), s.holdMs)).toBe('held')
      const next = token()
      await s.pass(s.holdMs, async () => (await s.claims().claim(key, next, LONG)) === 'claimed')
    })

    it('a stale holder (its claim expired, another took the key) can neither release nor complete it', async () => {
      const s = subject()
      const key = fresh('stale')
      const stale = token()
      await s.claims().claim(key, stale, s.holdMs)
      const current = token()
      await s.pass(s.holdMs, async () => (await s.claims().claim(key, current, LONG)) === 'claimed')
      await s.claims().release(key, stale)
      expect(await s.claims().complete(key, stale, LONG)).toBe(false)
      expect(await s.claims().claim(key, stale, LONG)).toBe('held') // still held by the current holder…
      await s.claims().release(key, current) // …who was not completed by the stale one
      expect(await s.claims().claim(key, token(), LONG)).toBe('claimed')
    })

    it('a holder whose claim expired still records its outcome with complete when nobody holds the key', async () => {
      const s = subject()
      const key = fresh('late-complete')
      const mine = token()
      await s.claims().claim(key, mine, s.holdMs)
      await s.pass(s.holdMs, async () => {
        // Probing takes the key when it is free; hand it back so the key is "expired, not taken".
        const probe = token()
        const state = await s.claims().claim(key, probe, LONG)
        if (state === 'claimed') await s.claims().release(key, probe)
        return state === 'claimed'
      })
      expect(await s.claims().complete(key, mine, LONG)).toBe(true)
      expect(await s.claims().claim(key, token(), LONG)).toBe('done')
    })

    it('a completed key is kept for keepMs, then a delivery may claim it again', async () => {
      const s = subject()
      const key = fresh('keep')
      const mine = token()
      await s.claims().claim(key, mine, LONG)
      await s.claims().complete(key, mine, s.holdMs)
      expect(await s.claims().claim(key, token(), LONG)).toBe('done')
      const again = token()
      await s.pass(s.holdMs, async () => (await s.claims().claim(key, again, LONG)) === 'claimed')
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
        '',
      ]
      const tokens = keys.map(() => token())
      const states = await Promise.all(keys.map((key, i) => s.claims().claim(key, tokens[i] as string, LONG)))
      expect(states.every((state) => state === 'claimed')).toBe(true)
      for (const [i, key] of keys.entries()) {
        expect(await s.claims().claim(key, token(), LONG)).toBe('held')
        expect(await s.claims().complete(key, tokens[i] as string, LONG)).toBe(true)
        expect(await s.claims().claim(key, token(), LONG)).toBe('done')
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

export function intentStoreContract(subject: () => StoreSubject): void {
  describe('IntentStore contract', () => {
    it('an opened intent is listed by openIntents of its service, exactly as written, by another instance too', async () => {
      const s = subject()
      const service = fresh('svc')
      const intent = intentOf({ service })
      await s.intents().open(intent)
      expect(await s.intents().openIntents(service)).toStrictEqual([intent])
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
      expect(await s.intents().openIntents(service)).toStrictEqual([bare, nested])
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
      expect(await s.intents().openIntents(service)).toStrictEqual([kept])
      await s.intents().close(kept.id, 'not_applied')
      expect(await s.intents().openIntents(service)).toStrictEqual([])
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
      expect(await s.intents().openIntents(a)).toStrictEqual([mine])
      expect(await s.intents().openIntents(fresh('nobody'))).toStrictEqual([])
    })

    it('opening the same id again replaces the intent: it is listed once', async () => {
      const s = subject()
      const service = fresh('svc')
      const first = intentOf({ service })
      const again = { ...first, params: { replaced: true }, createdAt: first.createdAt + 10 }
      await s.intents().open(first)
      await s.intents().open(again)
      expect(await s.intents().openIntents(service)).toStrictEqual([again])
    })

    it('opening the same id under another service moves it there', async () => {
      const s = subject()
      const [from, to] = [fresh('svc'), fresh('svc')]
      const first = intentOf({ service: from })
      const moved = { ...first, service: to }
      await s.intents().open(first)
      await s.intents().open(moved)
      expect(await s.intents().openIntents(from)).toStrictEqual([])
      expect(await s.intents().openIntents(to)).toStrictEqual([moved])
      await s.intents().close(first.id, 'applied')
      expect(await s.intents().openIntents(from)).toStrictEqual([])
      expect(await s.intents().openIntents(to)).toStrictEqual([])
    })

    it('ids and services with spaces, colons and unicode round-trip and stay distinct', async () => {
      const s = subject()
      const base = fresh('svc')
      const services = [`${base} with spaces`, `${base}:colon:s`, `${base} 付款 🧾`, `${base}e\u0301`, `${base}\u00e9`]
      const intents = services.map((service, i) =>
        intentOf({ service, id: `id ${i}: ${base} ✓ \u00e9 ${'z'.repeat(i)}`, createdAt: 1_000 + i }),
      )
      for (const intent of intents) await s.intents().open(intent)
      for (const intent of intents) expect(await s.intents().openIntents(intent.service)).toStrictEqual([intent])
      for (const intent of intents) await s.intents().close(intent.id, 'applied')
      for (const intent of intents) expect(await s.intents().openIntents(intent.service)).toStrictEqual([])
    })

    it('params of 1 MB round-trip exactly', async () => {
      const s = subject()
      const service = fresh('svc')
      const blob = '€'.repeat(100_000) + 'x'.repeat(700_000) // 1,000,000 bytes of UTF-8
      expect(Buffer.byteLength(blob)).toBe(1_000_000)
      const intent = intentOf({ service, params: { blob, list: Array.from({ length: 1000 }, (_, i) => ({ i })) } })
      await s.intents().open(intent)
      expect(await s.intents().openIntents(service)).toStrictEqual([intent])
    })
  })
}
