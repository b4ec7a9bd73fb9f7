/** A store that does what another does, but for the methods a test replaces: a lost reply, a stall, a refusal. */

import type { ClaimStore } from '@paywire/core'

/** Delegates every `ClaimStore` method to `inner`, except those in `methods`. */
export function storeWith(inner: ClaimStore, methods: Partial<ClaimStore>): ClaimStore {
  return {
    record: (event, token, leaseMs) => inner.record(event, token, leaseMs),
    take: (key, lease) => inner.take(key, lease),
    takeDue: (lease, limit) => inner.takeDue(lease, limit),
    renew: (key, token, ms) => inner.renew(key, token, ms),
    complete: (key, token, keepMs) => inner.complete(key, token, keepMs),
    release: (key, token, next) => inner.release(key, token, next),
    wake: (key) => inner.wake(key),
    failedEvents: (limit) => inner.failedEvents(limit),
    retry: (key) => inner.retry(key),
    forget: (ref) => inner.forget(ref),
    prune: (keepMs) => inner.prune(keepMs),
    ...methods,
  }
}
