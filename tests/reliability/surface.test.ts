/** One surface: every service package re-exports the same core symbols, as the very same objects. */

import * as bill from '@paywire/bill-payment'
import * as card from '@paywire/card-gateway'
import * as core from '@paywire/core'
import * as remittance from '@paywire/remittance'
import { describe, expect, it } from 'vitest'

const CORE_REEXPORTS = [
  'ApiError',
  'ApiPromise',
  'ConnectionError',
  'PaywireError',
  'ProblemDetailsError',
  'RequestValidationError',
  'ResponseTooLargeError',
  'Secret',
  'SignatureVerificationError',
  'TimeoutError',
  'UserAbortError',
] as const

describe('the core re-exports of the three packages', () => {
  it.each([
    ['card-gateway', card],
    ['remittance', remittance],
    ['bill-payment', bill],
  ])('%s re-exports each core class itself (instanceof holds across imports)', (_name, pkg) => {
    const exported = pkg as unknown as Record<string, unknown>
    const fromCore = core as unknown as Record<string, unknown>
    for (const name of CORE_REEXPORTS) expect(exported[name], name).toBe(fromCore[name])
    const coreNames = Object.keys(exported).filter((name) => fromCore[name] === exported[name])
    expect(coreNames.sort()).toEqual([...CORE_REEXPORTS].sort())
  })
})
