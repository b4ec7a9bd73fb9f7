/**
 * A merchant who bundles the SDK into ESM with undici inside it (esbuild's default) gets an undici
 * that cannot load: its require() of Node's modules fails. Deployed alone (no node_modules beside the
 * bundle), the client then sends with the runtime's fetch, which cannot give a payment a connection of
 * its own: it must say so, once, as a Node warning, naming the way out (keep undici outside the
 * bundle). Before: silence, and payments on reused connections. Run beside node_modules, the client
 * requires undici from there (core's undici.ts) and each payment has a connection of its own.
 */

import { mkdtempSync, rmSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { FixturePackage } from '../../../tests/support/fixture-process.js'
import { listenOnLoopback, runPayingMerchant } from './paying-merchant.js'

const here = dirname(fileURLToPath(import.meta.url))
/** The bundle in a directory with no node_modules above it, as deployed alone. */
const alone = mkdtempSync(join(tmpdir(), 'paywire-bundle-alone-'))
const deployedAlone: FixturePackage = { packageDir: join(here, '..'), external: [], bundleDir: alone }
/** The bundle in the package's node_modules, where undici is installed. */
const besideNodeModules: FixturePackage = { packageDir: join(here, '..'), external: [] }
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
  rmSync(alone, { recursive: true, force: true })
  server.closeAllConnections()
  await new Promise<void>((resolve) => server.close(() => resolve()))
})

describe('undici bundled inside an ESM bundle', () => {
  it('deployed alone: pays through fetch, and says once, as a Node warning, what that costs and how to avoid it', async () => {
    connections = 0
    // No NODE_PATH either (pnpm sets one to its store, where undici is): nothing outside the bundle.
    const run = await runPayingMerchant(
      deployedAlone,
      { url, kind: 'purchase', inflight: 1, total: 3, maxSockets: 16 },
      { NODE_PATH: '' },
    )
    expect(run).toMatchObject({ answered: 3, failures: [] })
    // What the warning is about: three payments, fewer connections (kept alive and reused).
    expect(connections).toBeLessThan(3)
    const err = run.stderr
    const warnings = err.match(/\[PAYWIRE_FETCH_INSTEAD_OF_UNDICI\]/g) ?? []
    expect(warnings).toHaveLength(1)
    expect(err).toMatch(/paywire: undici could not be loaded \(.+\), so this process sends with the runtime's fetch/)
    expect(err).toMatch(/keep undici outside the bundle \(esbuild: --external:undici/)
  })

  it('beside node_modules: requires undici from there, each payment on a connection of its own, no warning', async () => {
    connections = 0
    const run = await runPayingMerchant(besideNodeModules, {
      url,
      kind: 'purchase',
      inflight: 1,
      total: 3,
      maxSockets: 16,
    })
    expect(run).toMatchObject({ answered: 3, failures: [] })
    expect(connections).toBe(3)
    expect(run.stderr).not.toMatch(/PAYWIRE_FETCH_INSTEAD_OF_UNDICI/)
  })
})
