/** What a `CardGatewayError`'s message says to do next, per reason: the hints of the error table's rows. */

import type { RequestInfo } from '@paywire/core'

/**
 * What to do after "order_id: Duplicate payment." (rule Limits 1): a payment under this order_id
 * exists, often the first attempt of a call whose answer was lost. A new order_id before looking it
 * up can pay twice, so the hint names the lookup by order_id first.
 */
function duplicateOrderHint(operation: string, orderId: string | undefined): string {
  const id = orderId === undefined ? 'order_id' : JSON.stringify(orderId)
  const lookup =
    operation === 's2s.recurringSale'
      ? `gw.s2s.getTransStatusByOrder({ order_id: ${id} })`
      : `gw.checkout.status({ order_id: ${id} })`
  return `This order_id was already used by this merchant, often by an earlier attempt of this same payment whose answer was lost: look the first payment up with ${lookup} before any new order_id. Only if it did not go through is a new order_id (a new attempt) right; a new order_id sent before that can charge twice.`
}

/** What to do next, per reason; `environment` sharpens the key-mixing hint, `request` the duplicate one. */
export function hintFor(
  reason: string,
  environment: string | undefined,
  request: Pick<RequestInfo, 'operation' | 'reconciliation'>,
): string | undefined {
  switch (reason) {
    case 'hash_invalid':
      return 'Check that `password` belongs to the same environment as the keys, the `digest` option (md5/sha256) and `hashInputs`; explainSignature() shows each step.'
    case 'duplicate_order':
      return duplicateOrderHint(
        request.operation,
        request.reconciliation?.key === 'order_id' ? request.reconciliation.value : undefined,
      )
    case 'refund_not_allowed':
    case 'refund_requires_settled':
      return 'Refunds need a settled payment (and refunds enabled on the merchant account); a pending authorization is cancelled with VOID instead: gw.s2s.void({ trans_id }).'
    case 'refund_only_in_portal':
      return "The acquirer accepts refunds only in the connector's admin portal, not via the API."
    case 'ip_not_allowed':
      return "Add this server's public IP address to the merchant allowlist in the admin panel."
    case 'key_environment_mismatch':
      return environment
        ? `Live and sandbox credentials are mixed: this client is configured for "${environment}", so merchantKey, clientKey, password and both base URLs must all be the ${environment} ones.`
        : 'Live and sandbox credentials are mixed: keys, password and base URLs must all belong to the same environment (set `environment` for a sharper hint).'
    case 'capture_not_pending':
      return 'Only a pending payment can be captured: look its status up first (gw.s2s.captureIfPending does both).'
    case 'route_not_supported':
      return 'S2S CARD accepts only form-encoded POSTs to /post naming one of its actions (the gw.s2s methods).'
    case 'card_token_invalid':
      return 'Use the card_token (a single string) of the original sale.'
    case 'invalid_uuid':
      return 'schedule_id must be a UUID.'
    case 'unexpected_redirect':
      return 'The SDK never follows redirects (no credential goes to another host): check checkoutUrl and s2sUrl, and any proxy in between.'
    case 'unexpected_status':
      return 'A 1xx is no final answer: check any proxy in between.'
    default:
      return undefined
  }
}

/**
 * A 404 with no error envelope: the gateway answers every error it knows with one (rule Errors), so
 * nothing of the gateway's answered here, most often a base URL that is not the gateway's. Names the option.
 */
export function wrongBaseUrlHint(reason: string, status: number, envelopePresent: boolean, request: RequestInfo) {
  if (reason !== 'unknown' || status !== 404 || envelopePresent) return undefined
  const option = request.operation.startsWith('s2s.')
    ? 's2sUrl'
    : request.operation.startsWith('checkout.')
      ? 'checkoutUrl'
      : 'checkoutUrl or s2sUrl'
  const asked = URL.canParse(request.url)
    ? `${new URL(request.url).origin}${new URL(request.url).pathname}`
    : request.url
  return `Nothing at ${asked} answered as the gateway does (its errors carry an error envelope): check \`${option}\`, the base URL this call was sent under (the SDK appends the operation's path, e.g. /api/v1/session or /post).`
}
