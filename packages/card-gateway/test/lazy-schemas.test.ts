/**
 * Rule 3 of the one-source conversion: importing the package builds no zod schema; a row's params
 * schema is built on a client's first call of the row. Every zod function our sources call (through
 * `@paywire/core/zod`, which re-exports zod mini's) is counted, by caller file, through a wrapped
 * `zod/mini` module.
 */

import { describe, expect, it, vi } from 'vitest'

const calls = vi.hoisted(() => ({ fromCard: [] as string[] }))

vi.mock('zod/mini', async (importOriginal) => {
  const original = await importOriginal<Record<string, unknown>>()
  const wrapped: Record<string, unknown> = { ...original }
  for (const [name, value] of Object.entries(original)) {
    // Lowercase functions are the builders (z.string, z.strictObject, …); classes and types are left alone.
    if (typeof value !== 'function' || !/^[a-z]/.test(name)) continue
    wrapped[name] = function (this: unknown, ...args: unknown[]) {
      const caller = new Error().stack?.split('\n')[2] ?? ''
      if (caller.includes('/card-gateway/src/')) calls.fromCard.push(`${name} from ${caller.trim()}`)
      return (value as (...a: unknown[]) => unknown).apply(this, args)
    }
  }
  return wrapped
})

describe('no zod schema is built at import', () => {
  it('importing the package and its testing kit, and making a client, builds none; the first call builds its row', async () => {
    const card = await import('../src/index.js')
    const testing = await import('../src/testing/index.js')
    expect(calls.fromCard).toEqual([])

    const started = await testing.startCardGatewaySimulator()
    const gw = new card.CardGateway({ checkoutUrl: started.url, s2sUrl: started.url, ...testing.SIMULATOR_CREDENTIALS })
    try {
      expect(calls.fromCard).toEqual([])
      // The wrapper sees the calls our rows make: the check above would catch an import-time schema.
      await expect(gw.s2s.getTransStatus({ trans_id: 'missing' })).rejects.toThrow()
      expect(calls.fromCard.some((call) => call.startsWith('strictObject from'))).toBe(true)
    } finally {
      await gw.close()
      await started.close()
    }
  })
})
