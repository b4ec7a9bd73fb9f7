/**
 * A merchant process that pays (test/fixtures/payments.ts), run to its end from a test, and the
 * loopback server it pays: shared by the tests that count what a payment's connection costs.
 */

import type { Server } from 'node:net'
import { type FixturePackage, runFixtureToEnd } from '../../../tests/support/fixture-process.js'

/** What to run: `total` calls of `kind`, `inflight` at a time, on a client with `maxSockets`. */
export interface PaymentPlan {
  readonly url: string
  readonly kind: 'purchase' | 'status'
  readonly inflight: number
  readonly total: number
  readonly maxSockets: number
}

/** The process's one JSON line (calls answered, the first failures) and what it wrote to stderr. */
export interface MerchantRun {
  readonly answered: number
  readonly failures: string[]
  readonly stderr: string
}

/** Runs the merchant to its end; `env` is what Node reads at start (NODE_EXTRA_CA_CERTS). */
export async function runPayingMerchant(
  fixtures: FixturePackage,
  plan: PaymentPlan,
  env: Record<string, string> = {},
): Promise<MerchantRun> {
  const args = [plan.url, plan.kind, String(plan.inflight), String(plan.total), String(plan.maxSockets)]
  const { value, stderr } = await runFixtureToEnd<{ answered: number; failures: string[] }>(
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
