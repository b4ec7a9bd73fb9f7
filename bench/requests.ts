/**
 * The hand-rolled side of each scenario: the same wire request the SDK sends (URL, headers, body and,
 * for the card gateway, the signature computed with node:crypto), built afresh for every call.
 * The undici, fetch and axios clients all send these, so they differ only in transport.
 */

import { hash, randomUUID } from 'node:crypto'

/** Credentials and fixed inputs shared by the SDK and the hand-rolled clients. */
export const CREDENTIALS = {
  merchantKey: 'bench-merchant-key',
  clientKey: 'bench-client-key',
  password: 'bench-password',
  apiKey: 'bench-api-key',
  clientId: 'bench-client-id',
  clientSecret: 'bench-client-secret',
} as const

export const S2S_PARAMS = { trans_id: 't-1' } as const
export const PURCHASE_PARAMS = {
  order: { number: 'o-1', amount: '10.00', currency: 'USD', description: 'Bench order' },
  success_url: 'https://shop.example/ok',
  cancel_url: 'https://shop.example/cancel',
} as const
export const EXECUTE_BODY = { productId: 'P1', amount: 10, customerReference: 'c-1' } as const

/** One request ready for any transport. */
export interface WireRequest {
  readonly method: 'GET' | 'POST'
  readonly url: string
  readonly headers: Record<string, string>
  readonly body?: string
}

const BASE_HEADERS = { 'user-agent': 'bench-hand-rolled/1.0', accept: 'application/json' } as const

/** ASCII-only uppercase, like the gateway's PHP `strtoupper` (same rule as the SDK's signer). */
function asciiUpper(text: string): string {
  return text.replace(/[a-z]+/g, (run) => run.toUpperCase())
}

/** `sha1(md5hex(UPPER(values… + password)))`, both as lowercase hex, with one-shot `crypto.hash` like the SDK. */
export function bareSignature(values: readonly string[], password: string): string {
  return hash('sha1', hash('md5', asciiUpper(values.join('') + password), 'hex'), 'hex')
}

/** S2S GET_TRANS_STATUS: form body, `client_key`, hash over `trans_id`. */
export function s2sStatus(baseUrl: string): WireRequest {
  return s2sAction(baseUrl, 'GET_TRANS_STATUS')
}

/** S2S CAPTURE of the whole amount: the same form as the lookup, another action. */
export function s2sCapture(baseUrl: string): WireRequest {
  return s2sAction(baseUrl, 'CAPTURE')
}

function s2sAction(baseUrl: string, action: string): WireRequest {
  const fields: Record<string, string> = {
    action,
    client_key: CREDENTIALS.clientKey,
    trans_id: S2S_PARAMS.trans_id,
  }
  fields['hash'] = bareSignature([S2S_PARAMS.trans_id], CREDENTIALS.password)
  return {
    method: 'POST',
    url: `${baseUrl}/post`,
    headers: { ...BASE_HEADERS, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields).toString(),
  }
}

/** Checkout purchase: JSON body, `merchant_key`, hash over the four `order.*` fields. */
export function checkoutPurchase(baseUrl: string): WireRequest {
  const { order, success_url, cancel_url } = PURCHASE_PARAMS
  const signature = bareSignature([order.number, order.amount, order.currency, order.description], CREDENTIALS.password)
  const wire = {
    merchant_key: CREDENTIALS.merchantKey,
    operation: 'purchase',
    order,
    success_url,
    cancel_url,
    hash: signature,
  }
  return {
    method: 'POST',
    url: `${baseUrl}/api/v1/session`,
    headers: { ...BASE_HEADERS, 'content-type': 'application/json' },
    body: JSON.stringify(wire),
  }
}

/** Remittance GET /api/lookup/banks with the `x-code` key. */
export function remittanceBanks(baseUrl: string): WireRequest {
  return {
    method: 'GET',
    url: `${baseUrl}/api/lookup/banks`,
    headers: { ...BASE_HEADERS, 'x-code': CREDENTIALS.apiKey },
  }
}

/** Bill payment POST /api/transactions: both credential headers and a fresh Idempotency-Key. */
export function billExecute(baseUrl: string): WireRequest {
  return {
    method: 'POST',
    url: `${baseUrl}/api/transactions`,
    headers: {
      ...BASE_HEADERS,
      'X-Service-Internal-Client-Id': CREDENTIALS.clientId,
      'X-Service-Client-Secret': CREDENTIALS.clientSecret,
      'Idempotency-Key': randomUUID(),
      'content-type': 'application/json',
    },
    body: JSON.stringify(EXECUTE_BODY),
  }
}
