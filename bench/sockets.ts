/**
 * Sockets a fresh client opens to keep `concurrency` calls in flight: the SDK with its default
 * per-origin cap, against raw undici on an Agent with no cap (what undici does on its own). The
 * bench server counts the connections it accepts.
 */

import { CardGateway } from '@paywire/card-gateway'
import { Agent, request } from 'undici'
import { measureLoad } from './measure.js'
import { CREDENTIALS, S2S_PARAMS, s2sStatus } from './requests.js'
import type { BenchServer } from './server.js'

export interface SocketResult {
  readonly concurrency: number
  /** Connections the SDK's own Agent opened (default cap). */
  readonly sdk: number
  /** Connections raw undici opened on an Agent without a cap. */
  readonly undiciUncapped: number
}

export async function measureSockets(
  server: BenchServer,
  concurrencies: readonly number[],
  durationMs: number,
): Promise<SocketResult[]> {
  const results: SocketResult[] = []
  for (const concurrency of concurrencies) {
    const load = { concurrency, warmupMs: 0, durationMs }
    const { merchantKey, clientKey, password } = CREDENTIALS
    await server.connectionsOpened()
    const gw = new CardGateway({ checkoutUrl: server.url, s2sUrl: server.url, merchantKey, clientKey, password })
    await measureLoad(() => gw.s2s.getTransStatus(S2S_PARAMS), load)
    await gw.close()
    const sdk = await server.connectionsOpened()
    const agent = new Agent({ keepAliveTimeout: 4_000 })
    await measureLoad(async () => {
      const req = s2sStatus(server.url)
      const res = await request(req.url, {
        method: req.method,
        headers: req.headers,
        body: req.body,
        dispatcher: agent,
      })
      await res.body.text()
    }, load)
    await agent.close()
    results.push({ concurrency, sdk, undiciUncapped: await server.connectionsOpened() })
  }
  return results
}
