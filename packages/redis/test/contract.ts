/** The shared store conformance suite (tests/support), re-exported for this package's other tests. */
export * from '../../../tests/support/store-conformance.js'
