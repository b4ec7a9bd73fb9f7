/**
 * What the storm fixtures (merchant processes) and the storm tests share, in a module of its own so
 * a fixture's bundle carries nothing else.
 */

/** The password the storm's gateway signs callbacks with. */
export const STORM_PASSWORD = 'storm-password'

/**
 * The inbox options every storm fixture uses, compressed for a test: a dead instance's events are
 * taken over within a second or two (the defaults are a 60 s lease and a 30 s interval).
 */
export const STORM_HANDLER_OPTIONS = {
  holdMs: 1_000,
  recoverEveryMs: 300,
  retryBackoff: { baseDelayMs: 50, maxDelayMs: 500 },
} as const
