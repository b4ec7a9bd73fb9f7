/** The `CardGateway` options: their types, and the checks that read them into rules, signer settings and paths. */

import { type ClientOptions, type RequestInput, RequestValidationError, type Secret } from '@paywire/core'
import { readCredentials } from '@paywire/core/engine'
import { AMOUNT_FORMS, type AmountForm } from './amount.js'
import { type CardGatewayOperation, SIGNED_OPERATIONS } from './endpoints.js'
import { DEFAULT_RULES, type RequestRules } from './fields.js'
import type { PayerLookup, SignatureOption } from './signing/presets.js'
import type { DigestName, UppercaseMode } from './signing/signature.js'

/**
 * Defaults that rest on the platform's public documentation (the Platform rules); each can be
 * overridden for a gateway that differs. Omitted members keep the platform default.
 */
export interface CardGatewayPlatformDefaults {
  /** `interval_unit` values CREATE_SCHEDULE and UPDATE_SCHEDULE accept. Platform default: `['day', 'month']`. */
  readonly intervalUnits?: readonly string[]
  /** Length bounds of purchase `order.description`, in characters. Platform default: `{ min: 2, max: 1024 }`. */
  readonly orderDescriptionLength?: { readonly min: number; readonly max: number }
  /** Longest purchase `order.number`, in characters. Platform default: `255`. */
  readonly orderNumberMaxLength?: number
  /**
   * Uppercasing of the signature input. Platform default `'ascii'` (PHP `strtoupper`: only `a`–`z`);
   * `'unicode'` uppercases every letter (`é`→`É`, `ß`→`SS`), for gateways signing with `mb_strtoupper`.
   */
  readonly uppercase?: UppercaseMode
  /**
   * Uppercasing of the callback hash input, set apart from `uppercase` because platform clients are
   * seen signing requests with `mb_strtoupper` while callbacks use `strtoupper`. Default `'ascii'`.
   */
  readonly callbackUppercase?: UppercaseMode
  /**
   * How amounts (purchase `order.amount`, RECURRING_SALE `order_amount`, CAPTURE and CREDITVOID
   * `amount`) are checked before sending; credit's `order_amount` is always two decimals (the credit
   * endpoint's own rule, whatever this says). Default `'two-decimals'`: the
   * gateway's rule, two decimals in every currency (`10.50` KWD, `100.00` ISK). `'per-currency'`
   * opts in to the platform's forms (rule Platform 22: `10.500` KWD, `100` ISK, `1000.00` JPY); write
   * them with `formatAmount(minor, currency, { form: 'per-currency' })`.
   */
  readonly amountForm?: AmountForm
  /**
   * Whether the gateway deduplicates S2S RECURRING_SALE by `order_id` for 15 s, as it does Checkout
   * purchases (rule Limits 1 names `merchant_key`, which S2S does not send, so this is not
   * published). Default `false`: a RECURRING_SALE whose request may have arrived is never sent again;
   * its error says `outcomeUnknown` and `reconcile()` settles it. `true` (only when your account's
   * documentation confirms it): retried like a purchase, inside the window, with the identical body.
   */
  readonly recurringSaleDedup?: boolean
}

/** Options of `new CardGateway(...)`; every platform default (the Platform rules) can be overridden here. */
export interface CardGatewayOptions extends ClientOptions {
  /** Checkout base URL (`{base_url}` of the card gateway); https, or http on loopback for the simulator. */
  checkoutUrl: string
  /** S2S CARD base URL (`{s2s_url}`); requests go to `{s2sUrl}/post`. */
  s2sUrl: string
  /** Checkout `merchant_key` (sent in the body). */
  merchantKey: string | Secret
  /** S2S CARD `client_key` (sent in the body). */
  clientKey: string | Secret
  /** The merchant secret: never sent, only the last hash input (rule Authentication 2). */
  password: string | Secret
  /** Which environment the keys belong to; only sharpens messages (e.g. the 220002 key-mixing hint). */
  environment?: 'sandbox' | 'production'
  /**
   * Inner digest of the seed formula `sha1(inner(UPPER(...)))`: `md5` (default) or `sha256` (an
   * admin option, rule Platform 3). It applies wherever the seed formula signs: every operation on
   * the `seed` preset, Checkout on `card-md5-strrev`.
   */
  digest?: DigestName
  /**
   * How requests are signed and callbacks verified: a preset, or your own signer function.
   * `'seed'` (default): `sha1(md5(UPPER(inputs… + password)))` everywhere. `'card-md5-strrev'`: the
   * platform's S2S CARD scheme for brands that sign with plain MD5 over the reversed payer email,
   * the password, the trans_id and the reversed card digits (S2S actions and S2S callbacks; Checkout
   * keeps the seed formula); it needs `payerLookup`. A function gets the wire fields (or a
   * callback's fields) and the password and returns the hex hash, for brands no preset covers.
   */
  signature?: SignatureOption
  /**
   * The payer email and card digits (or token) of a payment, by its trans_id / order_id: required by
   * `signature: 'card-md5-strrev'`, which hashes them although S2S requests and callbacks never carry
   * them. Synchronous; `undefined` for an unknown payment (the request is not sent, the callback refused).
   */
  payerLookup?: PayerLookup
  /**
   * Per-operation hash input field lists (wire names, `order.number` for nested), password excluded.
   * `'s2s.createSchedule'` has no default and must be set before `s2s.createSchedule` sends: its
   * inputs are not published, and a guessed list would either fail ("Hash is not valid") or, if it
   * were the password alone, let anyone who sees one request sign any schedule. `[]` signs the
   * password alone, knowingly.
   */
  hashInputs?: Partial<Record<CardGatewayOperation, readonly string[]>>
  /** Callback hash input order; default `id, order_number, order_amount, order_currency, order_description`. */
  callbackFields?: readonly string[]
  /**
   * The signed fields, in order, of S2S CARD callbacks (they carry `action`) on the seed signature,
   * password last, through the seed digest chain. No default: the platform publishes this signature
   * only for `card-md5-strrev` (rule Platform 30), so without it such a callback is refused
   * (`missing_signed_fields`), never verified by a guess. Check one real callback from your sandbox
   * with `paywire callback capture`. A list without `action`, `result` and `status` authenticates the
   * transaction only: the event is `authenticated: 'transaction-only'` and the inbox confirms its
   * state by `s2s.getTransStatus` before `onEvent`.
   */
  s2sCallbackFields?: readonly string[]
  /**
   * The passwords a callback may be signed with, for a password rotation: `password` (the one
   * requests sign with) first, then the other one of the rotation, until no callback arrives signed
   * with it (a verified event says `passwordIndex` when a non-first one matched). Default
   * `[password]`. Requests always sign with `password` alone. A non-empty list of non-empty strings
   * or `Secret`s, no two alike, whose first is `password`: a list without it would refuse every
   * callback the gateway signs with the password your requests use.
   */
  callbackPasswords?: readonly (string | Secret)[]
  /** Checkout paths (rules Platform 5, 7): purchase `/api/v1/session`, status `/api/v1/payment/status`. */
  paths?: { purchase?: string; status?: string }
  /**
   * Platform rule: redirect targets (`success_url`, `cancel_url`, `expiry_url`, `error_url`,
   * `term_url_3ds`) must be public HTTPS URLs, so loopback, private, link-local and unspecified
   * addresses and single-label or local-only names are refused before sending. `true` allows them
   * (still `https:` only) for sandboxes and staging hosts the payer's browser can reach privately.
   * Default `false`.
   */
  allowPrivateRedirectUrls?: boolean
  /** Overrides of the platform defaults (schedule units, purchase lengths, signature uppercasing). */
  platformDefaults?: CardGatewayPlatformDefaults
}

/** Raw escape hatch input: any path below one of the two base URLs (`base` is required: there are two). */
export interface CardGatewayRawRequest extends RequestInput<'checkout' | 's2s'> {
  /** Which base URL the path is under. */
  readonly base: 'checkout' | 's2s'
}

/**
 * `callbackPasswords`, checked like `password` (each non-empty, no control characters, no
 * surrounding whitespace) plus: a non-empty list, no two alike (a repeat is a paste mistake that
 * would hide a missing password). Errors name `callbackPasswords[i]` and never quote a value.
 */
export function readCallbackPasswords(given: unknown): Secret[] {
  if (!Array.isArray(given)) invalid('callbackPasswords', 'must be a list of passwords (strings or Secrets)')
  if (given.length === 0) invalid('callbackPasswords', 'must list at least one password (omit it to use password)')
  const names = given.map((_, i) => `callbackPasswords[${i}]`)
  const read = readCredentials(
    'CardGateway',
    Object.fromEntries(names.map((name, i) => [name, given[i]])),
    Object.fromEntries(names.map((name) => [name, 'text' as const])),
  )
  const secrets = names.map((name) => read[name] as Secret)
  const first = new Map<string, number>()
  secrets.forEach((secret, i) => {
    const seen = first.get(secret.reveal())
    if (seen !== undefined) invalid(`callbackPasswords[${i}]`, `is the same password as callbackPasswords[${seen}]`)
    first.set(secret.reveal(), i)
  })
  return secrets
}

/**
 * The rotation's one order: `callbackPasswords[0]` is `password`. A list that leaves it out refuses
 * every callback signed like the requests; one that puts it later makes `passwordIndex` mean nothing.
 */
export function checkRotationOrder(password: Secret, list: readonly Secret[]): void {
  const at = list.findIndex((secret) => secret.reveal() === password.reveal())
  if (at === 0) return
  if (at === -1) {
    invalid(
      'callbackPasswords',
      'must list password first (the one requests sign with), then the other password of the rotation: without it every callback signed with the password your requests use is refused',
    )
  }
  invalid(
    'callbackPasswords',
    `lists password at callbackPasswords[${at}]: list it first (the one requests sign with), then the other password of the rotation`,
  )
}

/** Refuses a constructor option: the error names the option and the rule, never its value. */
export function invalid(path: string, message: string): never {
  throw new RequestValidationError('CardGateway', [{ path, message }], 'options')
}

function isCount(value: unknown, min: number): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= min
}

/** The client's rules: the platform defaults with the caller's overrides, each checked. */
export function resolveRules(allowPrivate: unknown, given: CardGatewayPlatformDefaults | undefined): RequestRules {
  if (allowPrivate !== undefined && typeof allowPrivate !== 'boolean') {
    invalid('allowPrivateRedirectUrls', 'must be true or false')
  }
  const overrides = given ?? {}
  const units = overrides.intervalUnits ?? DEFAULT_RULES.intervalUnits
  if (!Array.isArray(units) || units.length === 0 || !units.every((u) => typeof u === 'string' && u !== '')) {
    invalid('platformDefaults.intervalUnits', 'must be a non-empty list of non-empty strings')
  }
  const description = overrides.orderDescriptionLength ?? DEFAULT_RULES.orderDescriptionLength
  if (!isCount(description.min, 0) || !isCount(description.max, 1) || description.min > description.max) {
    invalid(
      'platformDefaults.orderDescriptionLength',
      'must be { min, max } with whole numbers 0 <= min <= max, max >= 1',
    )
  }
  const numberMax = overrides.orderNumberMaxLength ?? DEFAULT_RULES.orderNumberMaxLength
  if (!isCount(numberMax, 1)) invalid('platformDefaults.orderNumberMaxLength', 'must be a whole number >= 1')
  const amountForm = overrides.amountForm ?? DEFAULT_RULES.amountForm
  if (!AMOUNT_FORMS.includes(amountForm)) {
    invalid('platformDefaults.amountForm', 'must be "two-decimals" (the default) or "per-currency"')
  }
  const recurringSaleDedup = overrides.recurringSaleDedup ?? DEFAULT_RULES.recurringSaleDedup
  if (typeof recurringSaleDedup !== 'boolean') invalid('platformDefaults.recurringSaleDedup', 'must be true or false')
  return {
    allowPrivateRedirectUrls: allowPrivate === true,
    intervalUnits: Object.freeze([...units]),
    orderDescriptionLength: Object.freeze({ min: description.min, max: description.max }),
    orderNumberMaxLength: numberMax,
    amountForm,
    recurringSaleDedup,
  }
}

/** An uppercasing option (`platformDefaults.uppercase` or `.callbackUppercase`): `'ascii'` (default) or `'unicode'`. */
export function checkUppercase(value: unknown, path = 'platformDefaults.uppercase'): UppercaseMode {
  if (value === undefined) return 'ascii'
  if (value === 'ascii' || value === 'unicode') return value
  return invalid(path, 'must be "ascii" or "unicode"')
}

/**
 * `hashInputs`: for signed operations only, each a list of wire field names (non-empty strings, `order.number`
 * for nested fields), copied so a later change to the caller's arrays cannot change what is signed.
 */
export function checkHashInputs(given: unknown): Partial<Record<CardGatewayOperation, readonly string[]>> {
  if (given === undefined) return {}
  if (typeof given !== 'object' || given === null || Array.isArray(given)) {
    return invalid('hashInputs', 'must be an object: operation name → list of wire field names')
  }
  const lists: Partial<Record<CardGatewayOperation, readonly string[]>> = {}
  for (const [operation, names] of Object.entries(given)) {
    const path = `hashInputs.${operation}`
    if (!Object.hasOwn(SIGNED_OPERATIONS, operation)) {
      invalid(path, `is not a signed operation; one of ${Object.keys(SIGNED_OPERATIONS).join(', ')}`)
    }
    if (!Array.isArray(names)) invalid(path, 'must be an array of wire field names')
    const list: string[] = []
    // By index, not by iteration helpers that skip holes: a hole is a missing name, refused like any other.
    for (let i = 0; i < names.length; i++) {
      const name: unknown = names[i]
      if (typeof name !== 'string' || name === '') {
        invalid(`${path}[${i}]`, 'must be a wire field name: a non-empty string (`order.number` for a nested field)')
      }
      list.push(name as string)
    }
    lists[operation as CardGatewayOperation] = Object.freeze(list)
  }
  return lists
}

/** A Checkout path override (`paths.purchase`, `paths.status`): one leading `/`, never `//` (another host). */
export function checkPath(name: string, value: string | undefined, fallback: string): string {
  if (value === undefined) return fallback
  if (!value.startsWith('/') || value.startsWith('//')) {
    invalid(name, 'must be a path starting with a single "/"')
  }
  return value
}
