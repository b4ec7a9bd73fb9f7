/** `RemittanceError`: the service's ProblemDetails answers (RFC 9457), branded, with the key's hint. */

import { ProblemDetailsError, type ProblemDetailsErrorInit } from '@paywire/core'
import { brandErrorClass, type ProblemHints } from '@paywire/core/engine'

const CREDENTIAL_HINT = 'The API key goes in the x-code header: check the apiKey option.'

/** A refused key is 401 or 403 (rules Authentication 2, Platform 8), named by its header. */
const HINTS: ProblemHints = { unauthorized: CREDENTIAL_HINT, forbidden: CREDENTIAL_HINT }

/**
 * The remittance service answered with an error (rules Errors 1, Platform 6: 400 and 502 carry a
 * ProblemDetails record; 502 is an upstream failure), or with a 2xx the SDK could not use (rule
 * Platform 10: `unreadable_response` names the field that did not fit; rule Platform 19:
 * `unbound_response`, an answer about another transaction than the one asked for). Everything it holds
 * (`reason`, `problem`, `fieldErrors`, `traceId`, `isNotFound`, `isAuthError`) is core's
 * `ProblemDetailsError`, the same as `BillPaymentError`.
 */
export class RemittanceError extends ProblemDetailsError {
  override name = 'RemittanceError'

  constructor(init: ProblemDetailsErrorInit) {
    super(init, HINTS)
  }
}
brandErrorClass(RemittanceError, 'RemittanceError')
