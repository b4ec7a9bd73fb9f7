/**
 * `MemoryClaimStore` held to a bound: done keys leave once their keep ends (the former store kept
 * every key for ever: +714 bytes per callback), the oldest done keys go first past `maxEvents`, a
 * store full of events not yet done refuses more (the inbox answers 503, never 200 for an event it
 * dropped), and outside a test runner it says at construction what a crash loses.
 */

import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { MemoryClaimStore, type NewEvent } from '@paywire/core'
import { createTestClock } from '@paywire/core/testing'
import { describe, expect, it } from 'vitest'

const event = (key: string): NewEvent => ({ key, previousKeys: [], fields: '{}', ref: key })
const KEEP = 60_000

/** `count` events recorded, run and done by one token, kept for `KEEP`. */
async function doneEvents(store: MemoryClaimStore, count: number, prefix: string): Promise<void> {
  for (let i = 0; i < count; i++) {
    const key = `${prefix}-${i}`
    await store.record(event(key), 't', 60_000)
    await store.complete(key, 't', KEEP)
  }
}

describe('MemoryClaimStore stays bounded', () => {
  it('done keys are swept once their keep ended: 30 000 callbacks over a day hold at most a keep’s worth', async () => {
    const clock = createTestClock()
    const store = new MemoryClaimStore({ clock })
    let most = 0
    for (let hour = 0; hour < 30; hour++) {
      await doneEvents(store, 1_000, `h${hour}`)
      most = Math.max(most, store.size)
      clock.advance(KEEP) // each hour's keys are past their keep by the next one
    }
    expect(most).toBeLessThanOrEqual(2_000)
    expect(await store.prune(KEEP)).toBe(1_000)
    expect(store.size).toBe(0)
  })

  it('past maxEvents the oldest done keys go first; events not yet done are never dropped', async () => {
    const store = new MemoryClaimStore({ clock: createTestClock(), maxEvents: 100 })
    await store.record(event('pending-first'), 't', undefined)
    await doneEvents(store, 150, 'done')
    expect(store.size).toBeLessThanOrEqual(100)
    expect(await store.record(event('pending-first'), 'u', undefined)).toBe('known')
    expect(await store.record(event('done-149'), 'u', undefined)).toBe('done') // the newest done key stays
    expect(await store.record(event('done-0'), 'u', undefined)).toBe('recorded') // the oldest went
  })

  it('full of events not yet done, it refuses the next one rather than forget one', async () => {
    const store = new MemoryClaimStore({ clock: createTestClock(), maxEvents: 10 })
    for (let i = 0; i < 10; i++) await store.record(event(`p${i}`), 't', undefined)
    await expect(store.record(event('one-more'), 't', undefined)).rejects.toThrow(/10 events not yet done are held/)
    expect(store.size).toBe(10)
  })

  it('refuses a maxEvents that is not a whole number >= 1, by name', () => {
    expect(() => new MemoryClaimStore({ maxEvents: 0 })).toThrow(/maxEvents: must be a whole number >= 1/)
  })

  it('warns once at construction outside a test runner, saying what a crash loses; never under one', () => {
    const claims = fileURLToPath(new URL('../src/inbox/memory-store.ts', import.meta.url))
    const script = `import { MemoryClaimStore } from ${JSON.stringify(claims)}; new MemoryClaimStore(); new MemoryClaimStore()`
    const stderr = (env: Record<string, string>) =>
      spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
        cwd: fileURLToPath(new URL('..', import.meta.url)),
        env: { PATH: process.env.PATH ?? '', ...env },
        encoding: 'utf8',
      }).stderr
    const outside = stderr({})
    expect(outside.match(/paywire: MemoryClaimStore/g)).toHaveLength(1)
    expect(outside).toMatch(
      /a crash or restart loses every callback acknowledged and not yet run, and every payment followed/,
    )
    expect(stderr({ NODE_ENV: 'test' })).toBe('')
  })
})
