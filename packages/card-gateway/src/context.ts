/** What the operation groups share: transport, keys, signer and the response handler (internal). */

import type { HttpClient, RawResponse, ResponseHandler } from '@paywire/core'
import { CardGatewayError } from './errors.js'
import { asObject, type RequestRules } from './schemas.js'
import type { SignatureInput } from './signature.js'

/** Operation names, as used in errors, hooks and the `hashInputs` option. */
export type CardGatewayOperation =
  | 'checkout.purchase'
  | 'checkout.credit'
  | 'checkout.status'
  | 's2s.getTransStatus'
  | 's2s.getTransStatusByOrder'
  | 's2s.capture'
  | 's2s.void'
  | 's2s.creditVoid'
  | 's2s.recurringSale'
  | 's2s.createSchedule'
  | 's2s.deleteSchedule'
  | 's2s.updateSchedule'

export interface GatewayContext {
  readonly http: HttpClient
  readonly checkoutUrl: string
  readonly s2sUrl: string
  readonly environment: string | undefined
  readonly paths: { readonly purchase: string; readonly status: string }
  /** The client's redirect-target policy and platform defaults, for the schemas it builds. */
  readonly rules: RequestRules
  merchantKey(): string
  clientKey(): string
  /** The hash of `inputs` with the password appended, using the configured digest. */
  sign(inputs: readonly SignatureInput[]): string
  /** The caller's explicit hash input list for `operation`, or `undefined` when it gave none. */
  hashInputs(operation: CardGatewayOperation): readonly string[] | undefined
}

/**
 * Builds the handler of one operation. A 2xx whose body says `result: "ERROR"` (the spec leaves
 * most error statuses unspecified) is an error too, and so is a 2xx body that is not a JSON object.
 */
export function gatewayHandler<T>(
  ctx: GatewayContext,
  decode: (body: Record<string, unknown>, raw: RawResponse, req: RequestLike) => T,
): ResponseHandler<T> {
  const toError = (raw: RawResponse, req: RequestLike) =>
    new CardGatewayError({
      operation: req.operation,
      method: req.method,
      url: req.url,
      response: raw,
      environment: ctx.environment,
    })
  return {
    decode(raw, req) {
      const body = asObject(raw.json)
      if (!body) throw unreadableError(raw, req, 'is not a JSON object')
      if (isErrorEnvelope(body)) throw toError(raw, req)
      return decode(body, raw, req)
    },
    toError,
  }
}

/** The parts of a request an error needs. */
export interface RequestLike {
  readonly operation: string
  readonly method: string
  readonly url: string
}

/** A 2xx answer the SDK cannot read: the call may have acted, so the caller must reconcile. */
export function unreadableError(raw: RawResponse, req: RequestLike, problem: string): CardGatewayError {
  return new CardGatewayError({
    operation: req.operation,
    method: req.method,
    url: req.url,
    response: raw,
    reason: 'unreadable_response',
    message: `${req.operation}: the HTTP ${raw.status} answer ${problem}; the request may have been processed, so reconcile with a status lookup before repeating it.`,
  })
}

function isErrorEnvelope(body: Record<string, unknown>): boolean {
  if (body['result'] === 'ERROR') return true
  const code = body['error_code']
  return body['result'] === undefined && typeof body['error_message'] === 'string' && code !== undefined
}
