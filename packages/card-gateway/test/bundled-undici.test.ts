/**
 * A merchant who bundles the SDK into ESM with undici inside it (esbuild's default) gets an undici
 * that cannot load: its require() of Node's modules fails. The client then sends with the runtime's
 * fetch, which cannot give a payment a connection of its own: it must say so, once, as a Node warning,
 * naming the way out (keep undici outside the bundle). Before: silence, and payments on reused
 * connections.
 */

import { createServer, type Server } from 'node:http'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { FixturePackage } from '../../../tests/support/fixture-process.js'
import { listenOnLoopback, runPayingMerchant } from './paying-merchant.js'

const here = dirname(fileURLToPath(import.meta.url))
const inside: FixturePackage = { packageDir: join(here, '..'), external: [] }
const ANSWER = Buffer.from(JSON.stringify({ redirect_url: 'https://pay.example/s/1' }))

let server: Server
let url: string
let connections = 0

beforeAll(async () => {
  server = createServer((req, res) => {
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': ANSWER.length })
      res.end(ANSWER)
    })
    req.resume()
  })
  server.on('connection', () => connections++)
  url = await listenOnLoopback(server, 'http')
})

afterAll(async () => {
  server.closeAllConnections()
  await new Promise<void>((resolve) => server.close(() => resolve()))
})

describe('undici bundled inside an ESM bundle', () => {
  it('pays through fetch, and says once, as a Node warning, what that costs and how to avoid it', async () => {
    const run = await runPayingMerchant(inside, { url, kind: 'purchase', inflight: 1, total: 3, maxSockets: 16 })
    expect(run).toMatchObject({ answered: 3, failures: [] })
    // What the warning is about: three payments, fewer connections (kept alive and reused).
    expect(connections).toBeLessThan(3)
    const err = run.stderr
    const warnings = err.match(/\[PAYWIRE_FETCH_INSTEAD_OF_UNDICI\]/g) ?? []
    expect(warnings).toHaveLength(1)
    expect(err).toMatch(/paywire: undici could not be loaded \(.+\), so this process sends with the runtime's fetch/)
    expect(err).toMatch(/keep undici outside the bundle \(esbuild: --external:undici/)
  })
})
