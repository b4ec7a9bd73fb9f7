/**
 * Where undici's modules cannot be loaded (a bundler left them out, a runtime refuses them), a client
 * with its own pools sends with the runtime's `fetch` instead of failing every call.
 */

import { faults, startFaultServer } from '@paywire/core/testing'
import { afterEach, describe, expect, it, onTestFinished, vi } from 'vitest'
import { get, jsonHandler, loadUndiciByImport, makeClient } from './helpers.js'

// Neither `require` (no `node:module`, as on a runtime without it) nor `import()` (mocked below) can load undici.
loadUndiciByImport()

vi.mock('undici/lib/dispatcher/pool.js', () => {
  throw new Error('Cannot find module undici/lib/dispatcher/pool.js')
})

afterEach(() => {
  vi.unstubAllGlobals()
})

describe('undici cannot be loaded', () => {
  it("the first call loads nothing it can use, and it and later calls go through the runtime's fetch", async () => {
    const s = await startFaultServer(faults.json(200, { ok: true }))
    onTestFinished(s.close)
    const realFetch = globalThis.fetch
    let calls = 0
    vi.stubGlobal('fetch', (input: Parameters<typeof fetch>[0], init?: Parameters<typeof fetch>[1]) => {
      calls++
      return realFetch(input, init)
    })
    const client = makeClient()
    onTestFinished(() => client.close())
    await expect(client.send(get(s.url), jsonHandler)).resolves.toEqual({ ok: true })
    await expect(client.send(get(s.url), jsonHandler)).resolves.toEqual({ ok: true })
    expect(calls).toBe(2)
    expect(s.requests).toHaveLength(2)
  })
})
