/**
 * The simulator's strict checks (on unless `lenient: true`): what the live gateway refuses and a
 * loose simulator would let through, judged by the SDK's own rules (its amount table and its
 * redirect-target check) so a request the simulator accepts is one production accepts.
 */

import { amountProblem } from '../amount.js'
import { isLoopbackHost, redirectProblem } from '../fields.js'
import { readPath } from './rules.js'

/** Amount fields and the currency field each is written in (none: the payment's currency, when known). */
const AMOUNT_FIELDS: readonly (readonly [string, string | undefined])[] = [
  ['order.amount', 'order.currency'],
  ['order_amount', 'order_currency'],
  ['amount', undefined],
]

/** Redirect targets: the payer's browser is sent there, so each must be a public https URL. */
const REDIRECT_FIELDS: readonly string[] = ['success_url', 'cancel_url', 'term_url_3ds', 'expiry_url', 'error_url']

/**
 * The validation problems of a request body, each `field: reason` as the gateway lists them in
 * `errors[]`: an amount that is not a JSON string (Checkout), an amount whose decimals do not fit
 * its currency (`"10.0"` EUR), a redirect target that is not a public https URL. `paymentCurrency`:
 * the currency of the payment an S2S action acts on, whose `amount` (partial capture or refund) is
 * written in it (`"5.000"` is not a USD amount).
 */
export function strictProblems(body: Record<string, unknown>, paymentCurrency?: string): string[] {
  const problems: string[] = []
  for (const [field, currencyField] of AMOUNT_FIELDS) {
    const value = rawPath(body, field)
    if (value === undefined || value === null || value === '') continue
    if (typeof value !== 'string') {
      problems.push(`${field}: This value should be of type string (an amount is sent as a string such as "10.00").`)
      continue
    }
    const currency = currencyField === undefined ? paymentCurrency : readPath(body, currencyField)
    // The credit endpoint takes two decimals only; elsewhere the currency's own form is accepted too.
    const problem =
      body['operation'] === 'credit' ? twoDecimalsProblem(value, currency) : amountFormProblem(value, currency)
    if (problem) problems.push(`${field}: This value is not valid: ${value} ${problem}`)
  }
  for (const field of REDIRECT_FIELDS) {
    const value = body[field]
    if (value === undefined || value === null || value === '') continue
    if (typeof value !== 'string') {
      problems.push(`${field}: This value should be of type string.`)
      continue
    }
    const problem = loopback(value) ? undefined : redirectProblem(value, false)
    if (problem) problems.push(`${field}: This value is not a valid URL: it ${problem}`)
  }
  return problems
}

/**
 * A return URL on this machine (`http://localhost:3000/paid`, `http://127.0.0.1/…`, `http://[::1]/…`):
 * accepted by the simulator, which runs on the same machine as the browser that follows it, so the
 * whole purchase loop runs locally. The live gateway refuses it, and so does the SDK unless
 * `allowPrivateRedirectUrls` (rule Events 4); every other non-https URL stays refused here.
 */
function loopback(value: string): boolean {
  let url: URL
  try {
    url = new URL(value)
  } catch {
    return false
  }
  return (url.protocol === 'http:' || url.protocol === 'https:') && isLoopbackHost(url.hostname)
}

/**
 * The gateway takes an amount in its two-decimal form or in the currency's own form (the SDK writes
 * one or the other, per its `amountForm`): refused only when it is neither.
 */
function amountFormProblem(amount: string, currency: string | undefined): string | undefined {
  const twoDecimals = amountProblem(amount, currency, 'two-decimals')
  if (twoDecimals === undefined) return undefined
  if (amountProblem(amount, currency, 'per-currency') === undefined) return undefined
  // The simulator answers as the gateway, for clients in any language: no SDK function is named.
  return twoDecimals.replace(SDK_HELPER_HINT, '')
}

/** The credit endpoint's rule: a decimal string with two decimals (`10.00`), in every currency. */
function twoDecimalsProblem(amount: string, currency: string | undefined): string | undefined {
  return amountProblem(amount, currency, 'two-decimals')?.replace(SDK_HELPER_HINT, '')
}

/** The SDK's pointer to its own helper at the end of an amount problem. */
const SDK_HELPER_HINT = / \(formatAmount writes it\)$/

function rawPath(body: Record<string, unknown>, path: string): unknown {
  let current: unknown = body
  for (const step of path.split('.')) {
    if (typeof current !== 'object' || current === null) return undefined
    current = (current as Record<string, unknown>)[step]
  }
  return current
}
