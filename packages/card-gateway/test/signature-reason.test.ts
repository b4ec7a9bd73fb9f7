/** The card gateway re-exports `SignatureErrorReason`, the type of the reason its callbacks are refused with. */

import type { SignatureErrorReason as CoreReason } from '@paywire/core'
import { describe, expectTypeOf, it } from 'vitest'
import type { SignatureErrorReason, SignatureVerificationError } from '../src/index.js'

describe('SignatureErrorReason from @paywire/card-gateway', () => {
  it('is core’s union and the type of reason', () => {
    expectTypeOf<SignatureErrorReason>().toEqualTypeOf<CoreReason>()
    expectTypeOf<SignatureVerificationError['reason']>().toEqualTypeOf<SignatureErrorReason>()
  })
})
