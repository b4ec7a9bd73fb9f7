/**
 * Which merchant account a call was made for: a fingerprint of the client's keys, recorded on its
 * journal intents and its errors, so that a client settles only what its own account sent (two
 * accounts on one gateway may share a journal; a lookup with the other's keys sees nothing).
 */

import { nodeCrypto } from '../builtins.js'
import type { PaywireError } from '../errors/paywire-error.js'
import { Secret } from '../secret.js'

/**
 * A non-secret fingerprint of a merchant account: the first 16 hex digits of the SHA-256 of the
 * service and the account's keys (never the password), so equal keys give equal fingerprints in
 * every process. The keys cannot be read back from it.
 */
export function accountFingerprint(service: string, keys: readonly (string | Secret)[]): string {
  const hash = nodeCrypto().createHash('sha256').update('paywire account\u0000').update(service)
  for (const key of keys) hash.update('\u0000').update(key instanceof Secret ? key.reveal() : key)
  return hash.digest('hex').slice(0, 16)
}

/** The account each error's call was made for: kept beside the error, never serialized. */
const accounts = new WeakMap<PaywireError, string>()

/** Records the account `error`'s call was made for (the transport does, when it raises it). */
export function markAccount(error: PaywireError, account: string): void {
  accounts.set(error, account)
}

/** The account `error`'s call was made for, when a client raised it. */
export function accountOf(error: PaywireError): string | undefined {
  return accounts.get(error)
}
