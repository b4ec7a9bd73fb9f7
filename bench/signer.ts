/**
 * Signer throughput: the card gateway's public `sign` (the function its client calls for every
 * request) against the bare node:crypto chain doing the minimum the hash needs.
 */

import { hash } from 'node:crypto'
import { sign } from '@paywire/card-gateway'
import { interleave, median, opsPerSecond } from './measure.js'
import { CREDENTIALS, PURCHASE_PARAMS } from './requests.js'

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
  /** sdk / bare, higher is better. */
  readonly ratio: number
  readonly samples: { readonly sdk: number[]; readonly bare: number[] }
}

export async function measureSigner(rounds: number, durationMs: number): Promise<SignerResult> {
  const password = CREDENTIALS.password
  if (sign(VALUES, password) !== bare(VALUES, password)) throw new Error('sign() and the bare chain disagree')
  const samples = await interleave(['sdk', 'bare'] as const, rounds, async (name) => {
    const ops =
      name === 'sdk'
        ? opsPerSecond(() => sign(VALUES, password), durationMs)
        : opsPerSecond(() => bare(VALUES, password), durationMs)
    // Yield between windows so timers and GC are not starved.
    await new Promise((resolve) => setImmediate(resolve))
    return ops
  })
  const sdkOpsPerSec = median(samples.sdk)
  const bareOpsPerSec = median(samples.bare)
  return {
    what: "sign(values, password) exported by @paywire/card-gateway (the client's own signer)",
    baseline: 'node:crypto one-shot hash(): join + toUpperCase + md5 hex + sha1 hex',
    sdkOpsPerSec,
    bareOpsPerSec,
    ratio: sdkOpsPerSec / bareOpsPerSec,
    samples,
  }
}
