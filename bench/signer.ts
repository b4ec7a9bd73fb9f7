/**
 * Signer throughput: a card gateway client's `sign` (the signer it signs every request with, the
 * password uppercased once per client) against the bare node:crypto chain doing the minimum the hash
 * needs, judged on the paired per-round ratio.
 */

import { hash } from 'node:crypto'
import { CardGateway } from '@paywire/card-gateway'
import { interleave, median, opsPerSecond } from './measure.js'
import { CREDENTIALS, PURCHASE_PARAMS } from './requests.js'
import { type Spread, spread } from './throughput.js'

/** The Checkout purchase hash inputs: order number, amount, currency, description. */
const VALUES = [
  PURCHASE_PARAMS.order.number,
  PURCHASE_PARAMS.order.amount,
  PURCHASE_PARAMS.order.currency,
  PURCHASE_PARAMS.order.description,
]

/**
 * Join, uppercase (`toUpperCase` equals ASCII-only uppercasing for these ASCII inputs), md5 hex,
 * sha1 hex, with the one-shot `crypto.hash` the SDK's signer uses: the same API on both sides.
 */
function bare(values: readonly string[], password: string): string {
  return hash('sha1', hash('md5', (values.join('') + password).toUpperCase(), 'hex'), 'hex')
}

export interface SignerResult {
  readonly what: string
  readonly baseline: string
  readonly sdkOpsPerSec: number
  readonly bareOpsPerSec: number
  /** sdk / bare per round, higher is better. */
  readonly ratio: Spread
  readonly samples: { readonly sdk: number[]; readonly bare: number[] }
}

export async function measureSigner(rounds: number, durationMs: number): Promise<SignerResult> {
  const { merchantKey, clientKey, password } = CREDENTIALS
  const url = 'https://gateway.example'
  const gw = new CardGateway({ checkoutUrl: url, s2sUrl: url, merchantKey, clientKey, password })
  if (gw.sign(VALUES) !== bare(VALUES, password)) throw new Error('the client signer and the bare chain disagree')
  const samples = await interleave(['sdk', 'bare'] as const, rounds, async (name) => {
    const ops =
      name === 'sdk'
        ? opsPerSecond(() => gw.sign(VALUES), durationMs)
        : opsPerSecond(() => bare(VALUES, password), durationMs)
    // Yield between windows so timers and GC are not starved.
    await new Promise((resolve) => setImmediate(resolve))
    return ops
  })
  await gw.close()
  const sdkOpsPerSec = median(samples.sdk)
  const bareOpsPerSec = median(samples.bare)
  return {
    what: "gw.sign(values): the card gateway client's own request signer",
    baseline: 'node:crypto one-shot hash(): join + toUpperCase + md5 hex + sha1 hex',
    sdkOpsPerSec,
    bareOpsPerSec,
    ratio: spread(samples.sdk.map((ops, i) => ops / (samples.bare[i] ?? Number.NaN))),
    samples,
  }
}
