/** `BillPaymentError`: the service's ProblemDetails answers (RFC 9457), branded, with the credentials' hint. */

import { ProblemDetailsError, type ProblemDetailsErrorInit } from '@paywire/core'
import { brandErrorClass, type ProblemHints } from '@paywire/core/engine'
import { describeFieldErrors, readFieldErrors } from './field-errors.js'

const CREDENTIAL_HINT =
  'Check the X-Service-Internal-Client-Id and X-Service-Client-Secret headers (the clientId and clientSecret options).'

/** A 401 or 403 means the client id or secret was rejected (rules Authentication, Platform 4); name both headers. */
const HINTS: ProblemHints = { unauthorized: CREDENTIAL_HINT, forbidden: CREDENTIAL_HINT }

/**
 * The bill payment service answered with an error, or with a 2xx the SDK could not use (rule
 * Platform 13: `unbound_response`, an answer about another transaction than the one asked for). Everything
 * it holds (`reason`, `problem`, `issues`, `isAuthError`, `isNotFound`, the call's `idempotencyKey`) is
 * core's `ProblemDetailsError`, the same as `RemittanceError`, except `fieldErrors`: the service
 * publishes no error body (rule Errors), so they are read from every common shape of a validation
 * failure, not only the ASP.NET `errors` map (rule Platform 3), and the message lists them.
 */
export class BillPaymentError extends ProblemDetailsError {
  override name = 'BillPaymentError'
  readonly #fieldErrors: Readonly<Record<string, readonly string[]>>

  constructor(init: ProblemDetailsErrorInit) {
    super(init, HINTS)
    this.#fieldErrors = init.response.status >= 400 ? readFieldErrors(init.response.json) : {}
    // Core's message lists the field errors of an ASP.NET map only; name the others here.
    const listed = Object.keys(super.fieldErrors).length > 0
    if (!listed && Object.keys(this.#fieldErrors).length > 0) {
      const fields = describeFieldErrors(this.#fieldErrors)
      this.message = `${this.message} Field errors: ${fields}${/[.!?]$/.test(fields) ? '' : '.'}`
    }
  }

  /** Field name → messages, from any common validation shape of the body (rule Platform 3); empty when it had none. */
  override get fieldErrors(): Readonly<Record<string, readonly string[]>> {
    return this.#fieldErrors
  }
}
brandErrorClass(BillPaymentError, 'BillPaymentError')
