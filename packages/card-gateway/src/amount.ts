/**
 * Amount strings. Amounts are hashed, so the exact string matters: one rule decides both how
 * `formatAmount` writes an amount and which strings the SDK sends. The gateway's rule comes first:
 * every amount goes on the wire with two decimals (rule Interfaces: `10.00`), in every currency.
 * The platform's per-currency forms (rule Platform 22: three decimals for KWD, none for ISK) are an
 * explicit opt-in, `platformDefaults.amountForm: 'per-currency'`.
 */

import { RequestValidationError, type ValidationIssue } from '@paywire/core'

/** ISO 4217 minor units of the currencies that do not have two (every other code has two). */
const MINOR_UNITS: Readonly<Record<string, number>> = {
  BIF: 0,
  CLP: 0,
  DJF: 0,
  GNF: 0,
  ISK: 0,
  JPY: 0,
  KMF: 0,
  KRW: 0,
  PYG: 0,
  RWF: 0,
  UGX: 0,
  UYI: 0,
  VND: 0,
  VUV: 0,
  XAF: 0,
  XOF: 0,
  XPF: 0,
  BHD: 3,
  IQD: 3,
  JOD: 3,
  KWD: 3,
  LYD: 3,
  OMR: 3,
  TND: 3,
  CLF: 4,
  UYW: 4,
}

/** Zero-decimal currencies this platform nevertheless takes with two zero decimals (`100.00`). */
const SENT_WITH_ZERO_CENTS: ReadonlySet<string> = new Set(['CLP', 'JPY', 'KRW', 'UGX'])

/** A currency code as the gateway takes it: three capital letters (ISO 4217 alphabetic). */
export const CURRENCY_PATTERN = /^[A-Z]{3}$/

/** The currency rule, in words, for messages. */
export const CURRENCY_RULE = 'must be a three-letter ISO 4217 currency code in capitals, e.g. "USD"'

/**
 * How amounts are written: `'two-decimals'` (default: the gateway's rule, `10.00` in every currency)
 * or `'per-currency'` (the platform's forms: ISO 4217 decimals, two zero decimals for CLP, JPY, KRW
 * and UGX; rule Platform 22).
 */
export type AmountForm = 'two-decimals' | 'per-currency'

/** The amount forms, for option checks. */
export const AMOUNT_FORMS: readonly AmountForm[] = ['two-decimals', 'per-currency']

/** Options of `formatAmount`. */
export interface FormatAmountOptions {
  /** Default `'two-decimals'`; `'per-currency'` when the client has `platformDefaults.amountForm: 'per-currency'`. */
  readonly form?: AmountForm
}

interface WireFormat {
  /** Minor units of the currency (ISO 4217). */
  readonly exponent: number
  /** Decimals written on the wire: the exponent, or 2 for the zero-decimal exceptions. */
  readonly decimals: number
}

function wireFormat(currency: string, form: AmountForm): WireFormat {
  const exponent = MINOR_UNITS[currency] ?? 2
  if (form === 'two-decimals') return { exponent, decimals: 2 }
  return { exponent, decimals: SENT_WITH_ZERO_CENTS.has(currency) ? 2 : exponent }
}

/**
 * Writes an amount given in minor units (cents, fils; whole yen for JPY) as the exact string the
 * gateway signs: with two decimals by default (rule Interfaces), `formatAmount(1050, 'USD')` is
 * `"10.50"`, `formatAmount(10500, 'KWD')` is `"10.50"`, `formatAmount(100, 'ISK')` is `"100.00"`;
 * an amount finer than a cent (10.505 KWD) is refused. With `{ form: 'per-currency' }` it writes the
 * platform's form (rule Platform 22): `"10.500"` KWD, `"100"` ISK, `"1000.00"` JPY.
 * Throws `RequestValidationError` for a negative or fractional amount or a malformed currency.
 */
export function formatAmount(minorUnits: number | bigint, currency: string, options: FormatAmountOptions = {}): string {
  const issues: ValidationIssue[] = []
  const form = options.form ?? 'two-decimals'
  if (!AMOUNT_FORMS.includes(form)) {
    issues.push({ path: 'options.form', message: 'must be "two-decimals" or "per-currency"' })
  }
  if (typeof currency !== 'string' || !CURRENCY_PATTERN.test(currency)) {
    issues.push({ path: 'currency', message: CURRENCY_RULE })
  }
  const whole =
    typeof minorUnits === 'bigint' ||
    (typeof minorUnits === 'number' && Number.isSafeInteger(minorUnits) && !Object.is(minorUnits, -0))
  if (!whole || minorUnits < 0) {
    issues.push({
      path: 'minorUnits',
      message: 'must be a whole number of minor units >= 0 (a safe integer or a bigint), e.g. 1050 for 10.50',
    })
  }
  if (issues.length > 0) throw new RequestValidationError('formatAmount', issues)
  const { exponent, decimals } = wireFormat(currency, form)
  const digits = BigInt(minorUnits)
    .toString()
    .padStart(exponent + 1, '0')
  const units = digits.slice(0, digits.length - exponent)
  const minor = digits.slice(digits.length - exponent)
  if (minor.length > decimals && /[^0]/.test(minor.slice(decimals))) {
    throw new RequestValidationError('formatAmount', [
      {
        path: 'minorUnits',
        message: `is ${units}.${minor} ${currency}, which cannot be written with the two decimals the gateway takes: round it to a whole hundredth (or, if your gateway takes ${currency} with ${exponent} decimals, set platformDefaults.amountForm: 'per-currency' and pass { form: 'per-currency' })`,
      },
    ])
  }
  const fraction = minor.slice(0, decimals).padEnd(decimals, '0')
  return decimals === 0 ? units : `${units}.${fraction}`
}

/** The amount pattern of each (exponent, decimals) pair, built once: a handful exist. */
const AMOUNT_PATTERNS = new Map<string, RegExp>()

function amountPattern(exponent: number, decimals: number): RegExp {
  const key = `${exponent}/${decimals}`
  let pattern = AMOUNT_PATTERNS.get(key)
  if (pattern === undefined) {
    const fraction = exponent === 0 ? '0'.repeat(decimals) : `\\d{${decimals}}`
    pattern = new RegExp(`^(0|[1-9]\\d*)${decimals === 0 ? '' : `\\.${fraction}`}$`)
    AMOUNT_PATTERNS.set(key, pattern)
  }
  return pattern
}

/**
 * Why `amount` is not a wire amount of `currency` in `form`, or `undefined` when it is. By default
 * (rule Interfaces) every amount has exactly two decimals, `.00` for a currency without a minor
 * unit. With `'per-currency'` (rule Platform 22) each currency's own form; without a currency (a
 * partial capture or refund names none) any currency's shape is accepted. Amounts are positive, with
 * no sign, exponent or leading zeros.
 */
export function amountProblem(
  amount: string,
  currency: string | undefined,
  form: AmountForm = 'two-decimals',
): string | undefined {
  const positive = !/^0(\.0+)?$/.test(amount)
  const known = currency !== undefined && CURRENCY_PATTERN.test(currency)
  if (form === 'two-decimals') {
    const exponent = known ? (MINOR_UNITS[currency] ?? 2) : 2
    if (amountPattern(exponent === 0 ? 0 : 2, 2).test(amount) && positive) return undefined
    const shape = exponent === 0 && known ? `written with ".00" (${currency} has no minor unit)` : 'e.g. "10.50"'
    return `must be a positive amount with exactly two decimals, ${shape}: the gateway takes every amount with two decimals (formatAmount writes it)`
  }
  if (!known) {
    if (/^(0|[1-9]\d*)(\.\d{2,4})?$/.test(amount) && positive) return undefined
    return (
      'must be a positive decimal amount written as its currency takes it: whole, or with 2 decimals ' +
      '(3 or 4 for some currencies), e.g. "10.50"'
    )
  }
  const { exponent, decimals } = wireFormat(currency, form)
  if (amountPattern(exponent, decimals).test(amount) && positive) return undefined
  const example = formatAmount(exponent === 0 ? 1000 : 1050 * 10 ** (exponent - 2), currency, { form })
  const shape =
    decimals === 0
      ? `a whole number with no decimals (${currency} has no minor unit)`
      : exponent === 0
        ? `a whole number written with ".00" (${currency} has no minor unit, and the gateway takes it with two zero decimals)`
        : `exactly ${decimals} decimals`
  return `must be a positive ${currency} amount: ${shape}, e.g. "${example}" (formatAmount with { form: 'per-currency' } writes it)`
}

/**
 * An amount string in minor units of `currency` (`"10.50"` USD is 1050n, `"10.500"` KWD 10500n,
 * `"100.00"` JPY 100n), or `undefined` when it is not a plain positive-or-zero decimal or has
 * non-zero digits finer than the currency's minor unit. Sums of amounts (a payment's refunded total)
 * are kept this way, never in floating point.
 */
export function toMinorUnits(amount: string, currency: string | undefined): bigint | undefined {
  const match = /^(\d+)(?:\.(\d+))?$/.exec(amount)
  if (match === null) return undefined
  // Own keys only: a currency named like an Object method (`constructor`) is not a table entry.
  const exponent = (currency !== undefined && Object.hasOwn(MINOR_UNITS, currency) ? MINOR_UNITS[currency] : 2) ?? 2
  const fraction = match[2] ?? ''
  if (/[^0]/.test(fraction.slice(exponent))) return undefined
  return BigInt(`${match[1]}${fraction.slice(0, exponent).padEnd(exponent, '0')}`)
}

/**
 * `minorUnits` of `currency` written like `sample` (another amount of the same payment): in the
 * platform's per-currency form when `sample` is (`"10.500"` KWD, `"100"` ISK), else with two decimals.
 */
export function formatAmountLike(minorUnits: bigint, currency: string, sample: string): string {
  const decimals = sample.includes('.') ? (sample.split('.')[1]?.length ?? 0) : 0
  const form: AmountForm = decimals === 2 ? 'two-decimals' : 'per-currency'
  return formatAmount(minorUnits, CURRENCY_PATTERN.test(currency) ? currency : 'USD', { form })
}
