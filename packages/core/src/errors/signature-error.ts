/** The error a refused callback (webhook) throws, and every reason it can give. */

import { brandErrorClass, PaywireError } from './paywire-error.js'

/**
 * Why a callback was refused: every reason a paywire package throws `SignatureVerificationError`
 * with, so a `switch` on it is checked by the compiler.
 * - `hash_mismatch`: the hash does not match the body and the password(s);
 * - `missing_hash`: no `hash` field, or an empty one;
 * - `missing_signed_fields`: a signed field is absent or empty (checked before the hash);
 * - `empty_body`, `not_raw_body`, `unreadable_body`: no body, a parsed object instead of the raw
 *   bytes, or a body that starts like JSON but is not JSON;
 * - `body_too_large`, `too_many_fields`, `too_deep`, `duplicate_field`: hostile or ambiguous shapes,
 *   refused before decoding;
 * - `no_payer_lookup`, `unknown_payer`: on the strrev scheme, the payer data an S2S callback is
 *   signed over is not available;
 * - `signer_failed`: the merchant's signature function threw or returned no hex hash.
 */
export type SignatureErrorReason =
  | 'hash_mismatch'
  | 'missing_hash'
  | 'missing_signed_fields'
  | 'empty_body'
  | 'not_raw_body'
  | 'unreadable_body'
  | 'body_too_large'
  | 'too_many_fields'
  | 'too_deep'
  | 'duplicate_field'
  | 'no_payer_lookup'
  | 'unknown_payer'
  | 'signer_failed'

/** A callback (webhook) whose signature does not verify; `diagnostic` never contains a secret. */
export class SignatureVerificationError extends PaywireError {
  override name = 'SignatureVerificationError'
  /** Why the callback was refused: one of `SignatureErrorReason`. */
  readonly reason: SignatureErrorReason
  readonly diagnostic: Readonly<Record<string, unknown>>

  constructor(reason: SignatureErrorReason, message: string, diagnostic: Record<string, unknown> = {}) {
    super(message)
    this.reason = reason
    this.diagnostic = diagnostic
  }
}
brandErrorClass(SignatureVerificationError, 'SignatureVerificationError')
