/** `BillPaymentError`: the service's ProblemDetails answers (RFC 9457), branded, with the credentials' hint. */

import { brandErrorClass, ProblemDetailsError, type ProblemDetailsErrorInit, type ProblemHints } from '@paywire/core'

const CREDENTIAL_HINT =
  'Check the X-Service-Internal-Client-Id and X-Service-Client-Secret headers (the clientId and clientSecret options).'

/** Spec "Authentication": a 401 or 403 means the client id or secret was rejected; name both headers. */
const HINTS: ProblemHints = { unauthorized: CREDENTIAL_HINT, forbidden: CREDENTIAL_HINT }

/**
 * The bill payment service answered with an error, or with a 2xx the SDK could not use. Everything
 * it holds (`reason`, `problem`, `issues`, `isAuthError`, `isNotFound`, the call's `idempotencyKey`) is
 * core's `ProblemDetailsError`, the same as `RemittanceError`.
 */
export class BillPaymentError extends ProblemDetailsError {
  override name = 'BillPaymentError'

  constructor(init: ProblemDetailsErrorInit) {
    super(init, HINTS)
  }
}
brandErrorClass(BillPaymentError, 'BillPaymentError')
