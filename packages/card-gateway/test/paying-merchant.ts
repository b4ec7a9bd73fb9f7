/**
 * A merchant process that pays (test/fixtures/payments.ts), run to its end from a test, and the
 * loopback server it pays: shared by the tests that count what a payment's connection costs.
 */

import type { Server } from 'node:net'
import { type FixturePackage, runFixtureToEnd } from '../../../tests/support/fixture-process.js'

/**
 * What to run: `total` calls of `kind`, `inflight` at a time, on a client with `maxSockets`;
 * `alternate` is a purchase at `url`, then a lookup at `s2sUrl` (`url` unless given), and so on.
 */
export interface PaymentPlan {
  readonly url: string
  readonly s2sUrl?: string
  readonly kind: 'purchase' | 'status' | 'alternate'
  readonly inflight: number
  readonly total: number
  readonly maxSockets: number
}

/** The process's one JSON line (calls answered, the first failures) and what it wrote to stderr. */
export interface MerchantRun {
  readonly answered: number
  readonly failed: number
  /** The first three: each error's name, code, whether it was sent, and its message. */
  readonly failures: string[]
  readonly stderr: string
}

/** Runs the merchant to its end; `env` is what Node reads at start (NODE_EXTRA_CA_CERTS). */
export async function runPayingMerchant(
  fixtures: FixturePackage,
  plan: PaymentPlan,
  env: Record<string, string> = {},
): Promise<MerchantRun> {
  const { url, kind, inflight, total, maxSockets, s2sUrl = url } = plan
  const args = [url, kind, String(inflight), String(total), String(maxSockets), s2sUrl]
  const { value, stderr } = await runFixtureToEnd<{ answered: number; failed: number; failures: string[] }>(
    fixtures,
    'payments.ts',
    args,
    env,
  )
  return { ...value, stderr }
}

/** Listens on an ephemeral loopback port; the base URL with `scheme`. */
export async function listenOnLoopback(server: Server, scheme: 'http' | 'https'): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const address = server.address()
  if (address === null || typeof address === 'string') throw new Error('no TCP address')
  return `${scheme}://127.0.0.1:${address.port}`
}
