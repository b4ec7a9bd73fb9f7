/** The card simulator's rules: credentials, test cards, option and record types, the action tables, signing. */

import { createHash } from 'node:crypto'
import type { Clock } from '@paywire/core'

/** Credentials the simulator accepts by default (its sandbox account). */
export const SIMULATOR_CREDENTIALS = Object.freeze({
  merchantKey: 'sim-merchant-key',
  clientKey: 'sim-client-key',
  password: 'sim-password',
})

/** Keys of the other environment: sending one answers 220002 (rule Authentication 3). */
export const SIMULATOR_LIVE_KEYS = Object.freeze({ merchantKey: 'live-merchant-key', clientKey: 'live-client-key' })

/** Sandbox test cards (rule Platform 18): the expiry chooses the outcome. */
export const TEST_CARDS = Object.freeze({
  number: '4111111111111111',
  success: '01/2038',
  decline: '02/2038',
  captureFails: '03/2038',
  threeDsSuccess: '05/2038',
  threeDsDecline: '06/2038',
})

/** The simulator's dedup window (rule Limits 1). */
export const SIMULATOR_DEDUP_WINDOW_MS = 15_000

/**
 * How long the simulator keeps an authorisation (`pending`) capturable by default: 7 days (rule
 * Platform 28, an assumption: the platform does not publish it). Option `authorizationValidMs`.
 */
export const SIMULATOR_AUTHORIZATION_VALID_MS = 7 * 24 * 60 * 60 * 1000

export type Digest = 'md5' | 'sha256'

export interface CardGatewaySimulatorOptions {
  readonly merchantKey?: string
  readonly clientKey?: string
  readonly password?: string
  /** Keys that belong to the other environment (answer 220002). Default `SIMULATOR_LIVE_KEYS`. */
  readonly otherEnvironmentKeys?: readonly string[]
  /** Allowed caller addresses; `undefined` allows every address (rule Authentication 7). */
  readonly allowedIps?: readonly string[]
  /**
   * Time: the 15 s dedup window is measured on `clock.now()` (monotonic), ledger and payment times
   * read `clock.date()` (ms since the epoch). Default core's `systemClock`; tests pass `createTestClock()`.
   */
  readonly clock?: Clock
  readonly digest?: Digest
  /**
   * The signature scheme the simulated brand uses. `seed` (default): `sha1(md5(UPPER(...)))`
   * everywhere. `card-md5-strrev`: S2S actions are verified, and S2S callbacks (after CAPTURE, VOID,
   * CREDITVOID) signed, with the platform's plain-MD5 scheme over the reversed payer email, the
   * password, the trans_id and the reversed card digits; Checkout keeps the seed formula, and a
   * purchase must then name `customer.email`.
   */
  readonly signature?: 'seed' | 'card-md5-strrev'
  /** Hash input overrides by action name, or `purchase`, `credit`, `status`. */
  readonly hashInputs?: Readonly<Record<string, readonly string[]>>
  /** Callback hash input order; default Checkout order (rule Platform 15). */
  readonly callbackFields?: readonly string[]
  /**
   * The callbacks after S2S actions (CAPTURE, VOID, CREDITVOID, RECURRING_SALE) on the seed
   * signature. `'checkout'` (default, as before): Checkout-shaped (`type`, `order_number`…).
   * `'s2s'`: the S2S CARD shape the platform documents (`action`, `result`, `status`, `order_id`,
   * `trans_id`, `amount`, `currency`, `trans_date`, rule Platform 17; a refund adds
   * `creditvoid_date`), signed over `s2sCallbackFields`. On `card-md5-strrev` they are always S2S-shaped.
   */
  readonly s2sCallbackShape?: 'checkout' | 's2s'
  /**
   * The fields the simulator signs S2S callbacks over on the seed signature, password last
   * (default `['trans_id']`, the inputs of the S2S request with that identifier). A stand-in: no
   * public source gives this formula (rule Platform 30); check your account's with `paywire callback capture`.
   */
  readonly s2sCallbackFields?: readonly string[]
  /** `disabled`: 100000 Refund is not allowed; `portal-only`: 210002. Default `enabled`. */
  readonly refunds?: 'enabled' | 'disabled' | 'portal-only'
  /** Action names the routing does not support (answer 204005). */
  readonly unsupportedActions?: readonly string[]
  /** Answer not-found for transaction/order with 100000, as before release 6.7.0. */
  readonly legacyNotFound?: boolean
  /**
   * `true` turns off the checks a loose simulator would skip but the live gateway applies: amounts
   * as JSON strings, amount decimals that fit the currency (`"10.0"` EUR is refused), redirect
   * targets (`success_url`, `cancel_url`, `term_url_3ds`) that are public https URLs. Default
   * `false`: refused with 400, 100000 `Request data is invalid.` and `errors[]` naming each field.
   */
  readonly lenient?: boolean
  /** Checkout validation failures as `error_code: 0` with the real code inside `errors[]` (rule Platform 8). */
  readonly nestedValidationErrors?: boolean
  /**
   * Makes payment ids, trans ids and tokens; default `crypto.randomUUID`. A seeded generator makes
   * runs repeatable (`paywire sim --seed`).
   */
  readonly uuid?: () => string
  /**
   * Called with each signed callback body as the simulator produces it (a payment changed state),
   * e.g. to deliver it to a merchant's URL (`paywire sim --callback-url`). Bodies also stay in `callbacks`.
   */
  readonly onCallback?: (body: string, payment: Readonly<SimulatedPayment>) => void
  /**
   * How long an authorisation stays capturable, in ms on `clock.now()` from the moment the payment
   * became `pending` (rule States: `expired` is an outcome; rule Platform 28 for the period and how
   * it shows). At that age it expires: `void`, a void callback with reason `Authorization expired`,
   * and an `expire` ledger entry. Evaluated lazily when the payment is asked about (`payment()`,
   * status lookups, CAPTURE, VOID, CREDITVOID, credit) and by `expireAuthorizations()`.
   * Default `SIMULATOR_AUTHORIZATION_VALID_MS` (7 days); `Infinity` never expires.
   */
  readonly authorizationValidMs?: number
}

/** Internal payment states (rule States; Checkout status names from rule Platform 7). */
export type SimulatedPaymentStatus = 'prepare' | '3ds' | 'pending' | 'settled' | 'decline' | 'void' | 'refund'

export interface SimulatedPayment {
  readonly payment_id: string
  readonly trans_id: string
  readonly order_id: string
  readonly amount: string
  readonly currency: string
  readonly description: string
  status: SimulatedPaymentStatus
  /** The card's token, set when the payer pays; shown in answers only when `tokenise` (rule Platform 26). */
  card_token: string | undefined
  recurring_token: string | undefined
  /** Whether the purchase asked `req_token: true`: answers and callbacks then carry `card_token`. */
  readonly tokenise: boolean
  readonly recurringInit: boolean
  captureFails: boolean
  captureOnSuccess: boolean
  declineAfter3ds: boolean
  capturedAmount: string | undefined
  /**
   * The total refunded so far, in the payment's amount form (`"5.00"`), or `undefined` before any
   * refund. Kept in minor units while summing; a refund above what is left is refused.
   */
  refundedAmount?: string | undefined
  readonly createdAt: number
  /** When the payment last became `pending` (authorised), on the simulator's `clock.now()`. */
  authorizedAt?: number | undefined
  /** The payer email the purchase named (`customer.email`), for the strrev scheme. */
  readonly payerEmail?: string | undefined
  /** The card's first 6 + last 4 digits, once the payer paid, for the strrev scheme. */
  cardDigits?: string | undefined
  /**
   * Where the hosted page sends the payer back (the purchase's `success_url`, `cancel_url` and
   * optional `error_url`), exactly as sent: nothing is appended (rule Platform 29).
   */
  readonly returnUrls?: { readonly success?: string; readonly cancel?: string; readonly error?: string }
}

export interface SimulatedSchedule {
  readonly schedule_id: string
  name: string
  interval_length: string
  interval_unit: string
  payments_count: string
}

/** One side effect, in order, for tests to inspect. */
export interface CardGatewayLedgerEntry {
  readonly at: number
  readonly kind:
    | 'session'
    | 'charge'
    | 'decline'
    | 'capture'
    | 'capture_declined'
    | 'void'
    | 'refund'
    | 'credit'
    | 'recurring_sale'
    | 'schedule_created'
    | 'schedule_deleted'
    | 'schedule_updated'
    | 'status_set'
    | 'expire'
  readonly trans_id?: string
  readonly order_id?: string
  readonly amount?: string
  readonly schedule_id?: string
  /** The state a `status_set` entry moved the payment to. */
  readonly status?: SimulatedPaymentStatus
}

/** @deprecated Use `CardGatewayLedgerEntry` (one name per service, like `CardGatewayError`); this alias goes in 1.0. */
export type LedgerEntry = CardGatewayLedgerEntry

export interface PayOptions {
  readonly card: string
  /** `MM/YYYY`; with the test card it picks the outcome (rule Platform 18). */
  readonly expiry: string
  /** Capture at once (a sale) instead of leaving the authorization `pending`. Default false. */
  readonly capture?: boolean
}

export const ACTIONS = new Set([
  'GET_TRANS_STATUS',
  'GET_TRANS_STATUS_BY_ORDER',
  'CAPTURE',
  'VOID',
  'CREDITVOID',
  'RECURRING_SALE',
  'CREATE_SCHEDULE',
  'DELETE_SCHEDULE',
  'UPDATE_SCHEDULE',
])

/** Required fields per action (rule S2S 3). */
export const REQUIRED: Readonly<Record<string, readonly string[]>> = {
  GET_TRANS_STATUS: ['trans_id'],
  GET_TRANS_STATUS_BY_ORDER: ['order_id'],
  CAPTURE: ['trans_id'],
  VOID: ['trans_id'],
  CREDITVOID: ['trans_id'],
  RECURRING_SALE: ['order_id', 'order_amount', 'order_description', 'recurring_first_trans_id', 'recurring_token'],
  CREATE_SCHEDULE: ['name', 'interval_length', 'interval_unit', 'payments_count'],
  DELETE_SCHEDULE: ['schedule_id'],
  UPDATE_SCHEDULE: ['schedule_id'],
}

/** Hash inputs per operation (rule Authentication 5; rules Platform 4 and 7 for the rest). */
export const HASH_INPUTS: Readonly<Record<string, readonly string[]>> = {
  purchase: ['order.number', 'order.amount', 'order.currency', 'order.description'],
  credit: ['order_id', 'order_amount', 'order_currency', 'order_description'],
  status: ['payment_id', 'order_id'],
  GET_TRANS_STATUS: ['trans_id'],
  GET_TRANS_STATUS_BY_ORDER: ['order_id'],
  CAPTURE: ['trans_id'],
  VOID: ['trans_id'],
  CREDITVOID: ['trans_id'],
  RECURRING_SALE: ['order_id'],
  CREATE_SCHEDULE: [],
  DELETE_SCHEDULE: ['schedule_id'],
  UPDATE_SCHEDULE: ['schedule_id'],
}

export const DEFAULT_CALLBACK_FIELDS = ['id', 'order_number', 'order_amount', 'order_currency', 'order_description']
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
export const S2S_STATUS: Readonly<Record<SimulatedPaymentStatus, string>> = {
  prepare: 'PREPARE',
  '3ds': '3DS',
  pending: 'PENDING',
  settled: 'SETTLED',
  decline: 'DECLINED',
  void: 'VOID',
  refund: 'REFUND',
}

/**
 * The simulator's own signer, written separately from the SDK's so a shared bug cannot hide:
 * PHP-like ASCII uppercase, inner digest as lowercase hex text, then sha1.
 */
export function simulatorHash(values: readonly string[], password: string, digest: Digest = 'md5'): string {
  let upper = ''
  for (const ch of values.join('') + password)
    upper += ch >= 'a' && ch <= 'z' ? String.fromCharCode(ch.charCodeAt(0) - 32) : ch
  const inner = createHash(digest).update(Buffer.from(upper, 'utf8')).digest('hex')
  return createHash('sha1').update(inner).digest('hex')
}

/**
 * The simulator's own strrev-scheme hash, written apart from the SDK's: `md5(UPPER(text))` where the
 * caller builds `text` from the reversed parts (`reverse`), PHP-like ASCII uppercase, UTF-8.
 */
export function simulatorStrrevHash(text: string): string {
  let upper = ''
  for (const ch of text) upper += ch >= 'a' && ch <= 'z' ? String.fromCharCode(ch.charCodeAt(0) - 32) : ch
  return createHash('md5').update(Buffer.from(upper, 'utf8')).digest('hex')
}

/** Reverses a string by code points (what the strrev scheme does with each reversed part). */
export function reverse(text: string): string {
  let out = ''
  for (const ch of text) out = ch + out
  return out
}

/**
 * Builds a correctly signed form-encoded callback body (rule Platform 15 order by default):
 * the fields in the given order, then `hash`.
 */
export function signCallback(
  fields: Readonly<Record<string, string>>,
  password: string,
  options: { fieldOrder?: readonly string[]; digest?: Digest } = {},
): string {
  const order = options.fieldOrder ?? DEFAULT_CALLBACK_FIELDS
  const hash = simulatorHash(
    order.map((name) => fields[name] ?? ''),
    password,
    options.digest,
  )
  const params = new URLSearchParams()
  for (const [name, value] of Object.entries(fields)) params.append(name, value)
  params.append('hash', hash)
  return params.toString()
}

export class Reply {
  constructor(
    readonly status: number,
    readonly body: Record<string, unknown>,
  ) {}
}

export function readPath(fields: Record<string, unknown>, path: string): string | undefined {
  let current: unknown = fields
  for (const step of path.split('.')) {
    if (typeof current !== 'object' || current === null) return undefined
    current = (current as Record<string, unknown>)[step]
  }
  return typeof current === 'string' ? current : current === undefined || current === null ? undefined : String(current)
}

export function normaliseIp(address: string): string {
  return address.startsWith('::ffff:') ? address.slice(7) : address
}

/**
 * The tokens a payment's answers and callbacks carry: `card_token` when the purchase asked for it
 * (`req_token: true`, rule Platform 26), `recurring_token` for an initial recurring payment.
 */
export function tokensOf(p: SimulatedPayment): Record<string, string> {
  const tokens: Record<string, string> = {}
  if (p.tokenise && p.card_token) tokens['card_token'] = p.card_token
  if (p.recurring_token) tokens['recurring_token'] = p.recurring_token
  return tokens
}
