/**
 * core loads undici's `Agent` and `Client` from their own modules (private paths, see undici.ts):
 * these tests fail the day an undici 7 release moves or changes them. They run on the locked
 * version, and in CI on the newest undici 7 too (scripts/check-undici-latest.mjs).
 */

import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { describe, expect, it } from 'vitest'

// The undici under test: the newest 7 when scripts/check-undici-latest.mjs runs these tests.
const undiciDir = process.env['PAYWIRE_UNDICI_DIR']
const require = createRequire(undiciDir ? `${undiciDir}/package.json` : import.meta.url)
const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
  dependencies: Record<string, string>
}

describe('the private undici paths core loads', () => {
  it('undici is taken in major 7 from the tested version up (a caret range), and the one installed is in it', () => {
    const range = manifest.dependencies['undici']
    expect(range).toMatch(/^\^7\.\d+\.\d+$/)
    const installed = JSON.parse(readFileSync(require.resolve('undici/package.json'), 'utf8')) as { version: string }
    const [major, minor, patch] = installed.version.split('.').map(Number)
    const [, lowMinor, lowPatch] = (range as string).slice(1).split('.').map(Number)
    expect(major).toBe(7)
    expect((minor as number) * 1e6 + (patch as number)).toBeGreaterThanOrEqual(
      (lowMinor as number) * 1e6 + (lowPatch as number),
    )
  })

  it("the Pool module is undici's public Pool", async () => {
    const { default: PoolFromPath } = await import('undici/lib/dispatcher/pool.js')
    const undici = await import('undici')
    expect(PoolFromPath).toBe(undici.Pool)
    const pool = new PoolFromPath('http://127.0.0.1:9')
    expect(typeof pool.dispatch).toBe('function')
    await pool.close()
  })

  it("the Client module is undici's public Client, and tells when its connection closes", async () => {
    const { default: ClientFromPath } = await import('undici/lib/dispatcher/client.js')
    const undici = await import('undici')
    expect(ClientFromPath).toBe(undici.Client)
    // kept-connections.ts counts a connection's requests from its 'disconnect' event.
    const client = new ClientFromPath('http://127.0.0.1:9')
    expect(typeof client.on).toBe('function')
    await client.close()
  })
})
