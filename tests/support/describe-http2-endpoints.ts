/**
 * The test side of `runEveryEndpointOverHttp2` (http2-endpoints.ts): runs the package's fixture
 * `http2-endpoints.ts` in a process of its own that trusts the test certificate, and checks that
 * every row was answered over HTTP/2, one call after another on the client's connections reused:
 * at most two (its kept-alive connections, and the one its money-moving calls take), however many
 * calls. See docs/reliability.md, "HTTP/2".
 */

import { afterAll, describe, expect, it } from 'vitest'
import { type FixturePackage, killFixtures, runTlsFixture } from './fixture-process.js'
import type { Http2EndpointsRun } from './http2-endpoints.js'

/** Runs the fixture to its end; its one JSON line. */
async function run(packageDir: string): Promise<Http2EndpointsRun> {
  // undici stays outside the bundle, as in a merchant's node_modules.
  const fixtures: FixturePackage = { packageDir, external: ['undici'] }
  return runTlsFixture<Http2EndpointsRun>(fixtures, 'http2-endpoints.ts')
}

/** Every endpoint of the package in `packageDir` over HTTP/2 against its simulator. */
export function describeEndpointsOverHttp2(packageDir: string): void {
  describe('every endpoint over HTTP/2 (the simulator served over TLS offering h2)', () => {
    afterAll(() => killFixtures())

    it('each row is answered over HTTP/2, and one call after another reuses the connections', async () => {
      const { rows, requests } = await run(packageDir)
      expect(rows.length).toBeGreaterThan(0)
      expect(rows.filter((row) => row.error !== undefined)).toEqual([])
      expect(requests.length).toBeGreaterThanOrEqual(rows.length)
      expect(new Set(requests.map((r) => r.httpVersion))).toEqual(new Set(['2.0']))
      expect(new Set(requests.map((r) => r.connection)).size).toBeLessThanOrEqual(2)
    })
  })
}
