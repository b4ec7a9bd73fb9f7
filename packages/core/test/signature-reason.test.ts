/**
 * `SignatureVerificationError['reason']` is the closed union `SignatureErrorReason`: a `switch` on it
 * is checked, and a reason outside the list does not compile (this file is typechecked).
 */

import { type SignatureErrorReason, SignatureVerificationError } from '@paywire/core'
import { describe, expect, expectTypeOf, it } from 'vitest'

describe('SignatureErrorReason', () => {
  it('is the type of reason and of the constructor parameter', () => {
    expectTypeOf<SignatureVerificationError['reason']>().toEqualTypeOf<SignatureErrorReason>()
    expectTypeOf<ConstructorParameters<typeof SignatureVerificationError>[0]>().toEqualTypeOf<SignatureErrorReason>()
    expect(new SignatureVerificationError('too_deep', 'm').reason).toBe('too_deep')
  })

  it('a wrong literal does not compile', () => {
    // @ts-expect-error 'hash_invalid' is not a reason a callback is refused with
    const error = new SignatureVerificationError('hash_invalid', 'm')
    // @ts-expect-error a comparison with a reason outside the union has no overlap
    expect(error.reason === 'bad_hash').toBe(false)
    expectTypeOf<'hash_invalid'>().not.toMatchTypeOf<SignatureErrorReason>()
  })
})
